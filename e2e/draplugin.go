package e2e

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/check/readback"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/dradriver"
	kueuewire "github.com/gpufleet/gpufleet/compiler/wire/kueue"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

// The NVIDIA DRA driver on the control plane: its own chart (v0.4.1),
// rendered by Helm's SDK with the tree's values and applied whole (its
// DeviceClasses, RBAC, admission policy and kubelet plugin DaemonSet),
// the DaemonSet controller and kube-scheduler placing the kubelet plugin's
// pods; on each node where one lands, the harness publishes the node's
// ResourceSlice as the plugin would, with aws.DRADevices of its type
// (held to karpenter-provider-aws's drametadata by make test-karpenter).
// Claims are then made by kube-controller-manager's resourceclaim
// controller from the tree's templates and allocated by kube-scheduler's
// DynamicResources plugin; Kueue counts them through the tree's
// deviceClassMappings.

// draKubeletPlugin is the chart's kubelet plugin DaemonSet.
const draKubeletPlugin = readback.DRAKubeletPlugin

// renderDRADriver is `helm template` of the driver's chart with the tree's
// values.
func renderDRADriver(values []byte, kubeVersion string) ([]*unstructured.Unstructured, error) {
	return renderChart(upstream.DRADriver, upstream.DRADriverChart, dradriver.ChartVersion, dradriver.ValuesPath, values, dradriver.ReleaseName, dradriver.Namespace, kubeVersion)
}

// draDriverObjects are the chart's objects for the tree's values, none if
// the tree has no DRA pool.
func (fr *fleetRun) draDriverObjects(kubeVersion string) []*unstructured.Unstructured {
	values, ok := fr.res.Tree[dradriver.ValuesPath]
	if !ok {
		return nil
	}
	objs, err := renderDRADriver(values, kubeVersion)
	if err != nil {
		fr.t.Fatal(err)
	}
	return objs
}

// isDRANode reports whether the node's GPUs are meant for the DRA driver.
func isDRANode(n *corev1.Node) bool { return n.Labels[keys.LabelGPUAPI] == spec.GPUAPIDRA }

// draPluginRuns is the checker's word on whether the kubelet plugin's pod
// runs on a node of pool.
func draPluginRuns(p *sched.Pool, n *corev1.Node, gpu bool) bool {
	if isDRANode(n) {
		return gpu && p.NoDRAPlugin == ""
	}
	return gpu && p.DRAPluginOnDevicePlugin
}

// draPluginAgrees says how the kubelet plugin's placement on node n
// differs from the checker's, or "".
func (fr *fleetRun) draPluginAgrees(n *corev1.Node, p *sched.Pool, placed []string) string {
	if len(fr.draObjects) == 0 && !isDRANode(n) {
		return ""
	}
	want, got := draPluginRuns(p, n, fr.gpuType(n)), slices.Contains(placed, draKubeletPlugin)
	if want != got {
		return fmt.Sprintf("node %s of pool %s: the checker says the DRA driver's kubelet plugin runs there: %v (%s); the DaemonSet controller and scheduler: %v", n.Name, p.Name, want, p.NoDRAPlugin, got)
	}
	return ""
}

