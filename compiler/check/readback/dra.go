package readback

import (
	"fmt"
	"path"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/cloud"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/dradriver"
)

// DRAPluginPod is the NVIDIA DRA driver's kubelet plugin pod as the
// scheduler sees it, from the chart values in the tree; nil if the tree
// has none.
func DRAPluginPod(t tree.Tree) (*corev1.Pod, error) {
	raw, ok := t[dradriver.ValuesPath]
	if !ok {
		return nil, nil
	}
	var v dradriver.Values
	if err := yaml.UnmarshalStrict(raw, &v); err != nil {
		return nil, fmt.Errorf("check: %s: %w", dradriver.ValuesPath, err)
	}
	tols := append(append([]corev1.Toleration{}, v.KubeletPlugin.Tolerations...), daemonTolerations...)
	return &corev1.Pod{Spec: corev1.PodSpec{Affinity: v.KubeletPlugin.Affinity, Tolerations: tols}}, nil
}

// DRAKubeletPlugin is the chart's kubelet plugin DaemonSet, by the name
// the tree's release gives it.
const DRAKubeletPlugin = dradriver.ReleaseName + "-kubelet-plugin"

// reasonNoDRAValues is why the kubelet plugin runs nowhere.
const reasonNoDRAValues = "the tree has no " + dradriver.ValuesPath

// isDRA reports whether the node's GPUs are meant for the DRA driver.
func isDRA(n *corev1.Node) bool { return n.Labels[keys.LabelGPUAPI] == spec.GPUAPIDRA }

// withDRAPlugin gives the nodes of DRA pools the devices the driver's
// kubelet plugin publishes where it runs, and records why it does not
// run, for the DRAPlugin check; and records a kubelet plugin on a node
// whose GPUs the device plugin advertises.
func withDRAPlugin(c *sched.Cluster, pod *corev1.Pod, cat catalog.Catalog) {
	plugin := newDaemon(pod)
	for i := range c.Pools {
		p := &c.Pools[i]
		for j := range p.Nodes {
			n := &p.Nodes[j]
			why := reasonNoDRAValues
			if plugin != nil {
				why = plugin.reach(n.Node)
			}
			switch {
			case isDRA(n.Node) && why != "":
				p.NoDRAPlugin = why
			case isDRA(n.Node):
				n.Devices = draDevices(cat[n.InstanceType], n.Labels[keys.LabelMIGConfig])
			case why == "" && sched.HasGPUs(n.Node):
				p.DRAPluginOnDevicePlugin = true
			}
		}
	}
}

// draDevices are the devices a node of the type publishes, as the cloud
// that knows them says; with its GPUs cut by the MIG layout, their MIG
// devices instead.
func draDevices(in catalog.Instance, layout string) []resourcev1.Device {
	for _, cl := range cloud.All {
		if devs, ok := cl.DRADevices(in); ok {
			if layout == "" {
				return devs
			}
			profiles, _ := catalog.MIGLayout(in.GPU, layout)
			return dradriver.MIGDevices(devs, profiles)
		}
	}
	return nil
}

// claimTemplates are the tree's ResourceClaimTemplates by name. A DRA
// class's template is the same in each of its tenants' namespaces.
func claimTemplates(t tree.Typed) (map[string]resourcev1.ResourceClaimTemplate, error) {
	out := map[string]resourcev1.ResourceClaimTemplate{}
	for _, p := range t.Paths() {
		if path.Base(p) != tree.ResourceClaimTemplatesFile {
			continue
		}
		var ts []resourcev1.ResourceClaimTemplate
		if err := DecodeAll(t, p, &ts); err != nil {
			return nil, fmt.Errorf("check: %s: %w", p, err)
		}
		for _, rct := range ts {
			out[rct.Name] = rct
		}
	}
	return out, nil
}

// deviceClasses are the tree's own DeviceClasses (a MIG profile's each).
func deviceClasses(t tree.Typed) ([]*resourcev1.DeviceClass, error) {
	if _, ok := t.Tree[tree.DRADeviceClassesPath]; !ok {
		return nil, nil
	}
	var dcs []resourcev1.DeviceClass
	if err := DecodeAll(t, tree.DRADeviceClassesPath, &dcs); err != nil {
		return nil, fmt.Errorf("check: %s: %w", tree.DRADeviceClassesPath, err)
	}
	out := make([]*resourcev1.DeviceClass, len(dcs))
	for i := range dcs {
		out[i] = &dcs[i]
	}
	return out, nil
}

// podClaims are the claims the resourceclaim controller makes for the
// pod from its templates; an error names a template the tree lacks, for
// which the controller makes nothing and the pod waits for ever.
func podClaims(pod *corev1.Pod, templates map[string]resourcev1.ResourceClaimTemplate, classes []*resourcev1.DeviceClass) (*sched.Claims, error) {
	if len(pod.Spec.ResourceClaims) == 0 {
		return nil, nil
	}
	if len(pod.Spec.ResourceClaims) > 1 {
		return nil, fmt.Errorf("the pod lists %d claims: gpufleet writes one, which the checker's allocation is proved for", len(pod.Spec.ResourceClaims))
	}
	out := &sched.Claims{Classes: classes}
	for _, rc := range pod.Spec.ResourceClaims {
		if rc.ResourceClaimTemplateName == nil {
			return nil, fmt.Errorf("pod claim %s names no ResourceClaimTemplate: gpufleet writes templates only", rc.Name)
		}
		rct, ok := templates[*rc.ResourceClaimTemplateName]
		if !ok {
			return nil, fmt.Errorf("pod claim %s names ResourceClaimTemplate %s, which the tree lacks", rc.Name, *rc.ResourceClaimTemplateName)
		}
		claim := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: pod.Name + "-" + rc.Name}, Spec: *rct.Spec.Spec.DeepCopy()}
		// What gpufleet writes, which the checker's allocation is proved
		// for (and which the allocator meets without a search).
		d := claim.Spec.Devices
		if len(d.Requests) != 1 || d.Requests[0].Exactly == nil || d.Requests[0].Exactly.AllocationMode != resourcev1.DeviceAllocationModeExactCount || len(d.Constraints) > 0 || len(d.Config) > 0 {
			return nil, fmt.Errorf("ResourceClaimTemplate %s: want one request of an exact count of devices, with no constraints or config, as gpufleet writes", rct.Name)
		}
		out.Devices += d.Requests[0].Exactly.Count
		out.Claims = append(out.Claims, claim)
	}
	return out, nil
}
