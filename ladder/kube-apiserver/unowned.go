package kubeapiserver

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// The namespaces the unowned namespaces' policy is judged in, beside the
// tree's: one no tenant owns, one the policy exempts, and a tenant's
// namespace stripped of its admission label (which must not escape).
const (
	nsUnowned  = "gpufleet-probe-unowned"
	nsStripped = "gpufleet-probe-stripped"
)

// ProbeNamespaces are those namespaces as the API server holds them.
func ProbeNamespaces(d *derive.Fleet) []*corev1.Namespace {
	mk := func(name string, labels map[string]string) *corev1.Namespace {
		if labels == nil {
			labels = map[string]string{}
		}
		labels[corev1.LabelMetadataName] = name
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	}
	out := []*corev1.Namespace{mk(nsUnowned, nil), mk(metav1.NamespaceSystem, nil)}
	if len(d.Tenants) > 0 {
		t := d.Tenants[0]
		ns := mk(nsStripped, map[string]string{keys.LabelTenant: t.Name})
		ns.Annotations = derive.Admission(d, t)
		out = append(out, ns)
	}
	for _, e := range d.ExemptNamespaces() {
		if e != metav1.NamespaceSystem {
			out = append(out, mk(e, nil))
		}
	}
	return out
}

// unownedCases: in a namespace no tenant owns, a CPU pod is admitted and
// a pod tolerating a pool's taints, or every taint, requesting a GPU, or
// of a class, is refused; in every exempt namespace the pod tolerating
// everything is admitted; in a tenant's namespace stripped of its
// admission label, its class's pod is refused.
func unownedCases(d *derive.Fleet, tr *Tree, g *gen, add func(string, *corev1.Pod, bool)) {
	if d.UnownedAdmission() == "Off" || len(d.Tenants) == 0 {
		return
	}
	bare := &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "busybox"}}}}
	pod := func(ns string, mut func(*corev1.Pod)) *corev1.Pod {
		p := g.pod(bare, ns, "")
		p.Spec.PriorityClassName = "" // no tenant's: any PriorityClass
		mut(p)
		return p
	}
	all := func(p *corev1.Pod) {
		p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Operator: corev1.TolerationOpExists})
	}
	add("unowned: a CPU pod", pod(nsUnowned, func(*corev1.Pod) {}), true)
	add("unowned: a pod tolerating everything", pod(nsUnowned, all), false)
	add("unowned: a pod requesting a GPU", pod(nsUnowned, func(p *corev1.Pod) {
		p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}
	}), false)
	for _, pl := range d.Pools {
		if len(pl.Taints) > 0 {
			add("unowned: a pod tolerating pool "+pl.Name, pod(nsUnowned, func(p *corev1.Pod) {
				p.Spec.Tolerations = append(p.Spec.Tolerations, tolerate(pl.Taints)...)
				p.Spec.NodeSelector = pl.Labels
			}), false)
		}
	}
	for _, e := range d.ExemptNamespaces() {
		add(fmt.Sprintf("exempt %s: a pod tolerating everything", e), pod(e, all), true)
	}
	t := d.Tenants[0]
	c := t.Spec.Classes[0]
	tpl, owner := &d.Class(c).Template, "Job"
	if len(d.Class(c).Roles) == 0 {
		tpl, _, owner = template(tr.Examples[c])
	}
	add(fmt.Sprintf("unowned: class %s's pod", c), g.pod(tpl, nsUnowned, owner), false)
	add(fmt.Sprintf("%s's namespace stripped of its admission label: class %s's pod tolerating everything", t.Name, c), func() *corev1.Pod {
		p := g.pod(tpl, nsStripped, owner)
		all(p)
		return p
	}(), false)
}
