package render

import (
	"path"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/mlkinds"
)

// A TrainJob's pods come from the training runtime it names: Kubeflow
// Trainer v2.2.1 builds its child JobSet from the runtime's JobSet
// template, and Kueue v0.19.2's trainjob integration builds the
// Workload's PodSets the same way. So each TrainJob class has a
// ClusterTrainingRuntime of its name in cluster/ (one object for the
// platform team to review, which a TrainJob in any namespace can name:
// the Component cannot know the namespace a TrainJob is created in),
// whose trainer job's pod template is the class's, placement and all;
// a TrainJob's runtimePatches reach only its nodeSelector, affinity and
// tolerations, not its priority, spread or scheduler.

// trainingRuntimes writes the TrainJob classes' runtimes, if any.
func (r *renderer) trainingRuntimes() []string {
	var objs []any
	for i := range r.d.Classes {
		if c := &r.d.Classes[i]; c.Spec.Kind == keys.KindTrainJob {
			objs = append(objs, TrainingRuntime(c))
		}
	}
	if len(objs) == 0 {
		return nil
	}
	r.emit(tree.TrainingRuntimesPath, objs...)
	return []string{path.Base(tree.TrainingRuntimesPath)}
}

// TrainingRuntime is a TrainJob class's ClusterTrainingRuntime: the
// torch ML policy (torchrun, whose plugin takes the TrainJob's numNodes)
// and one replicated job per role, the trainer's marked as its ancestor,
// each a Job of the role's pods on the class's pod template.
func TrainingRuntime(c *derive.Class) *mlkinds.ClusterTrainingRuntime {
	rt := &mlkinds.ClusterTrainingRuntime{
		TypeMeta:   metav1.TypeMeta{APIVersion: mlkinds.TrainerAPIVersion, Kind: mlkinds.ClusterTrainingRuntimeKind},
		ObjectMeta: meta(c.Name, "", map[string]string{keys.LabelClass: c.Name}),
	}
	for i, r := range c.Spec.Roles {
		t := *c.Roles[i].Template.DeepCopy()
		t.Spec.RestartPolicy = corev1.RestartPolicyNever
		job := batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: t}}
		if r.Name == mlkinds.TrainerNode {
			job.Labels = map[string]string{mlkinds.LabelTrainJobAncestor: mlkinds.AncestorTrainer}
			rt.Spec.MLPolicy = &mlkinds.MLPolicy{NumNodes: ptr(r.Replicas), Torch: &struct{}{}}
		}
		rt.Spec.Template.Spec.ReplicatedJobs = append(rt.Spec.Template.Spec.ReplicatedJobs, mlkinds.ReplicatedJob{Name: r.Name, Replicas: 1, Template: job})
	}
	return rt
}

// runtimeRef names the class's ClusterTrainingRuntime.
func runtimeRef(c *derive.Class) mlkinds.RuntimeRef {
	return mlkinds.RuntimeRef{Name: c.Name, APIGroup: ptr(mlkinds.TrainerAPIGroup), Kind: ptr(mlkinds.ClusterTrainingRuntimeKind)}
}

// trainerResources are what the class's trainer node asks for, which the
// TrainJob's resourcesPerNode gives its container "node".
func trainerResources(c *derive.Class) corev1.ResourceRequirements {
	for i, r := range c.Spec.Roles {
		if r.Name == mlkinds.TrainerNode {
			return c.Roles[i].Template.Spec.Containers[0].Resources
		}
	}
	return corev1.ResourceRequirements{}
}

// trainJobExample is the class's ready-to-copy TrainJob: its runtime, its
// nodes and their resources.
func trainJobExample(c *derive.Class, tm metav1.TypeMeta, meta metav1.ObjectMeta) *mlkinds.TrainJob {
	j := &mlkinds.TrainJob{TypeMeta: tm, ObjectMeta: meta, Spec: mlkinds.TrainJobSpec{RuntimeRef: runtimeRef(c)}}
	res := trainerResources(c)
	j.Spec.Trainer = &mlkinds.Trainer{NumNodes: ptr(c.Spec.PrimaryRole().Replicas), ResourcesPerNode: &res}
	if c.WorkloadLabels != nil {
		j.Spec.Suspend = ptr(true) // Kueue unsuspends it on admission
	}
	return j
}

// trainJobPatch is the class's JSON patch of a user's TrainJob: the
// class's runtime, its trainer's resources per node (over the user's,
// which would replace the runtime's), and no runtimePatches, which could
// carry a nodeSelector, affinity or tolerations the checker did not
// place (Kueue writes its own on admission). The user's TrainJob must
// have a trainer (its image, command, numNodes): one without fails the
// build rather than running on the runtime's placeholder image.
func trainJobPatch(c *derive.Class) []map[string]any {
	return []map[string]any{
		op("add", "/spec/runtimeRef", runtimeRef(c)),
		op("add", "/spec/runtimePatches", nil),
		op("add", "/spec/trainer/resourcesPerNode", trainerResources(c)),
	}
}
