package e2e

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/check/queueing"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// Kueue's topology-aware scheduling (TAS) in the harness. The nodes carry
// the EC2 network-node labels (networkLabels); Kueue places a workload by
// topology only on the nodes that exist, so the admission of queued
// classes runs with the TAS pools at their standing nodes (kueueSize);
// and each TAS workload's fate is held to the checker's: admitted with a
// topology assignment on those nodes, or never admitted where
// KueueTopology says so (expectTAS).

// networkFanout is how many network nodes, or instances, hang off one
// network node of the layer above, in the harness's labelling.
const networkFanout = 4

// networkLabels are the labels the AWS cloud controller manager puts on a
// node of a type with layers network layers (catalog.Instance.NetworkLayers)
// when it registers: topology.k8s.aws/network-node-layer-1..N, layer 1 the
// widest, from EC2's DescribeInstanceTopology, whether or not its pool uses
// Kueue's TAS. Which network nodes EC2 puts an instance under cannot be
// known offline; the harness picks them deterministically, as a capacity
// block or cluster placement group of one node group would get them:
//
//   - layer 1 is one network node per zone (EC2's network nodes do not
//     span Availability Zones);
//   - each deeper layer l of N groups the group's nodes in the zone in the
//     order of their index k, networkFanout^(N-l+1) to a network node: for
//     N = 3 (p4d, p5), 16 nodes share a layer-2 node and 4 a layer-3 node;
//     for N = 4 (p6-b200), 64, 16 and 4;
//   - where the pool declares a layer's domain size (topologyDomains, as a
//     capacity block's placement says), that many nodes share its network
//     nodes, and each wider undeclared layer below layer 1 holds
//     networkFanout of them.
//
// So a group's standing nodes (its first ones in each zone) share the
// deepest network nodes, four to one, and the nodes an autoscaler adds
// come under further ones. Values are "nn-<zone>" and
// "nn-<zone>-<group>-l<layer>-<index>", hashed where longer than a label
// value may be.
func networkLabels(layers int, declared map[int]int, group, zone string, k int) map[string]string {
	out := make(map[string]string, layers)
	sizes, size := make([]int, layers+1), 1
	for l := layers; l >= 1; l-- {
		size *= networkFanout
		if n, ok := declared[l]; ok {
			size = n
		}
		sizes[l] = size
	}
	for l := 1; l <= layers; l++ {
		v := "nn-" + zone
		if _, ok := declared[l]; l > 1 || ok {
			v = fmt.Sprintf("nn-%s-%s-l%d-%d", zone, group, l, k/sizes[l])
		}
		if len(v) > 63 {
			h := fnv.New64a()
			h.Write([]byte(v))
			v = fmt.Sprintf("nn-%016x", h.Sum64())
		}
		out[aws.LabelNetworkNodeLayer+strconv.Itoa(l)] = v
	}
	return out
}

// declaredDomains are the pool's declared nodes per domain, by network
// layer.
func (fr *fleetRun) declaredDomains(pool string) map[int]int {
	var out map[int]int
	p := fr.res.Fleet.Pool(pool)
	if p == nil || p.Topology == nil {
		return nil
	}
	for label, n := range p.Topology.Domains {
		if l, err := strconv.Atoi(strings.TrimPrefix(label, aws.LabelNetworkNodeLayer)); err == nil {
			if out == nil {
				out = map[int]int{}
			}
			out[l] = int(n)
		}
	}
	return out
}

// kueueModel is the Kueue model of the tree, read once.
func (fr *fleetRun) kueueModel() *kueuemodel.Model {
	if fr.model == nil {
		m, err := kueuemodel.New(tree.Bytes(fr.res.Tree))
		if err != nil {
			fr.t.Fatal(err)
		}
		fr.model = m
	}
	return fr.model
}

// tasPools are the pools of the tree's TAS flavors: those whose
// ResourceFlavor names a Topology.
func (fr *fleetRun) tasPools() map[string]bool {
	out := map[string]bool{}
	for name, f := range fr.kueueModel().Flavors {
		if f.TopologyName != nil {
			out[fr.flavorPool(name)] = true
		}
	}
	return out
}

