package check

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// KueueModel is the tree's ResourceFlavors, ClusterQueues and Cohorts as
// Kueue's scheduler cache holds them on an empty cluster. Quota follows
// Kueue's own recurrences (pkg/cache/scheduler/resource_node.go): a node's
// subtree quota is its nominal quota plus what its children lend, and a
// ClusterQueue may use its guaranteed (unlent) quota plus what its cohort
// tree could give it, capped by its borrowingLimit. ladder/kueue compares it
// with Kueue v0.19.2's own cache and flavor assigner.
type KueueModel struct {
	Flavors map[string]kueue.ResourceFlavorSpec
	Queues  map[string]*kueue.ClusterQueue
	// LimitRanges of each namespace, from the tenants' directories.
	LimitRanges map[string][]corev1.LimitRange
	// ResourceQuotas of each namespace, from the same directories.
	ResourceQuotas map[string][]corev1.ResourceQuota
	nodes          map[string]*quotaNode // ClusterQueues by name
}

type flavorResource struct {
	flavor string
	res    corev1.ResourceName
}

type quotaLimits struct {
	nominal            int64
	borrowing, lending *int64
}

// quotaNode is a ClusterQueue or a Cohort in Kueue's quota tree.
type quotaNode struct {
	parent   *quotaNode
	children []*quotaNode
	quota    map[flavorResource]quotaLimits
	// subtree is nil where it is the node's nominal quota: a ClusterQueue,
	// thousands of them at XL, has no children (subtreeOf).
	subtree map[flavorResource]int64
	// queues counts the ClusterQueues in the subtree.
	queues      int
	accumulated bool
}

// maxDepth bounds cohort chains: validate refuses cycles, and a hostile
// tree must not make the walk loop.
const maxDepth = 64

// NewKueueModel reads the Kueue objects of a tree.
func NewKueueModel(tr tree.Typed) (*KueueModel, error) {
	var fs []kueue.ResourceFlavor
	if err := decodeAll(tr, tree.KueueFlavorsPath, &fs); err != nil {
		return nil, fmt.Errorf("check: %s: %w", tree.KueueFlavorsPath, err)
	}
	var cqs []kueue.ClusterQueue
	if err := decodeAll(tr, tree.KueueQueuesPath, &cqs); err != nil {
		return nil, fmt.Errorf("check: %s: %w", tree.KueueQueuesPath, err)
	}
	var cohorts []kueue.Cohort
	if err := decodeAll(tr, tree.KueueCohortsPath, &cohorts); err != nil {
		return nil, fmt.Errorf("check: %s: %w", tree.KueueCohortsPath, err)
	}
	m := &KueueModel{Flavors: make(map[string]kueue.ResourceFlavorSpec, len(fs)), Queues: make(map[string]*kueue.ClusterQueue, len(cqs)),
		LimitRanges: map[string][]corev1.LimitRange{}, ResourceQuotas: map[string][]corev1.ResourceQuota{}, nodes: make(map[string]*quotaNode, len(cqs))}
	// A big tree has thousands of namespaces' files: they are read while
	// the quota tree is built, which reads none of them.
	read := make(chan error, 1)
	go func() { read <- m.readNamespaces(tr) }()
	for _, f := range fs {
		m.Flavors[f.Name] = f.Spec
	}
	cohort := map[string]*quotaNode{}
	node := func(name string) *quotaNode {
		if cohort[name] == nil {
			cohort[name] = &quotaNode{quota: map[flavorResource]quotaLimits{}}
		}
		return cohort[name]
	}
	for _, c := range cohorts {
		n := node(c.Name)
		if c.Spec.ParentName != "" {
			n.parent = node(c.Spec.ParentName)
			n.parent.children = append(n.parent.children, n)
		}
	}
	for i := range cqs {
		cq := &cqs[i]
		m.Queues[cq.Name] = cq
		size := 0
		for _, rg := range cq.Spec.ResourceGroups {
			for _, f := range rg.Flavors {
				size += len(f.Resources)
			}
		}
		n := &quotaNode{quota: make(map[flavorResource]quotaLimits, size)}
		for _, rg := range cq.Spec.ResourceGroups {
			for _, f := range rg.Flavors {
				for _, r := range f.Resources {
					l := quotaLimits{nominal: value(r.Name, r.NominalQuota)}
					if r.BorrowingLimit != nil {
						v := value(r.Name, *r.BorrowingLimit)
						l.borrowing = &v
					}
					if r.LendingLimit != nil {
						v := value(r.Name, *r.LendingLimit)
						l.lending = &v
					}
					n.quota[flavorResource{f.Name, r.Name}] = l
				}
			}
		}
		if cq.Spec.CohortName != "" {
			n.parent = node(cq.Spec.CohortName)
			n.parent.children = append(n.parent.children, n)
		}
		n.queues = 1
		m.nodes[cq.Name] = n
	}
	for _, n := range cohort {
		if root := n.root(); root != nil && !root.accumulated {
			root.accumulate(0)
		}
	}
	for _, n := range m.nodes {
		if n.parent == nil {
			n.accumulate(0)
		}
	}
	if err := <-read; err != nil {
		return nil, err
	}
	return m, nil
}

