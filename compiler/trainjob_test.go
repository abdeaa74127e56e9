package compiler_test

import (
	"path"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/mlkinds"
)

// userTrainJob is a user's TrainJob of class tj: their own runtime, image,
// nodes and resources, and a runtime patch that would take its nodes to
// other nodes.
const userTrainJob = `apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: mine
  labels: {gpufleet.dev/class: tj, team: blue}
spec:
  runtimeRef: {name: torch-distributed}
  runtimePatches:
  - manager: me
    trainingRuntimeSpec:
      template:
        spec:
          replicatedJobs:
          - name: node
            template: {spec: {template: {spec: {tolerations: [{key: stale, operator: Exists}]}}}}
  trainer:
    image: user/train:1
    numNodes: 3
    resourcesPerNode: {limits: {nvidia.com/gpu: "1"}}
`

// TestTrainJobComponent applies the TrainJob class's Component to a
// user's TrainJob: it comes out naming the class's ClusterTrainingRuntime,
// its runtime patches gone, its trainer's resources the class's and its
// image and nodes the user's, so the pods Kueue and Trainer build of it on
// the runtime are the example's but for their count. A TrainJob without
// a trainer fails the build.
func TestTrainJobComponent(t *testing.T) {
	res := compile(t, kindsFleet)
	out := kustomize(t, res, map[string]string{
		"user/kustomization.yaml": "resources: [workload.yaml]\ncomponents: [../" + path.Join(tree.ClassesDir, "tj") + "]\n",
		"user/workload.yaml":      userTrainJob,
	}, "user")
	got, err := out.Resources()[0].AsYAML()
	if err != nil {
		t.Fatal(err)
	}
	var j, ex mlkinds.TrainJob
	if err := yaml.Unmarshal(got, &j); err != nil {
		t.Fatal(err)
	}
	if err := tree.Decode(tree.Docs(res.Tree[tree.ClassExample("tj")])[0], &ex); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ex.Spec.RuntimeRef, j.Spec.RuntimeRef); diff != "" {
		t.Errorf("runtimeRef (-example +patched):\n%s", diff)
	}
	if strings.Contains(string(got), "stale") || strings.Contains(string(got), "runtimePatches: [") {
		t.Errorf("the user's runtime patches survived:\n%s", got)
	}
	if !strings.Contains(string(got), "image: user/train:1") || *j.Spec.Trainer.NumNodes != 3 {
		t.Errorf("the user's image or nodes were lost:\n%s", got)
	}
	var rts []mlkinds.ClusterTrainingRuntime
	if err := tree.DecodeAll(res.Typed(), tree.TrainingRuntimesPath, &rts, nil); err != nil || len(rts) != 1 {
		t.Fatalf("runtimes %v: %v", rts, err)
	}
	want, gotRoles := mlkinds.TrainJobRoles(&ex, &rts[0].Spec), mlkinds.TrainJobRoles(&j, &rts[0].Spec)
	if len(gotRoles) != 1 || gotRoles[0].Pods != 3 || want[0].Pods != 2 {
		t.Fatalf("roles %+v, want one of 3 pods (the example's 2)", gotRoles)
	}
	if diff := cmp.Diff(want[0].Template, gotRoles[0].Template); diff != "" {
		t.Errorf("the trainer's pod template (-example +patched):\n%s", diff)
	}
	// Without a trainer, the patch's add under /spec/trainer fails.
	fs := filesys.MakeFsInMemory()
	for p, b := range res.Tree {
		_ = fs.WriteFile(path.Join("/tree", p), b)
	}
	bare := userTrainJob[:strings.Index(userTrainJob, "  runtimePatches:")]
	_ = fs.WriteFile("/tree/user/kustomization.yaml", []byte("resources: [workload.yaml]\ncomponents: [../classes/tj]\n"))
	_ = fs.WriteFile("/tree/user/workload.yaml", []byte(bare))
	if _, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, "/tree/user"); err == nil {
		t.Errorf("a TrainJob without a trainer: the Component patched it")
	}
}
