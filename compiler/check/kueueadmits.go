package check

import (
	"github.com/gpufleet/gpufleet/compiler/internal/par"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// admitMemo is kueue.Admits of each queued class on each flavor of the
// ClusterQueues that queue it, by class and then flavor name, decided
// before the queues are checked: a class is checked in the queue of every
// tenant that uses it, twice (Assign, Candidates), and those queues share
// most of their flavors. At XL that is 14 k pairs instead of 60 k calls,
// each of which builds the pod's node affinity selector anew.
type admitMemo map[string]map[string]verdict

type verdict struct {
	ok     bool
	reason string
}

// newAdmitMemo decides every pair, class by class on every CPU.
func newAdmitMemo(m *KueueModel, cl *Cluster, queues []QueueIntent) admitMemo {
	if cl == nil {
		return nil
	}
	meets := map[string]map[string]bool{}
	for _, q := range queues {
		cq := m.Queues[q.ClusterQueue]
		for _, name := range q.Classes {
			if cl.Class(name) == nil {
				continue
			}
			fs := meets[name]
			if fs == nil {
				fs = map[string]bool{}
				meets[name] = fs
			}
			for _, rg := range cq.Spec.ResourceGroups {
				for _, f := range rg.Flavors {
					fs[f.Name] = true
				}
			}
		}
	}
	classes := sortedKeys(meets)
	decided := make([]map[string]verdict, len(classes))
	par.Each(len(classes), func(i int) {
		admits := m.admitter(cl.Class(classes[i]).Pod)
		vs := make(map[string]verdict, len(meets[classes[i]]))
		for f := range meets[classes[i]] {
			ok, reason := admits(f)
			vs[f] = verdict{ok, reason}
		}
		decided[i] = vs
	})
	memo := make(admitMemo, len(classes))
	for i, name := range classes {
		memo[name] = decided[i]
	}
	return memo
}

// admitter is the model's admitter of c's pod, answered from the memo;
// a pair the memo lacks is decided anew.
func (a admitMemo) admitter(m *KueueModel, c *Class) admitter {
	known := a[c.Name]
	return func(f string) (bool, string) {
		if v, ok := known[f]; ok {
			return v.ok, v.reason
		}
		return kueue.Admits(f, m.Flavors[f], c.Pod)
	}
}
