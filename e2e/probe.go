package e2e

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// probe pins one pod of the class to each pool in turn (all at once, one
// pod per pool) and holds kube-scheduler to the checker's verdict on every
// class × pool cell: bound where the cell says yes, Pending with the cell's
// reasons where it says no. This is also how a deny-side finding (a CPU
// class on a GPU pool, say) is shown to be real.
//
// Probes run without the pod's spread and inter-pod affinity (see below),
// in a namespace of their own that has the tenant namespace's
// LimitRanges, so pods get the same defaults, but not its quota, which
// one-pod-per-pool batches would exceed and the class's own run has tested.
func (fr *fleetRun) probe(c *sched.Class, ns string) {
	t := fr.t
	// A probe pod is no queued workload: the pools are at max size, as an
	// autoscaler grows them for pending pods, whatever the class's own
	// run met (classNodes).
	fr.ensureNodes(fr.fullSize(c.Name))
	pns := fr.probeNamespace(ns)
	run := c.Name + "-probe"
	var pods []*corev1.Pod
	for i, p := range fr.cl.Pools {
		pod := c.Pod.DeepCopy()
		pod.Name = fmt.Sprintf("%s-%d", run, i)
		if pod.Spec.NodeSelector == nil {
			pod.Spec.NodeSelector = map[string]string{}
		}
		pod.Spec.NodeSelector[poolLabel] = p.Name
		// A cell is a per-node verdict; without this, probes of one class
		// pinned to different pools would count against each other's
		// spread and anti-affinity, which the class's own run tests.
		pod.Spec.TopologySpreadConstraints = nil
		if a := pod.Spec.Affinity; a != nil {
			a.PodAntiAffinity, a.PodAffinity = nil, nil
		}
		pods = append(pods, pod)
	}
	judge := func(o outcome) []string {
		var bad []string
		for i, p := range fr.cl.Pools {
			name := fmt.Sprintf("%s-%d", run, i)
			cell := fr.res.Report.Cell(c.Name, p.Name)
			node, bound := o.bound[name]
			reasons := fr.cellReasons(c, p.Name)
			switch {
			case cell.Fits && !bound:
				bad = append(bad, fmt.Sprintf("pool %s: the checker says yes, kube-scheduler: %s", p.Name, o.pending[name]))
			case cell.Fits && fr.nodes.poolOf[node] != p.Name:
				bad = append(bad, fmt.Sprintf("pool %s: pinned pod bound to %s", p.Name, node))
			case !cell.Fits && bound:
				bad = append(bad, fmt.Sprintf("pool %s: the checker says no (%s), kube-scheduler bound the pod to %s", p.Name, strings.Join(reasons, ", "), node))
			case !cell.Fits && !anyHasAll(map[string]string{name: o.pending[name]}, reasons):
				bad = append(bad, fmt.Sprintf("pool %s: the checker says no (%s), kube-scheduler says %q", p.Name, strings.Join(reasons, ", "), o.pending[name]))
			case !cell.Fits:
				if d := fr.sameReasons(c, &fr.cl.Pools[i], o.pending[name]); d != "" {
					bad = append(bad, fmt.Sprintf("pool %s: %s", p.Name, d))
				}
			}
		}
		if len(o.forbidden) > 0 {
			bad = append(bad, "the API server refused probes: "+strings.Join(o.forbidden, "; "))
		}
		return bad
	}
	fr.syncScheduler(schedulerOf(c.Pod))
	o, err := runPods(fr.ctx, fr.cp, pns, run, pods, len(fr.nodes.nodes), func(o outcome) bool { return len(judge(o)) == 0 })
	if err != nil {
		t.Fatal(err)
	}
	fr.st.Probes += len(pods)
	if bad := judge(o); len(bad) > 0 {
		t.Errorf("class %s pinned to each pool: kube-scheduler disagrees with the checker's matrix:\n  %s", c.Name, strings.Join(bad, "\n  "))
		fr.diagnose(pns, run)
	}
	if err := deletePods(fr.ctx, fr.cp, pns, run, map[string]corev1.ResourceList{}); err != nil {
		t.Fatal(err)
	}
}

