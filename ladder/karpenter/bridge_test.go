package nodediff

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/karpenter/pkg/controllers/nodeclaim/lifecycle"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/wire/dradriver"
)

// TestKarpenterBridge says, in Karpenter v1.15's own code, what it does
// for a pod that asks for nvidia.com/gpu on a NodePool whose GPUs the DRA
// driver publishes (the extended-resource bridge): the pod has no DRA
// requirements (pkg/utils/pod HasDRARequirements reads claims only), the
// instance types carry their GPUs as nvidia.com/gpu, so Solve launches a
// NodeClaim that requests it; the node, where the device plugin does not
// run, never advertises it, and the NodeClaim lifecycle's
// RequestedResourcesRegistered keeps it uninitialized: "Resource
// "nvidia.com/gpu" was requested but not registered" (ResourceNotRegistered).
// vet refuses extendedResourceBridge on Karpenter pools in those words. The
// same NodeClaim on a node that advertises the GPUs initializes, so the
// test can fail.
func TestKarpenterBridge(t *testing.T) {
	_, described, _ := setup(t)
	f := load(t, "dra", "../../fleets/dra")
	ctx := f.context(t)
	its := f.instanceTypes(t, ctx, described)
	daemons := f.daemons(t)
	var np = f.pools[0]
	for _, p := range f.pools {
		if p.Name == "l4-dra" {
			np = p
		}
	}
	c := f.cl.Class("embed")
	if np.Name != "l4-dra" || c == nil {
		t.Fatal("fleets/dra has no Karpenter DRA pool l4-dra or class embed")
	}
	// The embed class as a device-plugin class would ask: nvidia.com/gpu,
	// no claim; its affinity keeps it to the L4 DRA pool.
	ps := pods(c)
	for _, p := range ps {
		p.Spec.ResourceClaims = nil
		ctr := &p.Spec.Containers[0]
		ctr.Resources.Claims = nil
		one := resource.MustParse("1")
		ctr.Resources.Requests[keys.ResourceGPU], ctr.Resources.Limits[keys.ResourceGPU] = one, one
	}
	res, err := Solve(ctx, np.DeepCopy(), its[np.Spec.Template.Spec.NodeClassRef.Name], ps, daemons)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.PodErrors) > 0 || len(res.NewNodeClaims) == 0 {
		t.Fatalf("Karpenter launches no NodeClaim for the bridged pods: %v", res.PodErrors)
	}
	nc := res.NewNodeClaims[0]
	claim := nc.ToNodeClaim()
	if q := claim.Spec.Resources.Requests[keys.ResourceGPU]; q.IsZero() {
		t.Fatalf("the NodeClaim requests no %s: %v", keys.ResourceGPU, claim.Spec.Resources.Requests)
	}
	it := nc.InstanceTypeOptions[0]
	node := &corev1.Node{Status: corev1.NodeStatus{Allocatable: it.Allocatable()}}
	node.Labels = map[string]string{keys.LabelGPUAPI: "dra"}
	advertised := node.DeepCopy()
	delete(node.Status.Allocatable, keys.ResourceGPU) // the DRA driver publishes the GPUs as devices
	name, ok := lifecycle.RequestedResourcesRegistered(node, claim)
	if ok || name != keys.ResourceGPU {
		t.Errorf("on a DRA node of %s: RequestedResourcesRegistered = %q, %v; want %s unregistered", it.Name, name, ok, keys.ResourceGPU)
	}
	if _, ok := lifecycle.RequestedResourcesRegistered(advertised, claim); !ok {
		t.Errorf("on a node of %s advertising %s the NodeClaim does not initialize either", it.Name, keys.ResourceGPU)
	}
	t.Logf("Karpenter launches %d NodeClaim(s) (%s, %d pods on the first) for %d pods asking %s on NodePool %s, whose %s devices the DRA driver publishes; their node never registers it: Resource %q was requested but not registered",
		len(res.NewNodeClaims), it.Name, len(nc.Pods), len(ps), keys.ResourceGPU, np.Name, dradriver.DeviceClassGPU, name)
}