func (n *quotaNode) root() *quotaNode {
	for i := 0; i < maxDepth && n.parent != nil; i++ {
		n = n.parent
	}
	if n.parent != nil {
		return nil // a cycle: Kueue refuses the cohort too
	}
	return n
}

// accumulate is Kueue's updateCohortResourceNode: a node's subtree quota
// is its own nominal quota plus, from each child, what the child does not
// keep for itself.
func (n *quotaNode) accumulate(depth int) {
	n.accumulated, n.subtree = true, nil
	if len(n.children) == 0 || depth > maxDepth {
		return
	}
	n.subtree = make(map[flavorResource]int64, len(n.quota))
	for fr, q := range n.quota {
		n.subtree[fr] = q.nominal
	}
	for _, c := range n.children {
		c.accumulate(depth + 1)
		n.queues += c.queues
		if c.subtree == nil {
			for fr, q := range c.quota {
				n.subtree[fr] = addSat(n.subtree[fr], q.nominal-c.local(fr))
			}
			continue
		}
		for fr, v := range c.subtree {
			n.subtree[fr] = addSat(n.subtree[fr], v-c.local(fr))
		}
	}
}

// subtreeOf is the node's subtree quota of fr.
func (n *quotaNode) subtreeOf(fr flavorResource) int64 {
	if n.subtree == nil {
		return n.quota[fr].nominal
	}
	return n.subtree[fr]
}

// local is the quota a node keeps from its parent: what its lendingLimit
// does not lend.
func (n *quotaNode) local(fr flavorResource) int64 {
	if l := n.quota[fr].lending; l != nil {
		return max(0, n.subtreeOf(fr)-*l)
	}
	return 0
}

// potential is Kueue's potentialAvailable: the largest workload the node
// could admit on an empty cluster.
func (n *quotaNode) potential(fr flavorResource, depth int) int64 {
	if n.parent == nil || depth > maxDepth {
		return n.subtreeOf(fr)
	}
	avail := addSat(n.local(fr), n.parent.potential(fr, depth+1))
	if b := n.quota[fr].borrowing; b != nil {
		avail = min(addSat(n.subtreeOf(fr), *b), avail)
	}
	return avail
}

// Alone reports whether the ClusterQueue is the only one in its cohort
// tree: it then has nothing to borrow, whatever its borrowingLimit.
func (m *KueueModel) Alone(cq string) bool {
	n := m.nodes[cq]
	if n == nil || n.parent == nil {
		return false
	}
	root := n.root()
	return root != nil && root.queues == 1
}

// MaxUsage is, per resource, the most a ClusterQueue's admitted workloads
// can hold at once: the sum over its flavors of what Kueue lets it use of
// each (its potential available, on an otherwise empty cluster).
func (m *KueueModel) MaxUsage(cq string) map[corev1.ResourceName]int64 {
	out := map[corev1.ResourceName]int64{}
	n := m.nodes[cq]
	if n == nil {
		return out
	}
	for fr := range n.quota {
		out[fr.res] = addSat(out[fr.res], max(0, n.potential(fr, 0)))
	}
	return out
}

// KueueRequest is what Kueue counts for one pod of a Workload
// (workload.AdjustResources): each container's missing limits and requests
// filled from the namespace's LimitRange defaults, then missing requests
// from limits. A default of "0" GPUs makes a CPU-only pod ask for 0 GPUs,
// which Kueue assigns a flavor too.
func KueueRequest(pod *corev1.Pod, limits []corev1.LimitRange) corev1.ResourceList {
	return PodRequest(LimitRanged(pod, limits))
}

