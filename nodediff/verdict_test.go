package nodediff

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"

	"github.com/gpufleet/gpufleet/compiler/check"
)

// karpenter is Karpenter's verdict for c's whole workload on np alone:
// what Solve places, the NodeClaim holding the most pods, and what EC2
// Fleet would launch for it.
func karpenter(ctx context.Context, np *karpv1.NodePool, its []*cloudprovider.InstanceType, c *check.Class, daemons []*corev1.Pod) (verdict, error) {
	ps := pods(c)
	res, err := Solve(ctx, np.DeepCopy(), its, ps, daemons)
	if err != nil {
		return verdict{}, err
	}
	v := verdict{scheduled: int64(len(ps) - len(res.PodErrors)), claims: int64(len(res.NewNodeClaims))}
	for _, p := range ps {
		if e, ok := res.PodErrors[p]; ok {
			v.reason = short(e.Error())
			break
		}
	}
	var fullest *scheduling.NodeClaim
	for _, nc := range res.NewNodeClaims {
		if fullest == nil || len(nc.Pods) > len(fullest.Pods) {
			fullest = nc
		}
	}
	if fullest == nil {
		return v, nil
	}
	v.perNode = int64(len(fullest.Pods))
	v.capacity, v.options, v.typ, err = Launch(ctx, fullest, its)
	return v, err
}

// short is the first clause of a Karpenter error, which goes on to list
// every instance type it ruled out.
func short(s string) string {
	if i := strings.Index(s, "; "); i > 0 {
		s = s[:i]
	}
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// knownSolve are the disagreements the checker's model has with Karpenter
// today, each with its reason; the test fails on any other, and on any of
// these that no longer occurs.
var knownSolve = []row{}
