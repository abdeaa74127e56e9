package render

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/wire/mlkinds"
)

// roleKinds are the API groups and versions of the kinds with roles.
var roleKinds = map[string]struct{ Group, Version string }{
	keys.KindJobSet:          {"jobset.x-k8s.io", "v1alpha2"},
	keys.KindLeaderWorkerSet: {"leaderworkerset.x-k8s.io", "v1"},
	keys.KindRayJob:          {"ray.io", "v1"},
	keys.KindRayCluster:      {"ray.io", "v1"},
	keys.KindPyTorchJob:      {"kubeflow.org", "v1"},
	keys.KindTrainJob:        {mlkinds.TrainerAPIGroup, "v1alpha1"},
}

// templatePaths are the JSON pointers of each role's pod template in the
// class's kind, with a test op that the template there is that role's
// (a JobSet's replicated job and a Ray worker group are found by index).
func templatePaths(c *derive.Class) (paths []string, tests []map[string]any) {
	for i, r := range c.Spec.Roles {
		switch c.Spec.Kind {
		case keys.KindJobSet:
			at := "/spec/replicatedJobs/" + strconv.Itoa(i)
			tests = append(tests, op("test", at+"/name", r.Name))
			paths = append(paths, at+"/template/spec/template")
		case keys.KindLeaderWorkerSet:
			paths = append(paths, "/spec/leaderWorkerTemplate/"+r.Name+"Template")
		case keys.KindRayJob, keys.KindRayCluster:
			base := "/spec"
			if c.Spec.Kind == keys.KindRayJob {
				base = "/spec/rayClusterSpec"
			}
			if i == 0 {
				paths = append(paths, base+"/headGroupSpec/template")
				continue
			}
			at := base + "/workerGroupSpecs/" + strconv.Itoa(i-1)
			tests = append(tests, op("test", at+"/groupName", r.Name))
			paths = append(paths, at+"/template")
		case keys.KindPyTorchJob:
			paths = append(paths, "/spec/pytorchReplicaSpecs/"+mlkinds.PyTorchReplicaType(r.Name)+"/template")
		}
	}
	return paths, tests
}

func op(kind, path string, value any) map[string]any {
	return map[string]any{"op": kind, "path": path, "value": value}
}

// escape is a JSON pointer's token for a key (RFC 6901).
func escape(key string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}

// rolePatch is the class's Component patch for its kind: a JSON 6902
// patch, since kustomize knows no merge keys for these kinds' lists (a
// strategic merge would replace a Ray cluster's worker groups whole). Each
// role's pod template takes the class's policy for that role: its
// labels and annotations key by key, each pod spec field the class sets
// (those it clears set null, as the strategic merge patch does, and the
// nodeSelector, which replaces the workload's whole), and the
// class's container's resources, after a test op that the template's
// first container is the class's. A workload that is not shaped as the
// class's example fails the build rather than being patched elsewhere.
func rolePatch(c *derive.Class) []map[string]any {
	paths, ops := templatePaths(c)
	for _, k := range sortedKeys(c.WorkloadLabels) {
		ops = append(ops, op("add", "/metadata/labels/"+escape(k), c.WorkloadLabels[k]))
	}
	switch c.Spec.Kind {
	case keys.KindJobSet, keys.KindRayJob, keys.KindRayCluster, keys.KindTrainJob:
		if c.WorkloadLabels != nil {
			ops = append(ops, op("add", "/spec/suspend", true)) // Kueue unsuspends it on admission
		}
	}
	if c.Spec.Kind == keys.KindTrainJob {
		// Its pod templates are its runtime's (TrainingRuntime).
		return append(ops, trainJobPatch(c)...)
	}
	for i, r := range c.Roles {
		spec := templateSpec(&r.Template)
		if _, ok := spec["nodeSelector"]; !ok {
			// A whole map replaces the workload's (a JSON patch cannot
			// merge it): so does none, and the pods select exactly the
			// nodes the checker placed them on.
			spec["nodeSelector"] = nil
		}
		at := paths[i]
		md := r.Template.ObjectMeta
		for _, k := range sortedKeys(md.Labels) {
			ops = append(ops, op("add", at+"/metadata/labels/"+escape(k), md.Labels[k]))
		}
		for _, k := range sortedKeys(md.Annotations) {
			ops = append(ops, op("add", at+"/metadata/annotations/"+escape(k), md.Annotations[k]))
		}
		for _, f := range sortedKeys(spec) {
			if f == "containers" {
				continue
			}
			ops = append(ops, op("add", at+"/spec/"+f, spec[f]))
		}
		main := r.Template.Spec.Containers[0]
		ops = append(ops, op("test", at+"/spec/containers/0/name", main.Name))
		ops = append(ops, op("add", at+"/spec/containers/0/resources", main.Resources))
	}
	return ops
}

