package kubesched

import (
	"cmp"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/check/scheduling"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/schedconfig"
)

var tieBreaks = flag.Int("tie-breaks", 2, "placement runs per class, with opposite tie-breaks among equal top scores (1 or 2)")

// placementChecks are the checker's multi-pod proofs: all of a class's pods
// can run at once.
var placementChecks = []check.ID{scheduling.IDLands, scheduling.IDGang, scheduling.IDCapacity, scheduling.IDInterPodAffinity, scheduling.IDPodTopologySpread}

// TestPlacementDifferential schedules each class's pods (replicas, or the
// gang) one after another with the real scheduling cycle (Schedule), under
// the profile their schedulerName names, on the fleet at max size, and
// holds the checker to what lands: as many pods as sched.Holds says, on
// pools the checker says fit, and for the first pod refused, every node's
// reasons. Classes that land nowhere are included. Each class runs twice,
// ties among top scores broken by node name one way then the other, and
// both runs must agree with the checker, so no verdict rests on the
// tie-break. Only the pools' instance types come from the checker: for a
// Karpenter pool that lists several, the one it credits (Karpenter
// chooses what to launch, not kube-scheduler); a managed group launches
// its first.
func TestPlacementDifferential(t *testing.T) {
	var st placeStats
	var bad []string
	for _, fc := range fleetCases(t) {
		res, cl := fc.compile(t)
		st.fleets++
		profiles := emittedProfiles(t, fc.name, res)
		dra := draInputs(t, res, cl)
		for i := range cl.Classes {
			c := &cl.Classes[i]
			cells := make([]sched.Cell, len(cl.Pools))
			for j, p := range cl.Pools {
				cells[j] = *res.Report.Cell(c.Name, p.Name)
			}
			// A scheduler of the user's own is judged as default-scheduler,
			// as the checker judges it.
			profile := profiles[c.Pod.Spec.SchedulerName]
			nodes, poolOf := atMaxSize(cl, cells)
			want := sched.Holds(c, res.Report.Row(c.Name), cl.Pools)
			// A Job that runs in waves needs one pod. Kueue pins a queued
			// class to one flavor before kube-scheduler sees it, so across
			// pools only Lands speaks of it: its pinned placement is the
			// composed differential's (make test-composed).
			short := want < int64(c.Need())
			if c.Queued {
				short = len(res.Report.LandsOn(c.Name)) == 0
			}
			if found := findingsOf(res, c.Name); short != (len(found) > 0) {
				bad = append(bad, fmt.Sprintf("%s: class %s: Holds %d of %d pods (queued %v), findings %v", fc.name, c.Name, want, c.Pods, c.Queued, found))
			}
			var first []string
			for run := 0; run < *tieBreaks; run++ {
				var got *Placement
				var err error
				if claimsOf(c).Asks() {
					dra.Slices = slicesOf(devicesAtMaxSize(cl, cells))
					got, err = ScheduleDRA(profile, podsOf(c), nodes, dra, tieBreak(run))
					st.dra++
				} else {
					got, err = Schedule(profile, podsOf(c), nodes, tieBreak(run))
				}
				if err != nil {
					t.Fatalf("%s: class %s: %v", fc.name, c.Name, err)
				}
				if run == 0 {
					st.count(c, res, got)
					first = hosts(got)
				} else if !slices.Equal(first, hosts(got)) {
					st.tieBreakMoved++
				}
				for _, d := range compare(c, cells, cl.Pools, nodes, poolOf, devicesAtMaxSize(cl, cells), want, got) {
					bad = append(bad, fmt.Sprintf("%s: class %s (%d pods, tie-break %d): %s", fc.name, c.Name, c.Pods, run, d))
				}
			}
		}
	}
	t.Logf("%s; %d disagreements", st, len(bad))
	figures = append(figures, fmt.Sprintf("%-10s %s; %d disagreements", "placement", st, len(bad)))
	st.floors(t)
	if len(bad) > 0 {
		slices.SortFunc(bad, func(a, b string) int { return cmp.Or(len(a)-len(b), strings.Compare(a, b)) })
		t.Fatalf("%d disagreements; the shortest:\n%s", len(bad), strings.Join(bad[:min(5, len(bad))], "\n"))
	}
}

