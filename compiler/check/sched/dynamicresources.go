package sched

import (
	"context"
	"fmt"
	"slices"
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
// ResourceClaims (v1.36 pkg/scheduler/framework/plugins/dynamicresources):
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
	// Classes are the tree's DeviceClasses the claims may name, beside the
	// driver chart's (the MIG profiles').
	Classes []*resourcev1.DeviceClass
	// Devices is how many devices the claims ask for.
	Devices int64
	// Extended is the extended resource the claims stand for where they
	// are the DRA extended-resource bridge's (PodInfo.Bridge), "" for a
	// pod's own.
	Extended corev1.ResourceName
	// perType memoises, by instance type and how many devices a node
	// has free, how many pods' claims it allocates at once: its devices
	// are its type's (cloud.Cloud's DRADevices), alike, less those a live
	// node's pods hold.
	perType sync.Map
}

// Asks reports whether the pod has claims.
func (c *Claims) Asks() bool { return c != nil && len(c.Claims) > 0 }

// AllocatorFeatures and CELFeatures are the allocator's and its CEL's
// features as kube-scheduler v1.36 runs them with its default feature gates
// (dynamicresources.AllocatorFeatures and New): the allocator picks its
// implementation by them. make test-kube-scheduler holds both to the
// plugin's own (TestAllocatorFeatures).
var (
	AllocatorFeatures = structured.Features{
		AdminAccess:            true, // DRAAdminAccess, GA in 1.36
		ConsumableCapacity:     true, // DRAConsumableCapacity, beta and on in 1.36
		DeviceBindingAndStatus: true, // DRADeviceBindingConditions and DRAResourceClaimDeviceStatus
		DeviceTaints:           true, // DRADeviceTaints, beta and on in 1.36
		PartitionableDevices:   true, // DRAPartitionableDevices, beta and on in 1.36
		PrioritizedList:        true, // DRAPrioritizedList, GA in 1.36
	}
	CELFeatures = cel.Features{EnableConsumableCapacity: true}
)

