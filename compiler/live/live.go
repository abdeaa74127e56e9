// Package live reads what a running cluster reports: the output of
// 'kubectl get nodes -o json' and 'kubectl get pods -A -o json'. Reading is
// bounded (MaxBytes, and the spec's ceilings on every quantity), items are
// decoded as the API server decodes a request body (sigs.k8s.io/json:
// field names matched exactly, a duplicate field refused), and every error
// is at its file:line:col, naming the node or pod.
package live

import (
	"bytes"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/diag"
)

// MaxBytes bounds a nodes or pods file. 'kubectl get nodes -o json' is
// about 10 KiB a node, so 5,000 nodes (Kubernetes' tested limit) fit;
// a busy cluster's pods may not, and then a namespace at a time does.
const MaxBytes = 256 << 20

// limit is MaxBytes; tests lower it.
var limit int64 = MaxBytes

// Error is a file that cannot be read as the list it should be.
type Error struct {
	Pos diag.Pos
	Msg string
}

func (e *Error) Error() string {
	if p := e.Pos.String(); p != "" {
		return p + ": " + e.Msg
	}
	return e.Msg
}

// ReadNodes reads a v1 NodeList (kubectl's "List" of Nodes) from r, which
// name names in errors. Each node's capacity and allocatable are within
// the ceilings (ceiling).
func ReadNodes(name string, r io.Reader) ([]corev1.Node, error) {
	f, err := readFile(name, r, "kubectl get nodes -o json")
	if err != nil {
		return nil, err
	}
	items, err := decodeList[corev1.Node](f, "Node")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i := range items {
		n := &items[i]
		if err := item(f, i, n.Kind, n.Name, "Node", seen); err != nil {
			return nil, err
		}
		if err := nodeBounded(n); err != nil {
			return nil, &Error{Pos: f.itemPos(i), Msg: fmt.Sprintf("node %s: %v", n.Name, err)}
		}
	}
	return items, nil
}

// ReadPods reads a v1 PodList (kubectl's "List" of Pods) from r. A pod
// bound to a node must be bound to one of nodes, read from nodesFile
// (kubectl lists both at one moment, or a pod may be on a node the nodes
// file no longer holds), and the pods on a node may request at most the
// ceilings between them.
func ReadPods(name string, r io.Reader, nodesFile string, nodes []corev1.Node) ([]corev1.Pod, error) {
	f, err := readFile(name, r, "kubectl get pods -A -o json")
	if err != nil {
		return nil, err
	}
	items, err := decodeList[corev1.Pod](f, "Pod")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	on := newRequested(nodes)
	for i := range items {
		p := &items[i]
		if err := item(f, i, p.Kind, p.Namespace+"/"+p.Name, "Pod", seen); err != nil {
			return nil, err
		}
		if err := podBounded(p, nodesFile, on); err != nil {
			return nil, &Error{Pos: f.itemPos(i), Msg: fmt.Sprintf("pod %s/%s: %v", p.Namespace, p.Name, err)}
		}
	}
	return items, nil
}

// item checks one item: of the list's kind (kubectl sets it; a typed
// client's list leaves it empty), named, and named once.
func item(f *file, i int, kind, name, want string, seen map[string]bool) error {
	switch {
	case kind != "" && kind != want:
		return &Error{Pos: f.itemPos(i), Msg: fmt.Sprintf("items[%d] is a %s, not a %s", i, kind, want)}
	case name == "" || name == "/" || name[len(name)-1] == '/':
		return &Error{Pos: f.itemPos(i), Msg: fmt.Sprintf("items[%d] has no name", i)}
	case seen[name]:
		return &Error{Pos: f.itemPos(i), Msg: fmt.Sprintf("items[%d]: %s %s is listed twice", i, want, name)}
	}
	seen[name] = true
	return nil
}

// file is a live file's bytes, without a UTF-8 byte order mark, which
// RFC 8259 lets a parser ignore (PowerShell's Out-File writes one); skip
// is its length, so that positions count the file's own bytes.
type file struct {
	name string
	data []byte
	skip int
	cmd  string
}

// TooLarge reports a file of size bytes past the bound, as readFile
// would after reading it, so that a caller who can stat the file refuses
// it before reading a byte.
func TooLarge(name string, size int64) error {
	if size <= limit {
		return nil
	}
	return &Error{Pos: diag.Pos{File: name}, Msg: fmt.Sprintf("larger than %d MiB", limit>>20)}
}

func readFile(name string, r io.Reader, cmd string) (*file, error) {
	at := diag.Pos{File: name}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, &Error{Pos: at, Msg: err.Error()}
	}
	if int64(len(data)) > limit {
		return nil, &Error{Pos: at, Msg: fmt.Sprintf("larger than %d MiB", limit>>20)}
	}
	f := &file{name: name, data: data, cmd: cmd}
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		f.data, f.skip = data[3:], 3
	}
	if bytes.HasPrefix(data, []byte("\xff\xfe")) || bytes.HasPrefix(data, []byte("\xfe\xff")) {
		return nil, &Error{Pos: at, Msg: fmt.Sprintf("UTF-16 text: want the UTF-8 JSON of '%s' (Windows PowerShell's > writes UTF-16; use Out-File -Encoding utf8)", cmd)}
	}
	if len(bytes.TrimSpace(f.data)) == 0 {
		return nil, &Error{Pos: at, Msg: fmt.Sprintf("empty: want the JSON of '%s'", cmd)}
	}
	return f, nil
}

// itemPos is where item i begins, or the file if that cannot be found.
func (f *file) itemPos(i int) diag.Pos {
	if off, ok := f.itemOffset(i); ok {
		return f.pos(off)
	}
	return diag.Pos{File: f.name}
}

// pos is the 1-based line and column (in bytes) of offset in f.data.
func (f *file) pos(offset int64) diag.Pos {
	o := int(max(0, min(offset, int64(len(f.data)))))
	before := f.data[:o]
	line := bytes.Count(before, []byte("\n")) + 1
	col := o - bytes.LastIndexByte(before, '\n')
	if line == 1 {
		col += f.skip
	}
	return diag.Pos{File: f.name, Line: line, Column: col}
}
