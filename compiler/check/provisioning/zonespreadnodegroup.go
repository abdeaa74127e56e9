package provisioning

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

const IDZoneSpreadNodeGroup check.ID = "ZoneSpreadNodeGroup"

// A managed node group over several zones is one Auto Scaling group, and
// cluster-autoscaler cannot choose the zone its next node launches in: a
// pod that a required zone spread holds to one zone may get a node in
// another and stay Pending, however much room the group has left. AWS's
// guidance for cluster-autoscaler is one node group per zone for
// zone-sensitive work (with --balance-similar-node-groups); Karpenter
// launches in the zone the pod needs.
const reasonZoneSpreadNodeGroup = "class %s requires spreading over zones (%s, DoNotSchedule), but it lands on %s, each one managed node group over several zones, whose zone cluster-autoscaler cannot choose when it adds a node: a pod held to one zone may get a node in another and stay Pending; set zoneGroups: true on the pool (a node group per zone), or provisioner \"karpenter\" or \"both\", which launch in the zone a pod needs"

// ZoneSpreadNodeGroup warns of a class whose required zone spread relies
// on a zone-blind node group to scale.
func ZoneSpreadNodeGroup(c *sched.Class, w *sched.Row, pools []sched.Pool) []check.Finding {
	if !requiresZoneSpread(c.Pod) {
		return nil
	}
	var blind []string
	for k, cell := range w.Evaluated {
		if p := &pools[w.At[k]]; cell.Fits && p.ZoneBlind {
			blind = append(blind, p.Name)
		}
	}
	if len(blind) == 0 {
		return nil
	}
	return []check.Finding{{Severity: check.Warning, Check: IDZoneSpreadNodeGroup, Class: c.Name,
		Message: fmt.Sprintf(reasonZoneSpreadNodeGroup, c.Name, keys.LabelZone, "pool(s) "+strings.Join(blind, ", "))}}
}

func requiresZoneSpread(pod *corev1.Pod) bool {
	for _, tsc := range pod.Spec.TopologySpreadConstraints {
		if tsc.TopologyKey == keys.LabelZone && tsc.WhenUnsatisfiable == corev1.DoNotSchedule {
			return true
		}
	}
	return false
}
