package nodediff

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// karpenter is Karpenter's verdict for c's whole workload on np alone:
// what Solve places, the NodeClaim holding the most pods, and what EC2
// Fleet would launch for it.
func karpenter(ctx context.Context, np *karpv1.NodePool, its []*cloudprovider.InstanceType, c *sched.Class, daemons []*corev1.Pod) (verdict, error) {
	ps := pods(c)
	res, err := Solve(ctx, np.DeepCopy(), its, ps, daemons, claims(c, ps)...)
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

// Why each known disagreement occurs (the final report cites the lines).
const (
	// Karpenter counts a new node as an empty hostname domain
	// (topologygroup.go domainMinCount: "hostname based topologies always
	// have a min pod count of zero"), so a DoNotSchedule hostname spread
	// puts at most maxSkew pods on each NodeClaim; the NodePool's limits
	// then stop it before it provisions for the workload the nodes hold.
	whyHostname = "hostname spread: at most maxSkew pods per new NodeClaim, then the NodePool's limits"
	// A "both" pool is checked as its managed group (nodes.Merge keeps the
	// first provisioner's group, FirstTypeOnly), so its Karpenter share is
	// credited with the first instance type only; the NodePool lists them
	// all and Karpenter launches any that fits.
	whyBoth = "both pool: the checker credits its NodePool with the first type only"
	// Karpenter's capacity counts the type's EFA interfaces
	// (instancetype/types.go efas) and it launches them when a NodeClaim
	// requests vpc.amazonaws.com/efa (instance.go getEFACountForInstance);
	// the checker gives Karpenter pools no EFA (nodegroup/karpenter sets no
	// Group.EFA).
	whyEFA = "EFA: Karpenter launches EFA interfaces a pod requests; the checker gives NodePools none"
	// Karpenter treats preferences as required until a pod fails
	// (preferences.go Relax), and required anti-affinity and spreads open
	// a NodeClaim per domain; the checker's pods per node is what the
	// resources hold.
	whySpread = "spread or anti-affinity: Karpenter opens more, emptier NodeClaims"
	// EC2 Fleet's lowest-price strategy (instance/types.go) launches the
	// cheapest of the NodeClaim's options, the types that hold its pods;
	// the checker credits the type that holds the most pods (place.go),
	// which a workload smaller than that node does not need.
	whyCheapest = "type: Fleet launches the cheapest type that holds the NodeClaim's pods"
)

// knownSolve are the disagreements the checker's model has with Karpenter
// for the default fleets, each with its reason; the test
// fails on any other, and on any of these that no longer occurs.
var knownSolve = []row{
	{key{"llm-serving", "llm-premium", "h100-serve", "pods per node", "2", "1"}, whySpread},
	{key{"llm-serving", "llm-premium", "h100-serve", "nodes", "2", "3"}, whySpread},
	{key{"llm-serving", "llm-tp4", "h100-serve", "pods per node", "2", "1"}, whySpread},
	{key{"llm-serving", "llm-tp4", "h100-serve", "nodes", "3", "6"}, whySpread},
	{key{"full seed 2", "class-1", "pool-1", "pods per node", "2", "1"}, whySpread},
	{key{"full seed 2", "class-1", "pool-1", "nodes", "2", "3"}, whySpread},
	{key{"full seed 4", "class-2", "pool-0", "pods placed", "8", "4"}, whyHostname},
	{key{"full seed 4", "class-3", "pool-0", "pods placed", "0", "2"}, whyEFA},
	{key{"full seed 5", "class-4", "pool-4", "pods placed", "4", "1"}, whyHostname},
	{key{"full seed 6", "class-6", "pool-3", "pods per node", "8", "6"}, whySpread},
	{key{"full seed 6", "class-6", "pool-3", "nodes", "2", "3"}, whySpread},
	{key{"full seed 6", "class-5", "pool-5", "pods placed", "24", "12"}, whyHostname},
	{key{"full seed 12", "class-0", "pool-5", "pods placed", "0", "4"}, whyBoth},
	{key{"full seed 12", "class-0", "pool-7", "pods placed", "0", "3"}, whyBoth},
	{key{"karpenter seed 3", "class-1", "pool-0", "pods per node", "2", "1"}, whySpread},
	{key{"karpenter seed 3", "class-1", "pool-0", "nodes", "1", "2"}, whySpread},
	{key{"karpenter seed 3", "class-6", "pool-4", "type", "m7i.2xlarge", "m7i.xlarge"}, whyCheapest},
	{key{"karpenter seed 4", "class-0", "pool-0", "pods per node", "2", "1"}, whySpread},
	{key{"karpenter seed 4", "class-0", "pool-0", "nodes", "1", "2"}, whySpread},
	{key{"karpenter seed 7", "class-7", "pool-0", "pods per node", "3", "1"}, whySpread},
	{key{"karpenter seed 7", "class-7", "pool-0", "nodes", "1", "3"}, whySpread},
	{key{"karpenter seed 7", "class-2", "pool-2", "type", "m7i.2xlarge", "m7i.xlarge"}, whyCheapest},
	{key{"karpenter seed 7", "class-4", "pool-2", "type", "m7i.2xlarge", "m7i.xlarge"}, whyCheapest},
	{key{"karpenter seed 7", "class-7", "pool-4", "pods per node", "3", "1"}, whySpread},
	{key{"karpenter seed 7", "class-7", "pool-4", "nodes", "1", "3"}, whySpread},
	{key{"karpenter seed 7", "class-7", "pool-5", "pods per node", "3", "1"}, whySpread},
	{key{"karpenter seed 7", "class-7", "pool-5", "nodes", "1", "3"}, whySpread},
	{key{"karpenter seed 7", "class-2", "pool-8", "type", "m7i.2xlarge", "m7i.xlarge"}, whyCheapest},
	{key{"karpenter seed 7", "class-4", "pool-8", "type", "m7i.2xlarge", "m7i.xlarge"}, whyCheapest},
	{key{"karpenter seed 7", "class-7", "pool-8", "pods per node", "3", "1"}, whySpread},
	{key{"karpenter seed 7", "class-7", "pool-8", "nodes", "1", "3"}, whySpread},
	{key{"karpenter seed 7", "class-7", "pool-8", "type", "m7i.2xlarge", "m7i.xlarge"}, whyCheapest},
	{key{"karpenter seed 9", "class-3", "pool-3", "pods per node", "2", "1"}, whySpread},
	{key{"karpenter seed 9", "class-3", "pool-3", "nodes", "1", "2"}, whySpread},
	{key{"karpenter seed 10", "class-3", "pool-3", "type", "m7i.2xlarge", "m7i.xlarge"}, whyCheapest},
	{key{"karpenter seed 10", "class-6", "pool-3", "type", "m7i.2xlarge", "m7i.xlarge"}, whyCheapest},
}
