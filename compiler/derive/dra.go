package derive

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/cloud"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/wire/dradriver"
)

// ClaimName is the name under which a DRA class's pods and main container
// list their GPU claim.
const ClaimName = "gpu"

// Claim is what a DRA class's pods claim: Count whole GPUs of the NVIDIA
// DRA driver's DeviceClass, through the ResourceClaimTemplate Template in
// each of its tenants' namespaces, limited to the driver's product names
// (nil: any GPU).
type Claim struct {
	Template string
	// DeviceClass is the driver chart's gpu.nvidia.com, or for MIG slices
	// the profile's class (dradriver.MIGDeviceClassName).
	DeviceClass string
	Count       int64
	Products    []string
	// MIG is the MIG profile the claim's devices are slices of ("" for
	// whole GPUs).
	MIG string
}

// Quota is ResourceQuota's count of the devices of the claim's
// DeviceClass ("<class>.deviceclass.resource.k8s.io/devices").
func (c *Claim) Quota() corev1.ResourceName {
	return corev1.ResourceName(c.DeviceClass + ".deviceclass.resource.k8s.io/devices")
}

// ClaimTemplateName is a DRA class's ResourceClaimTemplate.
func ClaimTemplateName(class string) string { return class + "-gpu" }

// claim is the class's GPU claim, nil unless it asks through DRA. An
// unqueued class's products and minimum memory become the driver's
// productName values
// (those of every known type whose GPUs qualify), never a memory
// comparison: the driver publishes NVML's total memory, below the
// marketed size the class's minMemoryGiB and the pools' labels use (an
// A10G's 24 GB is 23028Mi), so a CEL memory bound would refuse GPUs the
// device plugin path accepts (docs/dra.md).
func claim(name string, f *spec.Fleet, c spec.Class, cl cloud.Cloud, cat catalog.Catalog) *Claim {
	if f.ClassGPUAPI(c) != spec.GPUAPIDRA {
		return nil
	}
	out := &Claim{Template: ClaimTemplateName(name), DeviceClass: dradriver.DeviceClassGPU, Count: c.GPU.Count}
	if c.GPU.MIG != "" {
		out.DeviceClass, out.MIG = dradriver.MIGDeviceClassName(c.GPU.MIG), c.GPU.MIG
	}
	// A queued class's claim selects nothing: Kueue v0.19 admits a
	// workload whose claims have CEL selectors only while the cluster's
	// ResourceSlices already hold enough matching devices (pkg/dra,
	// validateCELSelectorsAgainstDevices: "insufficient matching devices
	// for CEL selector"), so on a DRA pool scaled to zero it would never
	// admit the workload whose pods would scale it up. Its node affinity
	// (gpufleet's product and memory labels, one product per pool) already
	// keeps its pods to the GPUs it accepts.
	if len(c.GPU.Products) == 0 && c.GPU.MinMemoryGiB == 0 || c.Queued() {
		return out
	}
	seen := map[string]bool{}
	for _, in := range cat {
		g := in.GPU
		if g == nil || g.MemoryGiB < c.GPU.MinMemoryGiB || len(c.GPU.Products) > 0 && !slices.Contains(c.GPU.Products, g.Product) {
			continue
		}
		if devs, ok := cl.DRADevices(in); ok && len(devs) > 0 {
			if v := devs[0].Attributes["productName"].StringValue; v != nil && !seen[*v] {
				seen[*v] = true
				out.Products = append(out.Products, *v)
			}
		}
	}
	sort.Strings(out.Products)
	return out
}

// Selector is the claim's CEL selector over the driver's devices, "" for
// none.
func (c *Claim) Selector(driver string) string {
	if len(c.Products) == 0 {
		return ""
	}
	quoted := make([]string, len(c.Products))
	for i, p := range c.Products {
		quoted[i] = strconv.Quote(p)
	}
	return "device.attributes[" + strconv.Quote(driver) + "].productName in [" + strings.Join(quoted, ", ") + "]"
}

// gpuAPIRequirement keeps each class on the pools that offer GPUs its
// way, in a fleet with DRA pools: a pod asks one way before Kubernetes
// 1.36, and autoscalers choose a group by node labels. From 1.36 the
// driver chart's gpu.nvidia.com DeviceClass maps nvidia.com/gpu to every
// DRA node's whole GPUs (its extendedResourceName), so kube-scheduler
// would give a device-plugin class's pods devices on any DRA node its
// affinity allows: in a fleet with bridged pools (extendedResourceBridge)
// a whole-GPU device-plugin class keeps off the other DRA pools by name,
// and so lands on the device plugin's pools and the bridged ones.
func gpuAPIRequirement(f *spec.Fleet, c spec.Class) []corev1.NodeSelectorRequirement {
	switch {
	case c.GPU == nil || !f.UsesDRA():
		return nil
	case f.ClassGPUAPI(c) == spec.GPUAPIDRA:
		return []corev1.NodeSelectorRequirement{req(keys.LabelGPUAPI, corev1.NodeSelectorOpIn, spec.GPUAPIDRA)}
	case f.Bridges() && c.GPU.MIG == "" && !c.GPU.Shared:
		var claimsOnly []string
		for _, name := range spec.Keys(f.Pools) {
			if p := f.Pools[name]; f.PoolGPUAPI(p) == spec.GPUAPIDRA && !f.Bridged(p) {
				claimsOnly = append(claimsOnly, name)
			}
		}
		if len(claimsOnly) == 0 {
			return nil
		}
		return []corev1.NodeSelectorRequirement{req(keys.LabelPool, corev1.NodeSelectorOpNotIn, claimsOnly...)}
	}
	return []corev1.NodeSelectorRequirement{req(keys.LabelGPUAPI, corev1.NodeSelectorOpNotIn, spec.GPUAPIDRA)}
}

