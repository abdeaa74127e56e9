// Package mlkinds holds the parts gpufleet writes and reads of the
// workload kinds ML teams run, whose Go types k8s.io/api lacks: JobSet
// (sigs.k8s.io/jobset v0.12.0, api/jobset/v1alpha2), LeaderWorkerSet
// (sigs.k8s.io/lws v0.9.0, api/leaderworkerset/v1), RayCluster and RayJob
// (github.com/ray-project/kuberay/ray-operator v1.6.2, apis/ray/v1),
// PyTorchJob (github.com/kubeflow/training-operator v1.9.3,
// pkg/apis/kubeflow.org/v1), TrainJob and ClusterTrainingRuntime
// (github.com/kubeflow/trainer/v2 v2.2.1, pkg/apis/trainer/v1alpha1,
// trainjob.go). The binary links none of those modules (they
// pull in controller-runtime), so these are subsets with the upstream JSON
// names: tests validate the class examples against each kind's CRD from
// its module, and ladder/kueue decodes them into the upstream types.
package mlkinds

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// API versions, as each project's CRD serves and stores them.
const (
	JobSetAPIVersion          = "jobset.x-k8s.io/v1alpha2"
	LeaderWorkerSetAPIVersion = "leaderworkerset.x-k8s.io/v1"
	RayAPIVersion             = "ray.io/v1"
	KubeflowAPIVersion        = "kubeflow.org/v1"
)

// PyTorchJob replica types (training-operator's PyTorchJobReplicaTypeMaster
// and PyTorchJobReplicaTypeWorker), and the container its webhook
// requires in each (PyTorchJobDefaultContainerName).
const (
	PyTorchMaster    = "Master"
	PyTorchWorker    = "Worker"
	PyTorchContainer = "pytorch"
)

// RayHTTPMode submits a RayJob's entrypoint through the head's dashboard:
// no submitter Job, so Kueue's PodSets are the cluster's own (rayjob's
// PodSets adds a submitter PodSet only for K8sJobMode).
const RayHTTPMode = "HTTPMode"

type JobSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              JobSetSpec `json:"spec"`
}

type JobSetSpec struct {
	ReplicatedJobs []ReplicatedJob `json:"replicatedJobs"`
	Suspend        *bool           `json:"suspend,omitempty"`
}

type ReplicatedJob struct {
	Name     string                  `json:"name"`
	Replicas int32                   `json:"replicas"`
	Template batchv1.JobTemplateSpec `json:"template"`
}

type LeaderWorkerSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              LeaderWorkerSetSpec `json:"spec"`
}

type LeaderWorkerSetSpec struct {
	// Replicas are the groups.
	Replicas             *int32               `json:"replicas,omitempty"`
	LeaderWorkerTemplate LeaderWorkerTemplate `json:"leaderWorkerTemplate"`
}

type LeaderWorkerTemplate struct {
	LeaderTemplate *corev1.PodTemplateSpec `json:"leaderTemplate,omitempty"`
	WorkerTemplate corev1.PodTemplateSpec  `json:"workerTemplate"`
	// Size is a group's pods, its leader among them.
	Size *int32 `json:"size,omitempty"`
}

type RayCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              RayClusterSpec `json:"spec"`
}

type RayClusterSpec struct {
	Suspend          *bool             `json:"suspend,omitempty"`
	HeadGroupSpec    HeadGroupSpec     `json:"headGroupSpec"`
	WorkerGroupSpecs []WorkerGroupSpec `json:"workerGroupSpecs,omitempty"`
}

type HeadGroupSpec struct {
	RayStartParams map[string]string      `json:"rayStartParams"`
	Template       corev1.PodTemplateSpec `json:"template"`
}

type WorkerGroupSpec struct {
	GroupName      string                 `json:"groupName"`
	Replicas       *int32                 `json:"replicas,omitempty"`
	MinReplicas    *int32                 `json:"minReplicas,omitempty"`
	MaxReplicas    *int32                 `json:"maxReplicas,omitempty"`
	RayStartParams map[string]string      `json:"rayStartParams"`
	Template       corev1.PodTemplateSpec `json:"template"`
}

type RayJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              RayJobSpec `json:"spec"`
}

