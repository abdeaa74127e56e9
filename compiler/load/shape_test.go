package load_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpufleet/gpufleet/compiler/load"
)

// A spec file's bytes that CUE would misread, crash on or take minutes
// over are refused first, at their position, and a BOM opening JSON is
// skipped as RFC 8259 allows.
func TestSpecShape(t *testing.T) {
	valid, err := os.ReadFile("testdata/valid.json")
	if err != nil {
		t.Fatal(err)
	}
	yaml := "cluster:\n  name: x\n"
	for _, tc := range []struct {
		name, file, data, err string
	}{
		// CUE's YAML decoder panicked (index out of range) on old Mac line
		// endings, and CUE read such a .cue file as one line: another spec.
		{"lone CR, YAML", "f.yaml", strings.ReplaceAll(yaml, "\n", "\r"), "f.yaml:1:9: a carriage return without a line feed"},
		{"lone CR, CUE", "f.cue", "package fleet\ra: 1\n", "f.cue:1:14: a carriage return without a line feed"},
		{"CRLF, YAML", "f.yaml", strings.ReplaceAll(yaml, "\n", "\r\n"), "cluster.region: missing required field"},
		// A stream of documents became a list, and the schema's error
		// printed the whole spec.
		{"two documents", "f.yaml", yaml + "---\nx: 1\n", "f.yaml:3:1: a second YAML document"},
		{"an end marker, then more", "f.yaml", yaml + "...\n# c\nx: 1\n", "f.yaml:3:1: a second YAML document"},
		{"one document, opened", "f.yaml", "# c\n---\n" + yaml + "...\n# end\n", "cluster.region: missing required field"},
		{"--- in a block scalar", "f.yaml", "cluster:\n  name: |\n    ---\n", "cluster.region: missing required field"},
		// 4 million digits took 59 s to parse.
		{"long number", "f.json", `{"x": ` + strings.Repeat("9", 4_000_000) + `}`, "f.json:1:7: more than 1000 digits in a row"},
		{"long digits in a string", "f.yaml", "x: \"" + strings.Repeat("1", 1001) + "\"\n", "f.yaml:1:5: more than 1000 digits in a row"},
		{"long number, CUE", "f.cue", "package fleet\nx: " + strings.Repeat("1", 5000) + "\n", "f.cue:2:4: more than 1000 digits in a row"},
		// CUE cannot load x:y.cue under any spelling.
		{"colon in a .cue name", "x:y.cue", "package fleet\n", "x:y.cue: a .cue file name may not contain ':'"},
		{"BOM, JSON", "f.json", "\xef\xbb\xbf" + string(valid), ""},
		{"BOM, JSON, positions", "f.json", "\xef\xbb\xbf{\n  \"cluster\": 1}", "f.json:2:14: cluster: conflicting values 1 and"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), tc.file)
			if err := os.WriteFile(p, []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err := load.Load([]string{p})
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			got := ""
			if err != nil {
				got = strings.ReplaceAll(err.Error(), filepath.Dir(p)+string(filepath.Separator), "")
			}
			if !strings.Contains(got, tc.err) || strings.Contains(got, "panic") {
				t.Errorf("got:\n%.400s\nwant %q", got, tc.err)
			}
		})
	}
}