var (
	celCache    = cel.NewCache(64, CELFeatures)
	deviceClass = classLister(dradriver.DeviceClasses())
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

// className is the DeviceClass the claims ask devices of (the first's).
func (c *Claims) className() string {
	for _, rc := range c.Claims {
		for _, r := range rc.Spec.Devices.Requests {
			if r.Exactly != nil {
				return r.Exactly.DeviceClassName
			}
		}
	}
	return dradriver.DeviceClassGPU
}

// lister is the chart's DeviceClasses and the tree's.
func (c *Claims) lister() classLister {
	if len(c.Classes) == 0 {
		return deviceClass
	}
	return append(slices.Clip(deviceClass), c.Classes...)
}

// typeDevices keys perNode: a node's type, MIG layout and free devices.
type typeDevices struct {
	instanceType, layout string
	devices              int
}

// dynamicResources is the plugin's verdict for one pod on an empty node.
func dynamicResources(pi *PodInfo, n Node) []string {
	claims := pi.ClaimsOn(n.Node)
	if !claims.Asks() {
		return nil
	}
	if claims.perNode(n) < 1 {
		return []string{ErrReasonClaims}
	}
	return nil
}

func claimsCompared(pi *PodInfo, n Node) string {
	claims := pi.ClaimsOn(n.Node)
	if !claims.Asks() {
		return ""
	}
	if claims.Extended != "" {
		return fmt.Sprintf("claimed/published: %d device(s) of %s for %s / %d device(s)", claims.Devices, claims.className(), claims.Extended, len(n.Devices))
	}
	return fmt.Sprintf("claimed/published: %d device(s) of %s / %d device(s)", claims.Devices, claims.className(), len(n.Devices))
}

// perNode is how many pods' claims the node allocates at once: the real
// allocator run on its ResourceSlice with one pod's claims, then another's
// on what is left, until one does not allocate.
func (c *Claims) perNode(n Node) int64 {
	if len(n.Devices) == 0 {
		return 0
	}
	key := typeDevices{n.InstanceType, n.Labels[keys.LabelMIGConfig], len(n.Devices)}
	if v, ok := c.perType.Load(key); ok {
		return v.(int64)
	}
	k, _ := c.allocate(n, int64(len(n.Devices)))
	c.perType.Store(key, k)
	return k
}

// Left are the node's devices the claims leave free once pods of them
// (each its own claims, alike) hold theirs, as the allocator gave them out.
func (c *Claims) Left(n Node, pods int64) []resourcev1.Device {
	_, left := c.allocate(n, pods)
	return left
}

// allocate allocates one pod's claims after another on the node's
// devices, at most pods times, and returns how many allocated and the
// devices left.
func (c *Claims) allocate(n Node, pods int64) (int64, []resourcev1.Device) {
	k, held := allocateRepeatedly(c.Claims, c.lister(), n, pods)
	return k, slices.DeleteFunc(slices.Clone(n.Devices), func(d resourcev1.Device) bool { return held.Has(d.Name) })
}

func allocateRepeatedly(claims []*resourcev1.ResourceClaim, classes classLister, n Node, pods int64) (int64, sets.Set[string]) {
	held := sets.New[string]()
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
	matching, ok := matches(claims, classes, n.Devices)
	var k int64
	for ok && k < min(pods, int64(len(n.Devices))) {
		// The allocator searches every combination of the matching devices
		// before it gives up on a count they cannot meet (2^n steps: a
		// claim of 30 MIG slices where 26 are left takes 2^26, where
		// kube-scheduler's Filter times out after 10 s and refuses the
		// node). A pod of gpufleet's has one claim of one request with no
		// constraints (readback refuses others), which the allocator meets
		// greedily wherever enough free devices match; so where too few
		// do, it is refused here.
		for _, m := range matching {
			free := 0
			for _, d := range m.devices {
				if !held.Has(d) {
					free++
				}
			}
			if int64(free) < m.count {
				return k, held
			}
		}
		a, err := structured.NewAllocator(ctx, AllocatorFeatures, state, classes, []*resourcev1.ResourceSlice{slice}, celCache)
		if err != nil {
			return k, held
		}
		res, err := a.Allocate(ctx, node, claims)
		if err != nil || len(res) != len(claims) {
			return k, held
		}
		for _, r := range res {
			for _, d := range r.Devices.Results {
				state.AllocatedDevices.Insert(structured.MakeDeviceID(d.Driver, d.Pool, d.Device))
				held.Insert(d.Device)
			}
		}
		k++
	}
	return k, held
}

// DynamicResources is the Filter plugin, on a synthesised node with the
// devices it publishes.
func DynamicResources(pi *PodInfo, n Node) Status {
	return Status{Reasons: dynamicResources(pi, n), Compared: claimsCompared(pi, n)}
}

// request is one of the claims' requests: the devices that its class's
// selectors and its own match, and how many it asks.
type request struct {
	devices []string
	count   int64
}

// matches are the devices each request of the claims matches, by the
// allocator's own CEL; false where a request is not one gpufleet writes
// (readback refuses those) or a selector does not evaluate.
func matches(claims []*resourcev1.ResourceClaim, classes classLister, devices []resourcev1.Device) ([]request, bool) {
	ctx := context.Background()
	var out []request
	for _, rc := range claims {
		for _, r := range rc.Spec.Devices.Requests {
			ex := r.Exactly
			if ex == nil || ex.AllocationMode != resourcev1.DeviceAllocationModeExactCount {
				return nil, false
			}
			class, err := classes.Get(ex.DeviceClassName)
			if err != nil {
				return nil, false
			}
			var exprs []string
			for _, sel := range append(slices.Clone(class.Spec.Selectors), ex.Selectors...) {
				if sel.CEL != nil {
					exprs = append(exprs, sel.CEL.Expression)
				}
			}
			req := request{count: ex.Count}
			for _, d := range devices {
				in := cel.Device{Driver: dradriver.DeviceClassGPU, Attributes: d.Attributes, Capacity: d.Capacity}
				ok := true
				for _, e := range exprs {
					c := celCache.GetOrCompile(e)
					if c.Error != nil {
						return nil, false
					}
					if m, _, err := c.DeviceMatches(ctx, in); err != nil || !m {
						ok = false
						break
					}
				}
				if ok {
					req.devices = append(req.devices, d.Name)
				}
			}
			out = append(out, req)
		}
	}
	return out, true
}

// PodsPerNodeOn is PodsPerNode on a synthesised node, where the devices it
// publishes bound a pod with claims too.
func PodsPerNodeOn(pi *PodInfo, n Node) int64 {
	k := PodsPerNode(pi, n.Node)
	if claims := pi.ClaimsOn(n.Node); claims.Asks() {
		k = min(k, claims.perNode(n))
	}
	return k
}

// FilterPopulatedDRA is FilterPopulated for a pod with claims, on nodes
// with the devices they publish (by node name): where the other filters
// pass, DynamicResources on the devices the existing pods' claims left,
// each existing pod with claims taken to hold as many devices as the
// pod's own claims (they are the class's pods). Claims that are the
// extended-resource bridge's (Claims.Extended) are the pod's where a node
// advertises none of the resource, and held there by each existing pod
// that requests it.
func FilterPopulatedDRA(pod *corev1.Pod, claims *Claims, nodes []*corev1.Node, devices map[string][]resourcev1.Device, existing []*corev1.Pod) map[string][]string {
	pi := NewPodInfo(pod)
	if claims != nil && claims.Extended != "" {
		pi.Bridge = claims
	} else {
		pi.Claims = claims
	}
	out := filterPopulated(pi, nodes, existing)
	if !claims.Asks() {
		return out
	}
	held := map[string]int64{}
	for _, p := range existing {
		if len(p.Spec.ResourceClaims) > 0 {
			held[p.Spec.NodeName]++
		} else if q := PodRequest(p)[claims.Extended]; claims.Extended != "" && !q.IsZero() {
			held[p.Spec.NodeName]++
		}
	}
	for _, n := range nodes {
		if len(out[n.Name]) > 0 || !pi.ClaimsOn(n).Asks() {
			continue
		}
		node := Node{InstanceType: n.Labels[keys.LabelInstanceType], Node: n, Devices: devices[n.Name]}
		node.Devices = claims.Left(node, held[n.Name])
		out[n.Name] = dynamicResources(pi, node)
	}
	return out
}
