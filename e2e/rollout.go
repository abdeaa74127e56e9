package e2e

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/gpufleet/gpufleet/compiler/check/resourcequota"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/check/scheduling"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// rolloutAnnotation is what the harness changes in a Deployment's pod
// template to start a rollout, as a new image would.
const rolloutAnnotation = "e2e.gpufleet.dev/rollout"

// rollout rolls out a Deployment class whose pods all run, at max size,
// and holds the real Deployment and ReplicaSet controllers to the Rollout
// and RolloutQuota checks: the rollout completes, or it stalls exactly as
// the checker said, with every old pod kept and the first new one either
// Unschedulable over all nodes (Rollout) or refused by quota admission
// (RolloutQuota). A queued Deployment's surge pod is Kueue's to admit
// first: one it holds gated with every old pod kept is a stall no check
// predicts yet, so it fails the run. The harness does only what kubelets would: it marks bound pods
// Running and Ready, and confirms the deletion of those the ReplicaSet
// controller deletes.
func (fr *fleetRun) rollout(c *sched.Class, ns, name string) {
	// What the checker says stops the rollout: quota admission refuses the
	// surge pod before any scheduler sees it, so RolloutQuota comes first.
	want := ""
	for _, f := range fr.res.Report.Findings {
		switch {
		case f.Class != c.Name:
		case f.Check == resourcequota.IDRolloutQuota:
			want = "quota"
		case f.Check == scheduling.IDRollout && want == "":
			want = "room"
		}
	}
	apps := fr.cp.Client.AppsV1().Deployments(ns)
	sel := metav1.ListOptions{LabelSelector: runLabel + "=" + name}
	if err := fr.kubelet(ns, sel); err != nil {
		fr.t.Fatal(err)
	}
	before, err := fr.owners(keys.KindDeployment, ns, sel.LabelSelector, "")()
	if err != nil {
		fr.t.Fatal(err)
	}
	newRS := func() (map[types.UID]bool, error) {
		all, err := fr.owners(keys.KindDeployment, ns, sel.LabelSelector, "")()
		for uid := range before {
			delete(all, uid)
		}
		return all, err
	}
	refused := failedCreates(fr.ctx, fr.cp, ns, newRS)
	patch := fmt.Sprintf(`{"spec":{"template":{"metadata":{"annotations":{%q:"1"}}}}}`, rolloutAnnotation)
	if _, err := apps.Patch(fr.ctx, name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		fr.t.Fatal(err)
	}
	all := allNodes(len(fr.nodes.nodes))
	var state, stuck, got string
	err = poll(60*time.Second, 200*time.Millisecond, func() (bool, error) {
		if err := fr.kubelet(ns, sel); err != nil {
			return false, err
		}
		d, err := apps.Get(fr.ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		pods, err := fr.cp.Client.CoreV1().Pods(ns).List(fr.ctx, sel)
		if err != nil {
			return false, err
		}
		old, fresh := 0, 0
		stuck, got = "", ""
		for i := range pods.Items {
			p := &pods.Items[i]
			if p.Annotations[rolloutAnnotation] == "" {
				old++
				continue
			}
			fresh++
			if m := unschedulable(p); strings.HasPrefix(m, all) {
				stuck, got = p.Name+": "+m, "room"
			}
			if gated(p) && p.CreationTimestamp.Add(15*time.Second).Before(time.Now()) {
				// Kueue's pod integration holds it: no quota in the
				// ClusterQueue for its Workload.
				stuck, got = p.Name+": gated by Kueue for over 15 s", "kueue"
			}
		}
		failed, err := refused()
		if err != nil {
			return false, err
		}
		for _, m := range failed {
			if strings.Contains(m, "exceeded quota") {
				stuck, got = m, "quota"
			}
		}
		s, replicas := d.Status, *d.Spec.Replicas
		state = fmt.Sprintf("%d old pods, %d new; updated %d, available %d of %d", old, fresh, s.UpdatedReplicas, s.AvailableReplicas, replicas)
		if s.ObservedGeneration == d.Generation && old == 0 && s.UpdatedReplicas == replicas && s.AvailableReplicas == replicas {
			// Completed. A surge pod refused on the way is no stall: a
			// pod being deleted counts against quota until its grace
			// period ends (the quota evaluator's QuotaV1Pod), so a
			// quota that holds replicas + maxSurge can refuse one while
			// old pods terminate, and the rollout only waits.
			if got == "quota" {
				fr.t.Logf("class %s: Deployment %s: quota admission refused a surge pod while old pods terminated (%s); the rollout then completed", c.Name, name, stuck)
			}
			stuck, got = "", ""
			return true, nil
		}
		// A stall: maxUnavailable 0 kept every old pod, and the surge pod
		// fits no node or was refused by quota admission.
		return stuck != "" && old == int(replicas), nil
	})
	what := map[string]string{"room": "Rollout", "quota": "RolloutQuota", "kueue": "Kueue holding the surge pod"}
	switch {
	case err != nil:
		fr.fail("class %s: the rollout of Deployment %s neither completed nor stalled: %v (%s)", c.Name, name, err, state)
	case got == want && want == "":
		fr.st.Rollouts++
		fr.t.Logf("class %s: Deployment %s rolled out at max size (%s), as the checker said", c.Name, name, state)
	case got == want:
		fr.st.RolloutsStalled++
		fr.t.Logf("class %s: Deployment %s's rollout stalled (%s; %s), as %s said", c.Name, name, state, stuck, what[want])
	case want == "":
		fr.fail("class %s: Deployment %s's rollout stalled (%s; %s), but the checker finds no Rollout or RolloutQuota error", c.Name, name, state, stuck)
	case got == "":
		fr.fail("class %s: Deployment %s rolled out (%s), but %s said it stalls", c.Name, name, state, what[want])
	default:
		fr.fail("class %s: Deployment %s's rollout stalled (%s; %s), which is %s's stall, but the checker said %s", c.Name, name, state, stuck, what[got], what[want])
	}
}

// kubelet does, for the pods sel matches, what their nodes' kubelets
// would: a bound pod starts and is Ready, and a deleted one is confirmed
// gone.
func (fr *fleetRun) kubelet(ns string, sel metav1.ListOptions) error {
	pods := fr.cp.Client.CoreV1().Pods(ns)
	l, err := pods.List(fr.ctx, sel)
	if err != nil {
		return err
	}
	zero := int64(0)
	for i := range l.Items {
		p := &l.Items[i]
		switch {
		case p.DeletionTimestamp != nil:
			if err := pods.Delete(fr.ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
		case p.Spec.NodeName != "" && p.Status.Phase != corev1.PodRunning:
			now := metav1.Now()
			p.Status.Phase = corev1.PodRunning
			p.Status.StartTime = &now
			p.Status.Conditions = append(p.Status.Conditions,
				corev1.PodCondition{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
				corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now})
			if _, err := pods.UpdateStatus(fr.ctx, p, metav1.UpdateOptions{}); err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
				return err
			}
		}
	}
	return nil
}
