package queueing

import "github.com/gpufleet/gpufleet/compiler/check"

const IDKueueTopologyBound check.ID = "KueueTopologyBound"

// KueueTopologyBound warns where a workload Kueue places by topology fits
// its flavor's standing nodes only if enough of them share a network node:
// offline the tree says how many nodes stand, not where EC2 puts them
// (KueueTopology, kueuemodel.TASFit).
func KueueTopologyBound(a *check.Admission) []check.Finding {
	return topologyFindings(a, true)
}
