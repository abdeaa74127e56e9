// Package gpufleet_test holds the repository's own rules: what a fresh clone
// needs, and what the Makefile promises.
package gpufleet_test

import (
	"bufio"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A clone has nothing beside it, so nothing committed may point there.
func TestSelfContained(t *testing.T) {
	outside := []string{"../" + "shared", "DESIGN" + ".md"}
	skip := map[string]bool{".git": true, "out": true, "bin": true, ".cache": true, ".bin": true}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skip[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, o := range outside {
			if strings.Contains(string(b), o) {
				t.Errorf("%s refers to %s, which a clone does not have", path, o)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Every target a person can run is listed by `make help`.
func TestMakeHelpListsEveryTarget(t *testing.T) {
	f, err := os.Open("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var phony []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), ".PHONY:"); ok {
			phony = append(phony, strings.Fields(rest)...)
		}
	}
	if len(phony) == 0 {
		t.Fatal("no .PHONY targets in the Makefile")
	}
	out, err := exec.Command("make", "--no-print-directory", "help").Output()
	if err != nil {
		t.Fatalf("make help: %v", err)
	}
	for _, p := range phony {
		if !regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(p) + `\s`).Match(out) {
			t.Errorf("make help does not list %q:\n%s", p, out)
		}
	}
}
