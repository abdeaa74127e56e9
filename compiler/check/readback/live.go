package readback

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/nodes"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/dradriver"
)

// FromLive is FromTree with each pool's nodes those of a running cluster
// (mapped by nodes.PoolOf), each counted once, with what its bound pods
// request taken off its allocatable, as NodeResourcesFit compares them.
// Pods that succeeded or failed hold nothing, as the scheduler's cache
// leaves them out; nodes of no pool are left out (drift reports them).
// What live nodes advertise is taken as they say it: the device plugin's
// reach is not applied to them. A DRA node's devices are its type's where
// the DRA kubelet plugin's pod runs on it (liveDevices).
func FromLive(t tree.Typed, groups []nodes.Group, cat catalog.Catalog, live []corev1.Node, pods []corev1.Pod) (*sched.Cluster, error) {
	cl, err := FromTree(t, groups, cat)
	if err != nil {
		return nil, err
	}
	templates, err := claimTemplates(t)
	if err != nil {
		return nil, err
	}
	classes, err := deviceClasses(t)
	if err != nil {
		return nil, err
	}
	on := map[string][]*corev1.Pod{}
	for i := range pods {
		p := &pods[i]
		if p.Spec.NodeName != "" && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			on[p.Spec.NodeName] = append(on[p.Spec.NodeName], p)
		}
	}
	at := map[string]int{}
	for i := range cl.Pools {
		cl.Pools[i].Nodes, cl.Pools[i].Live, cl.Pools[i].Standing = nil, true, 0
		at[cl.Pools[i].Name] = i
	}
	pools := nodes.PoolsOf(groups)
	for i := range live {
		n := &live[i]
		pool, _ := pools.Of(n.Labels)
		if pool == "" {
			continue
		}
		if n.Status.Allocatable == nil {
			return nil, fmt.Errorf("check: node %s reports no allocatable resources", n.Name)
		}
		p := &cl.Pools[at[pool]]
		it := n.Labels[keys.LabelInstanceType]
		p.Nodes = append(p.Nodes, sched.Node{InstanceType: it, Zone: n.Labels[keys.LabelZone], Node: sched.WithRequested(n, on[n.Name]),
			Devices: liveDevices(n, cat[it], on[n.Name], templates, classes)})
		p.Standing++
	}
	return cl, nil
}

// liveDevices are the devices a live DRA node has free: its type's, where
// a pod of the DRA driver's kubelet plugin runs on it, less as many as
// its bound pods' claims ask (the node's devices are alike, so which ones
// does not matter). Live ResourceSlices and claims are not read.
func liveDevices(n *corev1.Node, in catalog.Instance, pods []*corev1.Pod, templates map[string]resourcev1.ResourceClaimTemplate, classes []*resourcev1.DeviceClass) []resourcev1.Device {
	if !isDRA(n) {
		return nil
	}
	plugin := false
	for _, p := range pods {
		if ref := metav1.GetControllerOf(p); ref != nil && ref.Kind == "DaemonSet" && ref.Name == DRAKubeletPlugin && p.Namespace == dradriver.Namespace {
			plugin = true
		}
	}
	if !plugin {
		return nil
	}
	devices := draDevices(in, n.Labels[keys.LabelMIGConfig])
	for _, p := range pods {
		claims, err := podClaims(p, templates, classes)
		if err != nil || claims == nil {
			continue
		}
		devices = claims.Left(sched.Node{InstanceType: in.Name, Node: n, Devices: devices}, 1)
	}
	return devices
}
