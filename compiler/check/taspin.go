package check

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// Kueue's topology-aware scheduling, and then kube-scheduler, on a TAS
// flavor. Kueue v0.19.2 sizes each standing node by the pod's requests
// against its allocatable alone (pkg/cache/scheduler/tas_flavor_snapshot.go:
// it counts neither pod anti-affinity nor the devices a pod's
// ResourceClaims take), fills the hosts of the domain it picks, and its
// topology ungater (pkg/controller/tas/topology_ungater.go) pins each pod
// to its host by kubernetes.io/hostname. kube-scheduler then places on
// each host only as many as the host holds: one pod where the class's
// pods repel each other by hostname, as many as its devices serve where
// they claim them. The rest stay Pending on a host they cannot leave,
// while the workload holds its quota. The composed rung (make
// test-composed) follows Kueue's own assignment and ungater into the
// scheduling cycle and agrees.

// Reasons kube-scheduler gives a pod pinned to a host that cannot hold it
// (InterPodAffinity's ErrReasonAntiAffinityRulesNotMatch, DynamicResources'
// "cannot allocate all claims").
const (
	reasonAntiAffinity = "node(s) didn't match pod anti-affinity rules"
	reasonClaims       = "cannot allocate all claims"
)

// tasPinned is what kube-scheduler places of pods pods of class c that
// Kueue's TAS puts on the standing nodes of pool p, where the hosts hold
// fewer of them than Kueue counts; false where they hold as many, and
// the pool's placement (pinner.place) stands.
func tasPinned(c *sched.Class, p *sched.Pool, pods int32) (int64, []string, bool) {
	if p == nil || len(p.Nodes) == 0 || p.Standing == 0 {
		return 0, nil, false
	}
	n := p.Nodes[0] // the node the group launches: its first type
	counted := sched.PodsPerNode(c.Info, n.Node)
	holds, why := sched.PodsPerNodeOn(c.Info, n), reasonClaims
	if sched.SelfAntiAffinity(c, corev1.LabelHostname) && holds > 1 {
		holds, why = 1, reasonAntiAffinity
	}
	if counted <= 0 || holds >= counted || holds >= int64(pods) {
		return 0, nil, false
	}
	left, placed, first := int64(pods), int64(0), int64(0)
	for range p.Standing {
		k := min(counted, left)
		if first == 0 {
			first = k
		}
		placed += min(k, holds)
		left -= k
		if left == 0 {
			break
		}
	}
	if placed >= int64(pods) {
		return 0, nil, false
	}
	return placed, []string{fmt.Sprintf("Kueue's topology-aware scheduling counts only the pods' requests and its ungater pins %d of them to one host by %s, which holds %d: %s",
		first, corev1.LabelHostname, holds, why)}, true
}
