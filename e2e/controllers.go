package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/gpufleet/gpufleet/compiler/keys"
)

// runWorkload applies a built user workload and settles the pods its
// controller makes (want of them), with their controller's FailedCreate
// events. A queued workload (the class Component labels it for the
// tenant's LocalQueue) first waits for Kueue's decisions: if Kueue admits
// none of it, there are no pods to place and held is its decision; pods
// of a Deployment's replicas Kueue leaves pending stay gated.
func (fr *fleetRun) runWorkload(dyn dynamic.Interface, kind, ns, name string, objs []*unstructured.Unstructured, want int, enough func(*submission) bool, done func(outcome) bool) (o outcome, held *kueueDecision, err error) {
	s := &submission{kind: kind, ns: ns, name: name, pods: want, sel: runLabel + "=" + name, decisions: map[string]kueueDecision{}}
	queued := false
	for _, obj := range objs {
		got, err := fr.a.Apply(fr.ctx, obj)
		if err != nil {
			return o, nil, fmt.Errorf("the API server refused %s: %w", id(obj), err)
		}
		if got.GetKind() == kind {
			s.uid = got.GetUID()
			queued = got.GetLabels()[kueueQueueLabel] != ""
		}
	}
	if queued {
		if err := fr.await(dyn, s, enough); err != nil {
			return o, nil, err
		}
		if !s.anyAdmitted() {
			d := s.first("")
			return o, &d, nil
		}
	}
	_, pending := s.admittedTo()
	if !queued {
		pending = 0
	}
	o, err = settle(fr.ctx, fr.cp, ns, s.sel, want, len(fr.nodes.nodes), failedCreates(fr.ctx, fr.cp, ns, fr.owners(kind, ns, s.sel, s.uid)), func(o outcome) bool {
		o.heldByKueue = pending
		return done(o)
	})
	o.heldByKueue = pending
	return o, nil, err
}

