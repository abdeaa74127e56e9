package write

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// A file larger than gpufleet ever reads whole (a big fleet's report) is
// compared a piece at a time: a rebuild leaves it alone when it is
// unchanged and rewrites it when one byte differs, and diff says so.
func TestBigFileComparedInPieces(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef\n"), maxRead/17+1000)
	out := filepath.Join(t.TempDir(), "out")
	tr := tree.Tree{"report/placement.json": big, "a.yaml": []byte("a\n")}
	if _, err := Tree(out, tr); err != nil {
		t.Fatal(err)
	}
	res, err := Tree(out, tr)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Written) != 0 || !slices.Contains(res.Unchanged, "report/placement.json") {
		t.Fatalf("rebuild of an unchanged tree wrote %v, unchanged %v", res.Written, res.Unchanged)
	}
	if ch, err := Compare(out, tr); err != nil || len(ch) != 0 {
		t.Fatalf("unchanged tree: changes %+v, %v", ch, err)
	}
	// The same size, the last byte changed.
	edited := slices.Clone(big)
	edited[len(edited)-2] = 'X'
	tr["report/placement.json"] = edited
	if ch, err := Compare(out, tr); err != nil || len(ch) != 1 || ch[0].Kind != "changed" {
		t.Fatalf("edited big file: changes %+v, %v", ch, err)
	}
	if res, err = Tree(out, tr); err != nil || !slices.Equal(res.Written, []string{"report/placement.json"}) {
		t.Fatalf("rebuild after an edit wrote %v (%v)", res.Written, err)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "report/placement.json")); !bytes.Equal(got, edited) {
		t.Error("the edited file was not written")
	}
}

func TestSameContent(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("hello world"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	fi, err := root.Stat("f")
	if err != nil {
		t.Fatal(err)
	}
	h, err := openBase(root, ".")
	if err != nil {
		t.Fatal(err)
	}
	defer h.close()
	buf := make([]byte, 4) // pieces smaller than the file
	for _, tc := range []struct {
		want string
		same bool
	}{{"hello world", true}, {"hello worle", false}, {"hello", false}, {"hello world!", false}, {"", false}} {
		if same, err := sameContent(h, "f", "f", fi, []byte(tc.want), buf); err != nil || same != tc.same {
			t.Errorf("sameContent(%q) = %v, %v; want %v", tc.want, same, err, tc.same)
		}
	}
}
