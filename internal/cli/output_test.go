package cli

import (
	"bytes"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOutputFormats runs every registered format, and one that is not, with
// every command that has --format: a command accepts exactly the formats
// its help advertises and rejects the others as a usage error (exit 2).
// A format listed for a command it cannot serve fails here, as does one
// that no command accepts.
func TestOutputFormats(t *testing.T) {
	dir := t.TempDir()
	spec := writeDemoFleet(t, dir)
	tree := filepath.Join(dir, "tree")
	nodes := writeCleanNodes(t, spec, filepath.Join(dir, "nodes.json"))
	if code := Run([]string{"build", spec, "-o", tree}, io.Discard, io.Discard); code != ExitOK {
		t.Fatalf("build: exit %d", code)
	}

	var names []string
	for _, o := range outputs {
		names = append(names, o.name)
	}
	accepted := map[string]bool{}
	var commands []string
	for _, c := range NewRootCmd(io.Discard, io.Discard).Commands() {
		flag := c.Flags().Lookup("format")
		if flag == nil {
			continue
		}
		commands = append(commands, c.Name())
		usage, ok := strings.CutPrefix(flag.Usage, "output format: ")
		if !ok {
			t.Fatalf("%s --format help %q", c.Name(), flag.Usage)
		}
		advertised := strings.Split(strings.ReplaceAll(usage, " or ", ", "), ", ")
		for _, f := range append(slices.Clone(names), "no-such-format") {
			args := []string{c.Name(), "--format", f, spec}
			switch c.Name() {
			case "build":
				args = append(args, "-o", filepath.Join(dir, "build-"+f))
			case "diff", "plan":
				args = append(args, "-o", tree)
			case "drift":
				args = append(args, "--nodes", nodes)
			}
			var stdout, stderr bytes.Buffer
			code := Run(args, &stdout, &stderr)
			if slices.Contains(advertised, f) {
				accepted[f] = true
				if code != ExitOK {
					t.Errorf("%v: advertised, but exit %d\nstdout:\n%s\nstderr:\n%s", args, code, &stdout, &stderr)
				}
				continue
			}
			want := `unknown --format "` + f + `" (want ` + usage + ")"
			if code != ExitInvalid || !strings.Contains(stderr.String(), want) || stdout.Len() != 0 {
				t.Errorf("%v: not advertised, but exit %d (want %d and %q)\nstdout:\n%s\nstderr:\n%s",
					args, code, ExitInvalid, want, &stdout, &stderr)
			}
		}
	}
	// plan has formats of its own (planFormats), tried above all the same.
	commands = slices.DeleteFunc(commands, func(c string) bool { return c == "plan" })
	if !slices.Equal(commands, everyCommand) {
		t.Errorf("commands with --format %v, want %v", commands, everyCommand)
	}
	for _, f := range names {
		if !accepted[f] {
			t.Errorf("format %s is registered but no command accepts it", f)
		}
	}
}
