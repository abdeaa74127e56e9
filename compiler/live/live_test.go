package live

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestReadNodes(t *testing.T) {
	for _, tc := range []struct {
		name, in, err string
		nodes         int
	}{
		{name: "kubectl List", in: `{"apiVersion":"v1","kind":"List","items":[{"kind":"Node","metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}`, nodes: 2},
		{name: "NodeList", in: `{"apiVersion":"v1","kind":"NodeList","items":[]}`},
		{name: "unknown fields", in: `{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[{"metadata":{"name":"a"},"status":{"future":1}}]}`, nodes: 1},
		{name: "syntax", in: "{\"apiVersion\":\"v1\",\n  \"kind\": List}", err: "n.json:2:11: invalid JSON: invalid character 'L' looking for beginning of value"},
		{name: "truncated", in: "{\"apiVersion\":\"v1\",\n\"items\":[", err: "n.json:2:10: invalid JSON: unexpected end of input"},
		{name: "type", in: `{"apiVersion":"v1","kind":"List","items":{}}`, err: "n.json:1:42: items: a JSON object, want []"},
		{name: "empty", in: " \n", err: "n.json: empty: want the JSON of 'kubectl get nodes -o json'"},
		{name: "two values", in: `{"apiVersion":"v1","kind":"List"} {}`, err: "n.json:1:35: more than one JSON value"},
		{name: "a pod list", in: `{"apiVersion":"v1","kind":"PodList","items":[]}`, err: `n.json: kind "PodList", want List or NodeList`},
		{name: "pods in a List", in: `{"apiVersion":"v1","kind":"List","items":[{"kind":"Pod","metadata":{"name":"p"}}]}`, err: "n.json: items[0] is a Pod, not a Node"},
		{name: "a node", in: `{"apiVersion":"v1","kind":"Node","metadata":{"name":"a"}}`, err: `n.json: kind "Node", want List or NodeList`},
		{name: "apiVersion", in: `{"apiVersion":"v2","kind":"List"}`, err: `n.json: apiVersion "v2", want v1`},
		{name: "no name", in: `{"apiVersion":"v1","kind":"List","items":[{}]}`, err: "n.json: items[0] has no name"},
		{name: "twice", in: `{"apiVersion":"v1","kind":"List","items":[{"metadata":{"name":"a"}},{"metadata":{"name":"a"}}]}`, err: "n.json: items[1]: Node a is listed twice"},
		{name: "bad quantity", in: `{"apiVersion":"v1","kind":"List","items":[{"metadata":{"name":"a"},"status":{"allocatable":{"cpu":"lots"}}}]}`, err: "n.json: quantities must match"},
		{name: "deep", in: strings.Repeat("[", 20000), err: "n.json:1:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodes, err := ReadNodes("n.json", strings.NewReader(tc.in))
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || len(nodes) != tc.nodes {
				t.Fatalf("got %d nodes, %v; want %d", len(nodes), err, tc.nodes)
			}
		})
	}
}

func TestReadPods(t *testing.T) {
	pods, err := ReadPods("p.json", strings.NewReader(`{"apiVersion":"v1","kind":"List","items":[{"kind":"Pod","metadata":{"name":"p","namespace":"a"}},{"metadata":{"name":"p","namespace":"b"}}]}`))
	if err != nil || len(pods) != 2 {
		t.Fatalf("got %d pods, %v", len(pods), err)
	}
	_, err = ReadPods("p.json", strings.NewReader(`{"apiVersion":"v1","kind":"List","items":[{"kind":"Node","metadata":{"name":"n"}}]}`))
	if err == nil || err.Error() != "p.json: items[0] is a Node, not a Pod" {
		t.Fatalf("got %v", err)
	}
}

// endless is a reader that never ends, like /dev/zero.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// A file past the limit is refused once the limit is read, whatever
// follows (an endless stream, like /dev/zero, included).
func TestReadBounded(t *testing.T) {
	defer func(l int64) { limit = l }(limit)
	limit = 4 << 20
	start := time.Now()
	_, err := ReadNodes("-", io.MultiReader(strings.NewReader(`{"items":[`), endless{}))
	if err == nil || err.Error() != "-: larger than 4 MiB" {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
}
