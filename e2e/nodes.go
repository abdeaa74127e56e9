package e2e

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// gpuResource is the extended resource the NVIDIA device plugin advertises.
const gpuResource = corev1.ResourceName("nvidia.com/gpu")

// nodeSet is the fleet at max size as one class sees it: every pool's
// nodes, built from the infrastructure files (infra.go), balanced over the
// pool's zones as the auto scaling group does.
type nodeSet struct {
	nodes  []*corev1.Node
	poolOf map[string]string
	// typeOf is the instance type each pool's nodes are.
	typeOf map[string]string
	// groupOf is each node's group (a zone group, or a "both" pool's
	// managed group or NodePool).
	groupOf map[string]*infraPool
}

// fullSize builds the node set for class. A managed node group launches
// its first listed type (prioritized allocation; cluster-autoscaler builds
// its template from it). Which listed type Karpenter launches cannot be
// told offline (the cheapest that fits, at launch time), so a NodePool's
// nodes are the type the checker credits for the class, if listed. A node
// offers GPUs only where the real device plugin chart's DaemonSet put its
// pods (fr.gpuPools, from devicePlugin), or where Bottlerocket's host runs
// the plugin. A node of a type with network layers carries the AWS cloud
// controller manager's network-node labels (networkLabels), TAS pool or
// not.
func (fr *fleetRun) fullSize(class string) nodeSet {
	return fr.nodesFor(class, func(*infraPool) bool { return false })
}

// kueueSize is fullSize but for the pools of Kueue's TAS flavors, which
// hold only their standing nodes (each group's first nodesInZone, as its
// min balances over the zones): Kueue's topology-aware scheduling places
// a workload on the nodes that exist, and keeps its Job suspended until
// they fit, so no pod is ever pending for an autoscaler to add one. Only
// workloads placed by topology use those pools' flavors (a TAS flavor
// takes no other), so every queued class's admission runs on it.
func (fr *fleetRun) kueueSize(class string) nodeSet {
	tas := fr.tasPools()
	return fr.nodesFor(class, func(p *infraPool) bool { return tas[p.name] })
}

// nodesFor is the node set with the groups standing says stand at their
// min, the others at their max.
func (fr *fleetRun) nodesFor(class string, standing func(*infraPool) bool) nodeSet {
	s := nodeSet{poolOf: map[string]string{}, typeOf: map[string]string{}, groupOf: map[string]*infraPool{}}
	for _, p := range fr.infra {
		if len(p.types) == 0 {
			continue // a NodePool Karpenter launches nothing from (infra.go)
		}
		typ := fr.poolType(class, p)
		s.typeOf[p.name] = typ
		for i, zone := range p.zones {
			n := p.nodesInZone(i)
			if standing(p) {
				n = p.standingInZone(i)
			}
			for k := 0; k < n; k++ {
				s.add(fr.poolNode(p, typ, zone, k), p)
			}
		}
	}
	return s
}

// poolType is the type of the pool's nodes for class (fullSize).
func (fr *fleetRun) poolType(class string, p *infraPool) string {
	if cell := fr.res.Report.Cell(class, p.name); p.karpenter && cell != nil && slices.Contains(p.types, cell.Type) {
		return cell.Type
	}
	return p.types[0]
}

// poolNode is the group's node k in zone, of type typ.
func (fr *fleetRun) poolNode(p *infraPool, typ, zone string, k int) *corev1.Node {
	in, ok := fr.res.Catalog[typ]
	if !ok {
		fr.t.Fatalf("pool %s: instance type %s is not in the catalog", p.name, typ)
	}
	gpus := p.hostPlugin || fr.gpuPools[p.name]
	name := fmt.Sprintf("%s-%s-%s-%d", p.prefix, typ, zone, k)
	labels := p.wellKnownLabels(name, typ, zone, fr.region)
	maps.Copy(labels, networkLabels(in.NetworkLayers, fr.declaredDomains(p.name), p.prefix, zone, k))
	for k, v := range p.labels {
		labels[k] = v
	}
	labels[poolLabel] = p.name
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       corev1.NodeSpec{Taints: p.taints},
		Status:     corev1.NodeStatus{Capacity: fr.advertised(p, in, in.Capacity(), gpus), Allocatable: fr.advertised(p, in, in.Allocatable(), gpus)},
	}
}

// add puts node n of group p in the set.
func (s *nodeSet) add(n *corev1.Node, p *infraPool) {
	s.nodes = append(s.nodes, n)
	s.poolOf[n.Name], s.groupOf[n.Name] = p.name, p
}

