package tree

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

type limited struct {
	Spec struct {
		Limits corev1.ResourceList `json:"limits"`
	} `json:"spec"`
}

// A committed document's quantity with a huge exponent is refused before
// Kubernetes' parser sees it (it computes 10 to that power, for minutes),
// quoted or not; decoding is otherwise as sigs.k8s.io/yaml's, strict or not.
func TestDecodeGuardsQuantities(t *testing.T) {
	for _, c := range []struct {
		doc    string
		strict bool
		err    string // a prefix; "" for none
	}{
		{"spec:\n  limits:\n    cpu: \"1e1000000000\"\n", true, `spec.limits[cpu]: quantity "1e1000000000": its exponent is beyond ±100`},
		{"spec:\n  limits:\n    cpu: '-1E-1000000000'\n", false, `spec.limits[cpu]: quantity "-1E-1000000000": its exponent`},
		{"spec:\n  limits:\n    cpu: |\n      1e1000000000\n", true, `spec.limits[cpu]: quantity "1e1000000000\\n": its exponent`},
		{"spec:\n  limits:\n    cpu: \"\\x31e1000000000\"\n", true, `spec.limits[cpu]: quantity "1e1000000000": its exponent`},
		{"spec:\n  limits:\n    cpu: 1e1000000000\n", true, `spec.limits[cpu]: quantity "1e1000000000": its exponent`}, // no float64: a string
		{"spec:\n  limits:\n    cpu: -1e-1000000000\n", true, ""},                                                      // a float64, -0
		{"spec:\n  limits:\n    cpu: \"384\"\n  labels: {v: \"1e1000000000\"}\n", false, ""},
		{"spec:\n  limits:\n    cpu: \"384\"\n  other: 1\n", true, `error unmarshaling JSON: while decoding JSON: json: unknown field "other"`},
		{"spec:\n  limits:\n    cpu: \"384\"\n", true, ""},
	} {
		start := time.Now()
		var v limited
		var err error
		if c.strict {
			err = Decode([]byte(c.doc), &v)
		} else {
			err = Unmarshal([]byte(c.doc), &v)
		}
		switch {
		case time.Since(start) > 5*time.Second:
			t.Errorf("%q took %s", c.doc, time.Since(start))
		case c.err == "" && err != nil:
			t.Errorf("%q: %v", c.doc, err)
		case c.err != "" && (err == nil || !strings.HasPrefix(err.Error(), c.err)):
			t.Errorf("%q: error %v, want %q", c.doc, err, c.err)
		}
	}
}
