package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/check/provisioning"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// karpenterNoDRA is Karpenter's refusal of a pod with ResourceClaims
// (pkg/controllers/provisioning/scheduling/scheduler.go, NewDRAError):
// with IGNORE_DRA_REQUESTS on (its default) it launches nothing for them,
// and with it off it would need the instance types' DRA devices, which
// the kwok provider's file cannot give (InstanceTypeOptions has no
// DynamicResources; karpenter-provider-aws's nvidiadra provider adds
// them, ladder/karpenter judges that). Such pods are judged at max size.
const karpenterNoDRA = "Dynamic Resource Allocation requirements that are not yet supported by Karpenter"

// karpenterSource is the component Karpenter's events name
// (pkg/operator/operator.go, mgr.GetEventRecorderFor(AppName)).
const karpenterSource = "karpenter"

// karpenterGrow is what the running Karpenter does for the class's
// pending pods: it waits, bounded, until Karpenter has judged each (an
// event of its on the pod since round began: Nominated for a NodeClaim
// it launches, FailedScheduling when no NodePool fits), then until the
// kwok provider's Node of every NodeClaim exists and Karpenter has
// registered it (its karpenter.sh/unregistered taint gone), and joins
// each new one as a kubelet would (karpenterJoin). It returns the nodes
// added and the reasons Karpenter gave for pods it launched nothing for.
func (fr *fleetRun) karpenterGrow(ns string, round time.Time, pending map[string]string) ([]*corev1.Node, map[string]string) {
	// A pod Karpenter refused before counts as judged: its recorder
	// drops an event equal to one it sent minutes ago.
	judged := map[string]string{}
	for pod := range pending {
		if why, ok := fr.karpRefusals[pod]; ok {
			judged[pod] = why
		}
	}
	err := poll(20*time.Second, 250*time.Millisecond, func() (bool, error) {
		evs, err := fr.cp.Client.CoreV1().Events(ns).List(fr.ctx, metav1.ListOptions{FieldSelector: "source=" + karpenterSource})
		if err != nil {
			return false, err
		}
		for _, e := range evs.Items {
			at := e.LastTimestamp.Time
			if at.IsZero() {
				at = e.EventTime.Time
			}
			if _, ok := pending[e.InvolvedObject.Name]; ok && e.InvolvedObject.Kind == "Pod" && !at.Before(round.Truncate(time.Second)) {
				judged[e.InvolvedObject.Name] = e.Reason + ": " + e.Message
			}
		}
		return len(judged) == len(pending), nil
	})
	if err != nil && !errors.Is(err, errTimeout) {
		fr.t.Fatal(err)
	}
	refused := map[string]string{}
	for pod, why := range judged {
		if strings.HasPrefix(why, "FailedScheduling") {
			refused[pod] = why
			fr.karpRefusals[pod] = why
		}
	}
	var added []*corev1.Node
	err = poll(60*time.Second, 250*time.Millisecond, func() (bool, error) {
		l, err := fr.karp.dyn.Resource(nodeClaimsGVR).List(fr.ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		all := true
		for _, nc := range l.Items {
			id, _, _ := unstructured.NestedString(nc.Object, "status", "providerID")
			name := strings.TrimPrefix(id, "kwok://")
			if name == "" {
				all = false
				continue
			}
			if _, ok := fr.nodes.poolOf[name]; ok {
				continue
			}
			n, err := fr.cp.Client.CoreV1().Nodes().Get(fr.ctx, name, metav1.GetOptions{})
			if err != nil {
				all = false
				continue
			}
			if err := fr.karpenterReady(n); err != nil {
				return false, err
			}
			if hasTaint(n, corev1.TaintNodeNotReady) {
				// The node lifecycle controller's, put on while no Ready
				// condition was reported; removed as createNodes does.
				n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == corev1.TaintNodeNotReady })
				if _, err := fr.cp.Client.CoreV1().Nodes().Update(fr.ctx, n, metav1.UpdateOptions{FieldManager: fieldManager}); err != nil && !apierrors.IsConflict(err) {
					return false, err
				}
				all = false
				continue
			}
			if hasTaint(n, "karpenter.sh/unregistered") {
				all = false
				continue
			}
			j, err := fr.karpenterJoin(n)
			if err != nil {
				return false, err
			}
			added = append(added, j)
		}
		return all, nil
	})
	if err != nil {
		fr.t.Fatalf("Karpenter's nodes: %v\n%s", err, fr.karp.p.tail(20))
	}
	return added, refused
}

// karpenterReady reports the node Ready as its kubelet would, with the
// type's capacity as the device plugins advertise it (nodes.go).
func (fr *fleetRun) karpenterReady(n *corev1.Node) error {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
			return nil
		}
	}
	p, in, err := fr.karpenterPool(n)
	if err != nil {
		return err
	}
	gpus := p.hostPlugin || fr.gpuPools[p.name]
	now := metav1.Now()
	status := corev1.NodeStatus{
		Capacity: fr.advertised(p, in, in.Capacity(), gpus), Allocatable: fr.advertised(p, in, in.Allocatable(), gpus),
		Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
			Message: "launched by Karpenter (kwok); no kubelet runs", LastHeartbeatTime: now, LastTransitionTime: now}},
		Addresses: []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: n.Name}},
		Phase:     corev1.NodeRunning,
	}
	patch, err := json.Marshal(map[string]any{"status": status})
	if err != nil {
		return err
	}
	_, err = fr.cp.Client.CoreV1().Nodes().Patch(fr.ctx, n.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{FieldManager: fieldManager}, "status")
	return err
}

