// Package schedconfig holds the subset of kube-scheduler's
// kubescheduler.config.k8s.io/v1 configuration that gpufleet writes.
package schedconfig

import corev1 "k8s.io/api/core/v1"

// Scheduler profiles a class may choose (schedulerProfile). The placement
// checker ignores schedulerName, rightly: these profiles change only
// scoring (which feasible node wins), never filtering (which nodes are
// feasible), so a class lands under its profile wherever it lands under
// default-scheduler.
const (
	ProfileBinpack = "binpack"
	ProfileSpread  = "spread"
)

// SchedulerNames is each profile's schedulerName, the name its pods carry.
var SchedulerNames = map[string]string{
	ProfileBinpack: "gpufleet-binpack",
	ProfileSpread:  "gpufleet-spread",
}

// The ConfigMap that carries the configuration, and its key.
const (
	ConfigMapName = "gpufleet-scheduler-config"
	ConfigKey     = "config.yaml"
)

// The subset of kubescheduler.config.k8s.io/v1 gpufleet writes. Tests
// strict-decode it into k8s.io/kube-scheduler's own types, and validate it
// with kube-scheduler's validation in ladder/kube-scheduler.
type Config struct {
	APIVersion     string         `json:"apiVersion"`
	Kind           string         `json:"kind"`
	LeaderElection LeaderElection `json:"leaderElection"`
	Profiles       []Profile      `json:"profiles"`
}

type LeaderElection struct {
	LeaderElect       bool   `json:"leaderElect"`
	ResourceName      string `json:"resourceName"`
	ResourceNamespace string `json:"resourceNamespace"`
}

type Profile struct {
	SchedulerName            string         `json:"schedulerName"`
	PercentageOfNodesToScore *int32         `json:"percentageOfNodesToScore,omitempty"`
	PluginConfig             []PluginConfig `json:"pluginConfig"`
}

// PluginConfig's args carry no apiVersion or kind: kube-scheduler takes
// the type from the plugin's name (<name>Args).
type PluginConfig struct {
	Name string `json:"name"`
	Args any    `json:"args"`
}

type NodeResourcesFitArgs struct {
	ScoringStrategy ScoringStrategy `json:"scoringStrategy"`
}

type ScoringStrategy struct {
	Type      string           `json:"type"`
	Resources []ResourceWeight `json:"resources"`
}

type ResourceWeight struct {
	Name   string `json:"name"`
	Weight int64  `json:"weight"`
}

type PodTopologySpreadArgs struct {
	DefaultConstraints []corev1.TopologySpreadConstraint `json:"defaultConstraints"`
	DefaultingType     string                            `json:"defaultingType"`
}
