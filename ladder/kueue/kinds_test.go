package kueuediff

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/mlkinds"
	"github.com/gpufleet/gpufleet/internal/crdtest"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

// diffRoled compares the checker's verdict on one whole workload of an
// ML kind (kueuemodel.AssignPodSets over the class's sched.PodSets, each
// role's row as Kueue counts its pod) with Kueue's: its integration's
// PodSets, names and counts, and its flavor assigner's verdict, flavor
// per PodSet and message. Nil where they agree; else ours and theirs.
func diffRoled(ctx context.Context, t *testing.T, theirs *Kueue, ours *kueuemodel.Model, cl *sched.Cluster, q kueuemodel.Queue, c *sched.Class, w *Workload, raw []byte, opts diffOptions, st *diffStats) []verdict {
	t.Helper()
	var sets []kueuemodel.PodSet
	o := verdict{Flavors: map[string]string{}}
	for _, ps := range c.PodSets {
		row := cl.Class(ps.Row)
		if row == nil {
			t.Fatalf("class %s: no row %s", c.Name, ps.Row)
		}
		count, name := ps.Pods, ps.Name
		if opts.jobSetReplicas && c.Kind == keys.KindJobSet {
			count = replicasOnly(t, raw, ps.Name)
		}
		if opts.trainJobAncestor && c.Kind == keys.KindTrainJob {
			name = mlkinds.AncestorTrainer
		}
		if opts.trainJobReplicas && c.Kind == keys.KindTrainJob {
			count = 1
		}
		o.Flavors["podset "+name] = fmt.Sprint(count)
		sets = append(sets, kueuemodel.PodSet{Name: name, Admits: ours.Admitter(row.Pod), Topo: kueuemodel.TopologyOf(row.Pod),
			Request: ours.ClassRequest(row, q.Namespace), Count: count})
	}
	as := ours.AssignPodSets(q.ClusterQueue, sets)
	o.Admitted = len(as) == len(sets) && as[len(as)-1].Admitted()
	if !o.Admitted {
		o.Message = as[len(as)-1].Message
	}
	for i, a := range as {
		if o.Admitted {
			for r, f := range a.Flavors {
				o.Flavors[sets[i].Name+" "+string(r)] = f
			}
		}
	}
	want := verdict{Flavors: map[string]string{}}
	for _, ps := range w.PodSets {
		want.Flavors["podset "+string(ps.Name)] = fmt.Sprint(ps.Count)
	}
	a, _, err := theirs.assign(ctx, q.ClusterQueue, q.Namespace, w.Name, w.PodSets)
	if err != nil {
		t.Fatalf("class %s: %v", c.Name, err)
	}
	want.Admitted = a.RepresentativeMode().String() == "Fit"
	want.Message = a.Message()
	if want.Admitted {
		for _, ps := range a.PodSets {
			for r, f := range ps.Flavors {
				want.Flavors[string(ps.Name)+" "+string(r)] = string(f.Name)
			}
		}
	}
	if st != nil {
		n := st.roled[c.Kind]
		if n == nil {
			n = &[2]int{}
			st.roled[c.Kind] = n
		}
		n[0]++
		if want.Admitted {
			n[1]++
		}
	}
	if o.Admitted != want.Admitted || o.Message != want.Message || !maps.Equal(o.Flavors, want.Flavors) {
		return []verdict{o, want}
	}
	return nil
}

// replicasOnly is the deliberate bug: a JobSet's PodSet counted as its
// replicated job's replicas, each Job's parallelism forgotten.
func replicasOnly(t *testing.T, raw []byte, podSet string) int32 {
	var js mlkinds.JobSet
	if err := tree.Decode(tree.Docs(raw)[0], &js); err != nil {
		t.Fatal(err)
	}
	for _, rj := range js.Spec.ReplicatedJobs {
		if rj.Name == podSet {
			return rj.Replicas
		}
	}
	t.Fatalf("JobSet %s has no replicated job %s", js.Name, podSet)
	return 0
}

// TestDifferentialKinds judges the checker on a fleet with a queued class
// of each ML kind, and on the same fleet with each tenant's quota cut
// until the whole workloads no longer fit (Kueue refuses a PodSet with
// the earlier ones' requests counted); and proves the comparison fails
// when the checker counts a JobSet's PodSet as its replicas alone, names
// a TrainJob's PodSet after its ancestor label rather than its runtime's
// replicated job, or counts a TrainJob's trainer as one Job's pod.
func TestDifferentialKinds(t *testing.T) {
	ctx := context.Background()
	crds, err := crdtest.Load(upstream.Kueue, upstream.KueueCRDs)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src, err := os.ReadFile("../../compiler/testdata/kinds/fleet.cue")
	if err != nil {
		t.Fatal(err)
	}
	st := newDiffStats()
	var bad []disagreement
	broken := []diffOptions{{jobSetReplicas: true}, {trainJobAncestor: true}, {trainJobReplicas: true}}
	caught := make([]int, len(broken))
	for _, gpus := range []string{"64", "20", "12", "4"} {
		f := filepath.Join(dir, "fleet-"+gpus+".cue")
		spec := strings.Replace(string(src), "quota: {gpu: 64,", "quota: {gpu: "+gpus+",", 1)
		if err := os.WriteFile(f, []byte(spec), 0o644); err != nil {
			t.Fatal(err)
		}
		b, c := diffFleet(ctx, t, crds, fleetCase{"kinds, " + gpus + " GPUs", f}, broken, st)
		bad = append(bad, b...)
		for i := range broken {
			caught[i] += len(c[i])
		}
	}
	var compared, admitted int
	for _, k := range slices.Sorted(maps.Keys(st.roled)) {
		t.Logf("%s: %d whole workloads compared, %d admitted", k, st.roled[k][0], st.roled[k][1])
		compared, admitted = compared+st.roled[k][0], admitted+st.roled[k][1]
	}
	if len(st.roled) != 6 || admitted == 0 || admitted == compared {
		t.Errorf("ML kinds compared %v, %d of %d admitted: want all 6 kinds, some admitted and some not", slices.Sorted(maps.Keys(st.roled)), admitted, compared)
	}
	for _, d := range bad {
		t.Error(d)
	}
	for i, bug := range []string{"counts a JobSet's PodSet as its replicas", "names a TrainJob's PodSet trainer", "counts a TrainJob's trainer as one pod"} {
		if caught[i] == 0 {
			t.Errorf("a checker that %s agreed with Kueue", bug)
		}
		t.Logf("a checker that %s: %d disagreements", bug, caught[i])
	}
}
