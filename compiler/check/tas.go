package check

import (
	"fmt"

	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
)

// TASFit is how Kueue's TAS fits the queued class's unit on the flavor
// its quota goes to, and that flavor's Topology; false where Kueue does
// not place it by topology.
func (a *Admission) TASFit(qc *Queued) (kueuemodel.Fit, string, bool) {
	if !qc.Assignment.Admitted() || !qc.Assignment.TAS {
		return kueuemodel.Fit{}, "", false
	}
	flavor := qc.Assignment.Flavor()
	p, spec := a.Pool(flavor), a.Model.Flavors[flavor]
	if p == nil || spec.TopologyName == nil {
		return kueuemodel.Fit{}, "", false
	}
	t := kueuemodel.TopologyOf(qc.Class.Pod)
	return kueuemodel.TASFit(p, a.Report.Cell(qc.Class.Name, flavor), a.Model.Topologies[*spec.TopologyName], a.Model.Domains[flavor], t, int64(qc.Pods)), *spec.TopologyName, true
}

// unitTopology is the report's account of the unit's TAS placement.
func (a *Admission) unitTopology(qc *Queued) *UnitTopology {
	fit, _, ok := a.TASFit(qc)
	if !ok {
		return nil
	}
	return &UnitTopology{Request: TopologyAsked(kueuemodel.TopologyOf(qc.Class.Pod)), Standing: fit.Standing, Worst: fit.Worst, Best: fit.Best}
}

// TopologyAsked names a TopologyRequest in a finding.
func TopologyAsked(t kueuemodel.TopologyRequest) string {
	switch {
	case !t.Explicit:
		return "implied: its ClusterQueue has only TAS flavors"
	case t.Required:
		return "required " + t.Level + TopologySliced(t)
	case t.Level != "":
		return "preferred " + t.Level + TopologySliced(t)
	}
	return "unconstrained" + TopologySliced(t)
}

// TopologySliced says how a sliced request slices its pods.
func TopologySliced(t kueuemodel.TopologyRequest) string {
	if t.SliceSize == 0 {
		return ""
	}
	return fmt.Sprintf(", in slices of %d within one %s domain each", t.SliceSize, t.SliceLevel)
}
