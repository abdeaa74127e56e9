package derive

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

func TestJobPolicy(t *testing.T) {
	ignoreDisruption := &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
		Action:          batchv1.PodFailurePolicyActionIgnore,
		OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}},
	}}}
	no, two := false, int32(2)
	for _, tc := range []struct {
		name        string
		class       spec.Class
		job         *JobPolicy
		annotations map[string]string
	}{
		{"deployment", spec.Class{Kind: keys.KindDeployment, Capacity: spec.Spot}, nil, nil},
		{"statefulset", spec.Class{Kind: keys.KindStatefulSet}, nil, nil},
		{"spot job", spec.Class{Kind: keys.KindJob, Capacity: spec.Spot}, &JobPolicy{BackoffLimit: 3, PodFailurePolicy: ignoreDisruption}, nil},
		{"on-demand job: preemption and consolidation disrupt it too", spec.Class{Kind: keys.KindJob, Capacity: spec.OnDemand}, &JobPolicy{BackoffLimit: 3, PodFailurePolicy: ignoreDisruption}, nil},
		{"own backoffLimit", spec.Class{Kind: keys.KindJob, BackoffLimit: &two}, &JobPolicy{BackoffLimit: 2, PodFailurePolicy: ignoreDisruption}, nil},
		{"cannot checkpoint", spec.Class{Kind: keys.KindJob, Capacity: spec.Spot, Checkpoint: &no}, &JobPolicy{BackoffLimit: 3, PodFailurePolicy: ignoreDisruption},
			map[string]string{keys.AnnotationDoNotDisrupt: "true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.class.Container, tc.class.Priority = "main", "p"
			c := deriveClass("c", tc.class, nil, aws.Cloud{})
			if d := cmp.Diff(tc.job, c.Job); d != "" {
				t.Errorf("job policy (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.annotations, c.Template.Annotations); d != "" {
				t.Errorf("pod annotations (-want +got):\n%s", d)
			}
		})
	}
}

// TestMaxExecSeconds: a queued batch class's run time is its workloads'
// kueue.x-k8s.io/max-exec-time-seconds label, in whole seconds; nothing
// else carries one.
func TestMaxExecSeconds(t *testing.T) {
	no := false
	for _, tc := range []struct {
		name  string
		class spec.Class
		want  string
	}{
		{"job", spec.Class{Kind: keys.KindJob, MaxRunTime: "6h"}, "21600"},
		{"jobset", spec.Class{Kind: keys.KindJobSet, MaxRunTime: "1h30m"}, "5400"},
		{"none", spec.Class{Kind: keys.KindJob}, ""},
		{"unqueued", spec.Class{Kind: keys.KindJob, Queue: &no, MaxRunTime: "6h"}, ""},
		{"deployment", spec.Class{Kind: keys.KindDeployment, MaxRunTime: "6h"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.class.Container, tc.class.Priority = "main", "p"
			c := deriveClass("c", tc.class, nil, aws.Cloud{})
			if got := c.WorkloadLabels[kueue.LabelMaxExecTime]; got != tc.want {
				t.Errorf("%s = %q, want %q", kueue.LabelMaxExecTime, got, tc.want)
			}
		})
	}
}
