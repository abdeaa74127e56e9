package e2e

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// hostile asks the real kube-apiserver to create, in the first namespace
// of every tenant, pods its admission policies must refuse (issue 48): a
// CPU pod of no class tolerating a tainted pool's taints and selecting its
// nodes, and a pod of each of its classes at a PriorityClass its class
// does not have. Each must be refused by a ValidatingAdmissionPolicy, with
// the policy's message naming the tenant; the classes' own workloads,
// which every fleet's run makes afterwards, are admitted (fr.class).
func (fr *fleetRun) hostile() {
	t := fr.t
	cl := fr.cp.Client.CoreV1()
	var tainted []corev1.Taint
	var pool map[string]string
	for _, p := range fr.res.Fleet.Pools {
		if len(p.Taints) > 0 {
			tainted, pool = p.Taints, p.Labels
			break
		}
	}
	try := func(ns, what string, pod *corev1.Pod) {
		pod.Name, pod.Namespace = "gpufleet-hostile", ns
		if pod.Spec.Containers == nil {
			pod.Spec.Containers = []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10"}}
		}
		_, err := cl.Pods(ns).Create(fr.ctx, pod, metav1.CreateOptions{})
		switch {
		case err == nil:
			_ = cl.Pods(ns).Delete(fr.ctx, pod.Name, metav1.DeleteOptions{})
			t.Errorf("%s: %s was admitted", ns, what)
		case !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "ValidatingAdmissionPolicy 'gpufleet-") || !strings.Contains(err.Error(), "tenant"):
			t.Errorf("%s: %s refused, but not by the tenant's policy: %v", ns, what, err)
		default:
			fr.st.Hostile++
		}
	}
	for _, tn := range fr.res.Fleet.Tenants {
		ns := tn.Spec.Namespaces[0]
		if tainted != nil {
			p := &corev1.Pod{Spec: corev1.PodSpec{NodeSelector: pool}}
			for _, tt := range tainted {
				p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: tt.Key, Operator: corev1.TolerationOpEqual, Value: tt.Value, Effect: tt.Effect})
			}
			try(ns, "a CPU pod of no class tolerating a tainted pool", p)
		}
		for _, c := range tn.Spec.Classes {
			dc := fr.res.Fleet.Class(c)
			for _, pr := range fr.res.Fleet.Priorities {
				if pr.Name == dc.Spec.Priority {
					continue
				}
				p := &corev1.Pod{ObjectMeta: *dc.Template.ObjectMeta.DeepCopy(), Spec: *dc.Template.Spec.DeepCopy()}
				p.Spec.PriorityClassName = pr.Name
				try(ns, fmt.Sprintf("a pod of class %s at PriorityClass %s", c, pr.Name), p)
				break
			}
		}
	}
	// A namespace no tenant owns: the unowned namespaces' policy keeps its
	// pods off the tainted pool (render/unowned.go).
	if tainted != nil && fr.res.Fleet.UnownedAdmission() == "Deny" {
		ns := "gpufleet-e2e-unowned"
		if _, err := cl.Namespaces().Create(fr.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		p := &corev1.Pod{Spec: corev1.PodSpec{NodeSelector: pool}}
		for _, tt := range tainted {
			p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: tt.Key, Operator: corev1.TolerationOpEqual, Value: tt.Value, Effect: tt.Effect})
		}
		try(ns, "a pod in a namespace no tenant owns tolerating a tainted pool", p)
	}
}