// classNodes are the nodes a class's own run meets: for a class its
// tenant queues and Kueue places by topology (explicitly, or its
// ClusterQueue has only TAS flavors), kueueSize; for any other, the fleet
// at max size.
func (fr *fleetRun) classNodes(c *sched.Class, tenant string) nodeSet {
	if fr.tasClass(c, tenant) {
		return fr.kueueSize(c.Name)
	}
	return fr.fullSize(c.Name)
}

// tasClass: the tenant queues the class and Kueue places it by topology.
func (fr *fleetRun) tasClass(c *sched.Class, tenant string) bool {
	for _, q := range compiler.KueueIntent(fr.res.Fleet) {
		if q.Tenant == tenant && slices.Contains(q.Classes, c.Name) && fr.kueueModel().TASRequested(q.ClusterQueue, kueuemodel.TopologyOf(c.Pod)) {
			return true
		}
	}
	return false
}

// tasAssignment is one PodSet's status.admission.podSetAssignments[].
// topologyAssignment, its slices expanded into domains.
type tasAssignment struct {
	levels  []string
	domains []tasDomain
}

// tasDomain is one domain of the assignment: a value for each level, and
// the pods placed there.
type tasDomain struct {
	values []string
	count  int32
}

// parseTopologyAssignment expands Kueue v1beta2's compressed
// TopologyAssignment: each slice's domainCount domains take a level's
// universal value or prefix+roots[i]+suffix, and a universal or
// individual pod count.
func parseTopologyAssignment(raw any) (*tasAssignment, error) {
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	var ta struct {
		Levels []string `json:"levels"`
		Slices []struct {
			DomainCount    int `json:"domainCount"`
			ValuesPerLevel []struct {
				Universal  *string `json:"universal"`
				Individual *struct {
					Prefix *string  `json:"prefix"`
					Suffix *string  `json:"suffix"`
					Roots  []string `json:"roots"`
				} `json:"individual"`
			} `json:"valuesPerLevel"`
			PodCounts struct {
				Universal  *int32  `json:"universal"`
				Individual []int32 `json:"individual"`
			} `json:"podCounts"`
		} `json:"slices"`
	}
	if err := json.Unmarshal(b, &ta); err != nil {
		return nil, err
	}
	out := &tasAssignment{levels: ta.Levels}
	for si, sl := range ta.Slices {
		if len(sl.ValuesPerLevel) != len(ta.Levels) {
			return nil, fmt.Errorf("slice %d: %d levels of values, %d levels", si, len(sl.ValuesPerLevel), len(ta.Levels))
		}
		for i := 0; i < sl.DomainCount; i++ {
			d := tasDomain{}
			for _, v := range sl.ValuesPerLevel {
				switch {
				case v.Universal != nil:
					d.values = append(d.values, *v.Universal)
				case v.Individual != nil && i < len(v.Individual.Roots):
					d.values = append(d.values, ptrStr(v.Individual.Prefix)+v.Individual.Roots[i]+ptrStr(v.Individual.Suffix))
				default:
					return nil, fmt.Errorf("slice %d, domain %d: a level has no value", si, i)
				}
			}
			switch {
			case sl.PodCounts.Universal != nil:
				d.count = *sl.PodCounts.Universal
			case i < len(sl.PodCounts.Individual):
				d.count = sl.PodCounts.Individual[i]
			default:
				return nil, fmt.Errorf("slice %d, domain %d: no pod count", si, i)
			}
			out.domains = append(out.domains, d)
		}
	}
	return out, nil
}

func ptrStr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func (a *tasAssignment) pods() int {
	n := 0
	for _, d := range a.domains {
		n += int(d.count)
	}
	return n
}

func (a *tasAssignment) String() string {
	ds := make([]string, len(a.domains))
	for i, d := range a.domains {
		ds[i] = fmt.Sprintf("%s: %d", strings.Join(d.values, "/"), d.count)
	}
	return fmt.Sprintf("levels [%s], %d domains {%s}", strings.Join(a.levels, " "), len(a.domains), strings.Join(ds, ", "))
}

