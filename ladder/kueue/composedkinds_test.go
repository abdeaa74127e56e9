//go:build composed

package kueuediff

import (
	"context"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"k8s.io/klog/v2"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/pkg/podset"
	"sigs.k8s.io/kueue/pkg/scheduler/flavorassigner"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/internal/handoff"
)

// admitRoled follows an ML kind's workload, whose PodSets its Kueue
// integration built (ClassWorkload): the flavor assigner admits it whole
// on an empty cluster or not at all, each PodSet to the checker's flavor;
// then each PodSet's pod template is pinned to its flavor as the
// integration's RunWithPodSetsInfo does (pkg/podset FromAssignment and
// Merge, per PodSet), one record per role for the kube-scheduler half.
func (k *Kueue) admitRoled(ctx context.Context, cq string, base handoff.Record, w *Workload, u *check.Unit) ([]handoff.Record, []string, error) {
	a, _, err := k.assign(ctx, cq, base.Namespace, w.Name, w.PodSets)
	if err != nil {
		return nil, nil, err
	}
	var bad []string
	if len(w.PodSets) != len(u.PodSets) {
		return nil, []string{fmt.Sprintf("Kueue's integration builds %d PodSets, the checker %d", len(w.PodSets), len(u.PodSets))}, nil
	}
	fit := a.RepresentativeMode() == flavorassigner.Fit
	admitted := u.PodSets[len(u.PodSets)-1].Flavor != ""
	if fit != admitted {
		bad = append(bad, fmt.Sprintf("Kueue admits the whole workload: %v (%s), the checker: %v", fit, a.Message(), admitted))
	}
	if !fit {
		return []handoff.Record{base}, bad, nil
	}
	base.KueueFlavor = flavorOf(a)
	var out []handoff.Record
	for i, psa := range a.ToAPI(klog.Background()) {
		ps, ours := &w.PodSets[i], &u.PodSets[i]
		f := podSetFlavor(psa.Flavors)
		if string(ps.Name) != ours.Name || f != ours.Flavor {
			bad = append(bad, fmt.Sprintf("PodSet %d: Kueue %s to flavor %q, the checker %s to %q", i, ps.Name, f, ours.Name, ours.Flavor))
			continue
		}
		r := base
		r.Role, r.Row, r.Flavor, r.Pool, r.Admitted, r.Checker = ours.Name, ours.Row, f, k.pool(f), ps.Count, ours.Pinned
		r.WrittenNodeSelector = ps.Template.Spec.NodeSelector
		info, err := podset.FromAssignment(ctx, k.client, &psa, ps)
		if err != nil {
			return nil, nil, err
		}
		tmpl := ps.Template.DeepCopy()
		if err := podset.Merge(klog.Background(), &tmpl.ObjectMeta, &tmpl.Spec, info); err != nil {
			r.PinError = err.Error()
		} else {
			r.Template = tmpl
		}
		out = append(out, r)
	}
	return out, bad, nil
}

// podSetFlavor is a PodSet's flavor as the checker's Assignment.Flavor
// names it: its GPUs', else its first resource's by name.
func podSetFlavor(fl map[corev1.ResourceName]kueue.ResourceFlavorReference) string {
	if f, ok := fl[keys.ResourceGPU]; ok {
		return string(f)
	}
	for _, r := range slices.Sorted(maps.Keys(fl)) {
		return string(fl[r])
	}
	return ""
}