// LimitRanged is a copy of pod as its namespace's LimitRanges leave it:
// each container's and init container's missing limits and requests
// filled from the Container items' defaults, then missing requests from
// limits (LimitRanger's admission, and Kueue's AdjustResources).
func LimitRanged(pod *corev1.Pod, limits []corev1.LimitRange) *corev1.Pod {
	// Only the containers' requests and limits change, and each is replaced
	// by a new list (keepFirst), never written in place: the pod and its
	// containers are copied, the rest shared with pod.
	p := *pod
	p.Spec.InitContainers = slices.Clone(pod.Spec.InitContainers)
	p.Spec.Containers = slices.Clone(pod.Spec.Containers)
	for _, lr := range limits {
		for _, item := range lr.Spec.Limits {
			if item.Type != corev1.LimitTypeContainer {
				continue
			}
			for _, cs := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
				for i := range cs {
					cs[i].Resources.Limits = keepFirst(cs[i].Resources.Limits, item.Default)
					cs[i].Resources.Requests = keepFirst(cs[i].Resources.Requests, item.DefaultRequest)
				}
			}
		}
	}
	for _, cs := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for i := range cs {
			cs[i].Resources.Requests = keepFirst(cs[i].Resources.Requests, cs[i].Resources.Limits)
		}
	}
	return &p
}

// keepFirst adds to a what b has and a lacks.
func keepFirst(a, b corev1.ResourceList) corev1.ResourceList {
	if len(b) == 0 {
		return a
	}
	out := a.DeepCopy()
	if out == nil {
		out = corev1.ResourceList{}
	}
	for k, v := range b {
		if _, ok := out[k]; !ok {
			out[k] = v.DeepCopy()
		}
	}
	return out
}

// KueueAssignment is where Kueue admits one workload on an empty cluster:
// the flavor of each requested resource, or, when none fits, Kueue's own
// message.
type KueueAssignment struct {
	Flavors map[corev1.ResourceName]string
	Message string
}

// Admitted reports whether Kueue admits the workload.
func (a KueueAssignment) Admitted() bool { return a.Message == "" }

// Flavor is the flavor assigned to the workload's GPUs, or to its CPU when
// it asks for none.
func (a KueueAssignment) Flavor() string {
	for _, r := range []corev1.ResourceName{"nvidia.com/gpu", corev1.ResourceCPU} {
		if f, ok := a.Flavors[r]; ok {
			return f
		}
	}
	for _, r := range slices.Sorted(maps.Keys(a.Flavors)) {
		return a.Flavors[r]
	}
	return ""
}

// Assign is Kueue's flavor assigner for a workload of one pod set ("main")
// of count pods like pod, in ClusterQueue cq: per resource group, the first
// flavor (in the group's order) whose taints the pod tolerates, whose
// labels its node affinity matches, and whose quota holds every resource
// of the group. Kueue's flavorFungibility default (whenCanBorrow:
// MayStopSearch) stops at the first flavor that fits, borrowing or not.
func (m *KueueModel) Assign(cq string, pod *corev1.Pod, request corev1.ResourceList, count int32) KueueAssignment {
	return m.assign(cq, m.admitter(pod), request, count)
}

// admitter is kueue.Admits of one pod, by flavor name.
type admitter func(flavor string) (bool, string)

func (m *KueueModel) admitter(pod *corev1.Pod) admitter {
	admits := kueue.Admitter(pod)
	return func(f string) (bool, string) { return admits(f, m.Flavors[f]) }
}

// assign is Assign for the pod admits decides flavors for, which a memo
// may answer.
func (m *KueueModel) assign(cq string, admits admitter, request corev1.ResourceList, count int32) KueueAssignment {
	q, n := m.Queues[cq], m.nodes[cq]
	out := KueueAssignment{Flavors: map[corev1.ResourceName]string{}}
	if q == nil {
		out.Message = fmt.Sprintf("ClusterQueue %s not found", cq)
		return out
	}
	total := totals(request, count)
	for _, r := range kueueOrder(total) {
		if _, done := out.Flavors[r]; done {
			continue
		}
		rg := groupOf(q, r)
		if rg == nil {
			if total[r] == 0 {
				continue
			}
			out.Message = podSetMessage([]string{fmt.Sprintf("resource %s unavailable in ClusterQueue", r)})
			return out
		}
		flavor, reasons := findFlavor(rg, n, admits, total)
		if flavor == "" {
			out.Message = podSetMessage(reasons)
			return out
		}
		for _, c := range rg.CoveredResources {
			if _, ok := total[c]; ok {
				out.Flavors[c] = flavor
			}
		}
	}
	return out
}

