package derive

import (
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/cloud"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// DefaultBackoffLimit is a Job class's backoffLimit unless it sets one: a
// few retries of the work's own failures (a lost NCCL peer, a flaky
// download) before the Job fails for good. Disruptions do not count.
const DefaultBackoffLimit = 3

// JobPolicy is what a Job class sets on the Job itself, beside its pod
// template.
type JobPolicy struct {
	BackoffLimit     int32
	PodFailurePolicy *batchv1.PodFailurePolicy
}

// jobPolicy is nil for Deployments and StatefulSets. Every Job ignores
// pods that failed by disruption (a reclaimed spot node, Karpenter's
// consolidation, the scheduler's preemption, a drain): the Job controller
// replaces them without counting toward backoffLimit. On-demand Jobs get
// it too, since preemption and consolidation reach them as well.
func jobPolicy(c spec.Class) *JobPolicy {
	if c.Kind != keys.KindJob {
		return nil
	}
	jp := &JobPolicy{BackoffLimit: DefaultBackoffLimit, PodFailurePolicy: &batchv1.PodFailurePolicy{
		Rules: []batchv1.PodFailurePolicyRule{{
			Action:          batchv1.PodFailurePolicyActionIgnore,
			OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}},
		}},
	}}
	if c.BackoffLimit != nil {
		jp.BackoffLimit = *c.BackoffLimit
	}
	return jp
}

// Checkpoints reports whether a Job class's work resumes from a checkpoint
// when a pod is replaced (the default).
func Checkpoints(c spec.Class) bool { return c.Checkpoint == nil || *c.Checkpoint }

// podAnnotations keeps Karpenter from voluntarily disrupting (consolidating,
// expiring, replacing for drift) a node while a pod of a Job that cannot
// checkpoint runs on it: losing the pod would lose all its work. Karpenter
// honours the annotation on running pods only, so finished Jobs do not pin
// nodes.
func podAnnotations(c spec.Class, cl cloud.Cloud) map[string]string {
	var out map[string]string
	if c.Kind == keys.KindJob && !Checkpoints(c) {
		out = map[string]string{keys.AnnotationDoNotDisrupt: "true"}
	}
	// Kueue's Job integration makes the annotation the PodSet's
	// TopologyRequest (pkg/controller/jobframework/tas.go).
	if t := c.Topology; t != nil {
		if out == nil {
			out = map[string]string{}
		}
		key := kueue.AnnotationRequiredTopology
		if t.Mode == spec.Preferred {
			key = kueue.AnnotationPreferredTopology
		}
		out[key] = LevelLabel(t.Level, cl)
		if sl := t.Slice; sl != nil {
			out[kueue.AnnotationSliceTopology] = LevelLabel(sl.Level, cl)
			out[kueue.AnnotationSliceSize] = strconv.FormatInt(int64(sl.Size), 10)
		}
	}
	return out
}

// LevelLabel is the node label of a class's topology level: the
// hostname, or network layer N's.
func LevelLabel(level string, cl cloud.Cloud) string {
	if n, ok := strings.CutPrefix(level, spec.LevelNetworkLayer); ok {
		if k, err := strconv.Atoi(n); err == nil {
			return cl.NetworkLayerLabel(k)
		}
	}
	return keys.LabelHostname
}

// MaxExecSeconds is a queued batch class's run time in whole seconds, as
// its workloads' kueue.x-k8s.io/max-exec-time-seconds label gives it to
// Kueue; false when it sets none (validation refuses the rest).
func MaxExecSeconds(c spec.Class) (int64, bool) {
	if c.MaxRunTime == "" || !c.Batch() || !c.Queued() {
		return 0, false
	}
	d, err := spec.RunTime(c.MaxRunTime)
	if err != nil {
		return 0, false
	}
	return int64(d / time.Second), true
}