// underNetwork is where the assignment's pods sit under the EC2 network
// nodes, by the network-node labels of the nodes of pool in each domain
// (Kueue keeps only the hostname level of a Topology that ends with it):
// pods per path of network nodes, layer 1 first.
func (fr *fleetRun) underNetwork(a *tasAssignment, pool string) string {
	pods := map[string]int32{}
	for _, d := range a.domains {
		for _, n := range fr.nodes.nodes {
			if fr.nodes.poolOf[n.Name] != pool || !a.matches(d, n) {
				continue
			}
			var path []string
			for l := 1; ; l++ {
				v, ok := n.Labels[aws.LabelNetworkNodeLayer+strconv.Itoa(l)]
				if !ok {
					break
				}
				path = append(path, v)
			}
			pods[strings.Join(path, "/")] += d.count
			break
		}
	}
	var out []string
	for _, p := range slices.Sorted(maps.Keys(pods)) {
		out = append(out, fmt.Sprintf("%s: %d", p, pods[p]))
	}
	return "{" + strings.Join(out, ", ") + "}"
}

// matches reports whether node n lies in domain d.
func (a *tasAssignment) matches(d tasDomain, n *corev1.Node) bool {
	for i, l := range a.levels {
		if n.Labels[l] != d.values[i] {
			return false
		}
	}
	return true
}

// tasExpect is what the checker says Kueue's TAS does with one workload
// its quota admits to a TAS flavor: offline, on the standing nodes the
// tree gives (kueuemodel.TASFit: the bounds KueueTopology and
// KueueTopologyBound judge), and live, on the labelled nodes the harness
// created, as check --nodes judges them.
type tasExpect struct {
	flavor, pool, topology string
	offline, live          kueuemodel.Fit
	// request and levels, for a sliced request's slices (judgeTAS).
	request kueuemodel.TopologyRequest
	levels  []string
}

// admits: Kueue places the pods on the nodes that exist.
func (e *tasExpect) admits() bool { return e.live.Sure() }

// reason is Kueue's reason for leaving the workload unadmitted.
func (e *tasExpect) reason() string { return e.live.NotFit(e.topology, e.live.Best) }

