// Package dradriver is the NVIDIA DRA driver for GPUs as the tree targets
// it: its Helm chart's values (sigs.k8s.io/dra-driver-nvidia-gpu v0.4.1,
// deployments/helm/dra-driver-nvidia-gpu) and the DeviceClass the chart
// makes, which claims name.
package dradriver

import (
	"fmt"
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/catalog"
)

// The chart, as the tree's values target it: helm install ReleaseName
// <chart> --version ChartVersion --namespace Namespace -f ValuesPath.
const (
	ChartName    = "dra-driver-nvidia-gpu"
	ChartVersion = "0.4.1"
	// ChartRepository is the OCI repository the chart is published to, as
	// the release's own docs/install.md installs it
	// (oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu).
	ChartRepository = "oci://registry.k8s.io/dra-driver-nvidia/charts"
	// FluxPath holds a Flux HelmRepository (OCI) and HelmRelease, and
	// ArgoCDPath an Argo CD Application, that install the chart with the
	// same values as ValuesPath.
	FluxPath    = "agents/dra-driver-nvidia-gpu/flux.yaml"
	ArgoCDPath  = "agents/dra-driver-nvidia-gpu/argocd-application.yaml"
	ReleaseName = "dra-driver-nvidia-gpu"
	Namespace   = "dra-driver-nvidia-gpu"
	ValuesPath  = "agents/dra-driver-nvidia-gpu/values.yaml"
	// NamespacePath holds the namespace the chart installs into.
	NamespacePath = "cluster/dra-driver-nvidia-gpu-namespace.yaml"
	// ResourceAPIVersion is the DRA API the chart's objects use; Helm
	// asks the cluster unless it is set, and resource.k8s.io/v1 is what
	// Kubernetes 1.34 and later serve.
	ResourceAPIVersion = "resource.k8s.io/v1"
)

// Values are the chart values gpufleet sets. Helm replaces lists, so the
// kubelet plugin's node selector terms and tolerations replace the chart's
// (which require NFD's or GFD's labels, none of which gpufleet's nodes
// carry, and tolerate only the nvidia.com/gpu taint).
type Values struct {
	ResourceAPIVersion string `json:"resourceApiVersion"`
	// GPUResourcesEnabledOverride acknowledges what the chart's
	// templates/validation.yaml asks before it publishes whole GPUs: that
	// the device plugin does not run on the same nodes (the tree's device
	// plugin values shun gpufleet.dev/gpu-api=dra).
	GPUResourcesEnabledOverride bool          `json:"gpuResourcesEnabledOverride"`
	Resources                   Resources     `json:"resources"`
	KubeletPlugin               KubeletPlugin `json:"kubeletPlugin"`
}

// Resources are the driver's two halves: GPUs, and ComputeDomains (the
// multi-node NVLink of GB200 racks, whose controller Deployment would need
// a node of its own), which gpufleet turns off.
type Resources struct {
	GPUs           Enabled `json:"gpus"`
	ComputeDomains Enabled `json:"computeDomains"`
}

// Enabled is a chart switch.
type Enabled struct {
	Enabled bool `json:"enabled"`
}

// KubeletPlugin places the driver's kubelet plugin DaemonSet.
type KubeletPlugin struct {
	Affinity    *corev1.Affinity    `json:"affinity"`
	Tolerations []corev1.Toleration `json:"tolerations"`
}

// DeviceClassGPU is the chart's DeviceClass for whole GPUs
// (templates/deviceclass-gpu.yaml), which the driver's devices of type
// "gpu" match. e2e renders the chart and holds this copy to it.
const DeviceClassGPU = "gpu.nvidia.com"

// ExtendedResourceGPU is the extended resource the chart's whole-GPU
// DeviceClass names (spec.extendedResourceName): templates/deviceclass-gpu.yaml
// writes it whenever it renders for resource.k8s.io/v1, as the tree's
// values have it. The API server keeps it where DRAExtendedResource is on
// (beta and on by default from Kubernetes 1.36; before, it drops the
// field), and kube-scheduler then gives a pod asking for nvidia.com/gpu
// devices of the class on any node that advertises none: the DRA
// extended-resource bridge, cluster-wide (sched's bridge.go).
const ExtendedResourceGPU = "nvidia.com/gpu"

// DeviceClasses are the chart's DeviceClasses that gpufleet's claims name,
// as the chart renders them for resource.k8s.io/v1 and a Kubernetes 1.36
// API server keeps them.
func DeviceClasses() []*resourcev1.DeviceClass {
	return []*resourcev1.DeviceClass{{
		TypeMeta:   metav1.TypeMeta{APIVersion: ResourceAPIVersion, Kind: "DeviceClass"},
		ObjectMeta: metav1.ObjectMeta{Name: DeviceClassGPU},
		Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{
			Expression: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'",
		}}}, ExtendedResourceName: new(ExtendedResourceGPU)},
	}}
}

// DeviceClassMIG is the chart's DeviceClass for MIG devices
// (templates/deviceclass-mig.yaml): every profile's.
const DeviceClassMIG = "mig.nvidia.com"

// MIGDeviceClassName is the DeviceClass gpufleet writes for a MIG profile:
// one per profile in use, so that a ResourceQuota counts each profile's
// devices apart ("<class>.deviceclass.resource.k8s.io/devices"), as the
// device plugin's nvidia.com/mig-<profile> resources are. "+" (the media
// extensions' "1g.10gb+me") is no DNS character.
func MIGDeviceClassName(profile string) string {
	return "mig-" + strings.ReplaceAll(profile, "+", "-") + ".gpufleet.dev"
}

// MIGDeviceClass selects the driver's static MIG devices of one profile:
// the chart's mig.nvidia.com selector, and the profile attribute the
// kubelet plugin gives each MIG device (cmd/gpu-kubelet-plugin/mig.go,
// CommonAttributesMig).
func MIGDeviceClass(profile string) *resourcev1.DeviceClass {
	return &resourcev1.DeviceClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: ResourceAPIVersion, Kind: "DeviceClass"},
		ObjectMeta: metav1.ObjectMeta{Name: MIGDeviceClassName(profile)},
		Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{
			Expression: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig' && device.attributes['gpu.nvidia.com'].profile == '" + profile + "'",
		}}}},
	}
}

// MIGDevices are the static MIG devices the driver's kubelet plugin
// publishes for GPUs the MIG manager cut by a layout: each GPU's MIG
// devices, and not the GPU itself (cmd/gpu-kubelet-plugin/nvlib.go, a
// MIG-enabled GPU's allocatables), with the parent's attributes, type
// "mig" and the profile (mig.go, CommonAttributesMig). The driver names
// them by NVML's profile ID and placement, which only a GPU knows; these
// names are unique as the driver's are, and no selector reads them.
func MIGDevices(gpus []resourcev1.Device, profiles []catalog.MIGProfile) []resourcev1.Device {
	var out []resourcev1.Device
	for _, g := range gpus {
		for _, p := range profiles {
			for k := range p.PerGPU {
				attrs := maps.Clone(g.Attributes)
				attrs["type"] = resourcev1.DeviceAttribute{StringValue: new("mig")}
				attrs["profile"] = resourcev1.DeviceAttribute{StringValue: new(p.Name)}
				out = append(out, resourcev1.Device{
					Name:       fmt.Sprintf("%s-mig-%s-%d", g.Name, strings.NewReplacer(".", "", "+", "").Replace(p.Name), k),
					Attributes: attrs,
				})
			}
		}
	}
	return out
}
