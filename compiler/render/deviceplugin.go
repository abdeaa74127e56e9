package render

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/deviceplugin"
)

// devicePlugin emits the ConfigMap (one key per sharing profile) and its
// namespace when a pool shares its GPUs, and reports whether it did.
func (r *renderer) devicePlugin() bool {
	data := map[string]string{}
	for _, p := range r.d.Pools {
		s := p.Spec.Sharing
		if s == nil {
			continue
		}
		var cfg deviceplugin.Config
		cfg.Version = "v1"
		rr := &deviceplugin.ReplicatedResources{Resources: []deviceplugin.ReplicatedResource{{Name: keys.ResourceGPU, Replicas: s.Replicas}}}
		if s.Strategy == "mps" {
			cfg.Sharing.MPS = rr
		} else {
			cfg.Sharing.TimeSlicing = rr
		}
		b, err := yaml.Marshal(cfg)
		if err != nil {
			r.fail(err)
		}
		data[derive.SharingProfile(*s)] = string(b)
	}
	if len(data) == 0 {
		return false
	}
	r.emit(tree.DevicePluginNamespacePath, &corev1.Namespace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: meta(deviceplugin.Namespace, "", nil),
	})
	r.emit(tree.DevicePluginConfigPath, &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: meta(deviceplugin.ConfigMapName, deviceplugin.Namespace, nil),
		Data:       data,
	})
	return true
}
