package compiler_test

import (
	"maps"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/mlkinds"
	"github.com/gpufleet/gpufleet/internal/crdtest"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

// kindsFleet has a class of every ML kind (issue 52).
const kindsFleet = "testdata/kinds"

// mlCRDs loads the CRD of every ML kind from its pinned module, and the
// ClusterTrainingRuntime's.
func mlCRDs(t *testing.T) []*crdtest.Validator {
	t.Helper()
	var vs []*crdtest.Validator
	for _, f := range upstream.MLKindCRDs {
		v, err := crdtest.Load(f.Module, f.Path)
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	return vs
}

// crdErrors validates one document against whichever CRD knows its kind.
func crdErrors(t *testing.T, vs []*crdtest.Validator, doc []byte) []string {
	t.Helper()
	var apiVersion, kind string
	for _, line := range strings.Split(string(doc), "\n") {
		if v, ok := strings.CutPrefix(line, "apiVersion: "); ok {
			apiVersion = v
		}
		if v, ok := strings.CutPrefix(line, "kind: "); ok {
			kind = v
		}
	}
	for _, v := range vs {
		if !v.Knows(apiVersion, kind) {
			continue
		}
		errs, err := v.Validate(doc)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range errs {
			out = append(out, e.Error())
		}
		return out
	}
	return []string{"no CRD for " + apiVersion + " " + kind}
}

// mlExamples are the examples of the classes with roles, by class.
func mlExamples(t *testing.T, res *compiler.Result) map[string][]byte {
	out := map[string][]byte{}
	for _, c := range res.Fleet.Classes {
		if c.Spec.HasRoles() {
			out[c.Name] = tree.Docs(res.Tree[tree.ClassExample(c.Name)])[0]
		}
	}
	return out
}

// TestMLKindsCRDs validates each ML class's example against its kind's
// CRD (schema, unknown fields, CEL rules), pinned from the kind's module:
// jobset v0.12.0, lws v0.9.0, kuberay ray-operator v1.6.2,
// training-operator v1.9.3, Kubeflow Trainer v2.2.1 (and each TrainJob
// class's ClusterTrainingRuntime against Trainer's CRD).
func TestMLKindsCRDs(t *testing.T) {
	vs := mlCRDs(t)
	kinds := map[string]bool{}
	for _, dir := range append(exampleFleets(t), kindsFleet) {
		res := compile(t, dir)
		for name, doc := range mlExamples(t, res) {
			kinds[res.Fleet.Class(name).Spec.Kind] = true
			if errs := crdErrors(t, vs, doc); len(errs) > 0 {
				t.Errorf("%s: class %s: %s", dir, name, strings.Join(errs, "; "))
			}
		}
		for _, doc := range tree.Docs(res.Tree[tree.TrainingRuntimesPath]) {
			kinds[mlkinds.ClusterTrainingRuntimeKind] = true
			if errs := crdErrors(t, vs, doc); len(errs) > 0 {
				t.Errorf("%s: %s: %s", dir, tree.TrainingRuntimesPath, strings.Join(errs, "; "))
			}
		}
	}
	if want := 7; len(kinds) < want {
		t.Errorf("validated the kinds %v, want %d", slices.Sorted(maps.Keys(kinds)), want)
	}
	// The validator can fail: examples with a field their CRD lacks, a
	// worker group without its name.
	res := compile(t, kindsFleet)
	ex := mlExamples(t, res)
	for name, bug := range map[string][2]string{
		"js": {"replicatedJobs:", "replicatedJob:"},
		"rc": {"groupName: gpu", "name: gpu"},
		"pt": {"pytorchReplicaSpecs:", "pytorchReplicas:"},
		"tj": {"runtimeRef:", "runtime:"},
	} {
		doc := strings.Replace(string(ex[name]), bug[0], bug[1], 1)
		if errs := crdErrors(t, vs, []byte(doc)); len(errs) == 0 {
			t.Errorf("class %s with %q for %q: its CRD accepted it", name, bug[1], bug[0])
		}
	}
	rt := strings.Replace(string(tree.Docs(res.Tree[tree.TrainingRuntimesPath])[0]), "mlPolicy:", "mlPolicies:", 1)
	if errs := crdErrors(t, vs, []byte(rt)); len(errs) == 0 {
		t.Errorf("a ClusterTrainingRuntime with mlPolicies: its CRD accepted it")
	}
}

// roledObject decodes an ML kind's workload into its wire type.
func roledObject(t *testing.T, doc []byte) (any, []mlkinds.Role) {
	t.Helper()
	var meta struct{ Kind string }
	if err := yaml.Unmarshal(doc, &meta); err != nil {
		t.Fatal(err)
	}
	var obj any
	var roles func() []mlkinds.Role
	switch meta.Kind {
	case keys.KindJobSet:
		o := &mlkinds.JobSet{}
		obj, roles = o, o.Roles
	case keys.KindLeaderWorkerSet:
		o := &mlkinds.LeaderWorkerSet{}
		obj, roles = o, o.Roles
	case keys.KindRayCluster:
		o := &mlkinds.RayCluster{}
		obj, roles = o, o.Spec.Roles
	case keys.KindRayJob:
		o := &mlkinds.RayJob{}
		obj, roles = o, func() []mlkinds.Role { return o.Spec.RayClusterSpec.Roles() }
	case keys.KindPyTorchJob:
		o := &mlkinds.PyTorchJob{}
		obj, roles = o, o.Roles
	default:
		t.Fatalf("kind %q", meta.Kind)
	}
	if err := yaml.UnmarshalStrict(doc, obj); err != nil {
		t.Fatal(err)
	}
	return obj, roles()
}

// TestMLKindsComponent applies each ML class's Component to a user's
// workload of its kind (their own image and labels, a stale toleration
// and nodeSelector, no resources) and requires every role's pod template
// to come out as the class's example has it, but for the user's image and
// labels; and a workload whose roles are not in the class's order fails
// the build (the patch's test ops) rather than being patched elsewhere.
func TestMLKindsComponent(t *testing.T) {
	res := compile(t, kindsFleet)
	var patched int
	for name, doc := range mlExamples(t, res) {
		if res.Fleet.Class(name).Spec.Kind == keys.KindTrainJob {
			continue // its pod templates are its runtime's (TestTrainJobComponent)
		}
		obj, roles := roledObject(t, doc)
		want := make([]corev1.PodTemplateSpec, len(roles))
		for i, r := range roles {
			want[i] = *r.Template.DeepCopy()
			r.Template.Labels["team"] = "blue"
			r.Template.Spec = corev1.PodSpec{
				NodeSelector: map[string]string{"stale": "x"},
				Tolerations:  []corev1.Toleration{{Key: "stale", Operator: corev1.TolerationOpExists}},
				Containers:   []corev1.Container{{Name: want[i].Spec.Containers[0].Name, Image: "user/app:1"}},
			}
			want[i].Labels["team"] = "blue"
			want[i].Spec.Containers[0].Image = "user/app:1"
		}
		user, err := yaml.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		out := kustomize(t, res, map[string]string{
			"user/kustomization.yaml": "resources: [workload.yaml]\ncomponents: [../" + path.Join(tree.ClassesDir, name) + "]\n",
			"user/workload.yaml":      string(user),
		}, "user")
		got, err := out.Resources()[0].AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		_, gotRoles := roledObject(t, got)
		for i, r := range gotRoles {
			// The class's restartPolicy is the example's, not the patch's.
			r.Template.Spec.RestartPolicy = want[i].Spec.RestartPolicy
			if diff := cmp.Diff(want[i], *r.Template); diff != "" {
				t.Errorf("class %s: role %s (-example +patched):\n%s", name, r.Name, diff)
			}
			patched++
		}
	}
	if patched < 10 {
		t.Errorf("patched %d roles, want every role of the 5 kinds", patched)
	}
	// A JobSet whose replicated jobs are in another order than the class's
	// roles: the test op fails the build.
	ex := mlExamples(t, res)["js"]
	swapped := strings.NewReplacer("name: driver", "name: trainer", "name: trainer", "name: driver").Replace(string(ex))
	fs := filesys.MakeFsInMemory()
	for p, b := range res.Tree {
		_ = fs.WriteFile(path.Join("/tree", p), b)
	}
	_ = fs.WriteFile("/tree/user/kustomization.yaml", []byte("resources: [workload.yaml]\ncomponents: [../classes/js]\n"))
	_ = fs.WriteFile("/tree/user/workload.yaml", []byte(swapped))
	if _, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, "/tree/user"); err == nil || !strings.Contains(err.Error(), "test") {
		t.Errorf("a JobSet with its roles swapped: got %v, want the patch's test op to fail", err)
	}
}
