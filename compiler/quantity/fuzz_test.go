package quantity

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	kjson "sigs.k8s.io/json"
)

// FuzzQuantity feeds quantities of every shape to Parse, which must refuse
// one or return what resource.ParseQuantity returns, at once; and to the
// JSON guard, as a string and as a number in a node's allocatable: what
// InJSON lets through, the decoder that follows decodes at once too.
func FuzzQuantity(f *testing.F) {
	for _, s := range []string{
		"1e1000000000", "1E100000000", "1e-1000000000", "-1e+1000000000", "0.5e4294967296",
		"4294967296e4294967296", "1e101", "1e100", "1e-100", "e1000000000", "1ex", "1e",
		"0.00000000000000000000000000000000000000000000000000000000000000000001",
		"123456789012345678901234567890123456789012345678901234567890123456789",
		"500m", "1.5Gi", "64Ti", "0", "", " 1e1000000000", "1 GB", "-4", "100Pi", "9223372036854775807",
		"1e0000000000000000000101", "+.e-5", "1.2.3", "0x10", "1e1000000000x", "1Ki1e1000000000",
	} {
		f.Add(s)
	}
	const bound = 2 * time.Second // the refused cases ran for minutes
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1<<12 {
			return
		}
		start := time.Now()
		got, err := Parse(s)
		if err == nil || Check(s) == nil {
			want, wantErr := resource.ParseQuantity(s)
			if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(err, wantErr) {
				t.Fatalf("Parse(%q) = %v, %v; ParseQuantity gives %v, %v", s, got.String(), err, want.String(), wantErr)
			}
			if err == nil {
				_ = got.Cmp(resource.MustParse("1Pi")) // what the bounds do next
				_ = got.String()
			}
		}
		if d := time.Since(start); d > bound {
			t.Fatalf("Parse(%q) took %s", s, d)
		}

		str, _ := json.Marshal(s)
		docs := [][]byte{[]byte(`{"items": [{"status": {"allocatable": {"cpu": ` + string(str) + `}}}]}`)}
		if json.Valid([]byte(s)) {
			docs = append(docs, []byte(`{"items": [{"status": {"allocatable": {"cpu": `+s+`}}}]}`))
		}
		for _, doc := range docs {
			start := time.Now()
			r := InJSON(doc, nodeListType)
			if r != nil && !Suspect(doc) {
				t.Fatalf("InJSON(%s) refuses %v, but Suspect does not", doc, r)
			}
			if r == nil {
				var l struct {
					Items []corev1.Node `json:"items"`
				}
				if _, err := kjson.UnmarshalStrict(doc, &l); err == nil && len(l.Items) == 1 {
					q := l.Items[0].Status.Allocatable[corev1.ResourceCPU]
					_ = q.Cmp(resource.MustParse("4096"))
				}
			}
			if d := time.Since(start); d > bound {
				t.Fatalf("%s: InJSON and decoding took %s", doc, d)
			}
		}
	})
}
