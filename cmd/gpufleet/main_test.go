package main

import (
	"flag"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/gpufleet/gpufleet/internal/cli"
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
	})
}
