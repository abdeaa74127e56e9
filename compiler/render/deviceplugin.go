package render

import (
	"bytes"
	"fmt"
	"path"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// The NVIDIA device plugin's config ConfigMap. The device plugin Helm chart
// (and the GPU Operator's devicePlugin.config) reads a ConfigMap by name
// from its own release namespace, which NVIDIA's install guide names
// nvidia-device-plugin; install with --set config.name=<DevicePluginConfigMap>.
// Each node's nvidia.com/device-plugin.config label picks one key. The tree
// creates the namespace too: applied before the chart (as a GitOps tool
// does on a new cluster), the ConfigMap alone would be refused.
const (
	DevicePluginNamespacePath = "cluster/nvidia-device-plugin-namespace.yaml"
	DevicePluginConfigPath    = "cluster/nvidia-device-plugin-config.yaml"
	DevicePluginConfigMap     = "nvidia-device-plugin-config"
	DevicePluginNamespace     = "nvidia-device-plugin"
)

// DevicePluginConfig is the device plugin's config file (version v1), only
// the part gpufleet sets.
type DevicePluginConfig struct {
	Version string `json:"version"`
	Sharing struct {
		TimeSlicing *ReplicatedResources `json:"timeSlicing,omitempty"`
		MPS         *ReplicatedResources `json:"mps,omitempty"`
	} `json:"sharing"`
}

// ReplicatedResources advertises each device of a resource replicas times.
type ReplicatedResources struct {
	Resources []ReplicatedResource `json:"resources"`
}

type ReplicatedResource struct {
	Name     corev1.ResourceName `json:"name"`
	Replicas int64               `json:"replicas"`
}

// devicePlugin emits the ConfigMap (one key per sharing profile) and its
// namespace when a pool shares its GPUs, and reports whether it did.
func (r *renderer) devicePlugin() bool {
	data := map[string]string{}
	for _, p := range r.d.Pools {
		s := p.Spec.Sharing
		if s == nil {
			continue
		}
		var cfg DevicePluginConfig
		cfg.Version = "v1"
		rr := &ReplicatedResources{Resources: []ReplicatedResource{{Name: derive.ResourceGPU, Replicas: s.Replicas}}}
		if s.Strategy == "mps" {
			cfg.Sharing.MPS = rr
		} else {
			cfg.Sharing.TimeSlicing = rr
		}
		b, err := yaml.Marshal(cfg)
		if err != nil && r.err == nil {
			r.err = err
		}
		data[derive.SharingProfile(*s)] = string(b)
	}
	if len(data) == 0 {
		return false
	}
	r.emit(DevicePluginNamespacePath, &corev1.Namespace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: meta(DevicePluginNamespace, "", nil),
	})
	r.emit(DevicePluginConfigPath, &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: meta(DevicePluginConfigMap, DevicePluginNamespace, nil),
		Data:       data,
	})
	return true
}

// SharingReplicas reads the rendered ConfigMap back: replicas per profile
// (none when the file is absent), for the checker's allocatable.
func SharingReplicas(raw []byte) (map[string]int64, error) {
	out := map[string]int64{}
	if raw == nil {
		return out, nil
	}
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict(bytes.TrimPrefix(raw, []byte(Header)), &cm); err != nil {
		return nil, fmt.Errorf("%s: %w", DevicePluginConfigPath, err)
	}
	for _, key := range spec.Keys(cm.Data) {
		var cfg DevicePluginConfig
		if err := yaml.UnmarshalStrict([]byte(cm.Data[key]), &cfg); err != nil {
			return nil, fmt.Errorf("%s: key %s: %w", path.Base(DevicePluginConfigPath), key, err)
		}
		rr := cfg.Sharing.TimeSlicing
		if rr == nil {
			rr = cfg.Sharing.MPS
		}
		if rr == nil || len(rr.Resources) != 1 || rr.Resources[0].Name != derive.ResourceGPU {
			return nil, fmt.Errorf("%s: key %s: want one replicated %s", path.Base(DevicePluginConfigPath), key, derive.ResourceGPU)
		}
		out[key] = rr.Resources[0].Replicas
	}
	return out, nil
}
