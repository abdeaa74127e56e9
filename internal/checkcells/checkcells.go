// Package checkcells holds a check's per-cell findings on a compiled
// fleet to a table, for the check packages' tests (nodeagents,
// provisioning): one helper, so the cases read alike.
package checkcells

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// Case is a class, a pool it fits, and a part of the message a check's
// finding in that cell must carry ("" for no finding): an array, so that
// tables stay {"class", "pool", "want"} (vet asks an imported struct's
// literals for field names).
type Case [3]string

// Check compiles spec and holds one check's per-cell findings to the
// cases; it also fails unless the check found exactly total cells.
func Check(t *testing.T, spec string, id check.ID, cases []Case, total int) {
	t.Helper()
	res, err := compiler.Compile([]string{testfleet.Write(t, spec)})
	if err != nil {
		t.Fatal(err)
	}
	found := map[[2]string]string{}
	for _, fd := range res.Report.Findings {
		if fd.Check == id {
			found[[2]string{fd.Class, fd.Pool}] = fd.Message
		}
	}
	for _, tc := range cases {
		if !res.Report.Cell(tc[0], tc[1]).Fits {
			t.Fatalf("class %s does not land on %s: the case proves nothing", tc[0], tc[1])
		}
		msg, ok := found[[2]string{tc[0], tc[1]}]
		switch {
		case tc[2] == "" && ok:
			t.Errorf("%s on %s: unexpected finding %q", tc[0], tc[1], msg)
		case tc[2] != "" && !strings.Contains(msg, tc[2]):
			t.Errorf("%s on %s: finding %q, want one containing %q", tc[0], tc[1], msg, tc[2])
		}
	}
	if len(found) != total {
		t.Errorf("%d %s findings, want %d: %v", len(found), id, total, found)
	}
}
