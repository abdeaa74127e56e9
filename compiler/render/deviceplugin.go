package render

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/deviceplugin"
)

// devicePlugin emits, when a pool has GPUs, what the NVIDIA device plugin's
// chart needs: its namespace, the ConfigMap of its configs (a default that
// shares nothing, and one key per sharing profile), and the chart values
// that reach every GPU pool and no other. It reports whether it did.
func (r *renderer) devicePlugin() bool {
	// Bottlerocket's NVIDIA variants run the plugin on the host.
	var gpuPools []derive.Pool
	var host []string
	dra := false
	for _, p := range r.d.Pools {
		switch {
		case p.GPU != nil && r.d.Cloud.HostDevicePlugin(p.Spec):
			host = append(host, p.Name)
		case p.Labels[keys.LabelGPUAPI] == spec.GPUAPIDRA:
			dra = true
		case p.GPU != nil:
			gpuPools = append(gpuPools, p)
		}
	}
	if len(gpuPools) == 0 {
		return false
	}
	def := deviceplugin.Config{Version: "v1", Flags: &deviceplugin.Flags{MigStrategy: "none"}}
	data := map[string]string{}
	for _, p := range gpuPools {
		if p.Spec.MIG != "" {
			// MIG slices are resources of their own only with "mixed".
			def.Flags.MigStrategy = "mixed"
		}
		s := p.Spec.Sharing
		if s == nil {
			continue
		}
		rr := &deviceplugin.ReplicatedResources{Resources: []deviceplugin.ReplicatedResource{{Name: keys.ResourceGPU, Replicas: s.Replicas}}}
		cfg := deviceplugin.Config{Version: "v1", Sharing: &deviceplugin.Sharing{}}
		if s.Strategy == "mps" {
			cfg.Sharing.MPS = rr
		} else {
			cfg.Sharing.TimeSlicing = rr
		}
		data[derive.SharingProfile(*s)] = r.yaml(cfg)
	}
	data[deviceplugin.DefaultProfile] = r.yaml(def)
	r.emit(tree.DevicePluginNamespacePath, &corev1.Namespace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: meta(deviceplugin.Namespace, "", nil),
	})
	r.emit(tree.DevicePluginConfigPath, &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: meta(deviceplugin.ConfigMapName, deviceplugin.Namespace, nil),
		Data:       data,
	})
	values := devicePluginValues(gpuPools, host, dra)
	r.emit(deviceplugin.ValuesPath, values)
	r.deliver(chart{
		name: deviceplugin.ChartName, version: deviceplugin.ChartVersion, release: deviceplugin.ReleaseName,
		namespace: deviceplugin.Namespace, repository: deviceplugin.ChartRepository,
		fluxPath: deviceplugin.FluxPath, argoPath: deviceplugin.ArgoCDPath,
	}, values)
	return true
}

// devicePluginValues select GPU pools by gpufleet's GPU product label, but
// not the host's pools nor those the DRA driver publishes (a node must
// never run both), and tolerate each of their taints, whatever its value.
func devicePluginValues(pools []derive.Pool, host []string, dra bool) *deviceplugin.Values {
	tols := poolTolerations(pools, []corev1.Toleration{{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists}})
	match := []corev1.NodeSelectorRequirement{{Key: keys.LabelGPUProduct, Operator: corev1.NodeSelectorOpExists}}
	if len(host) > 0 {
		match = append(match, corev1.NodeSelectorRequirement{Key: keys.LabelPool, Operator: corev1.NodeSelectorOpNotIn, Values: host})
	}
	if dra {
		match = append(match, corev1.NodeSelectorRequirement{Key: keys.LabelGPUAPI, Operator: corev1.NodeSelectorOpNotIn, Values: []string{spec.GPUAPIDRA}})
	}
	return &deviceplugin.Values{
		Config: deviceplugin.ValuesConfig{Name: deviceplugin.ConfigMapName, Default: deviceplugin.DefaultProfile},
		Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: match}}},
		}},
		Tolerations: tols,
	}
}

func (r *renderer) yaml(v any) string {
	b, err := yaml.Marshal(v)
	if err != nil {
		r.fail(err)
	}
	return string(b)
}
