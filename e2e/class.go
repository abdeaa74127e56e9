package e2e

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/dynamic"

	"github.com/gpufleet/gpufleet/compiler/check/queueing"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// poolLabel pins a probe pod to one pool's nodes.
const poolLabel = "e2e.gpufleet.dev/pool"

// class runs one class's workload from the standing fleet, grown as
// cluster-autoscaler would (startNodes, grower in autoscale.go), and
// holds kube-scheduler to the checker's report. The workload is a user's,
// built with the class's Component (userWorkload), and its pods are made
// by kube-controller-manager's Deployment and ReplicaSet, StatefulSet or
// Job controller (a queued Job's once Kueue admits it; admission holds
// Kueue's decision to the checker). Only a class of another kind runs as
// copies of the checker's example pod.
func (fr *fleetRun) class(c *sched.Class) {
	t := fr.t
	if s := fr.noScheduler(c.Name); s != "" {
		fr.st.NoScheduler++
		t.Logf("class %s: no process serves its scheduler %s (the tree's pod of it is Unschedulable, as SystemLands said), so none of its pods is ever scheduled", c.Name, s)
		return
	}
	ns, tenant := namespaceOf(fr.res, c.Name), tenantOf(fr.res, c.Name)
	start, grows := fr.startNodes(c, tenant)
	fr.ensureNodes(start)
	if grows && fr.kwok {
		k, err := fr.startKarpenter(fr.t.fleet + "-karpenter")
		if err != nil {
			t.Fatalf("class %s: %v", c.Name, err)
		}
		fr.karp, fr.karpRefused, fr.karpDRA, fr.karpRefusals = k, false, false, map[string]string{}
	}
	// Karpenter stops once the outcome is settled: the probes and the
	// rollout that follow are judged on the nodes it launched.
	stopKarpenter := func() {
		if fr.karp != nil {
			fr.karp.stop(fr)
			fr.karp = nil
		}
	}
	defer stopKarpenter()
	e := expect(fr.res.Report, c.Name, tenant, func(pool string) []string { return fr.cellReasons(c, pool) })
	e.atOnce = runsAtOnce(fr.res.Report, c, tenant)
	before, err := quotaUsed(fr.ctx, fr.cp, ns)
	if err != nil {
		t.Fatal(err)
	}
	fr.syncScheduler(schedulerOf(c.Pod))
	kind, run := fr.res.Fleet.Class(c.Name).Spec.Kind, c.Name
	if kind == keys.KindDeployment || kind == keys.KindStatefulSet || kind == keys.KindJob {
		run = workloadName(c.Name)
	}
	grow := func(outcome) bool { return false }
	if grows {
		grow = fr.grower(c, ns, run, e.noScaleUp != "")
	}
	ok := func(o outcome) bool { return !grow(o) && len(fr.judge(c, e, o)) == 0 }
	var o outcome
	var held *kueueDecision
	switch kind {
	case keys.KindDeployment, keys.KindStatefulSet, keys.KindJob:
		dyn, err := dynamic.NewForConfig(fr.cp.Config)
		if err != nil {
			t.Fatal(err)
		}
		objs, err := userWorkload(fr.res, c, run, ns)
		if err != nil {
			t.Fatal(err)
		}
		var enough func(*submission) bool
		if u := unitOf(fr.res.Report, tenant, c.Name); u != nil {
			enough = func(s *submission) bool { return fills(s, u) == "" }
		}
		o, held, err = fr.runWorkload(dyn, kind, ns, run, objs, int(c.Pods), enough, ok)
		if err != nil {
			t.Fatalf("class %s: %v", c.Name, err)
		}
		defer func() {
			if err := fr.clearWorkload(dyn, kind, ns, run); err != nil {
				t.Fatal(err)
			}
			if err := deletePods(fr.ctx, fr.cp, ns, run, before); err != nil {
				t.Fatal(err)
			}
			fr.probe(c, ns)
		}()
		fr.st.ByController[kind] += o.created
		fr.st.DRAClaims += fr.claimsAllocated(c, ns, o.bound)
		if len(o.failedCreate) > 0 {
			fr.st.Forbidden += int(c.Pods) - o.created
		}
	default:
		o, err = runPods(fr.ctx, fr.cp, ns, run, podsOf(c, run, int(c.Pods)), len(fr.nodes.nodes), ok)
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := deletePods(fr.ctx, fr.cp, ns, run, before); err != nil {
				t.Fatal(err)
			}
			fr.probe(c, ns)
		}()
		fr.st.Forbidden += len(o.forbidden)
	}
	stopKarpenter()
	fr.karpenterAgrees(c, o)
	if fr.karpRefused {
		fr.st.KarpenterRefused++
	}
	if fr.karpDRA {
		fr.st.KarpenterDRA++
	}
	fr.st.Classes++
	if grows {
		fr.gpuReadyAgrees()
	}
	if held == nil && hasClassFinding(fr.res.Report, queueing.IDKueueTopology, tenant, c.Name) {
		t.Errorf("class %s: KueueTopology says Kueue never admits it on the nodes that stand, the running Kueue admitted %s %s (%s)", c.Name, kind, run, o)
		return
	}
	if held != nil {
		// Kueue holds the Job, as admission showed the checker says.
		fr.st.Held++
		t.Logf("class %s (%s %s in %s): Kueue holds it: %s", c.Name, kind, run, ns, held.message)
		return
	}
	fr.st.Placed += len(o.bound)
	for _, node := range o.bound {
		if p := fr.nodes.groupOf[node]; p != nil && p.karpenter && fr.kwok && strings.HasPrefix(node, "kwok-") {
			fr.st.KarpenterBound++
		}
	}
	fr.st.Refused += len(o.pending)
	if u := unitOf(fr.res.Report, "", c.Name); u != nil && u.Admission == 0 && u.Waves > 1 {
		// A Job that is not queued and runs in waves: its unit's AtOnce
		// pods at once (judge holds them to it), the rest Pending.
		fr.st.Waves++
		fr.st.WavesBound += len(o.bound)
	}
	verdict := "placed"
	if e.refused {
		verdict = "refused"
	}
	if e.quota {
		verdict += ", over the tenant's quota"
	}
	t.Logf("class %s (%s %s, %d pods in %s): checker says %s; kube-scheduler: %s", c.Name, kind, run, c.Pods, ns, verdict, o)
	if problems := fr.judge(c, e, o); len(problems) > 0 {
		t.Errorf("class %s: kube-scheduler or the %s controller disagrees with the checker (%s; checker findings: %v):\n  %s",
			c.Name, kind, o, e.findings, strings.Join(problems, "\n  "))
		fr.diagnose(ns, run)
		return
	}
	// A Deployment whose every pod runs at max size is rolled out (a
	// queued one's surge pod waits on Kueue first).
	if kind == keys.KindDeployment && !e.refused && !e.quota && len(o.bound) == int(c.Pods) {
		fr.topUp(c.Name)
		fr.rollout(c, ns, run)
	}
}

