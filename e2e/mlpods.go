package e2e

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// The labels the ML kinds' controllers put on what they make: JobSet
// v0.12.0's on its Jobs and their pods (api/jobset/v1alpha2:
// JobSetNameKey, ReplicatedJobNameKey), LeaderWorkerSet v0.9.0's on its
// StatefulSets and their pods (api/leaderworkerset/v1: SetNameLabelKey,
// WorkerIndexLabelKey, 0 for a group's leader).
const (
	jobSetNameLabel        = "jobset.sigs.k8s.io/jobset-name"
	jobSetReplicatedJob    = "jobset.sigs.k8s.io/replicatedjob-name"
	lwsNameLabel           = "leaderworkerset.sigs.k8s.io/name"
	lwsWorkerIndexLabel    = "leaderworkerset.sigs.k8s.io/worker-index"
	lwsLeaderWorkerIndex   = "0"
	mlControllerPodTimeout = 60 * time.Second
)

// mlPodsMade: the kind's pods come from its real controllers here (the
// JobSet's, the LeaderWorkerSet's, and a TrainJob's from Trainer's, which
// makes its JobSet, and the JobSet's), so e2e holds them to the unit; the
// others' (Ray's, Kubeflow's training-operator) do not run, and the
// harness makes their pods (mlPodsEmulated).
func mlPodsMade(kind string) bool {
	return kind == keys.KindJobSet || kind == keys.KindLeaderWorkerSet || kind == keys.KindTrainJob
}

// mlJobSet: the kind's pods are a JobSet's, of the object's name (a
// TrainJob's child JobSet takes its name: Trainer's JobSet plugin, Build).
func mlJobSet(kind string) bool {
	return kind == keys.KindJobSet || kind == keys.KindTrainJob
}

// mlSelector selects what the kind's controller made of the object name:
// the JobSet's Jobs and pods (a TrainJob's JobSet's too), the
// LeaderWorkerSet's StatefulSets and pods.
func mlSelector(kind, name string) string {
	if mlPodsEmulated(kind) {
		return runLabel + "=" + name // the harness's own (mlEmulatePods)
	}
	if kind == keys.KindLeaderWorkerSet {
		return lwsNameLabel + "=" + name
	}
	return jobSetNameLabel + "=" + name
}

// mlPodSet is the unit's pod set a pod of the kind is of: a JobSet's
// replicated job by name (Kueue's jobset integration names each PodSet
// after its replicated job, and its trainjob integration after the
// runtime's); a LeaderWorkerSet group's leader (worker
// index 0, where the group has a leader template: Kueue's leaderworkerset
// integration's PodSets are "leader" then "worker") or its workers; a pod
// the harness made of a role's template (mlEmulatePods) by the role
// label the class's Component gives each role's template.
func mlPodSet(kind string, u *check.Unit, p *corev1.Pod) string {
	if mlPodsEmulated(kind) {
		return p.Labels[keys.LabelRole] // the role's template's, its PodSet's name
	}
	if mlJobSet(kind) {
		return p.Labels[jobSetReplicatedJob]
	}
	if len(u.PodSets) > 1 && p.Labels[lwsWorkerIndexLabel] == lwsLeaderWorkerIndex {
		return u.PodSets[0].Name
	}
	return u.PodSets[len(u.PodSets)-1].Name
}

// mlExpect is what the checker's unit says of each pod set once Kueue
// admitted it: the pool its pods bind in (its flavor's) and how many of
// them kube-scheduler places; pods is how many the controller makes.
type mlExpect struct {
	pool   map[string]string
	placed map[string]int
	pods   int
}

func (fr *fleetRun) mlExpect(u *check.Unit) mlExpect {
	e := mlExpect{pool: map[string]string{}, placed: map[string]int{}}
	for _, ps := range u.PodSets {
		e.pods += int(ps.Pods)
		e.pool[ps.Name] = fr.flavorPool(ps.Flavor)
		if ps.Pinned != nil {
			e.placed[ps.Name] = int(ps.Pinned.Placed)
		}
	}
	return e
}

// mlMutants are the deliberate bugs each run must catch, by name: a
// checker that bound every role on its first role's pool (as for a Job
// of one pod template; only where the roles' pools differ, or it is no
// bug), for a LeaderWorkerSet, one that counted a group without its
// leader, and for a TrainJob, one that read its runtime as a JobSet's
// (one pod per replicated job: the runtime's Job templates have no
// parallelism, Trainer's JobSet plugin gives the trainer's the TrainJob's
// numNodes; only where a pod set has more than one pod).
func mlMutants(kind string, u *check.Unit, e mlExpect) map[string]mlExpect {
	out := map[string]mlExpect{}
	if len(u.PodSets) > 1 {
		m := mlExpect{pool: map[string]string{}, placed: e.placed, pods: e.pods}
		for name := range e.pool {
			m.pool[name] = e.pool[u.PodSets[0].Name]
		}
		if !maps.Equal(m.pool, e.pool) {
			out["every role on the first role's pool"] = m
		}
	}
	if kind == keys.KindLeaderWorkerSet && len(u.PodSets) > 1 {
		m := mlExpect{pool: e.pool, placed: maps.Clone(e.placed), pods: e.pods - int(u.PodSets[0].Pods)}
		delete(m.placed, u.PodSets[0].Name)
		out["a group without its leader"] = m
	}
	if kind == keys.KindTrainJob && e.pods > len(u.PodSets) {
		m := mlExpect{pool: e.pool, placed: map[string]int{}, pods: len(u.PodSets)}
		for name, n := range e.placed {
			m.placed[name] = min(n, 1)
		}
		out["a pod per replicated job, not the TrainJob's numNodes"] = m
	}
	return out
}