// karpenterJoin gives a registered node the labels the harness's own
// nodes of its pool carry beyond Karpenter's (the region, the pool's
// probe label, EC2's network layers; nodes.go poolNode), and puts it in
// the run's node set.
func (fr *fleetRun) karpenterJoin(n *corev1.Node) (*corev1.Node, error) {
	p, in, err := fr.karpenterPool(n)
	if err != nil {
		return nil, err
	}
	zone := n.Labels[corev1.LabelTopologyZone]
	k := 0
	for _, m := range fr.nodes.nodes {
		if fr.nodes.groupOf[m.Name] == p && m.Labels[corev1.LabelTopologyZone] == zone {
			k++
		}
	}
	labels := map[string]string{"topology.kubernetes.io/region": fr.region, poolLabel: p.name}
	maps.Copy(labels, networkLabels(in.NetworkLayers, fr.declaredDomains(p.name), p.prefix, zone, k))
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": labels}})
	if err != nil {
		return nil, err
	}
	j, err := fr.cp.Client.CoreV1().Nodes().Patch(fr.ctx, n.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{FieldManager: fieldManager})
	if err != nil {
		return nil, err
	}
	fr.nodes.add(j, p)
	fr.nodes.typeOf[p.name] = in.Name
	return j, nil
}

// karpenterPool is the NodePool a node of Karpenter's was launched from,
// and its instance type.
func (fr *fleetRun) karpenterPool(n *corev1.Node) (*infraPool, catalog.Instance, error) {
	np, typ := n.Labels["karpenter.sh/nodepool"], n.Labels[corev1.LabelInstanceTypeStable]
	for _, p := range fr.infra {
		if p.karpenter && p.name == np {
			in, ok := fr.res.Catalog[typ]
			if !ok {
				return nil, in, fmt.Errorf("node %s: Karpenter launched %s, which is not in the catalog", n.Name, typ)
			}
			return p, in, nil
		}
	}
	return nil, catalog.Instance{}, fmt.Errorf("node %s: Karpenter launched it for NodePool %q, which the tree does not declare", n.Name, np)
}

func hasTaint(n *corev1.Node, key string) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == key {
			return true
		}
	}
	return false
}

// karpenterAgrees holds the class's outcome to Karpenter's refusals: a
// pod Karpenter launched nothing for (but for DRA claims, karpenterNoDRA)
// must not then bind on a node of a NodePool that only the max-size
// top-up (topUp) put there, since on a real cluster no such node would
// exist, unless the checker's KarpenterLaunch says exactly that of the
// class and pool. A pod the checker refuses Karpenter must refuse too:
// were it to launch for it, the pod binds on its node and judge says so;
// and no node of Karpenter's may hold a class KarpenterLaunch names.
func (fr *fleetRun) karpenterAgrees(c *sched.Class, o outcome) {
	never := map[string]bool{}
	for _, f := range fr.res.Report.Findings {
		if f.Check == provisioning.IDKarpenterLaunch && f.Class == c.Name {
			never[f.Pool] = true
		}
	}
	agreed := false
	for _, pod := range slices.Sorted(maps.Keys(o.bound)) {
		node := o.bound[pod]
		why, refused := fr.karpRefusals[pod]
		p := fr.nodes.groupOf[node]
		switch {
		case p == nil || !p.karpenter:
		case strings.HasPrefix(node, "kwok-") && never[p.name]:
			fr.fail("class %s: KarpenterLaunch says Karpenter never launches a node of NodePool %s for it, yet it launched %s, where kube-scheduler bound pod %s", c.Name, p.name, node, pod)
		case !refused || strings.Contains(why, karpenterNoDRA) || strings.HasPrefix(node, "kwok-"):
		case never[p.name]:
			agreed = true
		default:
			fr.fail("class %s: Karpenter launched nothing for pod %s (%s), yet kube-scheduler bound it on %s of NodePool %s, a node only the max-size top-up made", c.Name, pod, why, node, p.name)
		}
	}
	if agreed {
		fr.st.KarpenterLaunch++
		fr.t.Logf("class %s: Karpenter launches nothing for it, as KarpenterLaunch says; judged on the nodes the max-size top-up made", c.Name)
	}
}

// launchedAgrees compares the type Karpenter launched with the one the
// checker credits the class on that NodePool (the report's cell; the
// Karpenter rung, ladder/karpenter, lists where and why they differ), and
// counts each node as agreeing or not; a difference is logged, not
// failed: which type is launched decides no verdict here.
func (fr *fleetRun) launchedAgrees(class string, added []*corev1.Node) {
	for _, n := range added {
		p := fr.nodes.groupOf[n.Name]
		cell := fr.res.Report.Cell(class, p.name)
		typ := n.Labels[corev1.LabelInstanceTypeStable]
		switch {
		case cell == nil:
		case cell.Type == typ:
			fr.st.KarpenterTypeAgrees++
		default:
			fr.st.KarpenterTypeDiffers++
			fr.t.Logf("class %s: Karpenter launched %s on NodePool %s; the checker credits %s", class, typ, p.name, cell.Type)
		}
	}
}
