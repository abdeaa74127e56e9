package derive

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/wire/deviceplugin"
	"github.com/gpufleet/gpufleet/compiler/wire/dradriver"
)

// builtinExempt are the namespaces whose pods the unowned namespaces'
// policy never holds: the cluster's own (the DaemonSets on every node,
// the second scheduler) and the tree's agents'.
var builtinExempt = []string{
	metav1.NamespaceSystem, metav1.NamespacePublic, corev1.NamespaceNodeLease,
	deviceplugin.Namespace, dradriver.Namespace,
}

// UnownedAdmission is the action of the policy that holds pods in
// namespaces no tenant owns: the spec's, Deny by default, "Off" for none.
func (d *Fleet) UnownedAdmission() string {
	if u := d.Spec.Cluster.UnownedNamespaces; u != nil && u.Admission != "" {
		return u.Admission
	}
	return "Deny"
}

// ExemptNamespaces are the namespaces no tenant owns whose pods may reach
// the pools: the built-in ones and the spec's, sorted.
func (d *Fleet) ExemptNamespaces() []string {
	out := slices.Clone(builtinExempt)
	if u := d.Spec.Cluster.UnownedNamespaces; u != nil {
		out = append(out, u.Exempt...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// PoolTaintKeys are the keys of every pool's taints, sorted: a pod that
// tolerates none of them (nor every taint) reaches no tainted pool.
func (d *Fleet) PoolTaintKeys() []string {
	var out []string
	for _, p := range d.Pools {
		for _, t := range p.Taints {
			if t.Effect != corev1.TaintEffectPreferNoSchedule {
				out = append(out, t.Key)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
