package scheduling

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check"
)

func TestSchedulerVersion(t *testing.T) {
	for _, tc := range []struct {
		version string
		want    string
	}{
		{"1.36", ""},
		{"", ""},
		{"1.33", "cluster.version 1.33: the checker's verdicts are kube-scheduler v1.36's, which make test-kube-scheduler and make e2e run; this cluster runs v1.33's"},
		{"1.35", "this cluster runs v1.35's"},
	} {
		f := SchedulerVersion(nil, nil, check.Intent{Version: tc.version})
		switch {
		case tc.want == "" && len(f) > 0:
			t.Errorf("%q: unexpected %+v", tc.version, f)
		case tc.want != "" && (len(f) != 1 || f[0].Severity != check.Warning || !strings.Contains(f[0].Message, tc.want)):
			t.Errorf("%q: %+v, want a warning containing %q", tc.version, f, tc.want)
		}
	}
}