// compare lists where the cycle's placement and the checker differ.
func compare(c *sched.Class, cells []sched.Cell, pools []sched.Pool, nodes []*v1.Node, poolOf map[string]int, devices map[string][]resourcev1.Device, want int64, got *Placement) []string {
	var out []string
	if n := int64(len(got.Bound)); n != want {
		out = append(out, fmt.Sprintf("kube-scheduler placed %d pods, the checker says the fleet holds %d", n, want))
	}
	perPool := make([]int64, len(pools))
	for _, p := range got.Bound {
		perPool[poolOf[p.Spec.NodeName]]++
	}
	capacity, forced := int64(0), true
	for j, cell := range cells {
		capacity += cell.Capacity
		if perPool[j] > cell.Capacity {
			out = append(out, fmt.Sprintf("%d pods on pool %s, where the checker's capacity is %d (fits %v)", perPool[j], cell.Pool, cell.Capacity, cell.Fits))
		}
		forced = forced && perPool[j] == cell.Capacity
	}
	// At the fitting pools' whole capacity every one is full, whatever
	// the order of placement.
	if want == capacity && want < int64(c.Pods) && !forced {
		out = append(out, fmt.Sprintf("pods per pool %v, the checker's capacities fill every pool", perPool))
	}
	if got.Refused == nil {
		return out
	}
	if got.Nominated != "" {
		out = append(out, fmt.Sprintf("preemption nominated %s for a pod the checker refuses", got.Nominated))
	}
	// Node by node, the checker's filters on the cluster as the scheduler
	// left it; pool by pool where the class does not fit, the report's.
	ours := sched.FilterPopulatedDRA(classPod(c, len(got.Bound), ""), claimsOf(c), nodes, devices, asPlaced(c, got.Bound))
	unfit := map[int][]string{}
	for _, n := range nodes {
		theirs := sorted(got.Reasons[n.Name])
		if mine := sorted(ours[n.Name]); !slices.Equal(mine, theirs) {
			out = append(out, fmt.Sprintf("pod %d refused on node %s: checker %q, kube-scheduler %q (%s)", len(got.Bound), n.Name, mine, theirs, got.Message))
		}
		if j := poolOf[n.Name]; !cells[j].Fits {
			for _, r := range theirs {
				if !slices.Contains(unfit[j], r) {
					unfit[j] = append(unfit[j], r)
				}
			}
		}
	}
	for j, rs := range unfit {
		// DynamicResources filters after PodTopologySpread and
		// InterPodAffinity: on a cluster the class's pods already
		// populate, nodes of a pool its claims never allocate on may be
		// refused by those first, where the report's cell (an empty
		// node) gives the claims' reason. The node-by-node comparison
		// above holds those reasons exactly.
		if claimsOf(c).Asks() {
			rs = slices.DeleteFunc(rs, func(r string) bool { k := kind([]string{r}); return k == "spread" || k == "anti-affinity" })
			if len(rs) == 0 {
				// Every node of the pool refused for those first (a
				// bridged class on CPU nodes its affinity allows).
				continue
			}
		}
		if want := typeReasons(c, &pools[j], cells[j]); !slices.Equal(slices.Sorted(slices.Values(rs)), want) {
			out = append(out, fmt.Sprintf("pool %s refuses with %q, the report says %q", cells[j].Pool, rs, want))
		}
	}
	return out
}