// publishSlices makes the cluster's ResourceSlices those of the nodes the
// kubelet plugin's pod runs on: one per node, of its type's devices.
func (fr *fleetRun) publishSlices(placed map[string][]string) {
	rs := fr.cp.Client.ResourceV1().ResourceSlices()
	if err := rs.DeleteCollection(fr.ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil && !apierrors.IsNotFound(err) {
		fr.t.Fatalf("ResourceSlices: %v", err)
	}
	fr.slices = 0
	fr.addSlices(placed, fr.nodes.nodes)
}

// addSlices publishes the ResourceSlice of each of nodes the kubelet
// plugin's pod runs on.
func (fr *fleetRun) addSlices(placed map[string][]string, nodes []*corev1.Node) {
	rs := fr.cp.Client.ResourceV1().ResourceSlices()
	for _, node := range nodes {
		if !slices.Contains(placed[node.Name], draKubeletPlugin) {
			continue
		}
		in := fr.res.Catalog[fr.nodes.typeOf[fr.nodes.poolOf[node.Name]]]
		devices, ok := aws.DRADevices(in)
		if !ok {
			fr.t.Fatalf("node %s: no DRA devices for %s", node.Name, in.Name)
		}
		// The MIG manager cut its GPUs by the layout its label names: the
		// plugin publishes their MIG devices instead.
		if layout := node.Labels[keys.LabelMIGConfig]; layout != "" {
			profiles, ok := catalog.MIGLayout(in.GPU, layout)
			if !ok {
				fr.t.Fatalf("node %s: %s has no MIG layout %q", node.Name, in.Name, layout)
			}
			devices = dradriver.MIGDevices(devices, profiles)
		}
		name := node.Name
		s := &resourcev1.ResourceSlice{
			ObjectMeta: metav1.ObjectMeta{Name: node.Name + "-" + dradriver.DeviceClassGPU},
			Spec: resourcev1.ResourceSliceSpec{
				Driver: dradriver.DeviceClassGPU, NodeName: &name,
				Pool:    resourcev1.ResourcePool{Name: node.Name, ResourceSliceCount: 1},
				Devices: devices,
			},
		}
		if _, err := rs.Create(fr.ctx, s, metav1.CreateOptions{}); err != nil {
			fr.t.Fatalf("the API server refused node %s's ResourceSlice: %v", node.Name, err)
		}
		fr.slices++
	}
}

// removeSlices deletes every ResourceSlice, after the fleet.
func (fr *fleetRun) removeSlices() {
	if fr.slices == 0 {
		return
	}
	err := fr.cp.Client.ResourceV1().ResourceSlices().DeleteCollection(fr.ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
	if err != nil {
		fr.fail("cleanup: ResourceSlices: %v", err)
	}
	fr.slices = 0
}

// copyClaimTemplates gives a probe namespace the tenant namespace's
// ResourceClaimTemplates, from which its pods' claims are made.
func (fr *fleetRun) copyClaimTemplates(ns, pns string) {
	rcts := fr.cp.Client.ResourceV1().ResourceClaimTemplates
	l, err := rcts(ns).List(fr.ctx, metav1.ListOptions{})
	if err != nil {
		fr.t.Fatal(err)
	}
	for _, t := range l.Items {
		cp := &resourcev1.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: t.Name}, Spec: t.Spec}
		if _, err := rcts(pns).Create(fr.ctx, cp, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			fr.t.Fatal(err)
		}
	}
}

