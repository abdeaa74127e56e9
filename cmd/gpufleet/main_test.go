package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/gpufleet/gpufleet/internal/cli"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// update rewrites the golden stdout and stderr files inside the scripts:
//
//	go test ./cmd/gpufleet -update
var update = flag.Bool("update", false, "update golden files in testdata/script from actual output")

// TestMain lets the scripts run gpufleet as a command: testscript re-executes
// this test binary under the name "gpufleet".
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"gpufleet": func() { os.Exit(cli.Main()) },
	})
}

// TestScript runs every testdata/script/*.txtar. Each script pins one
// behaviour of the CLI: its exit status (exec, or ! exec for a failure; the
// exact codes are pinned by TestExitCodes in internal/cli), its exact stdout
// and stderr, and what it wrote or did not write.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"gen-deep":     genDeep,
			"gen-big":      genBig,
			"gen-sparse":   genSparse,
			"gen-binary":   genBinary,
			"gen-random":   genRandom,
			"tree-sum":     treeSum,
			"gen-nodes":    genNodes,
			"edit-node":    editNode,
			"example":      example,
			"edit":         edit,
			"size-at-most": sizeAtMost,
		},
	})
}

// Custom commands that make inputs a txtar archive cannot hold.

// gen-deep FILE N writes a spec whose cluster is N nested lists: JSON if
// FILE ends in .json, else YAML.
func genDeep(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: gen-deep FILE N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	lists := strings.Repeat("[", n) + strings.Repeat("]", n)
	data := "cluster: " + lists + "\n"
	if strings.HasSuffix(args[0], ".json") {
		data = `{"cluster": ` + lists + "}\n"
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(data), 0o644))
}

// gen-big FILE MB writes a YAML spec of about MB megabytes: a valid fleet
// followed by comment lines.
func genBig(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: gen-big FILE MB")
	}
	mb, err := strconv.Atoi(args[1])
	ts.Check(err)
	f, err := os.Create(ts.MkAbs(args[0]))
	ts.Check(err)
	w := bufio.NewWriter(f)
	fmt.Fprint(w, "cluster: {provider: eks, name: demo, region: us-east-1, version: \"1.33\", zones: [us-east-1a, us-east-1b]}\n")
	line := "# " + strings.Repeat("x", 97) + "\n"
	for i := 0; i < mb<<20/len(line); i++ {
		w.WriteString(line)
	}
	ts.Check(w.Flush())
	ts.Check(f.Close())
}

// gen-sparse FILE MB writes a file of MB megabytes of NULs without
// writing them: a hole, which costs no disk and no time to make.
func genSparse(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: gen-sparse FILE MB")
	}
	mb, err := strconv.Atoi(args[1])
	ts.Check(err)
	f, err := os.Create(ts.MkAbs(args[0]))
	ts.Check(err)
	ts.Check(f.Truncate(int64(mb) << 20))
	ts.Check(f.Close())
}

// gen-binary FILE writes bytes that are not text: NULs, invalid UTF-8 and
// control characters.
func genBinary(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gen-binary FILE")
	}
	data := []byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xfe, 0x00, 0x01, 0x1b, 0xc3, 0x28, '\n'}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), data, 0o644))
}

// gen-random FILE N SEED writes N pseudo-random bytes, the same for a seed.
func genRandom(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: gen-random FILE N SEED")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	seed, err := strconv.ParseUint(args[2], 10, 64)
	ts.Check(err)
	data := make([]byte, n)
	r := rand.New(rand.NewPCG(seed, seed))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), data, 0o644))
}

// tree-sum DIR FILE writes one line per entry under DIR (path, mode, and the
// SHA-256 of a file's bytes), so that two sums compare whole trees.
func treeSum(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: tree-sum DIR FILE")
	}
	sum, err := testfleet.TreeSum(ts.MkAbs(args[0]))
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(sum), 0o644))
}
