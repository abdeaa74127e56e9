package e2e

import (
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

const syncLabel = "e2e.gpufleet.dev/sync"

// syncScheduler returns once the named scheduler has seen every node and pod
// event so far. Without it a class's pods could meet a cache that lacks
// nodes just created or still holds the previous class's pods; and a pod
// refused against such a cache is not always tried again soon, because
// queueing hints skip events that do not help it.
//
// It labels a node, which puts that node's update after every earlier node
// event in the scheduler's watch, then waits for a pod pinned to the new
// label to be bound: the informer delivers events in order, so by then the
// scheduler's cache holds all of them. The pod is deleted again before the
// class's pods are created, which orders its removal before them too.
func (fr *fleetRun) syncScheduler(schedulerName string) {
	t, ctx, cl := fr.t, fr.ctx, fr.cp.Client.CoreV1()
	if len(fr.nodes.nodes) == 0 {
		return // no node to bind to (a TAS pool standing at zero): no cache to sync
	}
	fr.syncs++
	mark := strconv.Itoa(fr.syncs)
	node := fr.nodes.nodes[0].Name
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, syncLabel, mark)
	if _, err := cl.Nodes().Patch(ctx, node, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-sync-" + mark, Namespace: metav1.NamespaceSystem},
		Spec: corev1.PodSpec{
			SchedulerName: schedulerName,
			NodeSelector:  map[string]string{syncLabel: mark},
			Tolerations:   []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			Containers:    []corev1.Container{{Name: "sync", Image: "registry.k8s.io/pause:3.10"}},
		},
	}
	if _, err := cl.Pods(metav1.NamespaceSystem).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err := poll(30*time.Second, 50*time.Millisecond, func() (bool, error) {
		p, err := cl.Pods(metav1.NamespaceSystem).Get(ctx, pod.Name, metav1.GetOptions{})
		return err == nil && p.Spec.NodeName != "", err
	})
	if err != nil {
		t.Fatalf("scheduler %s did not bind its sync pod: %v", schedulerName, err)
	}
	zero := int64(0)
	if err := cl.Pods(metav1.NamespaceSystem).Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
}

// schedulerOf is the scheduler a pod asks for.
func schedulerOf(p *corev1.Pod) string {
	if p.Spec.SchedulerName == "" {
		return corev1.DefaultSchedulerName
	}
	return p.Spec.SchedulerName
}
