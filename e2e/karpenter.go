package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
)

// A class that grows from the standing fleet (startNodes) starts with no
// node in any Karpenter NodePool, and the real Karpenter controller
// (sigs.k8s.io/karpenter v1.15.0 with its kwok cloud provider, built by
// scripts/e2e-binaries.sh from ladder/karpenter's pin) decides what to
// launch for its Unschedulable pods: which NodePool, instance type, zone
// and capacity type, the cheapest offering that fits. The kwok provider
// creates the Node; the harness then does what a kubelet would (marks it
// Ready with the type's allocatable, as the device plugins advertise it)
// and kube-scheduler binds the pods.
//
// What is swapped, and only that: each NodePool's nodeClassRef names a
// KWOKNodeClass (the provider refuses any other class), and disruption is
// off (consolidateAfter: Never, a budget of 0 nodes, expireAfter: Never),
// so that no node goes while a class is judged. The instance types are
// gpufleet's catalog (kwokInstanceTypes).

const (
	kwokNodeClassName = "gpufleet-e2e"
	kwokGroup         = "karpenter.kwok.sh"
	// kwokOverhead is the kube-reserved the kwok provider takes from every
	// instance type's resources (kwok/cloudprovider/helpers.go,
	// newInstanceType): added back, so that Karpenter's allocatable is the
	// catalog's.
	kwokOverheadCPU, kwokOverheadMemory = "100m", "10Mi"
)

var (
	nodeClaimsGVR  = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodeclaims"}
	kwokClassesGVR = schema.GroupVersionResource{Group: kwokGroup, Version: "v1alpha1", Resource: "kwoknodeclasses"}
)

// kwokInstanceType is one entry of the kwok provider's instance-types
// file, INSTANCE_TYPES_FILE_PATH (kwok/cloudprovider/helpers.go,
// InstanceTypeOptions; an offering's Requirements are KWOKOffering's, its
// Price and Available cloudprovider.Offering's).
type kwokInstanceType struct {
	Name             string              `json:"name"`
	Offerings        []kwokOffering      `json:"offerings"`
	Architecture     string              `json:"architecture"`
	OperatingSystems []string            `json:"operatingSystems"`
	Resources        corev1.ResourceList `json:"resources"`
}

type kwokOffering struct {
	Price        float64                          `json:"Price"`
	Available    bool                             `json:"Available"`
	Requirements []corev1.NodeSelectorRequirement `json:"Requirements"`
}

