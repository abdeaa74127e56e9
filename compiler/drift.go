package compiler

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/drift"
)

// Drift compares a running cluster's nodes (kubectl get nodes -o json,
// read by compiler/live) with the fleet's pools, and points each finding
// at its pool's entry in the spec.
func (r *Result) Drift(live []corev1.Node) (*drift.Report, error) {
	cl, err := r.Cluster()
	if err != nil {
		return nil, err
	}
	rep := drift.Compare(drift.Fleet{Groups: r.Groups, Cluster: cl, Catalog: r.Catalog}, live)
	for i := range rep.Findings {
		if p := rep.Findings[i].Pool; p != "" {
			rep.Findings[i].Pos = r.Entries.Pos("pools", p)
		}
	}
	return rep, nil
}