// expectTAS is the checker's account of Kueue's TAS for the tenant's
// workload of class c (count pods), which its flavor assigner gives a;
// nil where Kueue does not place it by topology. It lists where the
// checker contradicts itself (the unit's topology, the findings) or the
// harness's labelling contradicts the checker's bounds.
func (fr *fleetRun) expectTAS(tenant string, c *sched.Class, a kueuemodel.Assignment, count int32, u *check.Unit) (*tasExpect, []string) {
	var bad []string
	m := fr.kueueModel()
	if !a.Admitted() || !a.TAS {
		if u != nil && u.Topology != nil {
			bad = append(bad, fmt.Sprintf("the checker's unit places the workload by topology (%s), its flavor assignment does not", u.Topology.Request))
		}
		return nil, bad
	}
	flavor := a.Flavor()
	spec := m.Flavors[flavor]
	if spec.TopologyName == nil {
		return nil, bad
	}
	e := &tasExpect{flavor: flavor, pool: fr.flavorPool(flavor), topology: *spec.TopologyName}
	levels := m.Topologies[e.topology]
	var pool *sched.Pool
	for i := range fr.cl.Pools {
		if fr.cl.Pools[i].Name == e.pool {
			pool = &fr.cl.Pools[i]
		}
	}
	cell := fr.res.Report.Cell(c.Name, e.pool)
	if pool == nil || cell == nil {
		return nil, append(bad, fmt.Sprintf("flavor %s's pool %s has no pool or cell in the checker's report", flavor, e.pool))
	}
	t := kueuemodel.TopologyOf(c.Pod)
	e.request, e.levels = t, levels
	e.offline = kueuemodel.TASFit(pool, cell, levels, m.Domains[flavor], t, int64(count))
	// The harness's nodes of the pool as check --nodes reads them: each
	// once, holding the class's pods per node of its zone.
	live := sched.Pool{Name: pool.Name, Zones: pool.Zones, Live: true}
	lc := *cell
	lc.Zones = nil
	for _, n := range fr.nodes.nodes {
		if fr.nodes.poolOf[n.Name] != e.pool {
			continue
		}
		zone := n.Labels[keys.LabelZone]
		live.Nodes = append(live.Nodes, sched.Node{InstanceType: n.Labels[keys.LabelInstanceType], Zone: zone, Node: n})
		z := sched.ZoneCapacity{Zone: zone, Nodes: 1}
		for _, cz := range cell.Zones {
			if cz.Zone == zone {
				z.PodsPerNode = cz.PodsPerNode
			}
		}
		lc.Zones = append(lc.Zones, z)
	}
	e.live = kueuemodel.TASFit(&live, &lc, levels, nil, t, int64(count))

	switch ut := unitTopology(u); {
	case ut == nil:
		bad = append(bad, "the checker's unit gives no topology for a workload its flavor assignment places by topology")
	case ut.Standing != e.offline.Standing || ut.Worst != e.offline.Worst || ut.Best != e.offline.Best:
		bad = append(bad, fmt.Sprintf("the checker's unit says %d standing nodes fit %d to %d pods, TASFit %d fit %d to %d", ut.Standing, ut.Worst, ut.Best, e.offline.Standing, e.offline.Worst, e.offline.Best))
	}
	never, bound := !e.offline.May(), e.offline.May() && !e.offline.Sure()
	if has := hasClassFinding(fr.res.Report, queueing.IDKueueTopology, tenant, c.Name); has != never {
		bad = append(bad, fmt.Sprintf("the checker's KueueTopology error is %v, its TASFit says %d to %d of %d pods fit the %d standing nodes", has, e.offline.Worst, e.offline.Best, count, e.offline.Standing))
	}
	if has := hasClassFinding(fr.res.Report, queueing.IDKueueTopologyBound, tenant, c.Name); has != bound {
		bad = append(bad, fmt.Sprintf("the checker's KueueTopologyBound warning is %v, its TASFit says %d to %d of %d pods fit the %d standing nodes", has, e.offline.Worst, e.offline.Best, count, e.offline.Standing))
	}
	switch {
	case never && e.live.May():
		bad = append(bad, fmt.Sprintf("on the harness's %d labelled nodes of pool %s %d pods fit, where the checker says no placement of its %d standing nodes fits %d", e.live.Standing, e.pool, e.live.Best, e.offline.Standing, count))
	case e.offline.Sure() && !e.live.Sure():
		bad = append(bad, fmt.Sprintf("on the harness's %d labelled nodes of pool %s only %d pods fit, where the checker says every placement of its %d standing nodes fits %d", e.live.Standing, e.pool, e.live.Best, e.offline.Standing, count))
	}
	return e, bad
}

func unitTopology(u *check.Unit) *check.UnitTopology {
	if u == nil {
		return nil
	}
	return u.Topology
}

func hasClassFinding(r *check.Report, id check.ID, tenant, class string) bool {
	for _, f := range r.Findings {
		if f.Check == id && f.Tenant == tenant && f.Class == class {
			return true
		}
	}
	return false
}

// judgeTAS lists how the Workloads Kueue admitted contradict TAS on the
// standing nodes: each must carry a topology assignment whose domains are
// nodes of the flavor's pool that exist, for all its pods.
func (fr *fleetRun) judgeTAS(e *tasExpect, s *submission) []string {
	var bad []string
	admitted, _ := s.admittedTo()
	want, got := 0, 0
	for _, n := range admitted {
		want += n
	}
	for _, key := range slices.Sorted(maps.Keys(s.decisions)) {
		d := s.decisions[key]
		if !d.admitted {
			continue
		}
		if d.topology == nil || len(d.topology.domains) == 0 {
			bad = append(bad, fmt.Sprintf("Workload %s is admitted with no topology assignment", d.workload))
			continue
		}
		got += d.topology.pods()
		for _, dom := range d.topology.domains {
			if !slices.ContainsFunc(fr.nodes.nodes, func(n *corev1.Node) bool {
				return fr.nodes.poolOf[n.Name] == e.pool && d.topology.matches(dom, n)
			}) {
				bad = append(bad, fmt.Sprintf("Workload %s's domain %s is no node of pool %s that exists", d.workload, strings.Join(dom.values, "/"), e.pool))
			}
		}
	}
	if got != want {
		bad = append(bad, fmt.Sprintf("the topology assignments place %d pods, Kueue admitted %d", got, want))
	}
	return append(bad, fr.wholeSlices(e, s)...)
}

