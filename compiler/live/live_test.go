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
		{name: "type", in: `{"apiVersion":"v1","kind":"List","items":{}}`, err: "n.json:1:42: items: a JSON object, want an array"},
		{name: "empty", in: " \n", err: "n.json: empty: want the JSON of 'kubectl get nodes -o json'"},
		{name: "two values", in: `{"apiVersion":"v1","kind":"List"} {}`, err: "n.json:1:35: invalid JSON: invalid character '{' after top-level value"},
		{name: "a pod list", in: `{"apiVersion":"v1","kind":"PodList","items":[]}`, err: `n.json: kind "PodList", want List or NodeList`},
		{name: "pods in a List", in: `{"apiVersion":"v1","kind":"List","items":[{"kind":"Pod","metadata":{"name":"p"}}]}`, err: "n.json:1:43: items[0] is a Pod, not a Node"},
		{name: "a node", in: `{"apiVersion":"v1","kind":"Node","metadata":{"name":"a"}}`, err: `n.json: kind "Node", want List or NodeList`},
		{name: "apiVersion", in: `{"apiVersion":"v2","kind":"List"}`, err: `n.json: apiVersion "v2", want v1`},
		{name: "no name", in: `{"apiVersion":"v1","kind":"List","items":[{}]}`, err: "n.json:1:43: items[0] has no name"},
		{name: "twice", in: `{"apiVersion":"v1","kind":"List","items":[{"metadata":{"name":"a"}},{"metadata":{"name":"a"}}]}`, err: "n.json:1:69: items[1]: Node a is listed twice"},
		{name: "bad quantity", in: `{"apiVersion":"v1","kind":"List","items":[{"metadata":{"name":"a"},"status":{"allocatable":{"cpu":"lots"}}}]}`, err: "n.json:1:43: items[0]: quantities must match"},
		{name: "deep", in: strings.Repeat("[", 20000), err: "n.json:1:10001: invalid JSON: invalid character '[' exceeded max depth"},
		{name: "deep item", in: `{"apiVersion":"v1","kind":"List","items":[` + strings.Repeat("[", 20000), err: "n.json:1:10041: invalid JSON: invalid character '[' exceeded max depth"},
		// The API server's decoding: exact field names, no field twice.
		{name: "ITEMS", in: `{"apiVersion":"v1","kind":"List","items":[{"metadata":{"name":"a"}}],"ITEMS":[]}`, nodes: 1},
		{name: "items twice", in: `{"apiVersion":"v1","kind":"List","items":[{"metadata":{"name":"a"}}],"items":[]}`, err: `n.json:1:70: duplicate field "items"`},
		{name: "name twice", in: "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n {\"metadata\":{\"name\":\"a\",\"name\":\"b\"}}]}", err: `n.json:2:2: duplicate field "items[0].metadata.name"`},
		{name: "Metadata", in: `{"apiVersion":"v1","kind":"List","items":[{"Metadata":{"name":"a"}}]}`, err: "n.json:1:43: items[0] has no name"},
		{name: "invalid UTF-8", in: "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"metadata\":{\"name\":\"a\xff\"}}]}", err: "n.json:1:65: invalid UTF-8"},
		{name: "BOM", in: "\xef\xbb\xbf{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{}]}", err: "n.json:1:46: items[0] has no name"},
		{name: "UTF-16", in: "\xff\xfe{\x00", err: "n.json: UTF-16 text: want the UTF-8 JSON"},
		// The spec's ceilings: a GPU count near int64's maximum made the
		// capacity negative, 1e100 bytes made it 0.
		{name: "huge GPU count", in: `{"apiVersion":"v1","kind":"List","items":[{"metadata":{"name":"a"},"status":{"allocatable":{"nvidia.com/gpu":"9223372036854775807"}}}]}`, err: "n.json:1:43: node a: status.allocatable[nvidia.com/gpu]: 9223372036854775807 is more than 4096"},
		{name: "1e100 memory", in: `{"apiVersion":"v1","kind":"List","items":[{"metadata":{"name":"a"},"status":{"capacity":{"memory":"1e100"}}}]}`, err: "n.json:1:43: node a: status.capacity[memory]: 10e99 is more than 64Ti"},
		{name: "negative", in: `{"apiVersion":"v1","kind":"List","items":[{"metadata":{"name":"a"},"status":{"allocatable":{"cpu":"-1"}}}]}`, err: "n.json:1:43: node a: status.allocatable[cpu]: -1 is negative"},
		// Kubernetes' parser computes 10^(10^9) for this: refused first,
		// at the value; a label of that text is no quantity.
		{name: "huge exponent", in: `{"apiVersion":"v1","kind":"List","items":[{"metadata":{"name":"a"},"status":{"allocatable":{"cpu":"1e1000000000"}}}]}`, err: `n.json:1:99: items[0].status.allocatable[cpu]: quantity "1e1000000000": its exponent is beyond ±100`},
		{name: "huge exponent, a number", in: `{"apiVersion":"v1","kind":"List","items":[{"metadata":{"name":"a"},"status":{"capacity":{"memory":-1e-1000000000}}}]}`, err: `n.json:1:99: items[0].status.capacity[memory]: quantity "-1e-1000000000": its exponent is beyond ±100`},
		{name: "exponent in a label", in: `{"apiVersion":"v1","kind":"List","items":[{"metadata":{"name":"a","labels":{"v":"1e1000000000"}}}]}`, nodes: 1},
		{name: "MIG slices", in: `{"apiVersion":"v1","kind":"List","items":[{"metadata":{"name":"a"},"status":{"allocatable":{"nvidia.com/mig-1g.10gb":"56","ephemeral-storage":"100Ti"}}}]}`, nodes: 1},
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
	nodes, err := ReadNodes("n.json", strings.NewReader(`{"apiVersion":"v1","kind":"List","items":[{"metadata":{"name":"a"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	pod := func(name, node, gpus string) string {
		return `{"metadata":{"name":"` + name + `","namespace":"ns"},"spec":{"nodeName":"` + node + `","containers":[{"name":"c","resources":{"requests":{"nvidia.com/gpu":"` + gpus + `"}}}]}}`
	}
	list := func(items ...string) string {
		return "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n" + strings.Join(items, ",\n") + "]}"
	}
	for _, tc := range []struct {
		name, in, err string
		pods          int
	}{
		{name: "two namespaces", in: `{"apiVersion":"v1","kind":"List","items":[{"kind":"Pod","metadata":{"name":"p","namespace":"a"}},{"metadata":{"name":"p","namespace":"b"}}]}`, pods: 2},
		{name: "a node", in: `{"apiVersion":"v1","kind":"List","items":[{"kind":"Node","metadata":{"name":"n"}}]}`, err: "p.json:1:43: items[0] is a Node, not a Pod"},
		{name: "bound", in: list(pod("p", "a", "8"), pod("q", "", "8")), pods: 2},
		// A pod requesting -4 GPUs freed four on its node.
		{name: "negative request", in: list(pod("p", "a", "-4")), err: "p.json:2:1: pod ns/p: container c: resources.requests[nvidia.com/gpu]: -4 is negative"},
		{name: "huge request", in: list(pod("p", "a", "9223372036854775807")), err: "p.json:2:1: pod ns/p: container c: resources.requests[nvidia.com/gpu]: 9223372036854775807 is more than 4096"},
		{name: "sum past the ceiling", in: list(pod("p", "a", "4000"), pod("q", "a", "97")), err: "p.json:3:1: pod ns/q: the pods on node a request 4097 of nvidia.com/gpu together, more than 4096"},
		{name: "ended pods hold nothing", in: list(pod("p", "a", "4000"), strings.Replace(pod("q", "a", "97"), `"spec"`, `"status":{"phase":"Succeeded"},"spec"`, 1)), pods: 2},
		{name: "huge exponent", in: list(pod("p", "a", "1E+100000000")), err: `p.json:2:134: items[0].spec.containers[0].resources.requests[nvidia.com/gpu]: quantity "1E+100000000": its exponent is beyond ±100`},
		// Pods on a node the nodes file does not hold were dropped without a word.
		{name: "unknown node", in: list(pod("p", "gone", "1")), err: "p.json:2:1: pod ns/p: bound to node gone, which n.json does not list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pods, err := ReadPods("p.json", strings.NewReader(tc.in), "n.json", nodes)
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || len(pods) != tc.pods {
				t.Fatalf("got %d pods, %v; want %d", len(pods), err, tc.pods)
			}
		})
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

// TestTooLarge: a file past the bound is refused by its size, in the
// words reading it would give.
func TestTooLarge(t *testing.T) {
	if err := TooLarge("n.json", MaxBytes); err != nil {
		t.Errorf("at the bound: %v", err)
	}
	err := TooLarge("n.json", MaxBytes+1)
	if err == nil || err.Error() != "n.json: larger than 256 MiB" {
		t.Errorf("past the bound: %v", err)
	}
}
