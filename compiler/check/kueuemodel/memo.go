package kueuemodel

import (
	"maps"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/internal/par"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// Memo holds what the Kueue checks work out for a class the same in
// every queue that queues it, decided once before the queues are checked:
// a big fleet's classes are each queued by many tenants, whose queues
// share most of their flavors and whose namespaces most LimitRanges. At
// XL that is 14 k kueue.Admits instead of ~60 k (each builds the pod's
// node affinity selector anew), and a request per class instead of per
// tenant and class.
type Memo struct {
	// admits is kueue.Admits by class, then flavor.
	admits map[string]map[string]verdict
	// requests is Request by class, then limitsKey.
	requests map[string]map[string]corev1.ResourceList
	// limits is the limitsKey of each queue's namespace's LimitRanges.
	limits map[string]string
}

type verdict struct {
	ok     bool
	reason string
}

// meeting is what a class meets in the queues that queue it: flavors, and
// LimitRanges by limitsKey.
type meeting struct {
	flavors map[string]bool
	limits  map[string][]corev1.LimitRange
}

// NewMemo decides every class's pairs, class by class on every CPU.
func NewMemo(m *Model, cl *sched.Cluster, queues []Queue) *Memo {
	memo := &Memo{admits: map[string]map[string]verdict{}, requests: map[string]map[string]corev1.ResourceList{}, limits: map[string]string{}}
	if cl == nil {
		return memo
	}
	keys := make([]string, len(queues))
	par.Each(len(queues), func(i int) { keys[i] = limitsKey(m.LimitRanges[queues[i].Namespace]) })
	meets := map[string]meeting{}
	for i, q := range queues {
		lk := keys[i]
		memo.limits[q.Namespace] = lk
		cq := m.Queues[q.ClusterQueue]
		for _, name := range q.Classes {
			if cl.Class(name) == nil {
				continue
			}
			mt, ok := meets[name]
			if !ok {
				mt = meeting{flavors: map[string]bool{}, limits: map[string][]corev1.LimitRange{}}
				meets[name] = mt
			}
			mt.limits[lk] = m.LimitRanges[q.Namespace]
			for _, rg := range cq.Spec.ResourceGroups {
				for _, f := range rg.Flavors {
					mt.flavors[f.Name] = true
				}
			}
		}
	}
	classes := slices.Sorted(maps.Keys(meets))
	admits := make([]map[string]verdict, len(classes))
	requests := make([]map[string]corev1.ResourceList, len(classes))
	par.Each(len(classes), func(i int) {
		c, mt := cl.Class(classes[i]), meets[classes[i]]
		admit := m.Admitter(c.Pod)
		admits[i] = make(map[string]verdict, len(mt.flavors))
		for f := range mt.flavors {
			ok, reason := admit(f)
			admits[i][f] = verdict{ok, reason}
		}
		requests[i] = make(map[string]corev1.ResourceList, len(mt.limits))
		for lk, limits := range mt.limits {
			requests[i][lk] = m.withClaims(Request(c.AsWritten(), limits), c.Info.Claims)
		}
	})
	for i, name := range classes {
		memo.admits[name], memo.requests[name] = admits[i], requests[i]
	}
	return memo
}

// Admitter is the model's admitter of c's pod, answered from the memo;
// a pair the memo lacks is decided anew.
func (k *Memo) Admitter(m *Model, c *sched.Class) Admitter {
	known := k.admits[c.Name]
	return func(f string) (bool, string) {
		if v, ok := known[f]; ok {
			return v.ok, v.reason
		}
		return kueue.Admits(f, m.Flavors[f], c.Pod)
	}
}

// Request is what Kueue counts of c in the namespace (ClassRequest), from the
// memo where it has it. The list is shared: it must not be changed.
func (k *Memo) Request(m *Model, c *sched.Class, ns string) corev1.ResourceList {
	if lk, ok := k.limits[ns]; ok {
		if req, ok := k.requests[c.Name][lk]; ok {
			return req
		}
	}
	return m.ClassRequest(c, ns)
}

// limitsKey names what LimitRanged reads of a namespace's LimitRanges, in
// the order it reads it: each Container item's default limits and
// requests. Namespaces with the same key leave a pod the same.
func limitsKey(lrs []corev1.LimitRange) string {
	var b strings.Builder
	list := func(rl corev1.ResourceList) {
		names := make([]string, 0, len(rl))
		for name := range rl {
			names = append(names, string(name))
		}
		sort.Strings(names)
		for _, name := range names {
			v := rl[corev1.ResourceName(name)]
			b.WriteString(name + "=" + v.String() + ",")
		}
		b.WriteByte(';')
	}
	for _, lr := range lrs {
		for _, item := range lr.Spec.Limits {
			if item.Type == corev1.LimitTypeContainer {
				list(item.Default)
				list(item.DefaultRequest)
			}
		}
	}
	return b.String()
}
