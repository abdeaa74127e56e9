package compiler

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/readback"
	"github.com/gpufleet/gpufleet/compiler/check/registry"
)

// CheckLive runs the placement checker on a running cluster's nodes
// instead of those the pools launch at max size (readback.FromLive): each
// pool is its live nodes, less what the pods bound to them request. The
// spec's severities and positions apply as in Compile. The Kueue checks,
// which judge the ClusterQueues against the pools at max size, are
// Compile's, but for those of Kueue's topology-aware scheduling, which
// places on the nodes that exist (check.KueueLive): on live nodes their
// labels make them exact.
func (r *Result) CheckLive(live []corev1.Node, pods []corev1.Pod) (*check.Report, error) {
	cl, err := readback.FromLive(r.Typed(), r.Groups, r.Catalog, live, pods)
	if err != nil {
		return nil, err
	}
	in := Intent(r.Fleet)
	if err := readback.WithLimitRanges(cl, r.Typed(), in.Namespaces()); err != nil {
		return nil, err
	}
	rep := check.RunCluster(cl, in, registry.Checks)
	if err := check.KueueLive(r.Typed(), cl, rep, KueueIntent(r.Fleet), registry.OnLiveNodes()); err != nil {
		return nil, err
	}
	severities(r.Fleet.Spec, rep)
	position(r.Entries, rep)
	return rep, nil
}