func findFlavor(rg *kueue.ResourceGroup, n *quotaNode, admits admitter, total map[corev1.ResourceName]int64) (string, []string) {
	var reasons []string
	for _, f := range rg.Flavors {
		if ok, reason := admits(f.Name); !ok {
			reasons = append(reasons, reason)
			continue
		}
		fits := true
		for _, r := range rg.CoveredResources {
			v, ok := total[r]
			if !ok {
				continue
			}
			fr := flavorResource{f.Name, r}
			if max := n.potential(fr, 0); v > max {
				fits = false
				reasons = append(reasons, fmt.Sprintf(
					"insufficient quota for %s in flavor %s, previously considered podsets requests (%s) + current podset request (%s) > maximum capacity (%s)",
					r, f.Name, format(r, 0), format(r, v), format(r, max)))
			}
		}
		if fits {
			return f.Name, nil
		}
	}
	return "", reasons
}

// candidates are the flavors, in Kueue's order, that admit the workload
// (admits) on taints and node affinity and whose quota could hold it:
// those Kueue may pick as the quota of earlier ones fills up.
func (m *KueueModel) candidates(cq string, admits admitter, request corev1.ResourceList, count int32) []string {
	q, n := m.Queues[cq], m.nodes[cq]
	if q == nil {
		return nil
	}
	total := totals(request, count)
	var out []string
	for _, rg := range q.Spec.ResourceGroups {
		for _, f := range rg.Flavors {
			if ok, _ := admits(f.Name); !ok {
				continue
			}
			holds := true
			for _, r := range rg.CoveredResources {
				if v, ok := total[r]; ok && v > n.potential(flavorResource{f.Name, r}, 0) {
					holds = false
				}
			}
			if holds {
				out = append(out, f.Name)
			}
		}
	}
	return out
}

// totals is a workload's request in Kueue's units: count pods' worth.
func totals(request corev1.ResourceList, count int32) map[corev1.ResourceName]int64 {
	out := make(map[corev1.ResourceName]int64, len(request))
	for r, v := range request {
		out[r] = mulSat(value(r, v), int64(count))
	}
	return out
}

func groupOf(q *kueue.ClusterQueue, r corev1.ResourceName) *kueue.ResourceGroup {
	for i := range q.Spec.ResourceGroups {
		if slices.Contains(q.Spec.ResourceGroups[i].CoveredResources, r) {
			return &q.Spec.ResourceGroups[i]
		}
	}
	return nil
}

// podSetMessage is Kueue's Assignment.Message for the one pod set: its
// reasons sorted and joined.
func podSetMessage(reasons []string) string {
	slices.Sort(reasons)
	return "couldn't assign flavors to pod set main: " + strings.Join(reasons, ", ")
}

// value is Kueue's resources.ResourceValue: CPU in millicores, the rest in
// units.
func value(r corev1.ResourceName, q resource.Quantity) int64 {
	if r == corev1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

// format is Kueue's ResourceFormatter: millicores for CPU, binary SI for
// memory, decimal for the rest.
func format(r corev1.ResourceName, v int64) string {
	switch r {
	case corev1.ResourceCPU:
		return resource.NewMilliQuantity(v, resource.DecimalSI).String()
	case corev1.ResourceMemory, corev1.ResourceEphemeralStorage:
		q := resource.NewQuantity(v, resource.BinarySI)
		if c, err := resource.ParseQuantity(q.String()); err == nil {
			return c.String()
		}
		return q.String()
	}
	return resource.NewQuantity(v, resource.DecimalSI).String()
}

func addSat(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	if b < 0 && a < math.MinInt64-b {
		return math.MinInt64
	}
	return a + b
}

// kueueOrder is the order Kueue's requests iterate in (its default
// VectorizedResourceRequests keeps them sorted by the FNV-64a hash of the
// name): when two resources are missing from a ClusterQueue, Kueue names
// the first.
func kueueOrder(m map[corev1.ResourceName]int64) []corev1.ResourceName {
	out := slices.Sorted(maps.Keys(m))
	hash := func(r corev1.ResourceName) uint64 {
		h := fnv.New64a()
		h.Write([]byte(r))
		return h.Sum64()
	}
	slices.SortStableFunc(out, func(a, b corev1.ResourceName) int { return cmp.Compare(hash(a), hash(b)) })
	return out
}
