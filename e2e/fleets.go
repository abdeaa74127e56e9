package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
)

// fleetCase is one spec the harness runs.
type fleetCase struct {
	name string
	path string
	// broken fleets are compiled with the checker's verdict ignored, to
	// prove that the real scheduler refuses them as the checker does.
	broken bool
}

// exampleFleets are the fleets/ directories.
func exampleFleets(repo string) ([]fleetCase, error) {
	dirs, err := filepath.Glob(filepath.Join(repo, "fleets", "*"))
	if err != nil {
		return nil, err
	}
	var out []fleetCase
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			out = append(out, fleetCase{name: filepath.Base(d), path: d})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no example fleets under %s/fleets", repo)
	}
	// A queued class of each ML kind (the Kueue and composed rungs' fleet),
	// so that the running Kueue's integrations meet every one, a
	// RayCluster's among them.
	out = append(out, fleetCase{name: "kinds", path: filepath.Join(repo, "compiler", "testdata", "kinds", "fleet.cue")})
	return out, nil
}

// brokenFleets are the fleet.cue files of the broken_*.txtar testscripts,
// the placement mistakes users report, extracted into dir.
func brokenFleets(repo, dir string) ([]fleetCase, error) {
	files, err := filepath.Glob(filepath.Join(repo, "cmd", "gpufleet", "testdata", "script", "broken_*.txtar"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []fleetCase
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(filepath.Base(f), ".txtar")
		for _, af := range ar.Files {
			if af.Name != "fleet.cue" {
				continue
			}
			p := filepath.Join(dir, name, "fleet.cue")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(p, af.Data, 0o644); err != nil {
				return nil, err
			}
			out = append(out, fleetCase{name: name, path: p, broken: true})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no broken_*.txtar fleets under %s", repo)
	}
	return out, nil
}
