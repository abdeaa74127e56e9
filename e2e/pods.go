package e2e

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// runLabel marks the harness's pods, so one batch can be listed and deleted.
const runLabel = "e2e.gpufleet.dev/run"

// outcome is what became of a batch of pods.
type outcome struct {
	created int
	// bound is pod name → node name.
	bound map[string]string
	// pending is pod name → the PodScheduled condition's message, for pods
	// kube-scheduler tried against every node and could not place.
	pending map[string]string
	// forbidden are the API server's refusals to create a pod the harness
	// made itself; failedCreate are the FailedCreate events of the
	// controller that makes the pods (quota admission's refusals among
	// them).
	forbidden, failedCreate []string
	// gated are the pods Kueue holds (its admission gate): settled until
	// Kueue admits them; heldByKueue is how many Kueue left pending.
	gated       map[string]bool
	heldByKueue int
	// waiting is pod name → its PodScheduled message so far, for pods
	// neither bound nor tried against every node when the wait ended.
	waiting map[string]string
	// claimRefused are the pods whose ResourceClaim the resourceclaim
	// controller could not create (quota admission refused it): they wait
	// for ever, untried; its events are in failedCreate.
	claimRefused map[string]bool
}

func (o outcome) String() string {
	s := fmt.Sprintf("%d created, %d bound, %d pending, %d refused by the API server", o.created, len(o.bound), len(o.pending), len(o.forbidden))
	if len(o.gated) > 0 {
		s += fmt.Sprintf(", %d gated by Kueue", len(o.gated))
	}
	if len(o.failedCreate) > 0 {
		s += fmt.Sprintf(", FailedCreate %q", o.failedCreate[0])
	}
	for _, name := range slices.Sorted(maps.Keys(o.waiting)) {
		s += fmt.Sprintf("; %s never settled (%q)", name, o.waiting[name])
	}
	return s
}

// runPods creates pods and settles them (want is all of them).
func runPods(ctx context.Context, cp *ControlPlane, ns, run string, pods []*corev1.Pod, nodes int, done func(outcome) bool) (outcome, error) {
	var forbidden []string
	for _, p := range pods {
		p = p.DeepCopy()
		p.Namespace = ns
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		p.Labels[runLabel] = run
		_, err := cp.Client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{FieldManager: fieldManager})
		if err != nil {
			forbidden = append(forbidden, fmt.Sprintf("%s: %v", p.Name, err))
		}
	}
	o, err := settle(ctx, cp, ns, runLabel+"="+run, len(pods)-len(forbidden), nodes, nil, done)
	o.forbidden = forbidden
	return o, err
}

// settle waits until want pods match sel (or the controller that makes
// them, whose FailedCreate events failedCreate reads, gave up on some) and
// each is bound or reported unschedulable against all nodes of the fleet.
// It returns as soon as that state satisfies done, or once it has held
// still for a few seconds, or at the deadline: the scheduler may retry a
// pod whose first attempt raced a node or pod event, and a controller
// retries a refused create, so an unsatisfying state is given time to
// change.
func settle(ctx context.Context, cp *ControlPlane, ns, sel string, want, nodes int, failedCreate func() ([]string, error), done func(outcome) bool) (outcome, error) {
	var o, last outcome
	stillSince := time.Now()
	err := poll(60*time.Second, 100*time.Millisecond, func() (bool, error) {
		if err := cp.Alive(); err != nil {
			return false, err
		}
		list, err := cp.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			return false, err
		}
		cur := outcome{created: len(list.Items), bound: map[string]string{}, pending: map[string]string{}, gated: map[string]bool{}, waiting: map[string]string{}, claimRefused: map[string]bool{}}
		if failedCreate != nil {
			if cur.failedCreate, err = failedCreate(); err != nil {
				return false, err
			}
		}
		claims, err := claimRefusals(ctx, cp, ns)
		if err != nil {
			return false, err
		}
		for _, p := range list.Items {
			if p.Spec.NodeName != "" {
				cur.bound[p.Name] = p.Spec.NodeName
				continue
			}
			if gated(&p) {
				cur.gated[p.Name] = true
				continue
			}
			if msg, ok := claims[p.UID]; ok {
				cur.claimRefused[p.Name] = true
				cur.failedCreate = append(cur.failedCreate, msg)
				continue
			}
			cur.waiting[p.Name] = ""
			for _, c := range p.Status.Conditions {
				if c.Type != corev1.PodScheduled {
					continue
				}
				// Tried against every node, or more: a scale-up adds nodes.
				if c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable && nodesTried(c.Message) >= nodes {
					cur.pending[p.Name] = c.Message
					delete(cur.waiting, p.Name)
				} else {
					cur.waiting[p.Name] = c.Message
				}
			}
		}
		o = cur
		if len(cur.bound)+len(cur.pending)+len(cur.gated)+len(cur.claimRefused) < cur.created || (cur.created < want && len(cur.failedCreate) == 0) {
			stillSince = time.Now()
			return false, nil
		}
		if done(cur) {
			return true, nil
		}
		if cur.created != last.created || !maps.Equal(cur.bound, last.bound) || !maps.Equal(cur.pending, last.pending) || !maps.Equal(cur.gated, last.gated) || len(cur.failedCreate) != len(last.failedCreate) {
			last, stillSince = cur, time.Now()
		}
		return time.Since(stillSince) > 5*time.Second, nil
	})
	if err != nil && !errors.Is(err, errTimeout) {
		return o, err
	}
	return o, nil
}

