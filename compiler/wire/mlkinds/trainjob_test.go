package mlkinds

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestTrainJobRoles: the PodSets Kueue's trainjob integration builds of a
// TrainJob on its runtime, as Trainer v2.2.1 fills the runtime in (its
// core newRuntimeInfo, the torch plugin, the jobset builder). The Kueue
// rung holds TrainJobRoles to that code itself.
func TestTrainJobRoles(t *testing.T) {
	gpus := func(n string) corev1.ResourceRequirements {
		return corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse(n)}}
	}
	job := func(name string, replicas, parallelism int32, ancestor string) ReplicatedJob {
		rj := ReplicatedJob{Name: name, Replicas: replicas, Template: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{
			Parallelism: &parallelism,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{
				{Name: "sidecar", Resources: gpus("0")}, {Name: TrainerContainer, Resources: gpus("4")}}}},
		}}}
		if ancestor != "" {
			rj.Template.ObjectMeta = metav1.ObjectMeta{Labels: map[string]string{LabelTrainJobAncestor: ancestor}}
		}
		return rj
	}
	n := func(v int32) *int32 { return &v }
	torch := &MLPolicy{NumNodes: n(2), Torch: &struct{}{}}
	for _, tc := range []struct {
		name    string
		policy  *MLPolicy
		trainer *Trainer
		jobs    []ReplicatedJob
		pods    []int32
		gpus    string // the trainer container's GPUs
	}{
		{"the TrainJob's nodes, torch", torch, &Trainer{NumNodes: n(5)}, []ReplicatedJob{job("node", 1, 1, AncestorTrainer)}, []int32{5}, "4"},
		{"the runtime's nodes", torch, nil, []ReplicatedJob{job("node", 1, 1, AncestorTrainer)}, []int32{2}, "4"},
		{"no torch: the runtime's nodes", &MLPolicy{NumNodes: n(3)}, &Trainer{NumNodes: n(5)}, []ReplicatedJob{job("node", 1, 1, AncestorTrainer)}, []int32{3}, "4"},
		{"no policy: the job's parallelism", nil, &Trainer{NumNodes: n(5)}, []ReplicatedJob{job("node", 1, 4, AncestorTrainer)}, []int32{4}, "4"},
		{"resources per node", torch, &Trainer{ResourcesPerNode: &corev1.ResourceRequirements{Limits: gpus("8").Limits}}, []ReplicatedJob{job("node", 1, 1, AncestorTrainer)}, []int32{2}, "8"},
		{"empty resources per node change nothing", torch, &Trainer{ResourcesPerNode: &corev1.ResourceRequirements{}}, []ReplicatedJob{job("node", 1, 1, AncestorTrainer)}, []int32{2}, "4"},
		{"another job: replicas × parallelism", torch, &Trainer{NumNodes: n(5)}, []ReplicatedJob{job("launcher", 2, 3, ""), job("node", 1, 1, AncestorTrainer)}, []int32{6, 5}, "4"},
		{"an initializer: one Job", torch, nil, []ReplicatedJob{job("dataset-initializer", 2, 1, "dataset-initializer"), job("node", 1, 1, AncestorTrainer)}, []int32{1, 2}, "4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := &TrainJob{Spec: TrainJobSpec{Trainer: tc.trainer}}
			rt := &TrainingRuntimeSpec{MLPolicy: tc.policy, Template: JobSetTemplateSpec{Spec: JobSetSpec{ReplicatedJobs: tc.jobs}}}
			roles := TrainJobRoles(j, rt)
			if len(roles) != len(tc.pods) {
				t.Fatalf("%d roles, want %d", len(roles), len(tc.pods))
			}
			for i, r := range roles {
				if r.Name != tc.jobs[i].Name || r.PodSet != tc.jobs[i].Name || r.Pods != tc.pods[i] {
					t.Errorf("role %d: %s (pod set %s) of %d pods, want %s of %d", i, r.Name, r.PodSet, r.Pods, tc.jobs[i].Name, tc.pods[i])
				}
			}
			last := roles[len(roles)-1].Template.Spec.Containers
			if got := last[1].Resources.Limits["nvidia.com/gpu"]; got.String() != tc.gpus {
				t.Errorf("the trainer container's GPUs %s, want %s", got.String(), tc.gpus)
			}
			if got := last[0].Resources.Limits["nvidia.com/gpu"]; got.String() != "0" {
				t.Errorf("another container took resourcesPerNode: %s", got.String())
			}
			if tc.jobs[len(tc.jobs)-1].Template.Spec.Template.Spec.Containers[1].Resources.Limits["nvidia.com/gpu"] != resource.MustParse("4") {
				t.Error("the runtime's template was changed")
			}
		})
	}
}
