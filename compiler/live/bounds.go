package live

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/gpufleet/gpufleet/compiler/keys"
)

// The spec's ceilings, applied to what a live node advertises and a live
// pod requests, so that the checker's int64 milli-unit sums cannot wrap (a
// GPU count near int64's maximum made a pool's capacity negative, 1e100
// bytes of memory made it 0): an instance type has at most 4096 vCPUs,
// 64 TiB of memory and 1000 pods (schema/fleet.cue, instanceTypes), and at
// most 64 GPUs, each shared by at most 64 replicas (gpu.count,
// sharing.replicas). Any other resource (ephemeral-storage, hugepages,
// vpc.amazonaws.com/efa) has the ceiling of a quota's memory, 1Pi.
var ceilings = map[corev1.ResourceName]resource.Quantity{
	corev1.ResourceCPU:    resource.MustParse("4096"),
	corev1.ResourceMemory: resource.MustParse("64Ti"),
	corev1.ResourcePods:   resource.MustParse("1000"),
	keys.ResourceGPU:      resource.MustParse("4096"),
}

var otherCeiling = resource.MustParse("1Pi")

func ceiling(name corev1.ResourceName) resource.Quantity {
	if c, ok := ceilings[name]; ok {
		return c
	}
	if strings.HasPrefix(string(name), "nvidia.com/mig-") {
		return ceilings[keys.ResourceGPU]
	}
	return otherCeiling
}

// bounded checks each quantity of l: not negative, and at most its
// ceiling.
func bounded(field string, l corev1.ResourceList) error {
	for _, name := range sortedNames(l) {
		q := l[name]
		if q.Sign() < 0 {
			return fmt.Errorf("%s[%s]: %s is negative", field, name, q.String())
		}
		if c := ceiling(name); q.Cmp(c) > 0 {
			return fmt.Errorf("%s[%s]: %s is more than %s, the most a node of the spec's instance types has (schema/fleet.cue)", field, name, shorten(q.String()), c.String())
		}
	}
	return nil
}

func nodeBounded(n *corev1.Node) error {
	if err := bounded("status.capacity", n.Status.Capacity); err != nil {
		return err
	}
	return bounded("status.allocatable", n.Status.Allocatable)
}

// requested is what the pods read so far request on each node.
type requested map[string]corev1.ResourceList

func newRequested(nodes []corev1.Node) requested {
	on := make(requested, len(nodes))
	for _, n := range nodes {
		on[n.Name] = corev1.ResourceList{}
	}
	return on
}

// podBounded checks a pod's containers' requests and limits, its node,
// and that the pods on that node request at most the ceilings together.
// A pod that has ended holds nothing, as kube-scheduler counts it.
func podBounded(p *corev1.Pod, nodesFile string, on requested) error {
	for _, cs := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for i := range cs {
			c := &cs[i]
			if err := bounded("container "+c.Name+": resources.requests", c.Resources.Requests); err != nil {
				return err
			}
			if err := bounded("container "+c.Name+": resources.limits", c.Resources.Limits); err != nil {
				return err
			}
		}
	}
	if err := bounded("spec.overhead", p.Spec.Overhead); err != nil {
		return err
	}
	if p.Spec.NodeName == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return nil
	}
	sum, ok := on[p.Spec.NodeName]
	if !ok {
		return fmt.Errorf("bound to node %s, which %s does not list (list nodes and pods at one moment)", p.Spec.NodeName, nodesFile)
	}
	for name, q := range resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{}) {
		total := sum[name]
		total.Add(q)
		if c := ceiling(name); total.Cmp(c) > 0 {
			return fmt.Errorf("the pods on node %s request %s of %s together, more than %s, the most a node of the spec's instance types has", p.Spec.NodeName, shorten(total.String()), name, c.String())
		}
		sum[name] = total
	}
	return nil
}

func sortedNames(l corev1.ResourceList) []corev1.ResourceName {
	return slices.Sorted(maps.Keys(l))
}

// shorten keeps an echoed quantity to a readable length.
func shorten(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}
