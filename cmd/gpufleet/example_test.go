package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// example NAME DIR copies the example fleet fleets/NAME into DIR, so a
// script can edit a real fleet rather than a copy of it that drifts.
func example(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: example NAME DIR")
	}
	src := filepath.Join("..", "..", "fleets", args[0])
	entries, err := os.ReadDir(src)
	ts.Check(err)
	dst := ts.MkAbs(args[1])
	ts.Check(os.MkdirAll(dst, 0o755))
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		ts.Check(err)
		ts.Check(os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644))
	}
}

// edit FILE OLD NEW [N] replaces the one occurrence of OLD in FILE with NEW
// (\n and \t in either are a newline and a tab), repeated N times if given; it fails unless OLD occurs exactly once, so
// an edit never silently stops applying when the example changes.
func edit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 && len(args) != 4 {
		ts.Fatalf("usage: edit FILE OLD NEW [N]")
	}
	file := ts.MkAbs(args[0])
	b, err := os.ReadFile(file)
	ts.Check(err)
	old, repl := unescape(args[1]), unescape(args[2])
	if len(args) == 4 {
		n, err := strconv.Atoi(args[3])
		ts.Check(err)
		repl = strings.Repeat(repl, n)
	}
	if n := strings.Count(string(b), old); n != 1 {
		ts.Fatalf("edit: %q occurs %d times in %s, want once", old, n, args[0])
	}
	ts.Check(os.WriteFile(file, []byte(strings.Replace(string(b), old, repl, 1)), 0o644))
}

// size-at-most FILE N fails if FILE holds more than N bytes.
func sizeAtMost(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: size-at-most FILE N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	fi, err := os.Stat(ts.MkAbs(args[0]))
	ts.Check(err)
	if fi.Size() > int64(n) {
		ts.Fatalf("%s is %d bytes, over %d", args[0], fi.Size(), n)
	}
}

func unescape(s string) string { return strings.NewReplacer(`\n`, "\n", `\t`, "\t").Replace(s) }
