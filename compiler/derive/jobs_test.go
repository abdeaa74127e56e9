package derive

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
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
