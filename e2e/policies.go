package e2e

import (
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/render"
	"github.com/gpufleet/gpufleet/compiler/tree"
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
	tryFor := func(ns, what, want string, pod *corev1.Pod) {
		pod.Name, pod.Namespace = "gpufleet-hostile", ns
		if pod.Spec.Containers == nil {
			pod.Spec.Containers = []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10"}}
		}
		_, err := cl.Pods(ns).Create(fr.ctx, pod, metav1.CreateOptions{})
		// Kueue's pod webhook looks the owner up in its informer's cache,
		// which may not hold a Job created a moment ago yet.
		for wait := time.Now().Add(15 * time.Second); err != nil && strings.Contains(err.Error(), `"mpod.kb.io"`) &&
			strings.Contains(err.Error(), "not found") && time.Now().Before(wait); {
			time.Sleep(250 * time.Millisecond)
			_, err = cl.Pods(ns).Create(fr.ctx, pod, metav1.CreateOptions{})
		}
		switch {
		case err == nil:
			_ = cl.Pods(ns).Delete(fr.ctx, pod.Name, metav1.DeleteOptions{})
			t.Errorf("%s: %s was admitted", ns, what)
		case !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "ValidatingAdmissionPolicy 'gpufleet-") || !strings.Contains(err.Error(), want):
			t.Errorf("%s: %s refused, but not by the tenant's policy: %v", ns, what, err)
		default:
			fr.st.Hostile++
		}
	}
	try := func(ns, what string, pod *corev1.Pod) { tryFor(ns, what, "tenant", pod) }
	for _, tn := range fr.res.Fleet.Tenants {
		ns := tn.Spec.Namespaces[0]
		if tainted != nil {
			p := &corev1.Pod{Spec: corev1.PodSpec{NodeSelector: pool}}
			for _, tt := range tainted {
				p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: tt.Key, Operator: corev1.TolerationOpEqual, Value: tt.Value, Effect: tt.Effect})
			}
			try(ns, "a CPU pod of no class tolerating a tainted pool", p)
		}
		owner := fr.forgedOwner(ns)
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
			// A queued class's pod with no queue label, owned by a
			// suspended Job of no class (which Kueue leaves alone, and so
			// its pods): the harness, not kube-controller-manager's Job
			// controller under its service account, sends it.
			if q := dc.WorkloadLabels[kueueQueueLabel]; q != "" && len(dc.Roles) == 0 {
				p := &corev1.Pod{ObjectMeta: *dc.Template.ObjectMeta.DeepCopy(), Spec: *dc.Template.Spec.DeepCopy()}
				delete(p.Labels, kueueQueueLabel)
				p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: owner.Name, UID: owner.UID, Controller: new(true)}}
				tryFor(ns, fmt.Sprintf("a pod of queued class %s owned by a Job it did not make", c), "is queued", p)
			}
			if dc.WorkloadLabels[kueueQueueLabel] != "" && mlResources[dc.Spec.Kind] != (schema.GroupVersionResource{}) {
				fr.hostileML(ns, c, dc.Spec.Kind)
			}
		}
		// In the background: a Job's default, orphaning, waits on the
		// garbage collector, which does not run here.
		if err := fr.cp.Client.BatchV1().Jobs(ns).Delete(fr.ctx, owner.Name, metav1.DeleteOptions{PropagationPolicy: new(metav1.DeletePropagationBackground)}); err != nil {
			t.Errorf("%s: deleting the Job of no class: %v", ns, err)
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

// forgedOwner is a suspended Job of no class in ns, which makes no pod:
// the owner a tenant names to pass a pod of a queued class off as its.
func (fr *fleetRun) forgedOwner(ns string) *batchv1.Job {
	j := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "gpufleet-forged-owner", Namespace: ns},
		Spec: batchv1.JobSpec{Suspend: new(true), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10"}},
		}}},
	}
	got, err := fr.cp.Client.BatchV1().Jobs(ns).Create(fr.ctx, j, metav1.CreateOptions{})
	if err != nil {
		fr.t.Fatalf("%s: a Job of no class: %v", ns, err)
	}
	return got
}

// hostileML asks the API server to store a queued ML class's example
// without its queue label, which the ML kinds' policy must refuse: Kueue
// would never see it, and the Jobs and pods its controller makes pass as
// the controller's.
func (fr *fleetRun) hostileML(ns, class, kind string) {
	var o map[string]any
	for _, d := range tree.Docs(fr.res.Tree[tree.ClassExample(class)]) {
		if k, err := tree.Kind(d); err == nil && k == kind {
			if err := yaml.Unmarshal(d, &o); err != nil {
				fr.t.Fatal(err)
			}
		}
	}
	u := &unstructured.Unstructured{Object: o}
	u.SetNamespace(ns)
	u.SetName("gpufleet-hostile")
	l := u.GetLabels()
	delete(l, kueueQueueLabel)
	u.SetLabels(l)
	dyn, err := dynamic.NewForConfig(fr.cp.Config)
	if err != nil {
		fr.t.Fatal(err)
	}
	res := dyn.Resource(mlResources[kind]).Namespace(ns)
	_, err = res.Create(fr.ctx, u, metav1.CreateOptions{})
	switch {
	case err == nil:
		_ = res.Delete(fr.ctx, u.GetName(), metav1.DeleteOptions{})
		fr.t.Errorf("%s: queued class %s's %s without its queue label was admitted", ns, class, kind)
	case !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "ValidatingAdmissionPolicy '"+render.MLPolicy+"'") || !strings.Contains(err.Error(), "is queued"):
		fr.t.Errorf("%s: queued class %s's %s without its queue label refused, but not by the ML kinds' policy: %v", ns, class, kind, err)
	default:
		fr.st.Hostile++
	}
}
