package scaleup

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
)

// Options are the cluster-autoscaler flags the restatement follows, at
// their defaults (config/flags/flags.go) unless the fleet says otherwise.
type Options struct {
	// GPULabel is the cloud provider's GPU label.
	GPULabel string
	// BalanceSimilar is --balance-similar-node-groups (default false;
	// gpufleet's zoneGroups ask for it).
	BalanceSimilar bool
	// IgnoreLabels are --balancing-ignore-label's: labels two similar
	// groups' nodes may differ in besides the provider's own.
	IgnoreLabels []string
	// OkTotalUnready and MaxTotalUnreadyPercent are
	// --ok-total-unready-count (3) and --max-total-unready-percentage (45).
	OkTotalUnready         int
	MaxTotalUnreadyPercent float64
}

// Defaults are cluster-autoscaler's defaults on AWS, with
// --balance-similar-node-groups.
func Defaults() Options {
	return Options{GPULabel: GPULabel, BalanceSimilar: true, OkTotalUnready: 3, MaxTotalUnreadyPercent: 45}
}

// Increase is one group grown: its target size from From to To.
type Increase struct {
	Group    string
	From, To int
}

// Decision is one scale-up: the groups grown, the option the expander
// chose (its group and the pods it helps), and for each pod no group
// helps, why.
type Decision struct {
	Increases []Increase
	Best      string
	Helped    []string
	// NoScaleUp is pod name → the reason of each group it fits none of,
	// as the NotTriggerScaleUp event gives them.
	NoScaleUp map[string]string
}

// option is an expansion option (expander/expander.go, Option).
type option struct {
	g     *Group
	t     Template
	nodes int
	pods  []Pod
}

// ScaleUp restates core/scaleup/orchestrator/orchestrator.go,
// ScaleUpOrchestrator.ScaleUp, for one loop of cluster-autoscaler:
//   - no scale-up while the cluster is unhealthy: more unready nodes than
//     OkTotalUnready and than MaxTotalUnreadyPercent of all
//     (clusterstate/clusterstate.go, IsClusterHealthy), a node unready for
//     its GPUs counting (Ready);
//   - a group at its max size is skipped ("max node group size reached",
//     filterValidScaleUpNodeGroups), and so is one whose node stays
//     unready, backed off once its scale-up outlives
//     --max-node-provision-time (NodeGroupScaleUpSafety);
//   - each other group's option (ComputeExpansionOption): the pending pods
//     that fit its template (SchedulablePodGroups, TemplateFor), packed
//     on new template nodes, largest first (estimator/
//     binpacking_estimator.go, Estimate; decreasing_pod_orderer.go), up to
//     the spare room of the group and its similar groups
//     (sng_capacity_threshold.go, NodeLimit);
//   - the expander picks one option (expander/waste/waste.go, BestOptions,
//     least-waste, the default --expander); ties, broken at random there,
//     go to the group first by name here;
//   - its nodes are balanced over the group and its similar groups
//     (ComputeSimilarNodeGroups, balance.go).
func ScaleUp(groups []*Group, pending []Pod, o Options) Decision {
	d := Decision{NoScaleUp: map[string]string{}}
	if !healthy(groups, o) {
		for _, p := range pending {
			d.NoScaleUp[p.Pod.Name] = "cluster-autoscaler halts: too many unready nodes"
		}
		return d
	}
	sorted := append([]*Group(nil), groups...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	templates := map[string]Template{}
	fitting := map[string][]Pod{}
	reasons := map[string][]string{}
	var valid []*Group
	for _, g := range sorted {
		why := ""
		switch {
		case g.Size >= g.Max:
			why = "max node group size reached"
		case backedOff(g, o):
			why = "node group is backed off: its node stays unready"
		}
		if why != "" {
			for _, p := range pending {
				reasons[p.Pod.Name] = append(reasons[p.Pod.Name], fmt.Sprintf("%s: %s", g.Name, why))
			}
			continue
		}
		t := templateOf(g, o.GPULabel)
		templates[g.Name] = t
		for _, p := range pending {
			if why := newSimNode(t).fits(p); why != "" {
				reasons[p.Pod.Name] = append(reasons[p.Pod.Name], fmt.Sprintf("%s: %s", g.Name, why))
				continue
			}
			fitting[g.Name] = append(fitting[g.Name], p)
		}
		valid = append(valid, g)
	}
	var options []option
	for _, g := range valid {
		if len(fitting[g.Name]) == 0 {
			continue
		}
		limit := g.Max - g.Size
		for _, s := range similar(g, valid, templates, fitting, o) {
			limit += s.Max - s.Size
		}
		nodes, pods := estimate(templates[g.Name], fitting[g.Name], limit)
		options = append(options, option{g: g, t: templates[g.Name], nodes: nodes, pods: pods})
	}
	if best, ok := leastWaste(options); ok {
		d.Best = best.g.Name
		for _, p := range best.pods {
			d.Helped = append(d.Helped, p.Pod.Name)
		}
		set := append([]*Group{best.g}, similar(best.g, valid, templates, fitting, o)...)
		d.Increases = balance(set, best.nodes)
	}
	for _, p := range pending {
		if len(fitting) == 0 || !helpedAnywhere(p, fitting) {
			d.NoScaleUp[p.Pod.Name] = joinReasons(reasons[p.Pod.Name])
		}
	}
	return d
}

// estimate packs pods, largest first, on new nodes of t, trying the last
// node added before adding another, as BinpackingNodeEstimator.Estimate
// (tryToScheduleOnNewNodes) does, up to limit nodes. It returns the
// nodes and the pods they hold.
func estimate(t Template, pods []Pod, limit int) (int, []Pod) {
	ordered := append([]Pod(nil), pods...)
	score := func(p Pod) float64 { return share(t.Node, requests(p.Pod)) }
	sort.SliceStable(ordered, func(i, j int) bool { return score(ordered[i]) > score(ordered[j]) })
	var nodes []*simNode
	var placed []Pod
	for _, p := range ordered {
		if n := len(nodes); n > 0 && nodes[n-1].fits(p) == "" {
			nodes[n-1].put(p)
			placed = append(placed, p)
			continue
		}
		if len(nodes) >= limit {
			continue
		}
		n := newSimNode(t)
		if n.fits(p) != "" {
			continue
		}
		n.put(p)
		nodes = append(nodes, n)
		placed = append(placed, p)
	}
	return len(nodes), placed
}

// share is the pod's CPU and memory as fractions of the node's
// (decreasing_pod_orderer.go, calculatePodScore).
func share(n *corev1.Node, req corev1.ResourceList) float64 {
	s := 0.0
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if c := n.Status.Allocatable[r]; !c.IsZero() {
			q := req[r]
			s += float64(q.MilliValue()) / float64(c.MilliValue())
		}
	}
	return s
}

