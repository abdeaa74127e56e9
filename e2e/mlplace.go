package e2e

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// mlUnqueued are the fleet's classes of a kind whose controller runs
// (mlPodsMade) that no tenant queues: nothing admits them, their pods are
// placed by kube-scheduler as they come (mlPlace).
func (fr *fleetRun) mlUnqueued() []*sched.Class {
	queued := map[string]bool{}
	for _, q := range compiler.KueueIntent(fr.res.Fleet) {
		for _, c := range q.Classes {
			queued[c] = true
		}
	}
	var out []*sched.Class
	for i := range fr.cl.Classes {
		c := &fr.cl.Classes[i]
		if c.Of == "" && mlPodsMade(c.Kind) && !queued[c.Name] {
			out = append(out, c)
		}
	}
	return out
}

// mlRoleRow is the checker's row of a pod of the class's kind: the row of
// its role ("class/role"), or the class's own for the role that has none.
func (fr *fleetRun) mlRoleRow(c *sched.Class, p *corev1.Pod) string {
	role := p.Labels[jobSetReplicatedJob]
	if c.Kind == keys.KindLeaderWorkerSet {
		role = "worker"
		if p.Labels[lwsWorkerIndexLabel] == lwsLeaderWorkerIndex {
			role = "leader"
		}
	}
	if row := c.Name + "/" + role; fr.res.Report.Row(row) != nil {
		return row
	}
	return c.Name
}

// mlPlace creates an unqueued class's example (a LeaderWorkerSet's one
// group) in its tenant's namespace, on every pool at max size, and lets
// its controller make the pods: each must bind only to a pool the
// checker's row of its role lands on, and where the checker finds none of
// the class's rows refused, every pod the kind makes (a group: its leader
// and workers) must be bound. The deliberate bug of a group counted
// without its leader must disagree with the pods.
func (fr *fleetRun) mlPlace(dyn dynamic.Interface, c *sched.Class) {
	ns, tenant := namespaceOf(fr.res, c.Name), tenantOf(fr.res, c.Name)
	fr.ensureNodes(fr.nodesFor(c.Name, func(*infraPool) bool { return false }))
	s := &submission{kind: c.Kind, ns: ns, name: strings.TrimSuffix(c.Name[:min(len(c.Name), 40)], "-") + "-e2e", decisions: map[string]kueueDecision{}}
	if _, err := fr.create(ns, c.Name, s.name, nil); err != nil {
		fr.fail("class %s: %v", c.Name, err)
		return
	}
	defer fr.clearML(dyn, s)
	rows, refused, want := map[string]bool{}, false, 0
	for i := range fr.cl.Classes {
		if r := &fr.cl.Classes[i]; r.Name == c.Name || r.Of == c.Name {
			rows[r.Name] = true
			e := expect(fr.res.Report, r.Name, tenant, func(pool string) []string { return fr.cellReasons(r, pool) })
			refused = refused || e.refused || e.quota
		}
	}
	sel := mlSelector(c.Kind, s.name)
	pods := map[string]*corev1.Pod{}
	judge := func(o outcome, want int) []string {
		var bad []string
		for _, name := range slices.Sorted(maps.Keys(o.bound)) {
			p := pods[name]
			if p == nil {
				return []string{"pod " + name + " went"}
			}
			row, node := fr.mlRoleRow(c, p), o.bound[name]
			if cell := fr.res.Report.Cell(row, fr.nodes.poolOf[node]); cell == nil || !cell.Fits {
				bad = append(bad, fmt.Sprintf("pod %s (row %s) bound to %s, of pool %s, where the checker says it cannot land", name, row, node, fr.nodes.poolOf[node]))
			}
		}
		if !refused && (o.created != want || len(o.bound) != want) {
			bad = append(bad, fmt.Sprintf("the checker places every pod of the %s, its controller made %d of %d and kube-scheduler bound %d (%s)", c.Kind, o.created, want, len(o.bound), firstMessage(o)))
		}
		return bad
	}
	want = fr.mlGroupPods(c)
	list := func() {
		l, err := fr.cp.Client.CoreV1().Pods(ns).List(fr.ctx, metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			fr.t.Fatal(err)
		}
		clear(pods)
		for i := range l.Items {
			pods[l.Items[i].Name] = &l.Items[i]
		}
	}
	owners := func() (map[types.UID]bool, error) { return fr.mlOwners(c.Kind, ns, sel) }
	o, err := settle(fr.ctx, fr.cp, ns, sel, want, len(fr.nodes.nodes), failedCreates(fr.ctx, fr.cp, ns, owners), func(o outcome) bool { list(); return len(judge(o, want)) == 0 })
	if err != nil {
		fr.t.Fatal(err)
	}
	list()
	fr.st.UnitPods[c.Kind] += o.created
	fr.st.Placed += len(o.bound)
	fr.st.Refused += len(o.pending)
	fr.t.Logf("class %s (%s %s in %s, not queued; rows %v): the %s controller's pods: %s", c.Name, c.Kind, s.name, ns, slices.Sorted(maps.Keys(rows)), c.Kind, o)
	if bad := judge(o, want); len(bad) > 0 {
		fr.fail("class %s: the pods of its %s disagree with the checker:\n  %s", c.Name, c.Kind, strings.Join(bad, "\n  "))
		fr.diagnose(ns, s.name)
		return
	}
	if c.Kind == keys.KindLeaderWorkerSet && !refused {
		fr.st.MLPodsCompared++
		if len(judge(o, want-1)) > 0 {
			fr.st.MLPodsCaught++
		}
	}
}

// mlGroupPods is how many pods the kind's controller makes of the class's
// example as mlPlace creates it: a LeaderWorkerSet's one group (its size),
// a JobSet's every replicated job's (the checker's rows' pods).
func (fr *fleetRun) mlGroupPods(c *sched.Class) int {
	n := 0
	for i := range fr.cl.Classes {
		if r := &fr.cl.Classes[i]; r.Name == c.Name || r.Of == c.Name {
			n += int(r.Pods)
		}
	}
	if c.Kind == keys.KindLeaderWorkerSet {
		if r := fr.lwsReplicas(c.Name); r > 0 {
			n /= r
		}
	}
	return n
}

// lwsReplicas is the LeaderWorkerSet class's groups, as its spec says.
func (fr *fleetRun) lwsReplicas(class string) int {
	return int(fr.res.Fleet.Class(class).Spec.Replicas)
}
