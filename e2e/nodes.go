package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
)

// gpuResource is the extended resource the NVIDIA device plugin advertises.
const gpuResource = corev1.ResourceName("nvidia.com/gpu")

// nodeSet is the fleet at max size as one class sees it: every pool's nodes,
// of the instance type the checker credits the pool with for that class
// (the first listed where the class cannot land), balanced over the pool's
// zones as the auto scaling group does.
type nodeSet struct {
	nodes  []*corev1.Node
	poolOf map[string]string
	// typeOf is the instance type each pool's nodes are.
	typeOf map[string]string
}

func fullSize(cl *check.Cluster, class string, r *check.Report) nodeSet {
	s := nodeSet{poolOf: map[string]string{}, typeOf: map[string]string{}}
	for _, p := range cl.Pools {
		typ := p.Nodes[0].InstanceType
		if cell := r.Cell(class, p.Name); cell != nil && cell.Type != "" {
			typ = cell.Type
		}
		s.typeOf[p.Name] = typ
		for _, n := range p.Nodes {
			if n.InstanceType != typ {
				continue
			}
			for k := int64(0); k < p.NodesInZone(n.Zone); k++ {
				node := n.Node.DeepCopy()
				node.Name = fmt.Sprintf("%s-%s-%s-%d", p.Name, typ, n.Zone, k)
				node.Labels["kubernetes.io/hostname"] = node.Name
				node.Labels[poolLabel] = p.Name
				s.nodes = append(s.nodes, node)
				s.poolOf[node.Name] = p.Name
			}
		}
	}
	return s
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
