// Package live reads what a running cluster reports: the output of
// 'kubectl get nodes -o json' and 'kubectl get pods -A -o json'. Reading is
// bounded (MaxBytes), and a file that is not such a list is an error at its
// file:line:col where JSON says where.
package live

import (
	"bytes"
	"encoding/json"
	"errors"
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

// list is what kubectl prints: kind List (or NodeList, PodList), its items
// each of one kind.
type list[T any] struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Items      []T    `json:"items"`
}

// ReadNodes reads a v1 NodeList (kubectl's "List" of Nodes) from r, which
// name names in errors.
func ReadNodes(name string, r io.Reader) ([]corev1.Node, error) {
	l, err := read[corev1.Node](name, r, "Node", "kubectl get nodes -o json")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, n := range l {
		if err := item(name, i, n.Kind, n.Name, "Node", seen); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// ReadPods reads a v1 PodList (kubectl's "List" of Pods) from r.
func ReadPods(name string, r io.Reader) ([]corev1.Pod, error) {
	l, err := read[corev1.Pod](name, r, "Pod", "kubectl get pods -A -o json")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, p := range l {
		if err := item(name, i, p.Kind, p.Namespace+"/"+p.Name, "Pod", seen); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// item checks one item: of the list's kind (kubectl sets it; a typed
// client's list leaves it empty), named, and named once.
func item(file string, i int, kind, name, want string, seen map[string]bool) error {
	at := diag.Pos{File: file}
	switch {
	case kind != "" && kind != want:
		return &Error{Pos: at, Msg: fmt.Sprintf("items[%d] is a %s, not a %s", i, kind, want)}
	case name == "" || name == "/" || name[len(name)-1] == '/':
		return &Error{Pos: at, Msg: fmt.Sprintf("items[%d] has no name", i)}
	case seen[name]:
		return &Error{Pos: at, Msg: fmt.Sprintf("items[%d]: %s %s is listed twice", i, want, name)}
	}
	seen[name] = true
	return nil
}

func read[T any](name string, r io.Reader, kind, cmd string) ([]T, error) {
	at := diag.Pos{File: name}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, &Error{Pos: at, Msg: err.Error()}
	}
	if int64(len(data)) > limit {
		return nil, &Error{Pos: at, Msg: fmt.Sprintf("larger than %d MiB", limit>>20)}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &Error{Pos: at, Msg: fmt.Sprintf("empty: want the JSON of '%s'", cmd)}
	}
	var l list[T]
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&l); err != nil {
		return nil, jsonError(name, data, err, cmd)
	}
	if rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return nil, &Error{Pos: posAt(name, data, len(data)-len(rest)), Msg: "more than one JSON value"}
	}
	switch {
	case l.Kind != "List" && l.Kind != kind+"List":
		return nil, &Error{Pos: at, Msg: fmt.Sprintf("kind %q, want List or %sList: the JSON of '%s'", l.Kind, kind, cmd)}
	case l.APIVersion != "v1":
		return nil, &Error{Pos: at, Msg: fmt.Sprintf("apiVersion %q, want v1", l.APIVersion)}
	}
	return l.Items, nil
}

// jsonError places a decoding error at its line and column where
// encoding/json gives the offset.
func jsonError(name string, data []byte, err error, cmd string) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return &Error{Pos: posAt(name, data, int(syn.Offset)-1), Msg: "invalid JSON: " + syn.Error()}
	case errors.As(err, &typ):
		where := typ.Field
		if where == "" {
			where = "value"
		}
		return &Error{Pos: posAt(name, data, int(typ.Offset)-1), Msg: fmt.Sprintf("%s: a JSON %s, want %s: the JSON of '%s'", where, typ.Value, typ.Type, cmd)}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &Error{Pos: posAt(name, data, len(data)), Msg: "invalid JSON: unexpected end of input"}
	}
	return &Error{Pos: diag.Pos{File: name}, Msg: err.Error()}
}

// posAt is the 1-based line and column (in bytes) of offset in data.
func posAt(name string, data []byte, offset int) diag.Pos {
	offset = max(0, min(offset, len(data)))
	before := data[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	col := offset - bytes.LastIndexByte(before, '\n')
	return diag.Pos{File: name, Line: line, Column: col}
}
