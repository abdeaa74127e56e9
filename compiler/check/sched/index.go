package sched

import (
	"math/bits"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// A big fleet's class × pool matrix has millions of cells, of which a
// class can land on a handful: most refuse it on every node, for its
// nodeSelector or its required node affinity, as kube-scheduler's
// NodeAffinity PreFilter would tell before any Filter ran. The index rules
// those cells out wholesale, the way the scheduler precomputes its filters
// per equivalence class: pools by the label values their nodes carry, and
// by the taints they share, so that a class is evaluated node by node only
// on pools some node of which its selectors could match. A ruled-out
// cell's verdict is the one evaluate gives it: the first filter that
// fails on every node (all of a pool's nodes carry the same taints) is
// TaintToleration if the class does not tolerate them, else NodeAffinity.
// A ruled-out cell is not kept: its class's row (row.go) holds that
// verdict per taint group, and makes the cell when asked for it.

// poolSet is a set of pools by index.
type poolSet []uint64

func newPoolSet(n int) poolSet { return make(poolSet, (n+63)/64) }

func (s poolSet) add(i int) { s[i/64] |= 1 << (i % 64) }

func (s poolSet) has(i int) bool { return s[i/64]&(1<<(i%64)) != 0 }

func (s poolSet) count() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// each calls f with each pool in the set, in order.
func (s poolSet) each(f func(j int)) {
	for i, w := range s {
		for w != 0 {
			f(i*64 + bits.TrailingZeros64(w))
			w &= w - 1
		}
	}
}

func (s poolSet) fill(n int) {
	for i := range s {
		s[i] = ^uint64(0)
	}
	if r := n % 64; r != 0 {
		s[len(s)-1] = 1<<r - 1
	}
}

// Index says which pools could hold a class, and what refuses it on
// the others.
type Index struct {
	pools int
	// nodes are each pool's nodes, whose labels keys indexes.
	nodes [][]Node
	// keys indexes the nodes' labels by key (*keyIndex), each key the
	// first time a selector asks for it: the selectors name a few keys,
	// and a live node may carry hundreds (300 labels a node made check
	// --nodes 4.5 times the decode of its file when all were indexed).
	keys sync.Map
	// taints[i] is pool i's taint group, or -1 where its nodes' taints
	// differ or it has no nodes: such a pool is always evaluated.
	taints []int
	// taintNode is a node of each taint group, to test tolerations on,
	// and groupSize how many pools each group has.
	taintNode []*corev1.Node
	groupSize []int
	// always are the pools of no taint group, which are always evaluated.
	always poolSet
	// sets caches withValue's and withKey's lists as sets, by key and
	// value (or key alone): a selector's label that many pools carry
	// would cost a pass over its list on every row, and the queued
	// classes' rows pinned to each flavor are a row per class and pool.
	sets sync.Map
}

// keyIndex is one label key's index: withValue[value] lists the pools
// (ascending) some node of which carries the label key=value; withKey,
// those with the key.
type keyIndex struct {
	withValue map[string][]int32
	withKey   []int32
}

// NewIndex indexes the pools by their nodes' taints, and by their labels
// as selectors ask (key).
func NewIndex(pools []Pool) *Index {
	x := &Index{pools: len(pools), nodes: make([][]Node, len(pools)), taints: make([]int, len(pools)), always: newPoolSet(len(pools))}
	for i := range pools {
		x.nodes[i] = pools[i].Nodes
		x.taints[i] = x.taintGroup(pools[i].Nodes)
		if g := x.taints[i]; g < 0 {
			x.always.add(i)
		} else {
			x.groupSize[g]++
		}
	}
	return x
}

// key is label key k's index, built on first use; rows ask concurrently,
// and two that build it at once build the same.
func (x *Index) key(k string) *keyIndex {
	if ki, ok := x.keys.Load(k); ok {
		return ki.(*keyIndex)
	}
	ki := &keyIndex{withValue: map[string][]int32{}}
	for i, nodes := range x.nodes {
		for _, n := range nodes {
			if v, ok := n.Labels[k]; ok {
				ki.withValue[v] = appendPool(ki.withValue[v], i)
				ki.withKey = appendPool(ki.withKey, i)
			}
		}
	}
	got, _ := x.keys.LoadOrStore(k, ki)
	return got.(*keyIndex)
}

// appendPool adds pool i to a list built in pool order, once.
func appendPool(list []int32, i int) []int32 {
	if n := len(list); n > 0 && list[n-1] == int32(i) {
		return list
	}
	return append(list, int32(i))
}

func (x *Index) taintGroup(nodes []Node) int {
	if len(nodes) == 0 {
		return -1
	}
	ts := nodes[0].Spec.Taints
	for _, n := range nodes {
		// A cordoned node (a live one) fails NodeUnschedulable before
		// TaintToleration: its pool is evaluated node by node.
		if n.Spec.Unschedulable || !slices.Equal(n.Spec.Taints, ts) {
			return -1
		}
	}
	for g, n := range x.taintNode {
		if slices.Equal(n.Spec.Taints, ts) {
			return g
		}
	}
	x.taintNode = append(x.taintNode, nodes[0].Node)
	x.groupSize = append(x.groupSize, 0)
	return len(x.taintNode) - 1
}

// candidates is the set of pools on which some node could match the pod's
// nodeSelector and required node affinity; every other pool's nodes all
// fail NodeAffinity. Only In and Exists narrow it: any other operator, a
// field selector, or a term with none of those leaves the term open.
func (x *Index) candidates(pod *corev1.Pod) poolSet {
	s := newPoolSet(x.pools)
	s.fill(x.pools)
	for k, v := range pod.Spec.NodeSelector {
		s.and(x.set(k, v, true))
	}
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return s
	}
	any := newPoolSet(x.pools)
	for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		term := newPoolSet(x.pools)
		term.fill(x.pools)
		for _, r := range t.MatchExpressions {
			switch r.Operator {
			case corev1.NodeSelectorOpIn:
				in := newPoolSet(x.pools)
				for _, v := range r.Values {
					in.or(x.set(r.Key, v, true))
				}
				term.and(in)
			case corev1.NodeSelectorOpExists:
				term.and(x.set(r.Key, "", false))
			}
		}
		for i := range any {
			any[i] |= term[i]
		}
	}
	for i := range s {
		s[i] &= any[i]
	}
	return s
}

// and keeps only the pools in t.
func (s poolSet) and(t poolSet) {
	for i := range s {
		s[i] &= t[i]
	}
}

// or adds the pools in t.
func (s poolSet) or(t poolSet) {
	for i := range s {
		s[i] |= t[i]
	}
}

// set is the pools some node of which carries the label key=value (if
// byValue), or key; read only.
func (x *Index) set(key, value string, byValue bool) poolSet {
	type k struct {
		key, value string
		byValue    bool
	}
	id := k{key, value, byValue}
	if s, ok := x.sets.Load(id); ok {
		return s.(poolSet)
	}
	ki := x.key(key)
	list := ki.withKey
	if byValue {
		list = ki.withValue[value]
	}
	s := newPoolSet(x.pools)
	for _, i := range list {
		s.add(int(i))
	}
	got, _ := x.sets.LoadOrStore(id, s)
	return got.(poolSet)
}
