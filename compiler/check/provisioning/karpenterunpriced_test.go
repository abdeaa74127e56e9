package provisioning

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// A Karpenter pool with types Karpenter never launches: an error when no
// type is left, else a warning.
func TestKarpenterUnpriced(t *testing.T) {
	for _, tc := range []struct {
		name     string
		unpriced *sched.Unpriced
		severity string // "" for no finding
		want     string
	}{
		{"only unpriced", &sched.Unpriced{Region: "us-east-1", Types: []string{"p5e.48xlarge"}}, check.Error,
			"pool p's NodePool lists only instance types Karpenter has no price for in us-east-1 (p5e.48xlarge): an offering without a price is not available, so no instance type has the required offering"},
		{"one unpriced of two", &sched.Unpriced{Region: "us-east-1", Types: []string{"p5e.48xlarge"}, Priced: []string{"p5en.48xlarge"}}, check.Warning,
			"pool p's NodePool lists instance types Karpenter has no price for in us-east-1 (p5e.48xlarge): an offering without a price is not available, so Karpenter never launches them; the checker credits only p5en.48xlarge"},
		{"all priced", nil, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := KarpenterUnpriced(&sched.Cluster{Pools: []sched.Pool{{Name: "p", Unpriced: tc.unpriced}}}, nil, check.Intent{})
			switch {
			case tc.severity == "" && len(f) > 0:
				t.Errorf("unexpected %+v", f)
			case tc.severity != "" && (len(f) != 1 || !strings.Contains(f[0].Message, tc.want) || f[0].Severity != tc.severity || f[0].Pool != "p" || f[0].Check != IDKarpenterUnpriced):
				t.Errorf("findings %+v, want a %s containing %q", f, tc.severity, tc.want)
			}
		})
	}
}