// kwokInstanceTypes is the instance-types file for the fleet's NodePools:
// every type a NodePool lists, offered in each of its zones on its
// capacity type, at the fleet's price (catalog.Prices: on-demand from the
// cloud's table or the spec, spot only from the spec; where the spec
// gives no spot price, the on-demand one, since AWS's provider reads spot
// prices from EC2, which no table here holds, and only their order
// decides Karpenter's choice). Its resources are the catalog type's
// allocatable plus the kwok overhead, GPUs as nvidia.com/gpu and EFA
// interfaces as karpenter-provider-aws advertises them.
func kwokInstanceTypes(pools []*infraPool, cat catalog.Catalog, prices catalog.Prices) ([]byte, error) {
	byName := map[string]*kwokInstanceType{}
	seen := map[string]bool{}
	for _, p := range pools {
		if !p.karpenter {
			continue
		}
		capacity := map[bool]string{false: "on-demand", true: "spot"}[p.spot]
		types := p.types
		if kwokOfferUnpriced {
			types = p.listed
		}
		for _, typ := range types {
			in, ok := cat[typ]
			if !ok {
				return nil, fmt.Errorf("NodePool %s: instance type %s is not in the catalog", p.name, typ)
			}
			price, err := prices.Hourly(typ, p.spot)
			if err != nil && p.spot {
				price, err = prices.Hourly(typ, false)
			}
			if err != nil && kwokOfferUnpriced {
				price, err = catalog.Price{USD: 1}, nil
			}
			if err != nil {
				continue // Karpenter launches no offering without a price
			}
			it := byName[typ]
			if it == nil {
				it = &kwokInstanceType{Name: typ, Architecture: "amd64", OperatingSystems: []string{"linux"}, Resources: kwokResources(in)}
				if graviton.MatchString(typ) {
					it.Architecture = "arm64"
				}
				byName[typ] = it
			}
			for _, zone := range p.zones {
				if k := typ + "/" + zone + "/" + capacity; !seen[k] {
					seen[k] = true
					it.Offerings = append(it.Offerings, kwokOffering{Price: price.USD, Available: true, Requirements: []corev1.NodeSelectorRequirement{
						{Key: karpenterCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{capacity}},
						{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{zone}},
					}})
				}
			}
		}
	}
	out := make([]*kwokInstanceType, 0, len(byName))
	for _, it := range byName {
		out = append(out, it)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return json.MarshalIndent(out, "", "  ")
}

func kwokResources(in catalog.Instance) corev1.ResourceList {
	rl := in.Allocatable()
	for name, q := range map[corev1.ResourceName]string{corev1.ResourceCPU: kwokOverheadCPU, corev1.ResourceMemory: kwokOverheadMemory} {
		v := rl[name]
		v.Add(resource.MustParse(q))
		rl[name] = v
	}
	if in.EFA > 0 {
		rl[aws.ResourceEFA] = *resource.NewQuantity(in.EFA, resource.DecimalSI)
	}
	return rl
}

// kwokNodePool is the e2e copy of a tree's NodePool: its nodeClassRef
// names the KWOKNodeClass, and disruption is off.
func kwokNodePool(o *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	// A copy through JSON: the tree's objects hold YAML's ints, which
	// DeepCopy refuses.
	raw, err := json.Marshal(o.Object)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	ref := map[string]any{"group": kwokGroup, "kind": "KWOKNodeClass", "name": kwokNodeClassName}
	if err := unstructured.SetNestedMap(u.Object, ref, "spec", "template", "spec", "nodeClassRef"); err != nil {
		return nil, err
	}
	if err := unstructured.SetNestedField(u.Object, "Never", "spec", "template", "spec", "expireAfter"); err != nil {
		return nil, err
	}
	if err := unstructured.SetNestedField(u.Object, "Never", "spec", "disruption", "consolidateAfter"); err != nil {
		return nil, err
	}
	budgets := []any{map[string]any{"nodes": "0"}}
	if err := unstructured.SetNestedSlice(u.Object, budgets, "spec", "disruption", "budgets"); err != nil {
		return nil, err
	}
	return u, nil
}

// kwokOfferUnpriced, when set, is a deliberate bug (karpenterMutant): the
// instance-types file offers every type a NodePool lists, those
// Karpenter has no price for too (at $1 an hour).
var kwokOfferUnpriced bool

// karpenter is the controller's process for one class's run.
type karpenterProc struct {
	p            *proc
	dyn          dynamic.Interface
	typesFile    string
	health, metr int
}

// startKarpenter writes the fleet's instance types, makes the
// KWOKNodeClass (Ready: its CRD's default status) and starts the
// controller, waiting until it is ready.
func (fr *fleetRun) startKarpenter(name string) (*karpenterProc, error) {
	k := &karpenterProc{typesFile: filepath.Join(fr.cp.Dir, name+"-instance-types.json")}
	var err error
	if k.dyn, err = dynamic.NewForConfig(fr.cp.Config); err != nil {
		return nil, err
	}
	raw, err := kwokInstanceTypes(fr.infra, fr.res.Catalog, compiler.Prices(fr.res.Fleet))
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(k.typesFile, raw, 0o644); err != nil {
		return nil, err
	}
	class := &unstructured.Unstructured{Object: map[string]any{"apiVersion": kwokGroup + "/v1alpha1", "kind": "KWOKNodeClass", "metadata": map[string]any{"name": kwokNodeClassName}}}
	if _, err := fr.a.Apply(fr.ctx, class); err != nil {
		return nil, fmt.Errorf("KWOKNodeClass: %w", err)
	}
	if k.health, err = freePort(); err != nil {
		return nil, err
	}
	if k.metr, err = freePort(); err != nil {
		return nil, err
	}
	env := append(os.Environ(), "KUBECONFIG="+fr.cp.Kubeconfig, "INSTANCE_TYPES_FILE_PATH="+k.typesFile,
		"DISABLE_LEADER_ELECTION=true", "CLUSTER_NAME=gpufleet-e2e", "SYSTEM_NAMESPACE=kube-system",
		"METRICS_PORT="+strconv.Itoa(k.metr), "HEALTH_PROBE_PORT="+strconv.Itoa(k.health),
		// A batch closes after 1s without a new pod (the chart's default),
		// and at most 3s (the chart's 10s): a class's pods arrive at once.
		"BATCH_IDLE_DURATION=1s", "BATCH_MAX_DURATION=3s", "LOG_LEVEL=info")
	began := time.Now()
	if k.p, err = startProcEnv(fr.cp.Dir, name, filepath.Join(fr.cp.Bin, "karpenter-kwok"), env); err != nil {
		return nil, err
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/readyz", k.health)
	err = poll(60*time.Second, 200*time.Millisecond, func() (bool, error) {
		if done, err := k.p.exited(); done {
			return false, fmt.Errorf("karpenter %w: %v\n%s", errExited, err, k.p.tail(30))
		}
		resp, err := http.Get(url)
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		k.p.stop(5 * time.Second)
		return nil, fmt.Errorf("karpenter: %w\n%s", err, k.p.tail(30))
	}
	fr.t.Logf("Karpenter (kwok) ready in %s", time.Since(began).Round(10*time.Millisecond))
	return k, nil
}

// stop ends the controller and deletes its NodeClaims, their finalizers
// first, and takes its termination finalizer off its nodes: the
// controller that would honour them is gone, and the kwok provider's
// instances are the Node objects, which ensureNodes deletes.
func (k *karpenterProc) stop(fr *fleetRun) {
	k.p.stop(10 * time.Second)
	patch := []byte(`{"metadata":{"finalizers":null}}`)
	nodes, err := fr.cp.Client.CoreV1().Nodes().List(fr.ctx, metav1.ListOptions{})
	if err != nil {
		fr.fail("karpenter: nodes: %v", err)
		return
	}
	for _, n := range nodes.Items {
		if len(n.Finalizers) == 0 || !strings.HasPrefix(n.Spec.ProviderID, "kwok://") {
			continue
		}
		if _, err := fr.cp.Client.CoreV1().Nodes().Patch(fr.ctx, n.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
			fr.fail("karpenter: node %s: %v", n.Name, err)
		}
	}
	l, err := k.dyn.Resource(nodeClaimsGVR).List(fr.ctx, metav1.ListOptions{})
	if err != nil {
		fr.fail("karpenter: NodeClaims: %v", err)
		return
	}
	for _, nc := range l.Items {
		if _, err := k.dyn.Resource(nodeClaimsGVR).Patch(fr.ctx, nc.GetName(), types.MergePatchType, patch, metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
			fr.fail("karpenter: NodeClaim %s: %v", nc.GetName(), err)
		}
		if err := k.dyn.Resource(nodeClaimsGVR).Delete(fr.ctx, nc.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			fr.fail("karpenter: NodeClaim %s: %v", nc.GetName(), err)
		}
	}
}