// leastWaste restates expander/waste/waste.go, BestOptions: the option
// wasting the least of the new nodes' CPU and memory capacity.
func leastWaste(options []option) (option, bool) {
	best, found, least := option{}, false, 0.0
	for _, o := range options {
		var cpu, mem int64
		for _, p := range o.pods {
			r := requests(p.Pod)
			cpu += r.Cpu().MilliValue()
			mem += r.Memory().Value()
		}
		c, m := o.t.Node.Status.Capacity[corev1.ResourceCPU], o.t.Node.Status.Capacity[corev1.ResourceMemory]
		availCPU, availMem := c.MilliValue()*int64(o.nodes), m.Value()*int64(o.nodes)
		if availCPU == 0 || availMem == 0 {
			continue
		}
		waste := float64(availCPU-cpu)/float64(availCPU) + float64(availMem-mem)/float64(availMem)
		if !found || waste < least {
			best, found, least = o, true, waste
		}
	}
	return best, found
}

// healthy restates clusterstate/clusterstate.go, IsClusterHealthy.
func healthy(groups []*Group, o Options) bool {
	total, unready := 0, 0
	for _, g := range groups {
		for _, n := range g.Nodes {
			total++
			if !ready(n, o.GPULabel) {
				unready++
			}
		}
	}
	return !(unready > o.OkTotalUnready && float64(unready) > o.MaxTotalUnreadyPercent/100*float64(total))
}

// backedOff: a node of the group stays unready, so the scale-up that
// added it fails at --max-node-provision-time and the group is backed off
// (clusterstate/clusterstate.go, updateScaleRequests → RegisterFailedScaleUp;
// NodeGroupScaleUpSafety).
func backedOff(g *Group, o Options) bool {
	for _, n := range g.Nodes {
		if !ready(n, o.GPULabel) {
			return true
		}
	}
	return false
}

func helpedAnywhere(p Pod, fitting map[string][]Pod) bool {
	for _, pods := range fitting {
		for _, q := range pods {
			if q.Pod == p.Pod {
				return true
			}
		}
	}
	return false
}

func joinReasons(rs []string) string {
	s := ""
	for i, r := range rs {
		if i > 0 {
			s += "; "
		}
		s += r
	}
	return "pod didn't trigger scale-up: " + s
}

// templateOf and ready are TemplateFor and Ready, swapped by the tests
// for a deliberately wrong rule.
var (
	templateOf = TemplateFor
	ready      = Ready
)
