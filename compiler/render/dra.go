package render

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/dradriver"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// draPools are the pools whose GPUs the NVIDIA DRA driver publishes.
func draPools(d *derive.Fleet) []derive.Pool {
	var out []derive.Pool
	for _, p := range d.Pools {
		if p.Labels[keys.LabelGPUAPI] == spec.GPUAPIDRA {
			out = append(out, p)
		}
	}
	return out
}

// draDriver emits, when a pool uses DRA, the NVIDIA DRA driver chart's
// namespace and values, whose kubelet plugin reaches every DRA pool and
// no other, and Kueue's deviceClassMappings. It reports whether it did.
func (r *renderer) draDriver() bool {
	pools := draPools(r.d)
	if len(pools) == 0 {
		return false
	}
	r.emit(dradriver.NamespacePath, &corev1.Namespace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: meta(dradriver.Namespace, "", nil),
	})
	values := &dradriver.Values{
		ResourceAPIVersion:          dradriver.ResourceAPIVersion,
		GPUResourcesEnabledOverride: true,
		Resources:                   dradriver.Resources{GPUs: dradriver.Enabled{Enabled: true}},
		KubeletPlugin: dradriver.KubeletPlugin{
			Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: keys.LabelGPUAPI, Operator: corev1.NodeSelectorOpIn, Values: []string{spec.GPUAPIDRA}}},
				}}},
			}},
			Tolerations: poolTolerations(pools, nil),
		},
	}
	r.emit(dradriver.ValuesPath, values)
	r.deliver(chart{
		name: dradriver.ChartName, version: dradriver.ChartVersion, release: dradriver.ReleaseName,
		namespace: dradriver.Namespace, repository: dradriver.ChartRepository,
		fluxPath: dradriver.FluxPath, argoPath: dradriver.ArgoCDPath,
	}, values)
	// Kueue counts a claim's devices of the driver's class as
	// nvidia.com/gpu, and a MIG profile's class's as the device plugin's
	// nvidia.com/mig-<profile>, so ClusterQueues cover GPUs the same way on
	// both kinds of pool.
	mappings := []kueue.DeviceClassMapping{{Name: keys.ResourceGPU, DeviceClassNames: []string{dradriver.DeviceClassGPU}}}
	var classes []any
	for _, profile := range migProfiles(r.d) {
		dc := dradriver.MIGDeviceClass(profile)
		classes = append(classes, dc)
		mappings = append(mappings, kueue.DeviceClassMapping{Name: catalog.MIGResource(profile), DeviceClassNames: []string{dc.Name}})
	}
	if len(classes) > 0 {
		r.emit(tree.DRADeviceClassesPath, classes...)
	}
	r.emit(tree.KueueDRAConfigPath, &kueue.Configuration{
		TypeMeta:  metav1.TypeMeta{APIVersion: kueue.ConfigAPIVersion, Kind: "Configuration"},
		Resources: &kueue.ConfigResources{DeviceClassMappings: mappings},
	})
	return true
}

// migProfiles are the MIG profiles DRA classes claim, sorted.
func migProfiles(d *derive.Fleet) []string {
	var out []string
	for _, c := range d.Classes {
		if c.Claim != nil && c.Claim.MIG != "" && !slices.Contains(out, c.Claim.MIG) {
			out = append(out, c.Claim.MIG)
		}
	}
	slices.Sort(out)
	return out
}

// poolTolerations tolerate each of the pools' taints, whatever its value,
// after the first ones given, sorted.
func poolTolerations(pools []derive.Pool, first []corev1.Toleration) []corev1.Toleration {
	tols := append([]corev1.Toleration{}, first...)
	for _, p := range pools {
		for _, t := range p.Taints {
			tol := corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOpExists, Effect: t.Effect}
			if !slices.Contains(tols, tol) {
				tols = append(tols, tol)
			}
		}
	}
	slices.SortStableFunc(tols[len(first):], func(a, b corev1.Toleration) int {
		if a.Key != b.Key {
			return strings.Compare(a.Key, b.Key)
		}
		return strings.Compare(string(a.Effect), string(b.Effect))
	})
	return tols
}

// claimTemplates are a namespace's ResourceClaimTemplates, one per DRA
// class of the tenant: what the resourceclaim controller makes each pod's
// claim from.
func claimTemplates(d *derive.Fleet, t derive.Tenant, ns string, labels map[string]string) []any {
	var out []any
	for _, name := range t.Spec.Classes {
		c := d.Class(name)
		if c == nil || c.Claim == nil {
			continue
		}
		req := resourcev1.ExactDeviceRequest{DeviceClassName: c.Claim.DeviceClass, AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: c.Claim.Count}
		if sel := c.Claim.Selector(dradriver.DeviceClassGPU); sel != "" {
			req.Selectors = []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: sel}}}
		}
		out = append(out, &resourcev1.ResourceClaimTemplate{
			TypeMeta:   metav1.TypeMeta{APIVersion: dradriver.ResourceAPIVersion, Kind: "ResourceClaimTemplate"},
			ObjectMeta: meta(c.Claim.Template, ns, labels),
			Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
				Requests: []resourcev1.DeviceRequest{{Name: derive.ClaimName, Exactly: &req}},
			}}},
		})
	}
	return out
}
