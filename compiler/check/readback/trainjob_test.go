package readback_test

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check/readback"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/internal/testrender"
)

// TestTrainJobRow: a TrainJob class's row is its runtime's trainer job,
// read from the tree's ClusterTrainingRuntime: one pod set "node" of the
// example's numNodes pods, each the runtime's pod template; and a
// TrainJob whose runtime the tree lacks, or names a runtime of another
// kind, is refused.
func TestTrainJobRow(t *testing.T) {
	f := testrender.Render(t, "../../testdata/kinds")
	row := func(tr tree.Tree) (*sched.Class, error) {
		c, err := readback.FromTree(tree.Bytes(tr), nil, nil)
		if err != nil {
			return nil, err
		}
		for i := range c.Classes {
			if c.Classes[i].Name == "tj" {
				return &c.Classes[i], nil
			}
		}
		t.Fatal("no row tj")
		return nil, nil
	}
	c, err := row(f.Tree)
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind != keys.KindTrainJob || c.Pods != 2 || len(c.PodSets) != 1 || c.PodSets[0] != (sched.PodSet{Name: "node", Row: "tj", Pods: 2}) {
		t.Errorf("row %s of %d pods, pod sets %+v; want a TrainJob's one pod set node of 2", c.Kind, c.Pods, c.PodSets)
	}
	main := c.Pod.Spec.Containers[0]
	if gpu := main.Resources.Limits["nvidia.com/gpu"]; main.Name != "node" || gpu.String() != "4" || c.Pod.Spec.PriorityClassName != "train" || len(c.Pod.Spec.Tolerations) == 0 {
		t.Errorf("pod %+v: want the runtime's, container node with 4 GPUs, priority train, tolerations", c.Pod.Spec)
	}
	edit := func(p, old, new string) tree.Tree {
		tr := tree.Tree{}
		for k, v := range f.Tree {
			tr[k] = v
		}
		if !strings.Contains(string(tr[p]), old) {
			t.Fatalf("%s has no %q", p, old)
		}
		tr[p] = []byte(strings.Replace(string(tr[p]), old, new, 1))
		return tr
	}
	// The example's numNodes, not the runtime's, as Trainer's torch plugin.
	if c, err := row(edit(tree.ClassExample("tj"), "numNodes: 2", "numNodes: 3")); err != nil || c.PodSets[0].Pods != 3 || c.Pods != 3 {
		t.Errorf("numNodes 3: %v, %+v", err, c)
	}
	for _, tc := range []struct{ p, old, new, want string }{
		{tree.TrainingRuntimesPath, "name: tj", "name: other", `TrainJob names the ClusterTrainingRuntime "tj", which cluster/trainingruntimes.yaml lacks`},
		{tree.ClassExample("tj"), "kind: ClusterTrainingRuntime", "kind: TrainingRuntime", "TrainJob names a TrainingRuntime"},
	} {
		if _, err := row(edit(tc.p, tc.old, tc.new)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s with %q: got %v, want %q", tc.p, tc.new, err, tc.want)
		}
	}
}
