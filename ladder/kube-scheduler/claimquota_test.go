package kubesched

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/quota/v1/evaluator/core"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// TestClaimQuota holds what QuotaFit charges a DRA class's pod
// (sched.Claims.ClaimQuota) to the API server's own quota evaluator for
// ResourceClaims (pkg/quota/v1/evaluator/core, claimEvaluator.Usage), on
// the claims the resourceclaim controller makes from the tree's templates,
// for every DRA class of the example and generated fleets. A checker that
// charges claims nothing, as QuotaFit did, is caught on every one.
func TestClaimQuota(t *testing.T) {
	eval := core.NewResourceClaimEvaluator(nil, nil, nil, nil)
	var classes, blind int
	for _, fc := range fleetCases(t) {
		res, cl := fc.compile(t)
		dra := draInputs(t, res, cl)
		for i := range cl.Classes {
			c := &cl.Classes[i]
			if !c.Info.Claims.Asks() {
				continue
			}
			pod := podsOf(c)[0]
			claims, err := makeClaims(pod, dra.Templates)
			if err != nil {
				t.Fatalf("%s: class %s: %v", fc.name, c.Name, err)
			}
			want := map[v1.ResourceName]int64{}
			for _, claim := range claims {
				usage, err := eval.Usage(claim)
				if err != nil {
					t.Fatalf("%s: class %s: %v", fc.name, c.Name, err)
				}
				for r, q := range usage {
					want[r] += q.Value()
				}
			}
			classes++
			if diff := cmp.Diff(want, c.Info.Claims.ClaimQuota()); diff != "" {
				t.Errorf("%s: class %s: quota charged (-evaluator +checker):\n%s", fc.name, c.Name, diff)
			}
			if !cmp.Equal(want, (*sched.Claims)(nil).ClaimQuota()) {
				blind++
			}
		}
	}
	t.Logf("%d DRA classes: the checker charges their claims as the quota evaluator does; a claims-blind QuotaFit disagrees on %d", classes, blind)
	if classes == 0 || blind != classes {
		t.Errorf("%d DRA classes, a claims-blind model caught on %d: want every one", classes, blind)
	}
}
