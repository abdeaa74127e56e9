package deviceplugin

import corev1 "k8s.io/api/core/v1"

// The NVIDIA device plugin's Helm chart, as the tree's values target it:
// helm install ReleaseName nvdp/nvidia-device-plugin --version ChartVersion
// --namespace Namespace -f ValuesPath.
const (
	ChartName       = "nvidia-device-plugin"
	ChartVersion    = "0.18.0"
	ChartRepository = "https://nvidia.github.io/k8s-device-plugin"
	ReleaseName     = "nvidia-device-plugin"
	ValuesPath      = "agents/nvidia-device-plugin/values.yaml"
	// FluxPath holds a Flux HelmRepository and HelmRelease, and
	// ArgoCDPath an Argo CD Application, that install the chart with the
	// same values.
	FluxPath   = "agents/nvidia-device-plugin/flux.yaml"
	ArgoCDPath = "agents/nvidia-device-plugin/argocd-application.yaml"
)

// Values are the chart values gpufleet sets. Helm merges maps with the
// chart's defaults but replaces lists, so these tolerations and node
// selector terms replace the chart's (which require NFD's or GFD's labels
// and tolerate only the nvidia.com/gpu taint).
type Values struct {
	Config      ValuesConfig        `json:"config"`
	Affinity    *corev1.Affinity    `json:"affinity"`
	Tolerations []corev1.Toleration `json:"tolerations"`
}

// ValuesConfig points the chart at the tree's ConfigMap, and names the key
// of nodes that carry no nvidia.com/device-plugin.config label.
type ValuesConfig struct {
	Name    string `json:"name"`
	Default string `json:"default"`
}
