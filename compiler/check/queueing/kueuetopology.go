package queueing

import (
	"fmt"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
)

const IDKueueTopology check.ID = "KueueTopology"

// KueueTopology follows each queued workload Kueue places by topology
// (its template asks, or its ClusterQueue has only TAS flavors) into the
// flavor the quota assigner gives it: there Kueue's topology-aware
// scheduling (flavorassigner.Assign, then FindTopologyAssignmentsForWorkload)
// places the pods on the flavor's nodes that exist, in one domain of a
// required level, and admits nothing until they fit. It keeps the Job
// suspended meanwhile, so no pod is pending for an autoscaler to add a
// node: a pool that stands at zero (Karpenter's, or min 0) never takes
// one. It does not try the next flavor. KueueTopology is the error where
// no placement of the standing nodes fits (kueuemodel.TASFit: on
// synthesised nodes a network level is a bound), KueueTopologyBound the
// warning where only some do; live nodes (check --nodes) are exact.
func KueueTopology(a *check.Admission) []check.Finding {
	return topologyFindings(a, false)
}

// topologyFindings are KueueTopology's (bound false) or
// KueueTopologyBound's findings: where no placement of the standing nodes
// fits the workload, or where only some do.
func topologyFindings(a *check.Admission, bound bool) []check.Finding {
	var out []check.Finding
	for i := range a.Classes {
		qc := &a.Classes[i]
		fit, topology, ok := a.TASFit(qc)
		// Where the class does not land on the flavor's pool at all,
		// KueueFlavor says so.
		if !ok || fit.Sure() || fit.May() != bound || !a.Report.Fits(qc.Class.Name, qc.Assignment.Flavor()) {
			continue
		}
		c, flavor := qc.Class, qc.Assignment.Flavor()
		t := kueuemodel.TopologyOf(c.Pod)
		head := fmt.Sprintf("tenant %s: Kueue admits class %s's %s to flavor %s on quota, then places it by topology (%s) on the %d node(s) that exist",
			a.Queue.Tenant, c.Name, workloadOf(c, qc.Pods), flavor, check.TopologyAsked(t), fit.Standing)
		f := check.Finding{Severity: check.Error, Check: IDKueueTopology, Tenant: a.Queue.Tenant, Class: c.Name, Pool: flavor,
			Message: fmt.Sprintf("%s: %s, so it is never admitted%s", head, fit.NotFit(topology, fit.Best), standing(a.Pool(flavor).Live, fit))}
		if bound {
			sliced := ""
			if t.SliceSize > 0 {
				sliced = check.TopologySliced(t) + ","
			}
			f.Severity, f.Check = check.Warning, IDKueueTopologyBound
			f.Message = fmt.Sprintf("%s: its %d pods%s fit only if EC2 puts enough of those nodes under one network node; with each undeclared level's domains as small as they can be, %s (declare the pool's topologyDomains, or run check --nodes on the live labels, to judge it exactly)",
				head, fit.Count, sliced, fit.NotFit(topology, fit.Worst))
		}
		out = append(out, f)
	}
	return out
}

// standing says why so few nodes stand.
func standing(live bool, fit kueuemodel.Fit) string {
	if live || fit.Standing > 0 {
		return ""
	}
	return "; the pool stands at zero nodes, and Kueue keeps the Job suspended, so no pod is ever pending for an autoscaler to add one: give the pool a min size (cluster-autoscaler scales idle nodes down to it)"
}