// wholeSlices holds a sliced request's assignment to its slices: the pods
// under each domain of the slice level, by the harness's node labels, are
// whole slices.
func (fr *fleetRun) wholeSlices(e *tasExpect, s *submission) []string {
	at := slices.Index(e.levels, e.request.SliceLevel)
	if e.request.SliceSize == 0 || at < 0 {
		return nil
	}
	var bad []string
	for _, key := range slices.Sorted(maps.Keys(s.decisions)) {
		d := s.decisions[key]
		if !d.admitted || d.topology == nil {
			continue
		}
		pods := map[string]int32{}
		for _, dom := range d.topology.domains {
			for _, n := range fr.nodes.nodes {
				if fr.nodes.poolOf[n.Name] == e.pool && d.topology.matches(dom, n) {
					var path []string
					for _, l := range e.levels[:at+1] {
						path = append(path, n.Labels[l])
					}
					pods[strings.Join(path, "/")] += dom.count
					break
				}
			}
		}
		for _, p := range slices.Sorted(maps.Keys(pods)) {
			if int64(pods[p])%e.request.SliceSize != 0 {
				bad = append(bad, fmt.Sprintf("Workload %s puts %d pods under %s %s: not whole slices of %d", d.workload, pods[p], e.request.SliceLevel, p, e.request.SliceSize))
			}
		}
		fr.t.Logf("Workload %s: slices of %d under %s: %v", d.workload, e.request.SliceSize, e.request.SliceLevel, pods)
	}
	return bad
}

// boundInDomains lists the admitted pods bound outside their Workload's
// topology assignment, or more to a domain than it assigns: Kueue's
// topology ungater pins each pod to its domain.
func (fr *fleetRun) boundInDomains(s *submission) []string {
	pods, err := fr.cp.Client.CoreV1().Pods(s.ns).List(fr.ctx, metav1.ListOptions{LabelSelector: s.sel})
	if err != nil {
		return []string{err.Error()}
	}
	var bad []string
	used := map[string]int32{}
	for _, p := range pods.Items {
		if p.Spec.NodeName == "" {
			continue
		}
		d, ok := s.decisions[p.Name]
		if !ok {
			d = s.decisions[""]
		}
		node := fr.node(p.Spec.NodeName)
		if d.topology == nil || node == nil {
			continue
		}
		i := slices.IndexFunc(d.topology.domains, func(dom tasDomain) bool { return d.topology.matches(dom, node) })
		if i < 0 {
			bad = append(bad, fmt.Sprintf("pod %s bound to %s, in none of Workload %s's topology domains", p.Name, node.Name, d.workload))
			continue
		}
		key := d.workload + "\x00" + strings.Join(d.topology.domains[i].values, "/")
		if used[key]++; used[key] > d.topology.domains[i].count {
			bad = append(bad, fmt.Sprintf("pod %s bound to %s, beyond the %d pods Workload %s's topology assigns there", p.Name, node.Name, d.topology.domains[i].count, d.workload))
		}
	}
	return bad
}

// tasRefusal waits, bounded, for Kueue to give the checker's reason for
// leaving every Workload of s unadmitted. Kueue's flavor fungibility
// tries the flavors after the TAS one on its next pass, whose message
// may be theirs alone; the messages seen are returned. admitted is true
// if Kueue admitted one meanwhile.
func (fr *fleetRun) tasRefusal(dyn dynamic.Interface, s *submission, reason string) (ok, admitted bool, seen []string) {
	shown := map[string]bool{}
	_ = poll(20*time.Second, 200*time.Millisecond, func() (bool, error) {
		cur, complete, err := fr.decisions(dyn, s)
		if err != nil || !complete {
			return false, err
		}
		all := true
		for _, d := range cur {
			if d.admitted {
				admitted = true
				return true, nil
			}
			if !shown[d.message] {
				shown[d.message] = true
				seen = append(seen, d.message)
			}
			all = all && strings.Contains(d.message, reason)
		}
		ok = all
		return all, nil
	})
	return ok, admitted, seen
}
