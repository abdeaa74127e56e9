package scheduling

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/internal/checktest"
)

// A class must not land on a pool dedicated to other classes.
func TestDedicated(t *testing.T) {
	web := checktest.Pod(corev1.PodSpec{Containers: []corev1.Container{checktest.Container("cpu=1")}})
	for _, tc := range []struct {
		name      string
		dedicated map[string][]string
		want      string
	}{
		{"dedicated to another", map[string][]string{"p": {"train"}}, "class web can land on pool p, which is dedicated to [train]"},
		{"dedicated to it", map[string][]string{"p": {"train", "web"}}, ""},
		{"another pool dedicated", map[string][]string{"q": {"train"}}, ""},
	} {
		cl := onePool("p", false, checktest.Node(nil, nil, "cpu=8,pods=10"), "web", web)
		f := Dedicated(cl, rows(cl), check.Intent{Dedicated: tc.dedicated})
		switch {
		case tc.want == "" && len(f) > 0:
			t.Errorf("%s: unexpected %v", tc.name, f)
		case tc.want != "" && (len(f) != 1 || f[0].Check != IDDedicated || !strings.Contains(f[0].Message, tc.want)):
			t.Errorf("%s: findings %v, want one containing %q", tc.name, f, tc.want)
		}
	}
}