type RayJobSpec struct {
	Entrypoint               string          `json:"entrypoint,omitempty"`
	SubmissionMode           string          `json:"submissionMode,omitempty"`
	ShutdownAfterJobFinishes bool            `json:"shutdownAfterJobFinishes,omitempty"`
	Suspend                  bool            `json:"suspend,omitempty"`
	RayClusterSpec           *RayClusterSpec `json:"rayClusterSpec,omitempty"`
}

type PyTorchJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              PyTorchJobSpec `json:"spec"`
}

type PyTorchJobSpec struct {
	RunPolicy           RunPolicy               `json:"runPolicy"`
	PyTorchReplicaSpecs map[string]*ReplicaSpec `json:"pytorchReplicaSpecs"`
}

type RunPolicy struct {
	Suspend *bool `json:"suspend,omitempty"`
}

type ReplicaSpec struct {
	Replicas      *int32                 `json:"replicas,omitempty"`
	Template      corev1.PodTemplateSpec `json:"template"`
	RestartPolicy string                 `json:"restartPolicy,omitempty"`
}

// Role is one pod template of a workload, and its pods as the kind's
// Kueue integration counts them into the role's PodSet.
type Role struct {
	// Name is the spec's role name (spec.Role), PodSet Kueue's name for
	// its PodSet (the same: Kueue lowercases a PyTorchJob's replica type,
	// which the Kueue rung caught the checker writing as "Master").
	Name, PodSet string
	Template     *corev1.PodTemplateSpec
	Pods         int32
}

// Roles are the JobSet's replicated jobs, each replicas × the pods of
// one Job (Kueue v0.19.2 pkg/controller/jobs/jobset podsCount: replicas ×
// min(parallelism, completions)).
func (j *JobSet) Roles() []Role {
	var out []Role
	for i := range j.Spec.ReplicatedJobs {
		rj := &j.Spec.ReplicatedJobs[i]
		per := deref(rj.Template.Spec.Parallelism, 1)
		if c := deref(rj.Template.Spec.Completions, per); c < per {
			per = c
		}
		out = append(out, Role{Name: rj.Name, PodSet: rj.Name, Template: &rj.Template.Spec.Template, Pods: rj.Replicas * per})
	}
	return out
}

// Roles are one group's leader and its size-1 workers (Kueue's
// leaderworkerset integration admits each group as a workload of its own).
func (l *LeaderWorkerSet) Roles() []Role {
	t := &l.Spec.LeaderWorkerTemplate
	leader := t.LeaderTemplate
	if leader == nil {
		leader = &t.WorkerTemplate
	}
	return []Role{{Name: "leader", PodSet: "leader", Template: leader, Pods: 1}, {Name: "worker", PodSet: "worker", Template: &t.WorkerTemplate, Pods: deref(t.Size, 1) - 1}}
}

// Roles are the head and each worker group's replicas (Kueue v0.19.2
// pkg/controller/jobs/raycluster BuildPodSets).
func (s *RayClusterSpec) Roles() []Role {
	out := []Role{{Name: "head", PodSet: "head", Template: &s.HeadGroupSpec.Template, Pods: 1}}
	for i := range s.WorkerGroupSpecs {
		w := &s.WorkerGroupSpecs[i]
		out = append(out, Role{Name: w.GroupName, PodSet: w.GroupName, Template: &w.Template, Pods: deref(w.Replicas, 1)})
	}
	return out
}

// Roles are the Master, then the Workers (training-operator's replica
// types, in the order Kueue's kubeflow integration builds their PodSets).
func (p *PyTorchJob) Roles() []Role {
	var out []Role
	for _, rt := range []string{PyTorchMaster, PyTorchWorker} {
		if rs := p.Spec.PyTorchReplicaSpecs[rt]; rs != nil {
			// Kueue names the PodSet kueue.NewPodSetReference(replica
			// type), lowercased: "master", "worker".
			out = append(out, Role{Name: PyTorchRole(rt), PodSet: PyTorchRole(rt), Template: &rs.Template, Pods: deref(rs.Replicas, 1)})
		}
	}
	return out
}

// PyTorchRole is the spec's role name for a replica type, and
// PyTorchReplicaType the replica type for a role name.
func PyTorchRole(replicaType string) string {
	if replicaType == PyTorchMaster {
		return "master"
	}
	return "worker"
}

func PyTorchReplicaType(role string) string {
	if role == "master" {
		return PyTorchMaster
	}
	return PyTorchWorker
}

func deref(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}
