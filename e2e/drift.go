package e2e

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/drift"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// drift runs `gpufleet drift` on the control plane's own Node objects: the
// nodes e2e built from the infrastructure files, advertising GPUs where the
// real device plugin's pods ran. They are what the fleet launches, so it
// must find no drift; and copies with one node changed the ways a cluster
// drifts must each be reported with the right kind, on that node.
func (fr *fleetRun) drift() {
	fr.ensureNodes(fr.fullSize(""))
	list, err := fr.cp.Client.CoreV1().Nodes().List(fr.ctx, metav1.ListOptions{})
	if err != nil {
		fr.t.Fatal(err)
	}
	rep, err := fr.res.Drift(list.Items)
	if err != nil {
		fr.t.Fatal(err)
	}
	if len(rep.Findings) > 0 {
		var lines []string
		for _, f := range rep.Findings {
			lines = append(lines, fmt.Sprintf("%s %s %s: %s", f.Kind, f.Pool, f.Node, f.Message))
		}
		fr.fail("drift on the nodes the infrastructure files launch:\n  %s", strings.Join(lines, "\n  "))
		return
	}
	gpu := -1
	for i, n := range list.Items {
		if q := n.Status.Allocatable[gpuResource]; !q.IsZero() {
			gpu = i
			break
		}
	}
	type mutation struct {
		name   string
		node   int
		want   drift.Kind
		mutate func(n *corev1.Node)
	}
	ms := []mutation{
		{"label removed", 0, drift.MissingLabel, func(n *corev1.Node) { delete(n.Labels, keys.LabelCapacity) }},
		{"taint added", 0, drift.ExtraTaint, func(n *corev1.Node) {
			n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "example.com/maintenance", Value: "true", Effect: corev1.TaintEffectNoSchedule})
		}},
	}
	if gpu >= 0 {
		ms = append(ms, mutation{"GPUs 0", gpu, drift.NoDevicePlugin, func(n *corev1.Node) {
			n.Status.Capacity[gpuResource], n.Status.Allocatable[gpuResource] = resource.MustParse("0"), resource.MustParse("0")
		}})
	}
	for _, m := range ms {
		nodes := make([]corev1.Node, len(list.Items))
		for i := range list.Items {
			nodes[i] = *list.Items[i].DeepCopy()
		}
		m.mutate(&nodes[m.node])
		rep, err := fr.res.Drift(nodes)
		if err != nil {
			fr.t.Fatal(err)
		}
		if len(rep.Findings) != 1 || rep.Findings[0].Kind != m.want || rep.Findings[0].Node != nodes[m.node].Name {
			fr.fail("drift, %s on node %s: want one %s finding on it, got %+v", m.name, nodes[m.node].Name, m.want, rep.Findings)
		}
	}
	fr.checkLive(list.Items)
	fr.st.DriftNodes += len(list.Items)
	fr.t.Logf("drift: no drift on the %d Node objects, and each of %d mutated copies reported with its kind", len(list.Items), len(ms))
}

// checkLive runs `gpufleet check --nodes --pods` on the same Node objects
// and the daemon pods bound to them: at max size, with the agents' pods
// taking their share, every class × pool verdict and capacity must be the
// offline checker's. A NodePool listing several types is left out: e2e
// launched its first type, where the offline checker credits the one that
// holds the class best.
func (fr *fleetRun) checkLive(nodes []corev1.Node) {
	all, err := fr.cp.Client.CoreV1().Pods("").List(fr.ctx, metav1.ListOptions{})
	if err != nil {
		fr.t.Fatal(err)
	}
	// Only the daemon pods, which the offline checker takes off every node:
	// pods of the tree's example workloads, deleted just before, may still
	// be terminating on a node.
	var pods []corev1.Pod
	var others []string
	for _, p := range all.Items {
		if ref := metav1.GetControllerOf(&p); ref != nil && ref.Kind == "DaemonSet" && p.DeletionTimestamp == nil {
			pods = append(pods, p)
		} else if p.Spec.NodeName != "" {
			others = append(others, p.Namespace+"/"+p.Name+" on "+p.Spec.NodeName)
		}
	}
	live, err := fr.res.CheckLive(nodes, pods)
	if err != nil {
		fr.t.Fatal(err)
	}
	var bad []string
	compared := 0
	skip, seen := map[string]bool{}, map[string]bool{}
	var pools []*infraPool
	for _, p := range fr.infra {
		skip[p.name] = skip[p.name] || p.karpenter && len(p.types) > 1
		if !seen[p.name] {
			seen[p.name] = true
			pools = append(pools, p)
		}
	}
	for _, class := range fr.res.Report.Classes {
		for _, p := range pools {
			if skip[p.name] {
				continue
			}
			off, on := fr.res.Report.Cell(class, p.name), live.Cell(class, p.name)
			if off == nil || on == nil {
				bad = append(bad, fmt.Sprintf("%s on %s: no cell offline or live", class, p.name))
				continue
			}
			compared++
			if off.Fits != on.Fits || off.Capacity != on.Capacity {
				bad = append(bad, fmt.Sprintf("%s on %s: offline fits %v holding %d (%s), live fits %v holding %d (%s)", class, p.name, off.Fits, off.Capacity, strings.Join(off.Reasons, "; "), on.Fits, on.Capacity, strings.Join(on.Reasons, "; ")))
			}
		}
	}
	if len(bad) > 0 {
		fr.fail("check --nodes on the Node objects and their daemon pods disagrees with the checker at max size:\n  %s\n(other pods bound then, left out: %v)", strings.Join(bad, "\n  "), others)
		return
	}
	fr.t.Logf("check --nodes: %d class × pool verdicts and capacities on the Node objects and their daemon pods, as the checker said at max size", compared)
}