// claimsAllocated holds a DRA class's bound pods to their ResourceClaims:
// each has its claim, made by the resourceclaim controller and allocated
// by kube-scheduler, with as many devices as the template asks, all on
// the pod's node. A class asking nvidia.com/gpu where the driver chart's
// DeviceClass names it (the extended-resource bridge) is held so on the
// DRA nodes it is bound to: kube-scheduler made its pod a claim (annotated
// resource.kubernetes.io/extended-resource-claim) of the class's count of
// devices, and the pod's status names it. It returns how many claims it
// checked.
func (fr *fleetRun) claimsAllocated(c *sched.Class, ns string, bound map[string]string) int {
	claims, bridge := c.Info.Claims, false
	if !claims.Asks() {
		claims, bridge = c.Info.Bridge, true
	}
	if !claims.Asks() || len(bound) == 0 {
		return 0
	}
	l, err := fr.cp.Client.ResourceV1().ResourceClaims(ns).List(fr.ctx, metav1.ListOptions{})
	if err != nil {
		fr.t.Fatal(err)
	}
	byPod := map[string]*resourcev1.ResourceClaim{}
	for i := range l.Items {
		for _, ref := range l.Items[i].OwnerReferences {
			if ref.Kind == "Pod" {
				byPod[ref.Name] = &l.Items[i]
			}
		}
	}
	var bad []string
	n := 0
	for pod, node := range bound {
		if bridge {
			n, err := fr.cp.Client.CoreV1().Nodes().Get(fr.ctx, node, metav1.GetOptions{})
			if err != nil {
				fr.t.Fatal(err)
			}
			if !isDRANode(n) {
				continue // the device plugin's GPUs
			}
			p, err := fr.cp.Client.CoreV1().Pods(ns).Get(fr.ctx, pod, metav1.GetOptions{})
			if err != nil {
				fr.t.Fatal(err)
			}
			claim, ok := byPod[pod]
			if st := p.Status.ExtendedResourceClaimStatus; ok && (st == nil || st.ResourceClaimName != claim.Name || claim.Annotations[resourcev1.ExtendedResourceClaimAnnotation] != "true") {
				bad = append(bad, fmt.Sprintf("pod %s on %s: claim %s is not the one kube-scheduler made for its nvidia.com/gpu (status %+v)", pod, node, claim.Name, st))
			}
		}
		claim, ok := byPod[pod]
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("pod %s is bound to %s with no ResourceClaim", pod, node))
		case claim.Status.Allocation == nil:
			bad = append(bad, fmt.Sprintf("pod %s is bound to %s, its claim %s unallocated", pod, node, claim.Name))
		default:
			res := claim.Status.Allocation.Devices.Results
			if int64(len(res)) != claims.Devices {
				bad = append(bad, fmt.Sprintf("claim %s of pod %s: %d devices allocated, the checker's claim asks %d", claim.Name, pod, len(res), claims.Devices))
			}
			for _, r := range res {
				if r.Pool != node || r.Driver != dradriver.DeviceClassGPU {
					bad = append(bad, fmt.Sprintf("claim %s of pod %s on %s: device %s/%s/%s", claim.Name, pod, node, r.Driver, r.Pool, r.Device))
				}
			}
			n++
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		fr.fail("class %s: its pods' claims are not what the checker allocated:\n  %s", c.Name, strings.Join(bad, "\n  "))
	}
	return n
}

// draMappings are the deviceClassMappings of the tree's Kueue fragment,
// which Kueue must start with; nil for none.
func draMappings(t tree.Tree) ([]kueuewire.DeviceClassMapping, error) {
	raw, ok := t[tree.KueueDRAConfigPath]
	if !ok {
		return nil, nil
	}
	m, err := kueuewire.DRAMappings(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tree.KueueDRAConfigPath, err)
	}
	return m, nil
}

// startClaimCollector deletes, as the garbage collector would (the control
// plane runs none), each ResourceClaim whose owning pod is gone: the
// resourceclaim controller deallocates such a claim but leaves deleting it
// to the collector, and ResourceQuota counts its devices until then. stop
// ends it and reports its first error.
func (fr *fleetRun) startClaimCollector() (stop func()) {
	ctx, cancel := context.WithCancel(fr.ctx)
	done := make(chan error, 1)
	go func() {
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				done <- nil
				return
			case <-tick.C:
			}
			if err := fr.collectClaims(ctx); err != nil && ctx.Err() == nil {
				done <- err
				return
			}
		}
	}()
	return func() {
		cancel()
		if err := <-done; err != nil {
			fr.fail("the harness's collector of ResourceClaims: %v", err)
		}
	}
}

func (fr *fleetRun) collectClaims(ctx context.Context) error {
	claims := fr.cp.Client.ResourceV1().ResourceClaims(metav1.NamespaceAll)
	l, err := claims.List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, c := range l.Items {
		for _, ref := range c.OwnerReferences {
			if ref.Kind != "Pod" || ref.Controller == nil || !*ref.Controller {
				continue
			}
			pod, err := fr.cp.Client.CoreV1().Pods(c.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
			switch {
			case err != nil && !apierrors.IsNotFound(err):
				return err
			case err == nil && pod.UID == ref.UID:
				continue
			}
			err = fr.cp.Client.ResourceV1().ResourceClaims(c.Namespace).Delete(ctx, c.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &c.UID}})
			if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				return err
			}
		}
	}
	return nil
}
