// Package deviceplugin holds the NVIDIA device plugin's config file
// (version v1), the part gpufleet writes, and the ConfigMap that carries it.
package deviceplugin

import (
	"fmt"
	"maps"
	"path"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// The NVIDIA device plugin's config ConfigMap. The device plugin Helm chart
// (and the GPU Operator's devicePlugin.config) reads a ConfigMap by name
// from its own release namespace, which NVIDIA's install guide names
// nvidia-device-plugin; install with --set config.name=<ConfigMapName>.
// Each node's nvidia.com/device-plugin.config label picks one key. The tree
// creates the namespace too: applied before the chart (as a GitOps tool
// does on a new cluster), the ConfigMap alone would be refused.
const (
	ConfigMapName = "nvidia-device-plugin-config"
	Namespace     = "nvidia-device-plugin"
)

// Config is the device plugin's config file (version v1), only
// the part gpufleet sets.
type Config struct {
	Version string   `json:"version"`
	Flags   *Flags   `json:"flags,omitempty"`
	Sharing *Sharing `json:"sharing,omitempty"`
}

// Flags are the plugin's command-line flags, as its config file sets them.
type Flags struct {
	// MigStrategy "mixed" advertises each MIG slice as its own resource
	// (nvidia.com/mig-1g.10gb) and GPUs without MIG as nvidia.com/gpu;
	// "none" advertises whole GPUs only.
	MigStrategy string `json:"migStrategy"`
}

type Sharing struct {
	TimeSlicing *ReplicatedResources `json:"timeSlicing,omitempty"`
	MPS         *ReplicatedResources `json:"mps,omitempty"`
}

// DefaultProfile is the ConfigMap key of nodes that share nothing: the
// chart's config.default. Without it the chart takes the only key as
// every node's default (one sharing profile time-slices every GPU node),
// and refuses to deploy with two.
const DefaultProfile = "default"

// ReplicatedResources advertises each device of a resource replicas times.
type ReplicatedResources struct {
	Resources []ReplicatedResource `json:"resources"`
}

type ReplicatedResource struct {
	Name     corev1.ResourceName `json:"name"`
	Replicas int64               `json:"replicas"`
}

// Profile is what one sharing profile of the ConfigMap does to a node's
// GPUs: each is advertised Replicas times, through MPS or time-slicing.
type Profile struct {
	Replicas int64
	MPS      bool
}

// SharingProfiles reads the generated ConfigMap back: the sharing profiles
// by key (none when the file is absent), for the checker's allocatable.
func SharingProfiles(raw []byte) (map[string]Profile, error) {
	out := map[string]Profile{}
	if raw == nil {
		return out, nil
	}
	var cm corev1.ConfigMap
	if err := tree.Decode(raw, &cm); err != nil {
		return nil, fmt.Errorf("%s: %w", tree.DevicePluginConfigPath, err)
	}
	for _, key := range slices.Sorted(maps.Keys(cm.Data)) {
		var cfg Config
		if err := yaml.UnmarshalStrict([]byte(cm.Data[key]), &cfg); err != nil {
			return nil, fmt.Errorf("%s: key %s: %w", path.Base(tree.DevicePluginConfigPath), key, err)
		}
		if cfg.Sharing == nil {
			continue // shares nothing: one device per GPU
		}
		rr := cfg.Sharing.TimeSlicing
		if rr == nil {
			rr = cfg.Sharing.MPS
		}
		if rr == nil || len(rr.Resources) != 1 || rr.Resources[0].Name != keys.ResourceGPU {
			return nil, fmt.Errorf("%s: key %s: want one replicated %s", path.Base(tree.DevicePluginConfigPath), key, keys.ResourceGPU)
		}
		out[key] = Profile{Replicas: rr.Resources[0].Replicas, MPS: cfg.Sharing.MPS != nil}
	}
	return out, nil
}