// probeNamespace creates, once, a namespace with ns's LimitRanges. Its
// pods pin a class to each pool, which no namespace of the fleet admits:
// it carries the admission label with a value no binding selects, so
// neither a tenant's policies nor the unowned namespaces' policy hold it
// (as a cluster admin, who alone may label namespaces, can exempt one).
func (fr *fleetRun) probeNamespace(ns string) string {
	pns := "probe-" + ns
	if len(pns) > 63 {
		pns = pns[:63]
	}
	pns = strings.TrimRight(pns, "-")
	if fr.probeNS[pns] {
		return pns
	}
	cl := fr.cp.Client.CoreV1()
	_, err := cl.Namespaces().Create(fr.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: pns, Labels: map[string]string{keys.LabelAdmission: "e2e-probe"}}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		fr.t.Fatal(err)
	}
	lrs, err := cl.LimitRanges(ns).List(fr.ctx, metav1.ListOptions{})
	if err != nil {
		fr.t.Fatal(err)
	}
	for _, lr := range lrs.Items {
		cp := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: lr.Name}, Spec: lr.Spec}
		if _, err := cl.LimitRanges(pns).Create(fr.ctx, cp, metav1.CreateOptions{}); err != nil {
			fr.t.Fatal(err)
		}
	}
	fr.copyClaimTemplates(ns, pns)
	if err := waitServiceAccount(fr.ctx, fr.cp, pns); err != nil {
		fr.t.Fatalf("namespace %s: no default ServiceAccount: %v", pns, err)
	}
	fr.probeNS[pns] = true
	return pns
}

// sameReasons holds a probe's FailedScheduling message to the checker node
// by node: kube-scheduler counts each reason over the nodes it refused, so
// the pinned pool's nodes must give exactly the checker's reasons, and
// every other node the node selector's (or its taint's). It returns how
// they differ, or "".
func (fr *fleetRun) sameReasons(c *sched.Class, p *sched.Pool, msg string) string {
	want := map[string]int{}
	for i := range fr.cl.Pools {
		q := &fr.cl.Pools[i]
		for _, v := range sched.Evaluate(c, q).Nodes {
			if v.InstanceType != fr.nodes.typeOf[q.Name] {
				continue
			}
			n := int(q.NodesInZone(v.Zone))
			switch {
			case q == p:
				for _, r := range v.Reasons {
					want[r] += n
				}
			// Another pool's node fails the probe's node selector, unless
			// TaintToleration, which runs first, refused it already.
			case slices.Contains(v.Reasons, sched.ErrReasonTaint):
				want[sched.ErrReasonTaint] += n
			default:
				want[sched.ErrReasonNodeAffinity] += n
			}
		}
	}
	got, err := schedulerReasons(msg)
	if err != nil {
		return err.Error()
	}
	if !maps.Equal(got, want) {
		return fmt.Sprintf("kube-scheduler refused nodes for %v, the checker for %v (%q)", got, want, msg)
	}
	return ""
}

// schedulerReasons parses kube-scheduler's "0/N nodes are available: 3
// Insufficient cpu, 9 node(s) didn't match …. no new claims to deallocate,
// preemption: …" into the number of nodes each reason refused.
func schedulerReasons(msg string) (map[string]int, error) {
	_, rest, ok := strings.Cut(msg, " nodes are available: ")
	if !ok {
		return nil, fmt.Errorf("not a FailedScheduling message: %q", msg)
	}
	// The list ends at the first full stop; v1.35 appends what dynamic
	// resource allocation and preemption said after it.
	rest, _, _ = strings.Cut(rest, ". ")
	rest = strings.TrimSuffix(strings.TrimSpace(rest), ".")
	out := map[string]int{}
	for _, part := range strings.Split(rest, ", ") {
		count, reason, ok := strings.Cut(part, " ")
		n, err := strconv.Atoi(count)
		if !ok || err != nil {
			return nil, fmt.Errorf("cannot read %q in %q", part, msg)
		}
		out[reason] += n
	}
	return out, nil
}