// judge lists every way o contradicts the checker's expectation e.
func (fr *fleetRun) judge(c *sched.Class, e expectation, o outcome) []string {
	var bad []string
	for pod, node := range o.bound {
		pool := fr.nodes.poolOf[node]
		if !e.allowed[pool] {
			bad = append(bad, fmt.Sprintf("pod %s bound to %s, of pool %s, where the checker says the class cannot land", pod, node, pool))
		}
		if !requestsGPU(c.Pod) && !e.gpuOK && isGPU(fr.node(node)) {
			bad = append(bad, fmt.Sprintf("CPU-only pod %s bound to GPU node %s", pod, node))
		}
	}
	if len(o.gated) != o.heldByKueue {
		bad = append(bad, fmt.Sprintf("Kueue left %d pods pending, %d are gated", o.heldByKueue, len(o.gated)))
	}
	refusals := append(slices.Clone(o.forbidden), o.failedCreate...)
	if e.quota {
		if !anyContains(refusals, "exceeded quota") {
			bad = append(bad, fmt.Sprintf("the checker says the tenant's quota cannot hold the class, but the API server admitted every pod (%s)", o))
		}
	} else if len(refusals) > 0 {
		bad = append(bad, "the API server refused pods: "+strings.Join(refusals, "; "))
	}
	switch {
	case !e.refused && !e.quota && len(o.bound) != e.atOnce:
		bad = append(bad, fmt.Sprintf("the checker says %d of the %d pods run at once, kube-scheduler bound %d: %s", e.atOnce, c.Pods, len(o.bound), firstMessage(o)))
	case e.refused && len(o.bound) == int(c.Pods):
		bad = append(bad, fmt.Sprintf("the checker says the class cannot run whole, kube-scheduler bound all %d pods", c.Pods))
	case e.refused && !anyHasAll(o.pending, e.reasons):
		bad = append(bad, fmt.Sprintf("no FailedScheduling message carries the checker's reasons %q: %s", e.reasons, firstMessage(o)))
	}
	if why := fr.noScaleUpAgrees(e.noScaleUp, o); why != "" {
		bad = append(bad, why)
	}
	return bad
}

func (fr *fleetRun) node(name string) *corev1.Node {
	for _, n := range fr.nodes.nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

func requestsGPU(p *corev1.Pod) bool {
	for name, q := range sched.PodRequest(p) {
		if strings.HasPrefix(string(name), "nvidia.com/") && !q.IsZero() {
			return true
		}
	}
	return false
}

func anyContains(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// anyHasAll: one message carries every reason.
func anyHasAll(messages map[string]string, reasons []string) bool {
	for _, m := range messages {
		all := true
		for _, r := range reasons {
			all = all && strings.Contains(m, r)
		}
		if all {
			return true
		}
	}
	return false
}

func firstMessage(o outcome) string {
	names := make([]string, 0, len(o.pending))
	for n := range o.pending {
		names = append(names, n)
	}
	if len(names) == 0 {
		return "no pod pending"
	}
	sort.Strings(names)
	return names[0] + ": " + o.pending[names[0]]
}