// clearWorkload deletes a user workload, what its controller made and its
// Service, and waits (bounded) until they are gone. With no garbage
// collector, a Deployment's ReplicaSets, a StatefulSet's
// ControllerRevisions and every pod go by hand, and again while a
// controller still finishing a create makes one more.
func (fr *fleetRun) clearWorkload(dyn dynamic.Interface, kind, ns, name string) error {
	if kind == keys.KindJob {
		return clearJobs(fr, dyn, ns, name)
	}
	apps, zero := fr.cp.Client.AppsV1(), int64(0)
	sel := metav1.ListOptions{LabelSelector: runLabel + "=" + name}
	gone := func(err error) error {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
	err := poll(60*time.Second, 200*time.Millisecond, func() (bool, error) {
		var errs []error
		switch kind {
		case keys.KindDeployment:
			errs = append(errs, gone(apps.Deployments(ns).Delete(fr.ctx, name, metav1.DeleteOptions{})))
		case keys.KindStatefulSet:
			errs = append(errs, gone(apps.StatefulSets(ns).Delete(fr.ctx, name, metav1.DeleteOptions{})),
				gone(fr.cp.Client.CoreV1().Services(ns).Delete(fr.ctx, name, metav1.DeleteOptions{})),
				apps.ControllerRevisions(ns).DeleteCollection(fr.ctx, metav1.DeleteOptions{}, sel))
		}
		errs = append(errs, apps.ReplicaSets(ns).DeleteCollection(fr.ctx, metav1.DeleteOptions{}, sel),
			fr.cp.Client.CoreV1().Pods(ns).DeleteCollection(fr.ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, sel),
			fr.releasePods(ns, sel))
		for _, err := range errs {
			if err != nil {
				return false, err
			}
		}
		_, errD := apps.Deployments(ns).Get(fr.ctx, name, metav1.GetOptions{})
		_, errS := apps.StatefulSets(ns).Get(fr.ctx, name, metav1.GetOptions{})
		rs, err := apps.ReplicaSets(ns).List(fr.ctx, sel)
		if err != nil {
			return false, err
		}
		pods, err := fr.cp.Client.CoreV1().Pods(ns).List(fr.ctx, sel)
		if err != nil {
			return false, err
		}
		return apierrors.IsNotFound(errD) && apierrors.IsNotFound(errS) && len(rs.Items) == 0 && len(pods.Items) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("%s %s/%s and its pods did not go: %w", kind, ns, name, err)
	}
	return nil
}

// clearExamples takes away the pods of the tree's own example workloads,
// applied with it: the controllers made pods of them that would take the
// classes' nodes and quota. The workloads go, and everything they made;
// their Services and budgets stay. It waits until every tenant
// namespace's quota is unused again.
func (fr *fleetRun) clearExamples(dyn dynamic.Interface) {
	// A controller's sync already under way when its workload went may
	// still make a pod: clear again until a second later finds none.
	for try := 0; ; try++ {
		fr.clearExamplesOnce(dyn)
		time.Sleep(time.Second)
		late := 0
		for _, tn := range fr.res.Fleet.Tenants {
			for _, ns := range tn.Spec.Namespaces {
				p, err := fr.cp.Client.CoreV1().Pods(ns).List(fr.ctx, metav1.ListOptions{})
				if err != nil {
					fr.t.Fatal(err)
				}
				late += len(p.Items)
			}
		}
		if late == 0 {
			return
		}
		if try == 5 {
			fr.t.Fatalf("the examples' pods keep coming back: %d after clearing", late)
		}
		fr.t.Logf("clearing the examples again: %d pods made after their workloads went", late)
	}
}

func (fr *fleetRun) clearExamplesOnce(dyn dynamic.Interface) {
	apps, zero, all := fr.cp.Client.AppsV1(), int64(0), metav1.ListOptions{}
	for _, tn := range fr.res.Fleet.Tenants {
		for _, ns := range tn.Spec.Namespaces {
			deleteApps := func() error {
				return errors.Join(
					apps.Deployments(ns).DeleteCollection(fr.ctx, metav1.DeleteOptions{}, all),
					apps.StatefulSets(ns).DeleteCollection(fr.ctx, metav1.DeleteOptions{}, all),
					apps.ReplicaSets(ns).DeleteCollection(fr.ctx, metav1.DeleteOptions{}, all),
					apps.ControllerRevisions(ns).DeleteCollection(fr.ctx, metav1.DeleteOptions{}, all),
					fr.cp.Client.CoreV1().Pods(ns).DeleteCollection(fr.ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, all),
					fr.releasePods(ns, all))
			}
			// The Deployments' and StatefulSets' first: Kueue keeps their
			// pods' Workloads while the pods are there.
			if err := deleteApps(); err != nil {
				fr.t.Fatalf("namespace %s: %v", ns, err)
			}
			// The ML kinds' first too: Kueue makes their Workloads again
			// while they are there.
			if err := clearMLExamples(fr, dyn, ns); err != nil {
				fr.t.Fatalf("namespace %s: %v", ns, err)
			}
			if err := clearJobs(fr, dyn, ns, ""); err != nil {
				fr.t.Fatalf("namespace %s: %v", ns, err)
			}
			var left string // what was still there at the last look
			err := poll(60*time.Second, 200*time.Millisecond, func() (bool, error) {
				if err := deleteApps(); err != nil {
					return false, err
				}
				d, err1 := apps.Deployments(ns).List(fr.ctx, all)
				s, err2 := apps.StatefulSets(ns).List(fr.ctx, all)
				r, err3 := apps.ReplicaSets(ns).List(fr.ctx, all)
				p, err4 := fr.cp.Client.CoreV1().Pods(ns).List(fr.ctx, all)
				if err := errors.Join(err1, err2, err3, err4); err != nil {
					return false, err
				}
				if len(d.Items)+len(s.Items)+len(r.Items)+len(p.Items) > 0 {
					left = fmt.Sprintf("%d Deployments, %d StatefulSets, %d ReplicaSets, %d pods", len(d.Items), len(s.Items), len(r.Items), len(p.Items))
					return false, nil
				}
				// The examples' Workloads outlive them (no garbage collector).
				if err := clearWorkloads(fr, dyn, ns); err != nil {
					return false, err
				}
				used, err := quotaUsed(fr.ctx, fr.cp, ns)
				left = fmt.Sprintf("quota in use %v", used)
				return err == nil && unused(used), err
			})
			if err != nil {
				fr.t.Fatalf("namespace %s: the examples' workloads and pods did not go, or quota stayed in use: %v (at the last look: %s)", ns, err, left)
			}
		}
	}
}

// releasePods removes Kueue's finalizer from pods deleted a while ago that
// still carry it: Kueue removes it once a kubelet has stopped the pod (or
// a grace period has passed), and here no kubelet runs.
func (fr *fleetRun) releasePods(ns string, sel metav1.ListOptions) error {
	pods, err := fr.cp.Client.CoreV1().Pods(ns).List(fr.ctx, sel)
	if err != nil {
		return err
	}
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil || time.Since(p.DeletionTimestamp.Time) < 2*time.Second || !slices.Contains(p.Finalizers, kueuePodFinalizer) {
			continue
		}
		patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
			"finalizers":      slices.DeleteFunc(slices.Clone(p.Finalizers), func(f string) bool { return f == kueuePodFinalizer }),
			"resourceVersion": p.ResourceVersion,
		}})
		if err != nil {
			return err
		}
		_, err = fr.cp.Client.CoreV1().Pods(ns).Patch(fr.ctx, p.Name, types.MergePatchType, patch, metav1.PatchOptions{})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return err
		}
	}
	return nil
}

func unused(used map[string]corev1.ResourceList) bool {
	for _, l := range used {
		for _, q := range l {
			if !q.IsZero() {
				return false
			}
		}
	}
	return true
}
