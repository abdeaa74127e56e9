package mlkinds

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Kubeflow Trainer v2 (github.com/kubeflow/trainer/v2 v2.2.1,
// pkg/apis/trainer/v1alpha1): a TrainJob names a training runtime
// (runtimeRef), whose JobSet template the trainer's controller fills in
// with the TrainJob's nodes and resources and creates as the TrainJob's
// child JobSet.
const (
	TrainerAPIGroup   = "trainer.kubeflow.org"
	TrainerAPIVersion = TrainerAPIGroup + "/v1alpha1"
	// ClusterTrainingRuntimeKind is the runtime gpufleet writes, one per
	// TrainJob class (trainer.ClusterTrainingRuntimeKind).
	ClusterTrainingRuntimeKind = "ClusterTrainingRuntime"
	// TrainerNode is the trainer's replicated job and its container
	// (constants.Node): the Trainer sets the TrainJob's image and
	// resourcesPerNode on that container only, and Kueue names the
	// replicated job's PodSet after it.
	TrainerNode      = "node"
	TrainerContainer = TrainerNode
	// LabelTrainJobAncestor on a replicated job's template marks the
	// trainer's (constants.LabelTrainJobAncestor, AncestorTrainer): only
	// that job takes numNodes and resourcesPerNode.
	LabelTrainJobAncestor = "trainer.kubeflow.org/trainjob-ancestor-step"
	AncestorTrainer       = "trainer"
)

type TrainJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              TrainJobSpec `json:"spec"`
}

type TrainJobSpec struct {
	RuntimeRef RuntimeRef `json:"runtimeRef"`
	Trainer    *Trainer   `json:"trainer,omitempty"`
	Suspend    *bool      `json:"suspend,omitempty"`
}

type RuntimeRef struct {
	Name     string  `json:"name"`
	APIGroup *string `json:"apiGroup,omitempty"`
	Kind     *string `json:"kind,omitempty"`
}

type Trainer struct {
	NumNodes         *int32                       `json:"numNodes,omitempty"`
	ResourcesPerNode *corev1.ResourceRequirements `json:"resourcesPerNode,omitempty"`
}

type ClusterTrainingRuntime struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              TrainingRuntimeSpec `json:"spec"`
}

type TrainingRuntimeSpec struct {
	MLPolicy *MLPolicy          `json:"mlPolicy,omitempty"`
	Template JobSetTemplateSpec `json:"template"`
}

// MLPolicy is the runtime's ML policy; gpufleet writes the torch one
// (torchrun), whose plugin gives the trainer the TrainJob's numNodes.
type MLPolicy struct {
	NumNodes *int32    `json:"numNodes,omitempty"`
	Torch    *struct{} `json:"torch,omitempty"`
}

type JobSetTemplateSpec struct {
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              JobSetSpec `json:"spec"`
}

// TrainJobRoles are the PodSets Kueue v0.19.2's trainjob integration
// builds of a TrainJob on its runtime (getChildJobSet, then the jobset
// integration's PodSets), as Trainer v2.2.1 builds the child JobSet
// (pkg/runtime/core TrainingRuntime.newRuntimeInfo, the torch plugin's
// EnforceMLPolicy, plugins/jobset Builder.Trainer): each replicated job
// a PodSet of its name; an ancestor's (the trainer's, the initializers')
// is one Job (the builder forces replicas to 1); the trainer's
// has the runtime's numNodes pods, the TrainJob's numNodes where the torch
// policy reads them, its container "node" taking the TrainJob's
// resourcesPerNode (its limits and requests, whole); another job
// replicas × its parallelism.
func TrainJobRoles(j *TrainJob, rt *TrainingRuntimeSpec) []Role {
	var out []Role
	for i := range rt.Template.Spec.ReplicatedJobs {
		rj := &rt.Template.Spec.ReplicatedJobs[i]
		tpl := rj.Template.Spec.Template.DeepCopy()
		pods := deref(rj.Template.Spec.Parallelism, 1)
		ancestor, ok := rj.Template.Labels[LabelTrainJobAncestor]
		if !ok {
			// Only the ancestors' replicas are forced to 1.
			pods *= rj.Replicas
		}
		if ancestor != AncestorTrainer {
			out = append(out, Role{Name: rj.Name, PodSet: rj.Name, Template: tpl, Pods: pods})
			continue
		}
		t := j.Spec.Trainer
		if t == nil {
			t = &Trainer{}
		}
		if pol := rt.MLPolicy; pol != nil {
			pods = deref(pol.NumNodes, 1)
			if t.NumNodes != nil && pol.Torch != nil {
				pods = *t.NumNodes
			}
		}
		if r := t.ResourcesPerNode; r != nil && (r.Limits != nil || r.Requests != nil) {
			for k := range tpl.Spec.Containers {
				if c := &tpl.Spec.Containers[k]; c.Name == TrainerContainer {
					c.Resources = corev1.ResourceRequirements{Limits: r.Limits, Requests: r.Requests}
				}
			}
		}
		out = append(out, Role{Name: rj.Name, PodSet: rj.Name, Template: tpl, Pods: pods})
	}
	return out
}