// roleExample is the class's ready-to-copy workload of its kind.
func roleExample(c *derive.Class, meta metav1.ObjectMeta) (any, error) {
	g, ok := roleKinds[c.Spec.Kind]
	if !ok {
		return nil, fmt.Errorf("class %s: unsupported kind %q", c.Name, c.Spec.Kind)
	}
	tm := metav1.TypeMeta{APIVersion: g.Group + "/" + g.Version, Kind: c.Spec.Kind}
	queued := c.WorkloadLabels != nil
	tpl := func(i int) corev1.PodTemplateSpec { return *c.Roles[i].Template.DeepCopy() }
	switch c.Spec.Kind {
	case keys.KindJobSet:
		js := &mlkinds.JobSet{TypeMeta: tm, ObjectMeta: meta}
		if queued {
			js.Spec.Suspend = ptr(true)
		}
		for i, r := range c.Spec.Roles {
			pods := max(r.Parallelism, 1)
			t := tpl(i)
			t.Spec.RestartPolicy = corev1.RestartPolicyNever
			js.Spec.ReplicatedJobs = append(js.Spec.ReplicatedJobs, mlkinds.ReplicatedJob{Name: r.Name, Replicas: r.Replicas,
				Template: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Parallelism: ptr(pods), Completions: ptr(pods), Template: t}}})
		}
		return js, nil
	case keys.KindLeaderWorkerSet:
		l := &mlkinds.LeaderWorkerSet{TypeMeta: tm, ObjectMeta: meta}
		l.Spec.Replicas = ptr(c.Spec.Replicas)
		leader, worker := tpl(0), tpl(1)
		l.Spec.LeaderWorkerTemplate = mlkinds.LeaderWorkerTemplate{LeaderTemplate: &leader, WorkerTemplate: worker, Size: ptr(1 + c.Spec.Roles[1].Replicas)}
		return l, nil
	case keys.KindRayJob, keys.KindRayCluster:
		rc := &mlkinds.RayClusterSpec{HeadGroupSpec: mlkinds.HeadGroupSpec{RayStartParams: map[string]string{}, Template: tpl(0)}}
		for i, r := range c.Spec.Roles[1:] {
			rc.WorkerGroupSpecs = append(rc.WorkerGroupSpecs, mlkinds.WorkerGroupSpec{GroupName: r.Name,
				Replicas: ptr(r.Replicas), MinReplicas: ptr(r.Replicas), MaxReplicas: ptr(r.Replicas), RayStartParams: map[string]string{}, Template: tpl(i + 1)})
		}
		if c.Spec.Kind == keys.KindRayCluster {
			if queued {
				rc.Suspend = ptr(true)
			}
			return &mlkinds.RayCluster{TypeMeta: tm, ObjectMeta: meta, Spec: *rc}, nil
		}
		return &mlkinds.RayJob{TypeMeta: tm, ObjectMeta: meta, Spec: mlkinds.RayJobSpec{
			Entrypoint: "python main.py", SubmissionMode: mlkinds.RayHTTPMode, ShutdownAfterJobFinishes: true, Suspend: queued, RayClusterSpec: rc}}, nil
	case keys.KindPyTorchJob:
		p := &mlkinds.PyTorchJob{TypeMeta: tm, ObjectMeta: meta, Spec: mlkinds.PyTorchJobSpec{PyTorchReplicaSpecs: map[string]*mlkinds.ReplicaSpec{}}}
		if queued {
			p.Spec.RunPolicy.Suspend = ptr(true)
		}
		for i, r := range c.Spec.Roles {
			p.Spec.PyTorchReplicaSpecs[mlkinds.PyTorchReplicaType(r.Name)] = &mlkinds.ReplicaSpec{Replicas: ptr(r.Replicas), RestartPolicy: "OnFailure", Template: tpl(i)}
		}
		return p, nil
	case keys.KindTrainJob:
		return trainJobExample(c, tm, meta), nil
	}
	return nil, fmt.Errorf("class %s: unsupported kind %q", c.Name, c.Spec.Kind)
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

func ptr[T any](v T) *T { return &v }
