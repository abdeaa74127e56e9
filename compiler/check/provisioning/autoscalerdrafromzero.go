package provisioning

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

const IDAutoscalerDRAFromZero check.ID = "AutoscalerDRAFromZero"

// cluster-autoscaler (kubernetes/autoscaler@35e8a280425c, the
// cluster-autoscaler-1.36.1 tag) handles DRA objects always from 1.35 on:
// cluster-autoscaler/config/flags/flags.go refuses
// --enable-dynamic-resource-allocation=false ("flag must be true"). Its
// simulation then runs kube-scheduler's DynamicResources filter on the
// node it would add, against the ResourceSlices that node carries.
//
// Where a node group has a node, the node it would add is that node
// sanitized, ResourceSlices and all:
// processors/nodeinfosprovider/mixed_nodeinfos_processor.go,
// MixedTemplateNodeInfoProvider.Process (AWS's
// AsgTagResourceNodeInfoProvider wraps it), takes the node's NodeInfo from
// the cluster snapshot, whose slices predicate_snapshot.go's SetClusterState
// gives it from the DRA snapshot, and simulator/node_info_utils.go,
// SanitizedTemplateNodeInfoFromNodeInfo, keeps them
// (drautils.SanitizedNodeResourceSlices). It caches that template in
// memory, so an emptied group's next node is built from its last node's
// until cluster-autoscaler restarts.
//
// Where a group has none and none is cached, the template comes from the
// cloud provider: SanitizedTemplateNodeInfoFromNodeGroup calls
// NodeGroup.TemplateNodeInfo, and AWS's (cloudprovider/aws/
// aws_cloud_provider.go, AwsNodeGroup.TemplateNodeInfo) builds the node
// from the Auto Scaling group's launch template and tags with no
// ResourceSlices (framework.NewNodeInfo(node, nil, ...)); nothing of the
// AWS provider or the node info providers adds any. On that node no claim
// allocates: core/scaleup/orchestrator/orchestrator.go, SchedulablePodGroups,
// logs "can't be scheduled on <group>, predicate checking error", and
// processors/status/eventing_scale_up_processor.go gives the pod a
// NotTriggerScaleUp event, "pod didn't trigger scale-up: ", with the
// filter's reason. The group is never scaled up for claims, and its
// pods stay Pending.
//
// A managed node group cluster-autoscaler may empty is one whose min size
// is 0: it scales idle nodes down to min, whatever the desired size it
// started at, and a desired size only stands until then.
const (
	reasonDRAFromZero = "class %s's pods claim DRA devices, and pool %s's %s scale%s down to no node (min 0): cluster-autoscaler (which handles DRA always from 1.35) then builds the next node from the Auto Scaling group's template, with no ResourceSlices, where kube-scheduler's DynamicResources filter says %q, so it never adds one for them (\"pod didn't trigger scale-up\") and they stay Pending; keep a node standing in %s (%s), or use provisioner \"karpenter\" with cluster.karpenter.dra"
	fixMin            = "min: 1"
	fixZoneMin        = "zoneGroups splits min over the zones' groups, the remainder to the first: min: %d"
)

// lockedMinor is the first cluster-autoscaler minor whose DRA handling is
// locked on; 1.34's --enable-dynamic-resource-allocation is off by default
// (config/flags/flags.go at cluster-autoscaler-1.34.2), and its simulation
// then reads no claims.
const lockedMinor = 35

// AutoscalerDRAFromZero finds the managed node groups cluster-autoscaler
// scales to zero under the pools a class claiming DRA devices lands on.
// Karpenter's nodes are not cluster-autoscaler's (KarpenterDRA judges
// them).
func AutoscalerDRAFromZero(cl *sched.Cluster, rows []sched.Row, in check.Intent) []check.Finding {
	if minor, err := strconv.Atoi(strings.TrimPrefix(in.Version, "1.")); err == nil && minor < lockedMinor {
		return nil
	}
	var out []check.Finding
	for i := range cl.Classes {
		c := &cl.Classes[i]
		if !c.Info.Claims.Asks() {
			continue
		}
		for p := range check.FitPools(cl, &rows[i]) {
			if len(p.FromZero) == 0 || p.KarpenterNodes >= p.MaxNodes {
				continue
			}
			out = append(out, check.Finding{Severity: check.Error, Check: IDAutoscalerDRAFromZero, Class: c.Name, Pool: p.Name, Message: fromZero(c.Name, p)})
		}
	}
	return out
}

// fromZero is the finding's message for class on pool p.
func fromZero(class string, p *sched.Pool) string {
	groups, verb, each, fix := "node group "+p.FromZero[0], "s", "it", fixMin
	if len(p.FromZero) > 1 {
		groups, verb, each = "node groups "+strings.Join(p.FromZero, ", "), "", "each"
	}
	if len(p.Zones) > 1 && !p.ZoneBlind {
		// A group per zone (zoneGroups): each needs min 1, so the pool
		// needs a min of one a zone.
		fix = fmt.Sprintf(fixZoneMin, len(p.Zones))
	}
	return fmt.Sprintf(reasonDRAFromZero, class, p.Name, groups, verb, sched.ErrReasonClaims, each, fix)
}
