package e2e

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
)

// poolLabel pins a probe pod to one pool's nodes.
const poolLabel = "e2e.gpufleet.dev/pool"

// class runs one class's example workload as pods on the fleet at max size
// and holds kube-scheduler to the checker's report.
func (fr *fleetRun) class(c *check.Class) {
	t := fr.t
	ns, tenant := namespaceOf(fr.res, c.Name), tenantOf(fr.res, c.Name)
	fr.ensureNodes(fr.fullSize(c.Name))
	e := expect(fr.res.Report, c.Name, tenant, func(pool string) []string { return fr.cellReasons(c, pool) })
	before, err := quotaUsed(fr.ctx, fr.cp, ns)
	if err != nil {
		t.Fatal(err)
	}
	run := c.Name
	fr.syncScheduler(schedulerOf(c.Pod))
	o, err := runPods(fr.ctx, fr.cp, ns, run, podsOf(c, run, int(c.Pods)), len(fr.nodes.nodes), func(o outcome) bool {
		return len(fr.judge(c, e, o)) == 0
	})
	if err != nil {
		t.Fatal(err)
	}
	fr.st.Classes++
	fr.st.Placed += len(o.bound)
	fr.st.Refused += len(o.pending)
	fr.st.Forbidden += len(o.forbidden)
	verdict := "placed"
	if e.refused {
		verdict = "refused"
	}
	t.Logf("class %s (%d pods in %s): checker says %s; kube-scheduler: %s", c.Name, c.Pods, ns, verdict, o)
	if problems := fr.judge(c, e, o); len(problems) > 0 {
		t.Errorf("class %s: kube-scheduler disagrees with the checker (%s; checker findings: %v):\n  %s",
			c.Name, o, e.findings, strings.Join(problems, "\n  "))
		fr.diagnose(ns, run)
	}
	if err := deletePods(fr.ctx, fr.cp, ns, run, before); err != nil {
		t.Fatal(err)
	}
	fr.probe(c, ns)
}

// judge lists every way o contradicts the checker's expectation e.
func (fr *fleetRun) judge(c *check.Class, e expectation, o outcome) []string {
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
	if e.quota {
		if !anyContains(o.forbidden, "exceeded quota") {
			bad = append(bad, fmt.Sprintf("the checker says the tenant's quota cannot hold the class, but the API server admitted every pod (%s)", o))
		}
	} else if len(o.forbidden) > 0 {
		bad = append(bad, "the API server refused pods: "+strings.Join(o.forbidden, "; "))
	}
	switch {
	case !e.refused && !e.quota && len(o.bound) != int(c.Pods):
		bad = append(bad, fmt.Sprintf("the checker says all %d pods run, kube-scheduler bound %d: %s", c.Pods, len(o.bound), firstMessage(o)))
	case e.refused && len(o.bound) == int(c.Pods):
		bad = append(bad, fmt.Sprintf("the checker says the class cannot run whole, kube-scheduler bound all %d pods", c.Pods))
	case e.refused && !anyHasAll(o.pending, e.reasons):
		bad = append(bad, fmt.Sprintf("no FailedScheduling message carries the checker's reasons %q: %s", e.reasons, firstMessage(o)))
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
	for name, q := range check.PodRequest(p) {
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
