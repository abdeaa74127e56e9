package resourcequota

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/internal/checktest"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// A quota that holds the replicas and no surge pod stalls a rollout with
// maxUnavailable 0 at the API server's quota admission.
func TestRolloutQuota(t *testing.T) {
	for _, tc := range []struct {
		name               string
		kind               string
		replicas           int32
		surge, unavailable int32
		queued             bool
		gpu                int64 // the quota, whole GPUs
		want               string
	}{
		{"quota holds the replicas only", keys.KindDeployment, 4, 1, 0, false, 4,
			"a rollout of class c cannot progress: maxUnavailable 0 keeps its 4 old pods, and quota admission refuses the first of maxSurge 1 new pods against tenant ml's quota (exceeded quota: nvidia.com/gpu needs 5, quota holds 4), so the ReplicaSet controller reports FailedCreate and the rollout ends in ProgressDeadlineExceeded; set rollout.maxUnavailable to 1 or more, or raise the quota by 1 pods' requests"},
		{"room for the surge", keys.KindDeployment, 4, 1, 0, false, 5, ""},
		{"one down at a time", keys.KindDeployment, 4, 1, 1, false, 4, ""},
		{"replicas over the quota are QuotaFit's", keys.KindDeployment, 5, 1, 0, false, 4, ""},
		{"a StatefulSet replaces in place", keys.KindStatefulSet, 4, 0, 0, false, 4, ""},
		{"queued waits on Kueue", keys.KindDeployment, 4, 1, 0, true, 4, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := checktest.Pod(corev1.PodSpec{Containers: []corev1.Container{checktest.Container("nvidia.com/gpu=1")}})
			c := sched.Class{Name: "c", Kind: tc.kind, Pod: p, Info: sched.NewPodInfo(p), Pods: tc.replicas, MaxSurge: tc.surge, MaxUnavailable: tc.unavailable, Queued: tc.queued}
			in := check.Intent{Tenants: []check.TenantIntent{{Name: "ml", Classes: []string{"c"}, Hard: map[string]int64{"nvidia.com/gpu": tc.gpu * 1000}}}}
			var got []string
			for _, f := range RolloutQuota(&sched.Cluster{Classes: []sched.Class{c}}, nil, in) {
				got = append(got, f.Message)
			}
			if strings.Join(got, "\n") != tc.want {
				t.Errorf("findings %q, want %q", got, tc.want)
			}
		})
	}
}

// The API server's quota admission checks the quota scoped to the pod's
// PriorityClass too: one that holds only the replicas stalls the rollout,
// and one the replicas alone exceed is QuotaFit's.
func TestRolloutQuotaPriorityScoped(t *testing.T) {
	p := checktest.Pod(corev1.PodSpec{Containers: []corev1.Container{checktest.Container("nvidia.com/gpu=1")}})
	c := sched.Class{Name: "c", Kind: keys.KindDeployment, Pod: p, Info: sched.NewPodInfo(p), Pods: 4, MaxSurge: 1}
	for scoped, want := range map[int64]string{
		4: "a rollout of class c cannot progress: maxUnavailable 0 keeps its 4 old pods, and quota admission refuses the first of maxSurge 1 new pods against tenant ml's quotas (exceeded quota: nvidia.com/gpu needs 5, priority serving's quota holds 4), so the ReplicaSet controller reports FailedCreate and the rollout ends in ProgressDeadlineExceeded; set rollout.maxUnavailable to 1 or more, or raise the quota by 1 pods' requests",
		3: "",
		5: "",
	} {
		in := check.Intent{
			Tenants:    []check.TenantIntent{{Name: "ml", Classes: []string{"c"}, Hard: map[string]int64{"nvidia.com/gpu": 8000}, PriorityHard: map[string]map[string]int64{"serving": {"nvidia.com/gpu": scoped * 1000}}}},
			Priorities: map[string]check.PriorityIntent{"c": {Name: "serving"}},
		}
		var got []string
		for _, f := range RolloutQuota(&sched.Cluster{Classes: []sched.Class{c}}, nil, in) {
			got = append(got, f.Message)
		}
		if strings.Join(got, "\n") != want {
			t.Errorf("scoped quota %d GPUs: findings %q, want %q", scoped, got, want)
		}
	}
}
