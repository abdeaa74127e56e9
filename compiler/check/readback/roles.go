package readback

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/mlkinds"
)

// roleKinds decode an ML kind's example.
var roleKinds = map[string]func() any{
	keys.KindJobSet:          func() any { return &mlkinds.JobSet{} },
	keys.KindLeaderWorkerSet: func() any { return &mlkinds.LeaderWorkerSet{} },
	keys.KindRayJob:          func() any { return &mlkinds.RayJob{} },
	keys.KindRayCluster:      func() any { return &mlkinds.RayCluster{} },
	keys.KindPyTorchJob:      func() any { return &mlkinds.PyTorchJob{} },
	keys.KindTrainJob:        func() any { return &mlkinds.TrainJob{} },
}

// roled is an ML kind's workload: its roles as its Kueue integration
// counts them, and how many workloads the class runs (an LWS's groups).
type roled struct {
	kind   string
	meta   *metav1.ObjectMeta
	roles  []mlkinds.Role
	copies int32
}

func roledWorkload(w any) (roled, bool) {
	switch w := w.(type) {
	case *mlkinds.JobSet:
		return roled{keys.KindJobSet, &w.ObjectMeta, w.Roles(), 1}, true
	case *mlkinds.LeaderWorkerSet:
		return roled{keys.KindLeaderWorkerSet, &w.ObjectMeta, w.Roles(), deref(w.Spec.Replicas, 1)}, true
	case *mlkinds.RayCluster:
		return roled{keys.KindRayCluster, &w.ObjectMeta, w.Spec.Roles(), 1}, true
	case *mlkinds.RayJob:
		if w.Spec.RayClusterSpec == nil {
			return roled{keys.KindRayJob, &w.ObjectMeta, nil, 1}, true
		}
		return roled{keys.KindRayJob, &w.ObjectMeta, w.Spec.RayClusterSpec.Roles(), 1}, true
	case *mlkinds.PyTorchJob:
		return roled{keys.KindPyTorchJob, &w.ObjectMeta, w.Roles(), 1}, true
	case *trainJob:
		return roled{keys.KindTrainJob, &w.job.ObjectMeta, mlkinds.TrainJobRoles(w.job, &w.runtime.Spec), 1}, true
	}
	return roled{}, false
}

// primary is the role the class's row is placed by, as spec.Class's
// PrimaryRole picks it: the first whose containers ask for GPUs (or MIG
// slices, nvidia.com/*), else the first.
func (r roled) primary() (mlkinds.Role, bool) {
	for _, role := range r.roles {
		if asksGPU(role.Template.Spec) {
			return role, true
		}
	}
	if len(r.roles) == 0 {
		return mlkinds.Role{}, false
	}
	return r.roles[0], true
}

func asksGPU(ps corev1.PodSpec) bool {
	for _, c := range ps.Containers {
		for name := range c.Resources.Limits {
			if strings.HasPrefix(string(name), "nvidia.com/") {
				return true
			}
		}
	}
	return false
}

// classRows are the rows of a class's example: the class's own, and for
// an ML kind one more for each role but its primary one (sched.RoleRow),
// each that role's pods in every copy of the workload.
func classRows(name string, t tree.Typed, p string) ([]sched.Class, error) {
	c, w, err := classFrom(name, t, p)
	if err != nil || len(c.PodSets) == 0 {
		return []sched.Class{c}, err
	}
	r, _ := roledWorkload(w)
	out := []sched.Class{c}
	for i, ps := range c.PodSets {
		if ps.Row == name {
			continue
		}
		rc := sched.Class{Name: ps.Row, Of: name, Kind: c.Kind, Pods: ps.Pods * r.copies, Queued: c.Queued, PriorityClass: c.PriorityClass}
		tpl := r.roles[i].Template.DeepCopy()
		rc.Pod = &corev1.Pod{ObjectMeta: tpl.ObjectMeta, Spec: tpl.Spec}
		rc.Pod.Name = ps.Row
		rc.Info = sched.NewPodInfo(rc.Pod)
		out = append(out, rc)
	}
	return out, nil
}

// trainJob is a TrainJob example with the runtime it names: its pods are
// the runtime's JobSet's, as Kueue's trainjob integration builds them.
type trainJob struct {
	job     *mlkinds.TrainJob
	runtime *mlkinds.ClusterTrainingRuntime
}

// withRuntime pairs a TrainJob with its ClusterTrainingRuntime in the
// tree (tree.TrainingRuntimesPath); other workloads are returned as they
// are.
func withRuntime(t tree.Typed, w any) (any, error) {
	j, ok := w.(*mlkinds.TrainJob)
	if !ok {
		return w, nil
	}
	ref := j.Spec.RuntimeRef
	if ref.Kind != nil && *ref.Kind != mlkinds.ClusterTrainingRuntimeKind {
		return nil, fmt.Errorf("TrainJob names a %s: the tree's runtimes are %ss", *ref.Kind, mlkinds.ClusterTrainingRuntimeKind)
	}
	var rts []mlkinds.ClusterTrainingRuntime
	if err := DecodeAll(t, tree.TrainingRuntimesPath, &rts); err != nil {
		return nil, err
	}
	for i := range rts {
		if rts[i].Name == ref.Name {
			return &trainJob{job: j, runtime: &rts[i]}, nil
		}
	}
	return nil, fmt.Errorf("TrainJob names the %s %q, which %s lacks", mlkinds.ClusterTrainingRuntimeKind, ref.Name, tree.TrainingRuntimesPath)
}