// withGPUAPI applies the fleet's GPU APIs to what Derive decided: DRA
// pools' nodes carry LabelGPUAPI and no cloud GPU label (cluster-autoscaler
// would wait for an nvidia.com/gpu they never advertise, as on MIG pools);
// DRA classes claim their GPUs instead of requesting nvidia.com/gpu; every
// GPU class keeps to its API's pools; tenants of DRA classes get the
// DeviceClass's quota beside nvidia.com/gpu's.
func withGPUAPI(d *Fleet, cat catalog.Catalog) {
	f := d.Spec
	if !f.UsesDRA() {
		return
	}
	for i := range d.Pools {
		p := &d.Pools[i]
		if p.GPU != nil && f.PoolGPUAPI(p.Spec) == spec.GPUAPIDRA {
			p.Labels[keys.LabelGPUAPI] = spec.GPUAPIDRA
			p.CloudLabels = nil
		}
	}
	for i := range d.Classes {
		c := &d.Classes[i]
		c.Claim = claim(c.Name, f, c.Spec, d.Cloud, cat)
		withClaim(c)
		andRequired(&c.Template.Spec, gpuAPIRequirement(f, c.Spec))
	}
	for i := range d.Tenants {
		t := &d.Tenants[i]
		withClaimQuota(d, t.Spec.Classes, t.Hard)
	}
}

// withClaimQuota adds to a quota of nvidia.com/gpu the devices the
// tenant's DRA classes' claims are charged.
func withClaimQuota(d *Fleet, classes []string, hard corev1.ResourceList) {
	gpus, ok := hard[QuotaGPU]
	if !ok {
		return
	}
	for _, name := range classes {
		c := d.Class(name)
		switch {
		case c == nil || c.Claim == nil:
		case c.Claim.MIG == "":
			hard[c.Claim.Quota()] = gpus
		default:
			// A profile's devices: as many as the tenant's GPUs
			// make of it, cut by the fleet's densest DRA layout.
			hard[c.Claim.Quota()] = *resource.NewQuantity(gpus.Value()*migPerGPU(d, c.Claim.MIG), resource.DecimalSI)
		}
	}
}

// migPerGPU is the most slices of the profile one GPU of a DRA pool's
// layout makes.
func migPerGPU(d *Fleet, profile string) int64 {
	var most int64
	for _, p := range d.Pools {
		if p.Labels[keys.LabelGPUAPI] != spec.GPUAPIDRA || p.GPU == nil {
			continue
		}
		layout, _ := catalog.MIGLayout(p.GPU, p.Spec.MIG)
		for _, m := range layout {
			if m.Name == profile {
				most = max(most, m.PerGPU)
			}
		}
	}
	return most
}

// withClaim moves a DRA class's GPUs from its main container's
// nvidia.com/gpu to a claim from its ResourceClaimTemplate.
func withClaim(c *Class) {
	if c.Claim == nil {
		return
	}
	ps := &c.Template.Spec
	ctr := &ps.Containers[0]
	r := GPUResource(c.Spec.GPU)
	delete(ctr.Resources.Requests, r)
	delete(ctr.Resources.Limits, r)
	ctr.Resources.Claims = []corev1.ResourceClaim{{Name: ClaimName}}
	tpl := c.Claim.Template
	ps.ResourceClaims = []corev1.PodResourceClaim{{Name: ClaimName, ResourceClaimTemplateName: &tpl}}
}

// andRequired ANDs rs into every required node selector term of the pod,
// or makes one term of them.
func andRequired(ps *corev1.PodSpec, rs []corev1.NodeSelectorRequirement) {
	if len(rs) == 0 {
		return
	}
	if ps.Affinity == nil {
		ps.Affinity = &corev1.Affinity{}
	}
	if ps.Affinity.NodeAffinity == nil {
		ps.Affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	na := ps.Affinity.NodeAffinity
	if na.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		na.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{}}}
	}
	terms := na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	for i := range terms {
		terms[i].MatchExpressions = append(terms[i].MatchExpressions, rs...)
	}
}
