package derive

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// maxUnavailable is the PodDisruptionBudget of a serving class's workload:
// how many of its replicas voluntary disruptions (a drain, Karpenter's
// consolidation or expiry) may take at once. One, or the zone spread's
// maxSkew when larger, since the spread already accepts that much
// imbalance between zones; never all of them. Nil means no budget: a Job
// is protected by its podFailurePolicy and checkpoints instead, and a
// single replica's budget either blocks every drain (0) or allows it (1).
func maxUnavailable(c spec.Class) *int32 {
	// An ML kind's controller replaces its pods as a group (a JobSet's
	// Jobs, an LWS group): no PodDisruptionBudget of the class's.
	if c.Kind == keys.KindJob || c.HasRoles() || c.Replicas < 2 {
		return nil
	}
	n := int32(1)
	if c.Spread != nil && c.Spread.Zones != "" {
		n = max(n, c.Spread.MaxSkew)
	}
	n = min(n, c.Replicas-1)
	return &n
}

// matchLabelKeys narrows spread and anti-affinity from the class's label to
// one workload: the API server adds each key's value on the new pod to the
// selector. A Deployment's pods carry their ReplicaSet's pod-template-hash,
// so two Deployments of one class, or the old and new ReplicaSets of a
// rolling update (surge pods included), do not count against each other.
// StatefulSets get none: their rolling update replaces pods one by one in
// place, so the old revision's pods are the same workload's and must still
// count (controller-revision-hash would make the new ones ignore them). A
// Job's pods carry its controller-uid, which keeps two Jobs of one class
// apart.
func matchLabelKeys(c spec.Class) []string {
	switch c.Kind {
	case keys.KindDeployment:
		return []string{keys.LabelPodTemplateHash}
	case keys.KindJob:
		return []string{keys.LabelJobControllerUID}
	}
	return nil
}

// defaultSurge and defaultUnavailable are the rolling update a Deployment
// class gets unless its spec says otherwise. Kubernetes' own default (25%
// and 25%) rounds maxUnavailable down to 0 below 4 replicas, and a pool
// full at max size then has no room for the surge pod: the rollout stalls
// until ProgressDeadlineExceeded. One pod down at a time always makes room.
var (
	defaultSurge       = intstr.FromString("25%")
	defaultUnavailable = intstr.FromInt32(1)
)

// strategy is a Deployment class's rolling update; nil for other kinds.
func strategy(c spec.Class) *appsv1.DeploymentStrategy {
	if c.Kind != keys.KindDeployment {
		return nil
	}
	surge, unavailable := defaultSurge, defaultUnavailable
	if r := c.Rollout; r != nil {
		if r.MaxSurge != nil {
			surge = *r.MaxSurge
		}
		if r.MaxUnavailable != nil {
			unavailable = *r.MaxUnavailable
		}
	}
	return &appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}}
}
