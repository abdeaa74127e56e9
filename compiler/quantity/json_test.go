package quantity

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

type nodeList struct {
	Items []corev1.Node `json:"items"`
}

var nodeListType = reflect.TypeFor[nodeList]()

func TestInJSON(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		path      string // of the refusal; "" for none
		at        string // the text the refusal's offset points at
	}{
		{"allocatable", `{"items": [{}, {"status": {"allocatable": {"cpu": "1e1000000000"}}}]}`,
			"items[1].status.allocatable[cpu]", `"1e1000000000"`},
		{"a number", `{"items": [{"status": {"capacity": {"cpu": -1e-1000000000}}}]}`,
			"items[0].status.capacity[cpu]", `-1e-1000000000`},
		{"white space Quantity trims", "{\"items\": [{\"status\": {\"capacity\": {\"cpu\": \" \u00a01e1000000000 \"}}}]}",
			"items[0].status.capacity[cpu]", `" `},
		{"a field name in any case", `{"items": [{"Status": {"Capacity": {"cpu": "9e999"}}}]}`,
			"items[0].Status.Capacity[cpu]", `"9e999"`},
		{"an escaped key", `{"items": [{"st\u0061tus": {"capacity": {"cpu": "9e999"}}}]}`,
			"items[0].status.capacity[cpu]", `"9e999"`},
		{"an escape is not unescaped", `{"items": [{"status": {"capacity": {"cpu": "\u0031e1000000000"}}}]}`, "", ""},
		{"a label is no quantity", `{"items": [{"metadata": {"name": "1e1000000000", "labels": {"a": "1e1000000000"}}}]}`, "", ""},
		{"an annotation is no quantity", `{"items": [{"metadata": {"annotations": {"cpu": "1e1000000000"}}}]}`, "", ""},
		{"a quantity within bounds", `{"items": [{"status": {"capacity": {"cpu": "1e100"}}}]}`, "", ""},
		{"not JSON", `{"items": [{"status": {"capacity": {"cpu" "1e1000000000"}}}]}`, "", ""},
		{"unclosed", `{"items": [{"status": {"capacity": {"cpu": "1e1000000000`, "", ""},
		{"deep", strings.Repeat("[", 20000) + `"1e1000000000"`, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := []byte(c.doc)
			if !Suspect(data) && c.path != "" {
				t.Fatalf("Suspect: false")
			}
			r := InJSON(data, nodeListType)
			switch {
			case c.path == "" && r != nil:
				t.Fatalf("InJSON: %v, want none", r)
			case c.path == "":
			case r == nil:
				t.Fatalf("InJSON: none, want %s", c.path)
			case r.Path != c.path || !strings.HasPrefix(c.doc[r.Offset:], c.at):
				t.Fatalf("InJSON: %s at %q, want %s at %q", r.Path, c.doc[r.Offset:], c.path, c.at)
			}
		})
	}
}

// TestInJSONPod follows a pod's quantities wherever they are: containers'
// requests, overhead, an emptyDir's size limit.
func TestInJSONPod(t *testing.T) {
	type podList struct {
		Items []corev1.Pod `json:"items"`
	}
	for doc, path := range map[string]string{
		`{"items": [{"spec": {"containers": [{"name": "c"}, {"resources": {"requests": {"memory": "1e-999"}}}]}}]}`: "items[0].spec.containers[1].resources.requests[memory]",
		`{"items": [{"spec": {"overhead": {"cpu": "1e999"}}}]}`:                                                     "items[0].spec.overhead[cpu]",
		`{"items": [{"spec": {"volumes": [{"emptyDir": {"sizeLimit": "1e999"}}]}}]}`:                                "items[0].spec.volumes[0].emptyDir.sizeLimit",
	} {
		r := InJSON([]byte(doc), reflect.TypeFor[podList]())
		if r == nil || r.Path != path {
			t.Errorf("InJSON(%s) = %v, want one at %s", doc, r, path)
		}
	}
}

func TestSuspect(t *testing.T) {
	for doc, want := range map[string]bool{
		`{"a": "1e1000000000"}`:               true,
		`{"a": 1e1000000000}`:                 true,
		`{"a": "x\"1e1000000000"}`:            false,
		`{"a": "\\", "b": "1e1000000000"}`:    true,
		`{"1e1000000000": 1}`:                 true, // a key: InJSON decides
		`{"a": "500m", "b": 4, "c": "1e100"}`: false,
		`{"a": "eks-1e1000000000"}`:           false,
	} {
		if got := Suspect([]byte(doc)); got != want {
			t.Errorf("Suspect(%s) = %v, want %v", doc, got, want)
		}
	}
}
