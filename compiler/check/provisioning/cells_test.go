package provisioning_test

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// cellCase is one class × pool cell the class fits, and a part of the
// message a check's finding there must carry; "" for no finding.
type cellCase struct {
	class, pool, want string
}

// checkCells compiles spec and holds one check's per-cell findings to the
// cases; it also fails unless the check found exactly total cells.
func checkCells(t *testing.T, spec string, id check.ID, cases []cellCase, total int) {
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
		if !res.Report.Cell(tc.class, tc.pool).Fits {
			t.Fatalf("class %s does not land on %s: the case proves nothing", tc.class, tc.pool)
		}
		msg, ok := found[[2]string{tc.class, tc.pool}]
		switch {
		case tc.want == "" && ok:
			t.Errorf("%s on %s: unexpected finding %q", tc.class, tc.pool, msg)
		case tc.want != "" && !strings.Contains(msg, tc.want):
			t.Errorf("%s on %s: finding %q, want one containing %q", tc.class, tc.pool, msg, tc.want)
		}
	}
	if len(found) != total {
		t.Errorf("%d %s findings, want %d: %v", len(found), id, total, found)
	}
}