// advertised is rl as the device plugins advertise it: GPUs (time-sliced
// by the ConfigMap entry the node's label names, or cut into MIG slices by
// its layout) only if the NVIDIA plugin runs, and EFA interfaces only where
// eksctl's EFA plugin, which it installs with node groups that enable EFA,
// runs (fr.efaPools), whether or not the NVIDIA one does.
func (fr *fleetRun) advertised(p *infraPool, in catalog.Instance, rl corev1.ResourceList, gpus bool) corev1.ResourceList {
	out := rl.DeepCopy()
	if p.efa && in.EFA > 0 && fr.efaPools[p.name] {
		out[aws.ResourceEFA] = *resource.NewQuantity(in.EFA, resource.DecimalSI)
	}
	if in.GPU == nil {
		return out
	}
	if !gpus {
		delete(out, gpuResource)
		return out
	}
	replicas := int64(1)
	if profile, ok := p.labels[keys.LabelDevicePluginConfig]; ok {
		s, ok := fr.sharing[profile]
		if !ok {
			fr.t.Fatalf("pool %s: label %s names %q, which the device plugin's ConfigMap lacks", p.name, keys.LabelDevicePluginConfig, profile)
		}
		replicas = s.Replicas
	}
	return in.Shared(out, replicas, p.labels[keys.LabelMIGConfig])
}

// key identifies a node set, so consecutive classes that see the same
// fleet reuse its nodes.
func (s nodeSet) key() string {
	names := make([]string, len(s.nodes))
	for i, n := range s.nodes {
		names[i] = n.Name
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

// isGPU tells whether a node has GPUs (whole or shared).
func isGPU(n *corev1.Node) bool {
	for name, q := range n.Status.Capacity {
		if strings.HasPrefix(string(name), "nvidia.com/") && !q.IsZero() {
			return true
		}
	}
	return false
}

// createNodes registers the nodes as a kubelet would, minus the kubelet:
// capacity and allocatable, a Ready condition, and no
// node.kubernetes.io/not-ready taint. The TaintNodesByCondition admission
// plugin adds that taint to every new node, and with no node controller to
// lift it once the node is Ready, the harness removes it.
func createNodes(ctx context.Context, cp *ControlPlane, nodes []*corev1.Node) error {
	return parallel(len(nodes), func(i int) error {
		want := nodes[i]
		api := cp.Client.CoreV1().Nodes()
		n, err := api.Create(ctx, want, metav1.CreateOptions{FieldManager: fieldManager})
		if err != nil {
			return fmt.Errorf("create node %s: %w", want.Name, err)
		}
		now := metav1.Now()
		n.Status = *want.Status.DeepCopy()
		n.Status.Conditions = []corev1.NodeCondition{{
			Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
			Message: "registered by the gpufleet e2e harness; no kubelet runs", LastHeartbeatTime: now, LastTransitionTime: now,
		}}
		n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: want.Name}}
		if n, err = api.UpdateStatus(ctx, n, metav1.UpdateOptions{FieldManager: fieldManager}); err != nil {
			return fmt.Errorf("node %s status: %w", want.Name, err)
		}
		var taints []corev1.Taint
		for _, t := range n.Spec.Taints {
			if t.Key != corev1.TaintNodeNotReady {
				taints = append(taints, t)
			}
		}
		if len(taints) == len(n.Spec.Taints) {
			return nil
		}
		n.Spec.Taints = taints
		if _, err := api.Update(ctx, n, metav1.UpdateOptions{FieldManager: fieldManager}); err != nil {
			return fmt.Errorf("node %s: remove %s: %w", want.Name, corev1.TaintNodeNotReady, err)
		}
		return nil
	})
}

// deleteAllNodes removes every node and waits, bounded, until none is left.
func deleteAllNodes(ctx context.Context, cp *ControlPlane) error {
	list, err := cp.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	err = parallel(len(list.Items), func(i int) error {
		err := cp.Client.CoreV1().Nodes().Delete(ctx, list.Items[i].Name, metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	})
	if err != nil {
		return err
	}
	return poll(30*time.Second, 100*time.Millisecond, func() (bool, error) {
		l, err := cp.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		return err == nil && len(l.Items) == 0, err
	})
}

// parallel runs f for 0..n-1 on a few goroutines and returns the first error.
func parallel(n int, f func(i int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	sem := make(chan struct{}, 16)
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := f(i); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}
