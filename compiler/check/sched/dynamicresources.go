package sched

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/wire/dradriver"
)

// DynamicResources is kube-scheduler's Filter plugin for pods with
// ResourceClaims (v1.35 pkg/scheduler/framework/plugins/dynamicresources):
// it runs Kubernetes' own structured allocator
// (k8s.io/dynamic-resource-allocation/structured, with its CEL) on the
// devices the node's ResourceSlice publishes, with the DRA driver chart's
// DeviceClasses, and refuses a node where the pod's claims do not all
// allocate, in the plugin's words. It runs last of the Filter plugins the
// checker evaluates node by node, as in the default profile.
const ErrReasonClaims = "cannot allocate all claims"

// Claims are a pod's ResourceClaims as the resourceclaim controller makes
// them from its templates, with what they ask, resolved by the readback.
type Claims struct {
	Claims []*resourcev1.ResourceClaim
	// Devices is how many devices the claims ask for.
	Devices int64
	// perType memoises, by instance type and how many devices a node
	// has free, how many pods' claims it allocates at once: its devices
	// are its type's (cloud.Cloud's DRADevices), alike, less those a live
	// node's pods hold.
	perType sync.Map
}

// Asks reports whether the pod has claims.
func (c *Claims) Asks() bool { return c != nil && len(c.Claims) > 0 }

var (
	celCache     = cel.NewCache(64, cel.Features{})
	deviceClass  = classLister(dradriver.DeviceClasses())
	allocFeature = structured.Features{}
)

type classLister []*resourcev1.DeviceClass

func (l classLister) Get(name string) (*resourcev1.DeviceClass, error) {
	for _, c := range l {
		if c.Name == name {
			return c, nil
		}
	}
	return nil, fmt.Errorf("device class %s does not exist", name)
}

func (l classLister) List() ([]*resourcev1.DeviceClass, error) { return l, nil }

type typeDevices struct {
	instanceType string
	devices      int
}

// dynamicResources is the plugin's verdict for one pod on an empty node.
func dynamicResources(pi *PodInfo, n Node) []string {
	if !pi.Claims.Asks() {
		return nil
	}
	if pi.Claims.perNode(n) < 1 {
		return []string{ErrReasonClaims}
	}
	return nil
}

func claimsCompared(pi *PodInfo, n Node) string {
	if !pi.Claims.Asks() {
		return ""
	}
	return fmt.Sprintf("claimed/published: %d device(s) of %s / %d device(s)", pi.Claims.Devices, dradriver.DeviceClassGPU, len(n.Devices))
}

// perNode is how many pods' claims the node allocates at once: the real
// allocator run on its ResourceSlice with one pod's claims, then another's
// on what is left, until one does not allocate.
func (c *Claims) perNode(n Node) int64 {
	if len(n.Devices) == 0 {
		return 0
	}
	key := typeDevices{n.InstanceType, len(n.Devices)}
	if v, ok := c.perType.Load(key); ok {
		return v.(int64)
	}
	k := allocateRepeatedly(c.Claims, n)
	c.perType.Store(key, k)
	return k
}

func allocateRepeatedly(claims []*resourcev1.ResourceClaim, n Node) int64 {
	ctx := context.Background()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: n.Labels}}
	slice := &resourcev1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: n.Name + "-" + dradriver.DeviceClassGPU},
		Spec: resourcev1.ResourceSliceSpec{
			Driver: dradriver.DeviceClassGPU, NodeName: &node.Name,
			Pool:    resourcev1.ResourcePool{Name: n.Name, ResourceSliceCount: 1},
			Devices: n.Devices,
		},
	}
	state := structured.AllocatedState{AllocatedDevices: sets.New[structured.DeviceID](), AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](), AggregatedCapacity: structured.NewConsumedCapacityCollection()}
	var k int64
	for k < int64(len(n.Devices)) {
		a, err := structured.NewAllocator(ctx, allocFeature, state, deviceClass, []*resourcev1.ResourceSlice{slice}, celCache)
		if err != nil {
			return k
		}
		res, err := a.Allocate(ctx, node, claims)
		if err != nil || len(res) != len(claims) {
			return k
		}
		for _, r := range res {
			for _, d := range r.Devices.Results {
				state.AllocatedDevices.Insert(structured.MakeDeviceID(d.Driver, d.Pool, d.Device))
			}
		}
		k++
	}
	return k
}

// DynamicResources is the Filter plugin, on a synthesised node with the
// devices it publishes.
func DynamicResources(pi *PodInfo, n Node) Status {
	return Status{Reasons: dynamicResources(pi, n), Compared: claimsCompared(pi, n)}
}

// PodsPerNodeOn is PodsPerNode on a synthesised node, where the devices it
// publishes bound a pod with claims too.
func PodsPerNodeOn(pi *PodInfo, n Node) int64 {
	k := PodsPerNode(pi, n.Node)
	if pi.Claims.Asks() {
		k = min(k, pi.Claims.perNode(n))
	}
	return k
}

// FilterPopulatedDRA is FilterPopulated for a pod with claims, on nodes
// with the devices they publish (by node name): where the other filters
// pass, DynamicResources on the devices the existing pods' claims left,
// each existing pod with claims taken to hold as many devices as the
// pod's own claims (they are the class's pods).
func FilterPopulatedDRA(pod *corev1.Pod, claims *Claims, nodes []*corev1.Node, devices map[string][]resourcev1.Device, existing []*corev1.Pod) map[string][]string {
	out := FilterPopulated(pod, nodes, existing)
	if !claims.Asks() {
		return out
	}
	held := map[string]int64{}
	for _, p := range existing {
		if len(p.Spec.ResourceClaims) > 0 {
			held[p.Spec.NodeName] += claims.Devices
		}
	}
	pi := &PodInfo{Claims: claims}
	for _, n := range nodes {
		if len(out[n.Name]) > 0 {
			continue
		}
		free := devices[n.Name]
		free = free[:max(0, int64(len(free))-held[n.Name])]
		out[n.Name] = dynamicResources(pi, Node{InstanceType: n.Labels[keys.LabelInstanceType], Node: n, Devices: free})
	}
	return out
}
