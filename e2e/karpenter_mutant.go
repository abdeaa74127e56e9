package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// mutantFleet is the broken fleet the Karpenter mutant reruns: its class
// train lands on no pool (Lands: h200-blocks lists only p5e.48xlarge,
// which Karpenter has no price for, and h200-spot's taints are not
// tolerated), and the real Karpenter launches nothing for it.
const mutantFleet = "broken_karpenter_unpriced"

// karpenterMutant reruns mutantFleet with a deliberate bug in the
// instance-types file (kwokOfferUnpriced: p5e.48xlarge offered at a
// price): the real Karpenter then launches a node for class train, and
// the run must say that kube-scheduler disagrees with the checker. It
// returns an error if the run reported no disagreement.
func karpenterMutant(t *testing.T, run func(tb testing.TB)) error {
	kwokOfferUnpriced = true
	defer func() { kwokOfferUnpriced = false }()
	q := &quietT{TB: t}
	t.Run("mutant", func(t *testing.T) {
		q.TB = t
		run(q)
	})
	for _, m := range q.msgs {
		if strings.Contains(m, "class train: kube-scheduler or the") && strings.Contains(m, "disagrees with the checker") {
			t.Logf("the Karpenter mutant (unpriced types offered) is caught: %s", strings.SplitN(m, "\n", 2)[0])
			return nil
		}
	}
	return fmt.Errorf("the Karpenter mutant (unpriced types offered) went unnoticed; the run reported: %q", q.msgs)
}

// quietT records failures instead of failing: the mutant's are expected.
type quietT struct {
	testing.TB
	msgs []string
}

func (q *quietT) Errorf(format string, args ...any) {
	q.msgs = append(q.msgs, fmt.Sprintf(format, args...))
}
func (q *quietT) Error(args ...any) { q.msgs = append(q.msgs, fmt.Sprint(args...)) }
func (q *quietT) Fatalf(format string, args ...any) {
	q.msgs = append(q.msgs, fmt.Sprintf(format, args...))
	q.TB.SkipNow()
}
func (q *quietT) Fatal(args ...any) {
	q.msgs = append(q.msgs, fmt.Sprint(args...))
	q.TB.SkipNow()
}