// claimRefusals reads the resourceclaim controller's refusals to make a
// pod's ResourceClaim (FailedResourceClaimCreation, on the pod: k8s.io/
// kubernetes pkg/controller/resourceclaim syncPod), by pod UID.
func claimRefusals(ctx context.Context, cp *ControlPlane, ns string) (map[types.UID]string, error) {
	evs, err := cp.Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "reason=FailedResourceClaimCreation"})
	if err != nil {
		return nil, err
	}
	out := map[types.UID]string{}
	for _, e := range evs.Items {
		out[e.InvolvedObject.UID] = e.Message
	}
	return out, nil
}

// failedCreates reads the FailedCreate events in ns of the objects whose
// UIDs owners lists: a controller's refused pod creates.
func failedCreates(ctx context.Context, cp *ControlPlane, ns string, owners func() (map[types.UID]bool, error)) func() ([]string, error) {
	return func() ([]string, error) {
		uids, err := owners()
		if err != nil {
			return nil, err
		}
		evs, err := cp.Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "reason=FailedCreate"})
		if err != nil {
			return nil, err
		}
		var out []string
		for _, e := range evs.Items {
			if uids[e.InvolvedObject.UID] && !ownerNotYetCached(e.Message) {
				out = append(out, e.Message)
			}
		}
		sort.Strings(out)
		return out, nil
	}
}

// ownerNotYetCached reports Kueue's pod webhook refusing a pod whose owner
// its informer has not seen yet: v0.19.2 pkg/controller/jobs/pod
// pod_webhook.go Default asks jobframework.FindAncestorJobManagedByKueue,
// which reads the new ReplicaSet through the manager's cache and fails
// with NotFound. The ReplicaSet controller retries the pod, so it is no
// refusal of the workload's, and settle still waits for every pod.
func ownerNotYetCached(msg string) bool {
	return strings.Contains(msg, `admission webhook "mpod.kb.io" denied the request`) && strings.HasSuffix(strings.TrimSpace(msg), "not found")
}

// deletePods force-deletes a batch (no kubelet will confirm a graceful
// stop) and waits, bounded, until the namespace's quota usage is back to
// before: the resource-quota controller gives usage back asynchronously,
// and the next batch's admission must not see this one's.
func deletePods(ctx context.Context, cp *ControlPlane, ns, run string, before map[string]corev1.ResourceList) error {
	zero := int64(0)
	sel := metav1.ListOptions{LabelSelector: runLabel + "=" + run}
	if err := cp.Client.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, sel); err != nil {
		return err
	}
	err := poll(30*time.Second, 100*time.Millisecond, func() (bool, error) {
		l, err := cp.Client.CoreV1().Pods(ns).List(ctx, sel)
		return err == nil && len(l.Items) == 0, err
	})
	if err != nil {
		return fmt.Errorf("pods of %s still there: %w", run, err)
	}
	// The controller recounts on each pod's deletion event, which a
	// loaded machine (CI runs two lanes on two cores) can take long to
	// deliver: wait well past what an idle one needs (under 5 s).
	err = poll(90*time.Second, 100*time.Millisecond, func() (bool, error) {
		now, err := quotaUsed(ctx, cp, ns)
		if err != nil {
			return false, err
		}
		return equality.Semantic.DeepEqual(now, before), nil
	})
	if err != nil {
		return fmt.Errorf("quota in %s not released after %s: %w", ns, run, err)
	}
	return nil
}

// quotaUsed is each ResourceQuota's status.used in ns.
func quotaUsed(ctx context.Context, cp *ControlPlane, ns string) (map[string]corev1.ResourceList, error) {
	l, err := cp.Client.CoreV1().ResourceQuotas(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := map[string]corev1.ResourceList{}
	for _, q := range l.Items {
		out[q.Name] = q.Status.Used
	}
	return out, nil
}

// waitQuotasReady waits until the resource-quota controller has given every
// quota in ns a status: until then quota admission refuses every pod.
func waitQuotasReady(ctx context.Context, cp *ControlPlane, ns string) error {
	return poll(60*time.Second, 100*time.Millisecond, func() (bool, error) {
		l, err := cp.Client.CoreV1().ResourceQuotas(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, q := range l.Items {
			if len(q.Status.Hard) == 0 {
				return false, nil
			}
		}
		return true, nil
	})
}

// waitServiceAccount waits for the "default" ServiceAccount the
// service-account controller creates, which admission requires of pods.
func waitServiceAccount(ctx context.Context, cp *ControlPlane, ns string) error {
	return poll(60*time.Second, 100*time.Millisecond, func() (bool, error) {
		_, err := cp.Client.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
}

// allNodes is how kube-scheduler's Unschedulable message begins when it
// weighed all n nodes: a pod made before some nodes were judged on fewer.
func allNodes(n int) string { return fmt.Sprintf("0/%d nodes are available", n) }