// typeReasons are the report's reasons for a cell where the class does not
// fit, as the nodes atMaxSize gives the scheduler have them: the cell's
// reasons cover every type a Karpenter pool lists, and its types may
// refuse for different reasons (one too small in CPU, another with too few
// devices), where atMaxSize starts only the first.
func typeReasons(c *sched.Class, p *sched.Pool, cell sched.Cell) []string {
	typ := p.Nodes[0].InstanceType
	if !slices.ContainsFunc(p.Nodes, func(n sched.Node) bool { return n.InstanceType != typ }) {
		return cell.Reasons
	}
	var out []string
	for _, v := range sched.Evaluate(c, p).Nodes {
		if v.InstanceType != typ {
			continue
		}
		for _, r := range v.Reasons {
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	slices.Sort(out)
	return out
}

// atMaxSize is every pool at max size for a class: in each zone its share
// of nodes, of the type the checker credits (the first where the class
// does not fit), named as the checker names hosts. poolOf maps node names
// to pool indexes.
func atMaxSize(cl *sched.Cluster, cells []sched.Cell) ([]*v1.Node, map[string]int) {
	var nodes []*v1.Node
	poolOf := map[string]int{}
	eachAtMaxSize(cl, cells, func(j int, name string, n sched.Node) {
		node := n.Node.DeepCopy()
		node.Name = name
		node.Labels["kubernetes.io/hostname"] = node.Name
		nodes = append(nodes, node)
		poolOf[node.Name] = j
	})
	return nodes, poolOf
}

// eachAtMaxSize calls f with each of atMaxSize's nodes: its pool's index,
// its name, and the checker's node it copies.
func eachAtMaxSize(cl *sched.Cluster, cells []sched.Cell, f func(j int, name string, n sched.Node)) {
	for j, p := range cl.Pools {
		typ := cells[j].Type
		if typ == "" {
			typ = p.Nodes[0].InstanceType
		}
		for _, n := range p.Nodes {
			if n.InstanceType != typ {
				continue
			}
			for k := int64(0); k < p.NodesInZone(n.Zone); k++ {
				f(j, fmt.Sprintf("%s-%s-%d", p.Name, n.Zone, k), n)
			}
		}
	}
}

// classPod is the class's i-th pod, bound to node if set.
func classPod(c *sched.Class, i int, node string) *v1.Pod {
	p := c.Pod.DeepCopy()
	p.Name, p.Namespace, p.Spec.NodeName = fmt.Sprintf("%s-%d", c.Name, i), "default", node
	return p
}

func podsOf(c *sched.Class) []*v1.Pod {
	pods := make([]*v1.Pod, c.Pods)
	for i := range pods {
		pods[i] = classPod(c, i, "")
	}
	return pods
}

// asPlaced is the class's pods where the cycle bound them.
func asPlaced(c *sched.Class, bound []*v1.Pod) []*v1.Pod {
	out := make([]*v1.Pod, len(bound))
	for i, p := range bound {
		out[i] = classPod(c, i, p.Spec.NodeName)
	}
	return out
}

// hosts are the nodes the pods landed on, in order.
func hosts(p *Placement) []string {
	var out []string
	for _, b := range p.Bound {
		out = append(out, b.Spec.NodeName)
	}
	return out
}

// tieBreak orders tied nodes by name, one way in run 0, the other in run 1.
func tieBreak(run int) func(a, b string) bool {
	if run%2 == 1 {
		return func(a, b string) bool { return a > b }
	}
	return func(a, b string) bool { return a < b }
}

// emittedProfiles are the profiles of the scheduler config the fleet
// emits, loaded as kube-scheduler loads it, by schedulerName; "" and
// default-scheduler map to nil, the default profile.
func emittedProfiles(t *testing.T, fleet string, res *compiler.Result) map[string]*config.KubeSchedulerProfile {
	t.Helper()
	out := map[string]*config.KubeSchedulerProfile{"": nil, v1.DefaultSchedulerName: nil}
	raw, ok := res.Tree[tree.SchedulerConfigPath]
	if !ok {
		return out
	}
	var cm v1.ConfigMap
	if err := yaml.UnmarshalStrict(raw, &cm); err != nil {
		t.Fatalf("%s: %v", fleet, err)
	}
	cfg, err := loadSchedulerConfig([]byte(cm.Data[schedconfig.ConfigKey]))
	if err != nil {
		t.Fatalf("%s: %v", fleet, err)
	}
	for i := range cfg.Profiles {
		out[cfg.Profiles[i].SchedulerName] = &cfg.Profiles[i]
	}
	return out
}

func findingsOf(res *compiler.Result, class string) []string {
	var out []string
	for _, f := range res.Report.Findings {
		if f.Class == class && slices.Contains(placementChecks, f.Check) {
			out = append(out, string(f.Check)+": "+f.Message)
		}
	}
	return out
}
