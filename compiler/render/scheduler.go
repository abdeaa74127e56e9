package render

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/schedconfig"
)

// The kube-scheduler profiles classes choose with schedulerProfile.
//
// They are written for a second kube-scheduler, not as a replacement
// config for the cluster's own: EKS runs default-scheduler in its managed
// control plane and exposes no way to configure it. So the config holds
// only gpufleet's profiles and default-scheduler is left untouched; a
// second scheduler that also served default-scheduler would race the
// control plane's for every ordinary pod. Its leader-election lease is its
// own for the same reason: the default, kube-system/kube-scheduler, is the
// control plane's.
//
// A KubeSchedulerConfiguration is not an API object, so it ships as a
// ConfigMap the second scheduler's Deployment mounts; that ConfigMap is
// applyable and listed in cluster/kustomization.yaml.
//
// The file is emitted only when a class chooses a profile, and holds only
// the profiles classes choose: a scheduler (and a Deployment of it) that no
// pod names would be dead weight, and unused profiles would invite pods
// the fleet spec never described.
const (
	schedulerNamespace = schedconfig.Namespace
	schedulerLease     = schedconfig.Lease
)

// schedulerConfigHeader opens the embedded config: how to run it.
const schedulerConfigHeader = `# Profiles for a second kube-scheduler, beside the control plane's
# default-scheduler (left unchanged). Mount this key and run
# kube-scheduler --config=<mount>/` + schedconfig.ConfigKey + `; pods choose a profile by
# spec.schedulerName, which each class's Component sets.
`

// gpuWeighted scores GPUs five times cpu or memory: they are the scarce,
// expensive resource. NodeResourcesFit skips a resource a node has none
// of, so CPU nodes are scored on cpu and memory alone.
func gpuWeighted(strategy string) schedconfig.NodeResourcesFitArgs {
	return schedconfig.NodeResourcesFitArgs{ScoringStrategy: schedconfig.ScoringStrategy{Type: strategy, Resources: []schedconfig.ResourceWeight{
		{Name: keys.ResourceGPU, Weight: 5},
		{Name: string(corev1.ResourceCPU), Weight: 1},
		{Name: string(corev1.ResourceMemory), Weight: 1},
	}}}
}

// profiles builds each profile on kube-scheduler's default plugins, changing
// only plugin args, and so only scoring.
var profiles = map[string]func() schedconfig.Profile{
	// binpack fills nodes before opening new ones (MostAllocated, the
	// successor of the removed NodeResourcesMostAllocated plugin), so whole
	// GPU nodes stay free for big gangs and empty ones scale in. It scores
	// every feasible node: sampling a subset, the default past 100 nodes,
	// would leave half-full nodes unconsidered.
	schedconfig.ProfileBinpack: func() schedconfig.Profile {
		all := int32(100)
		return schedconfig.Profile{
			SchedulerName:            schedconfig.SchedulerNames[schedconfig.ProfileBinpack],
			PercentageOfNodesToScore: &all,
			PluginConfig:             []schedconfig.PluginConfig{{Name: "NodeResourcesFit", Args: gpuWeighted("MostAllocated")}},
		}
	},
	// spread prefers the emptiest nodes by GPU too (LeastAllocated counts
	// only cpu and memory by default), and spreads pods without constraints
	// of their own over zones and nodes. ScheduleAnyway keeps it to scoring.
	// Default constraints apply to pods of Services, ReplicaSets and
	// StatefulSets only; a class's own spread covers Jobs.
	schedconfig.ProfileSpread: func() schedconfig.Profile {
		soft := func(key string) corev1.TopologySpreadConstraint {
			return corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: key, WhenUnsatisfiable: corev1.ScheduleAnyway}
		}
		return schedconfig.Profile{
			SchedulerName: schedconfig.SchedulerNames[schedconfig.ProfileSpread],
			PluginConfig: []schedconfig.PluginConfig{
				{Name: "NodeResourcesFit", Args: gpuWeighted("LeastAllocated")},
				{Name: "PodTopologySpread", Args: schedconfig.PodTopologySpreadArgs{
					DefaultConstraints: []corev1.TopologySpreadConstraint{soft(keys.LabelZone), soft(keys.LabelHostname)},
					DefaultingType:     "List",
				}},
			},
		}
	},
}

// scheduler emits the config when a class chooses a profile, and reports
// whether it did.
func (r *renderer) scheduler() bool {
	used := map[string]bool{}
	for _, c := range r.d.Classes {
		if c.Spec.SchedulerProfile != "" {
			used[c.Spec.SchedulerProfile] = true
		}
	}
	if len(used) == 0 || r.err != nil {
		return false
	}
	cfg := schedconfig.Config{
		APIVersion:     "kubescheduler.config.k8s.io/v1",
		Kind:           "KubeSchedulerConfiguration",
		LeaderElection: schedconfig.LeaderElection{LeaderElect: true, ResourceName: schedulerLease, ResourceNamespace: schedulerNamespace},
	}
	for _, name := range spec.Keys(used) {
		build, ok := profiles[name]
		if !ok {
			r.fail(fmt.Errorf("render: unknown scheduler profile %q", name))
			return false
		}
		cfg.Profiles = append(cfg.Profiles, build())
	}
	b, err := yaml.Marshal(cfg)
	if err != nil {
		r.fail(fmt.Errorf("render: scheduler config: %w", err))
		return false
	}
	r.emit(tree.SchedulerConfigPath, &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: meta(schedconfig.ConfigMapName, schedulerNamespace, nil),
		Data:       map[string]string{schedconfig.ConfigKey: schedulerConfigHeader + string(b)},
	})
	image, ok := schedconfig.Images[r.d.Spec.Cluster.Version]
	if !ok {
		r.fail(fmt.Errorf("render: no kube-scheduler image for Kubernetes %s", r.d.Spec.Cluster.Version))
		return false
	}
	r.emit(tree.SchedulerPath, schedulerObjects(image, r.d.System)...)
	return true
}
