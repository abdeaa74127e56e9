package e2e

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// systemPods holds each workload the tree itself deploys (its second
// scheduler's Deployment) to SystemLands: on the fleet at max size, the
// Deployment controller makes its pod and kube-scheduler must bind it to a
// node of a pool the checker says can host it, or leave it Unschedulable
// when the checker says none can. It returns the Deployments ("ns/name")
// whose pod was bound: only those get a process, run as that pod (its
// ServiceAccount, its ConfigMap), since on a cluster a Pending pod's
// container never starts.
func (fr *fleetRun) systemPods() map[string]bool {
	fr.ensureNodes(fr.fullSize(""))
	bound := map[string]bool{}
	for i := range fr.cl.System {
		c := &fr.cl.System[i]
		var fits []string
		for j := range fr.cl.Pools {
			if sched.Evaluate(c, &fr.cl.Pools[j]).Fits {
				fits = append(fits, fr.cl.Pools[j].Name)
			}
		}
		pod, err := fr.systemPod(c)
		if err != nil {
			fr.fail("the tree's %s: %v", c.Name, err)
			continue
		}
		fr.st.SystemPods++
		node := pod.Spec.NodeName
		pool := fr.nodes.poolOf[node]
		switch {
		case node == "" && len(fits) == 0:
			fr.t.Logf("the tree's %s: pod %s Unschedulable (%s), as SystemLands said: no scheduler process runs for it", c.Name, pod.Name, unschedulable(pod))
		case node == "":
			fr.fail("the tree's %s: pod %s Unschedulable (%s), but the checker says pools [%s] can host it", c.Name, pod.Name, unschedulable(pod), strings.Join(fits, " "))
		case !slices.Contains(fits, pool):
			fr.fail("the tree's %s: kube-scheduler bound pod %s to node %s of pool %s, but the checker says only pools [%s] can host it", c.Name, pod.Name, node, pool, strings.Join(fits, " "))
		default:
			fr.t.Logf("the tree's %s: kube-scheduler bound pod %s to node %s of pool %s, one of [%s] the checker said; the scheduler process runs as that pod", c.Name, pod.Name, node, pool, strings.Join(fits, " "))
			bound[c.Name] = true
		}
	}
	return bound
}

// systemPod waits, bounded, until the Deployment named "ns/name" has a pod
// that is bound or that kube-scheduler found Unschedulable.
func (fr *fleetRun) systemPod(c *sched.Class) (*corev1.Pod, error) {
	ns, name, _ := strings.Cut(c.Name, "/")
	d, err := fr.cp.Client.AppsV1().Deployments(ns).Get(fr.ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, err
	}
	var got *corev1.Pod
	state := "no pod"
	all := allNodes(len(fr.nodes.nodes))
	retried := map[string]bool{}
	err = poll(60*time.Second, 200*time.Millisecond, func() (bool, error) {
		l, err := fr.cp.Client.CoreV1().Pods(ns).List(fr.ctx, metav1.ListOptions{LabelSelector: sel.String()})
		if err != nil {
			return false, err
		}
		for i := range l.Items {
			p := &l.Items[i]
			if p.DeletionTimestamp != nil {
				continue
			}
			msg := unschedulable(p)
			if p.Spec.NodeName != "" || strings.HasPrefix(msg, all) {
				got = p
				return true, nil
			}
			state = "pod " + p.Name + " neither bound nor Unschedulable"
			if msg == "" || retried[p.Name] {
				continue
			}
			// Made before the nodes, the pod was Unschedulable on fewer;
			// only a verdict over all of them counts. kube-scheduler's
			// queueing hints skip a node add the pod cannot use (a taint
			// it does not tolerate), so it would wait out the unschedulable
			// pool's 5 minutes; a replacement is judged on every node now.
			retried[p.Name] = true
			state = "pod " + p.Name + " Unschedulable on fewer nodes (" + msg + "), replaced"
			if err := fr.cp.Client.CoreV1().Pods(ns).Delete(fr.ctx, p.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return false, err
			}
			fr.t.Logf("the tree's %s: %s", c.Name, state)
		}
		return false, nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, state)
	}
	return got, nil
}

// unschedulable is kube-scheduler's message on a pod it could not place,
// or "" if it has none.
func unschedulable(p *corev1.Pod) string {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return c.Message
		}
	}
	return ""
}

// noScheduler is the schedulerName of class when no process serves it
// (SystemLands' consequence, which the checker states: no pod of the class
// is ever scheduled), or "".
func (fr *fleetRun) noScheduler(class string) string {
	for i := range fr.cl.Classes {
		if c := &fr.cl.Classes[i]; c.Name == class && fr.unscheduled[schedulerOf(c.Pod)] {
			return schedulerOf(c.Pod)
		}
	}
	return ""
}
