// Package kueuemodel is the tree's Kueue objects as Kueue's scheduler
// cache holds them on an empty cluster: the quota tree of ClusterQueues
// and Cohorts (Model), Kueue's flavor assigner (Assign), what Kueue counts
// of a pod (Request), and a memo of both for the classes many queues share
// (Memo).
package kueuemodel

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check/internal/sat"
	"github.com/gpufleet/gpufleet/compiler/check/readback"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// Model is the tree's ResourceFlavors, ClusterQueues and Cohorts as
// Kueue's scheduler cache holds them on an empty cluster. Quota follows
// Kueue's own recurrences (pkg/cache/scheduler/resource_node.go): a node's
// subtree quota is its nominal quota plus what its children lend, and a
// ClusterQueue may use its guaranteed (unlent) quota plus what its cohort
// tree could give it, capped by its borrowingLimit. ladder/kueue compares it
// with Kueue v0.19.2's own cache and flavor assigner.
type Model struct {
	Flavors map[string]kueue.ResourceFlavorSpec
	Queues  map[string]*kueue.ClusterQueue
	// LimitRanges of each namespace, from the tenants' directories.
	LimitRanges map[string][]corev1.LimitRange
	// ResourceQuotas of each namespace, from the same directories.
	ResourceQuotas map[string][]corev1.ResourceQuota
	// Priorities are the WorkloadPriorityClasses' values, by name.
	Priorities map[string]int32
	// Topologies are the Topologies' levels, widest first, by name.
	Topologies map[string][]string
	// Domains are the nodes per domain a TAS flavor declares, by level
	// label (keys.AnnotationTopologyDomains), by flavor.
	Domains map[string]map[string]int64
	// DeviceClasses maps a DRA DeviceClass to the resource Kueue counts
	// its devices as (its Configuration's deviceClassMappings, which the
	// tree's kueue/dra-config.yaml holds).
	DeviceClasses map[string]corev1.ResourceName
	nodes         map[string]*quotaNode // ClusterQueues by name
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

// New reads the Kueue objects of a tree.
func New(tr tree.Typed) (*Model, error) {
	var fs []kueue.ResourceFlavor
	if err := readback.DecodeAll(tr, tree.KueueFlavorsPath, &fs); err != nil {
		return nil, fmt.Errorf("check: %s: %w", tree.KueueFlavorsPath, err)
	}
	var cqs []kueue.ClusterQueue
	if err := readback.DecodeAll(tr, tree.KueueQueuesPath, &cqs); err != nil {
		return nil, fmt.Errorf("check: %s: %w", tree.KueueQueuesPath, err)
	}
	var cohorts []kueue.Cohort
	if err := readback.DecodeAll(tr, tree.KueueCohortsPath, &cohorts); err != nil {
		return nil, fmt.Errorf("check: %s: %w", tree.KueueCohortsPath, err)
	}
	var topologies []kueue.Topology
	if err := readback.DecodeAll(tr, tree.KueueTopologiesPath, &topologies); err != nil {
		return nil, fmt.Errorf("check: %s: %w", tree.KueueTopologiesPath, err)
	}
	var wpcs []kueue.WorkloadPriorityClass
	if err := readback.DecodeAll(tr, tree.KueuePrioritiesPath, &wpcs); err != nil {
		return nil, fmt.Errorf("check: %s: %w", tree.KueuePrioritiesPath, err)
	}
	m := &Model{Flavors: make(map[string]kueue.ResourceFlavorSpec, len(fs)), Queues: make(map[string]*kueue.ClusterQueue, len(cqs)),
		LimitRanges: map[string][]corev1.LimitRange{}, ResourceQuotas: map[string][]corev1.ResourceQuota{}, nodes: make(map[string]*quotaNode, len(cqs))}
	// A big tree has thousands of namespaces' files: they are read while
	// the quota tree is built, which reads none of them.
	read := make(chan error, 1)
	go func() { read <- m.readNamespaces(tr) }()
	for _, f := range fs {
		m.Flavors[f.Name] = f.Spec
		d, err := ParseDomains(f.Annotations[keys.AnnotationTopologyDomains])
		if err != nil {
			return nil, fmt.Errorf("check: %s: ResourceFlavor %s: annotation %s: %w", tree.KueueFlavorsPath, f.Name, keys.AnnotationTopologyDomains, err)
		}
		if d != nil {
			if m.Domains == nil {
				m.Domains = map[string]map[string]int64{}
			}
			m.Domains[f.Name] = d
		}
	}
	if raw, ok := tr.Tree[tree.KueueDRAConfigPath]; ok {
		mappings, err := kueue.DRAMappings(raw)
		if err != nil {
			return nil, fmt.Errorf("check: %s: %w", tree.KueueDRAConfigPath, err)
		}
		m.DeviceClasses = map[string]corev1.ResourceName{}
		for _, dm := range mappings {
			for _, dc := range dm.DeviceClassNames {
				m.DeviceClasses[dc] = dm.Name
			}
		}
	}
	m.Topologies = make(map[string][]string, len(topologies))
	for _, t := range topologies {
		for _, l := range t.Spec.Levels {
			m.Topologies[t.Name] = append(m.Topologies[t.Name], l.NodeLabel)
		}
	}
	m.Priorities = make(map[string]int32, len(wpcs))
	for _, w := range wpcs {
		m.Priorities[w.Name] = w.Value
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
					l := quotaLimits{nominal: Value(r.Name, r.NominalQuota)}
					if r.BorrowingLimit != nil {
						v := Value(r.Name, *r.BorrowingLimit)
						l.borrowing = &v
					}
					if r.LendingLimit != nil {
						v := Value(r.Name, *r.LendingLimit)
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
				n.subtree[fr] = sat.Add(n.subtree[fr], q.nominal-c.local(fr))
			}
			continue
		}
		for fr, v := range c.subtree {
			n.subtree[fr] = sat.Add(n.subtree[fr], v-c.local(fr))
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
	avail := sat.Add(n.local(fr), n.parent.potential(fr, depth+1))
	if b := n.quota[fr].borrowing; b != nil {
		avail = min(sat.Add(n.subtreeOf(fr), *b), avail)
	}
	return avail
}

// Alone reports whether the ClusterQueue is the only one in its cohort
// tree: it then has nothing to borrow, whatever its borrowingLimit.
func (m *Model) Alone(cq string) bool {
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
func (m *Model) MaxUsage(cq string) map[corev1.ResourceName]int64 {
	out := map[corev1.ResourceName]int64{}
	n := m.nodes[cq]
	if n == nil {
		return out
	}
	for fr := range n.quota {
		out[fr.res] = sat.Add(out[fr.res], max(0, n.potential(fr, 0)))
	}
	return out
}

// Admitted reports whether Kueue admits the workload.
func (a Assignment) Admitted() bool { return a.Message == "" }

// Flavor is the flavor assigned to the workload's GPUs, or to its CPU when
// it asks for none.
func (a Assignment) Flavor() string {
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