// mlJudge lists how the pods contradict e: each pod set's bound pods in
// their flavor's pool, as many as the unit places, and as many pods made
// as the unit has.
func (fr *fleetRun) mlJudge(kind string, u *check.Unit, e mlExpect, pods map[string]*corev1.Pod, o outcome) []string {
	var bad []string
	if o.created != e.pods {
		bad = append(bad, fmt.Sprintf("the %s controller made %d pods, the checker's unit has %d", kind, o.created, e.pods))
	}
	bound := map[string]int{}
	for _, name := range slices.Sorted(maps.Keys(o.bound)) {
		ps := mlPodSet(kind, u, pods[name])
		want, ok := e.pool[ps]
		node := o.bound[name]
		switch pool := fr.nodes.poolOf[node]; {
		case !ok:
			bad = append(bad, fmt.Sprintf("pod %s (pod set %q) bound to %s, of a pod set the checker's unit does not have", name, ps, node))
		case pool != want:
			bad = append(bad, fmt.Sprintf("pod %s (pod set %s) bound to node %s of pool %s, not of its flavor's pool %s", name, ps, node, pool, want))
		}
		bound[ps]++
	}
	for _, ps := range slices.Sorted(maps.Keys(e.placed)) {
		if bound[ps] != e.placed[ps] {
			bad = append(bad, fmt.Sprintf("pod set %s: the checker says kube-scheduler places %d pods, it bound %d (%s)", ps, e.placed[ps], bound[ps], firstMessage(o)))
		}
	}
	return bad
}

// mlPods settles the pods the kind's controller made of the submitted
// object once Kueue admitted it (Kueue ungating them with each pod set's
// node selector) and holds them to the checker's unit, then counts the
// deliberate bugs the same pods expose.
func (fr *fleetRun) mlPods(dyn dynamic.Interface, tenant, class string, s *submission, u *check.Unit) {
	if mlPodsEmulated(s.kind) {
		if err := fr.mlEmulatePods(dyn, s); err != nil {
			fr.fail("tenant %s, class %s: %v", tenant, class, err)
			return
		}
	}
	sel := mlSelector(s.kind, s.name)
	e := fr.mlExpect(u)
	pods := map[string]*corev1.Pod{}
	judge := func(o outcome) []string {
		list, err := fr.cp.Client.CoreV1().Pods(s.ns).List(fr.ctx, metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			return []string{err.Error()}
		}
		clear(pods)
		for i := range list.Items {
			pods[list.Items[i].Name] = &list.Items[i]
		}
		for name := range o.bound {
			if pods[name] == nil {
				return []string{"pod " + name + " went"}
			}
		}
		return fr.mlJudge(s.kind, u, e, pods, o)
	}
	owners := func() (map[types.UID]bool, error) { return fr.mlOwners(s.kind, s.ns, sel) }
	o, err := settle(fr.ctx, fr.cp, s.ns, sel, e.pods, len(fr.nodes.nodes), failedCreates(fr.ctx, fr.cp, s.ns, owners), func(o outcome) bool { return len(judge(o)) == 0 })
	if err != nil {
		fr.t.Fatal(err)
	}
	bad := judge(o)
	fr.st.UnitPods[s.kind] += o.created
	fr.st.UnitBound += len(o.bound)
	fr.st.UnitPending += len(o.pending)
	fr.st.UnitGated += len(o.gated)
	by := "the " + s.kind + " controller"
	if s.kind == keys.KindTrainJob {
		by = "Trainer's controller (its JobSet), the JobSet controller (its Jobs) and the Job controller"
	}
	if mlPodsEmulated(s.kind) {
		by = "the harness from its pod templates as Kueue left them"
	}
	fr.t.Logf("tenant %s, class %s: %s %s's pods, made by %s: %s", tenant, class, s.kind, s.name, by, o)
	if len(o.failedCreate) > 0 {
		bad = append(bad, "the controllers could not create pods: "+o.failedCreate[0])
	}
	if s.kind == keys.KindTrainJob {
		if err := fr.trainJobSet(dyn, s); err != nil {
			bad = append(bad, err.Error())
		}
	}
	if len(bad) > 0 {
		fr.fail("tenant %s, class %s: the pods of the %s Kueue admitted disagree with the checker's unit:\n  %s", tenant, class, s.kind, strings.Join(bad, "\n  "))
		fr.diagnose(s.ns, s.name)
		return
	}
	for _, name := range slices.Sorted(maps.Keys(mlMutants(s.kind, u, e))) {
		m := mlMutants(s.kind, u, e)[name]
		fr.st.MLPodsCompared++
		if len(fr.mlJudge(s.kind, u, m, pods, o)) > 0 {
			fr.st.MLPodsCaught++
		} else {
			fr.t.Logf("tenant %s, class %s: a checker with %s agrees with these pods too", tenant, class, name)
		}
	}
}

// mlOwners are the objects whose FailedCreate events are about the
// pods: the JobSet's Jobs, the LeaderWorkerSet's StatefulSets.
func (fr *fleetRun) mlOwners(kind, ns, sel string) (map[types.UID]bool, error) {
	out := map[types.UID]bool{}
	opts := metav1.ListOptions{LabelSelector: sel}
	if mlPodsEmulated(kind) {
		return out, nil // the harness makes the pods itself
	}
	if kind == keys.KindLeaderWorkerSet {
		l, err := fr.cp.Client.AppsV1().StatefulSets(ns).List(fr.ctx, opts)
		if err != nil {
			return nil, err
		}
		for _, o := range l.Items {
			out[o.UID] = true
		}
		return out, nil
	}
	l, err := fr.cp.Client.BatchV1().Jobs(ns).List(fr.ctx, opts)
	if err != nil {
		return nil, err
	}
	for _, o := range l.Items {
		out[o.UID] = true
	}
	return out, nil
}
