package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8slabels "k8s.io/apimachinery/pkg/labels"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/wire/deviceplugin"
)

// Stats are the run's totals, for the summary line.
type Stats struct {
	Fleets, Objects, Classes, Placed, Refused, Forbidden, Probes int
	// Hostile pods the tenants' admission policies refused.
	Hostile int
	// SystemPods are the tree's own workloads' pods held to SystemLands.
	SystemPods, NoScheduler int
	// Rollouts of Deployment classes that completed, and that stalled
	// as Rollout said.
	Rollouts, RolloutsStalled int
	// Queued is kind → tenant×class workloads submitted to Kueue, and
	// Admitted those it admitted (a Deployment: any of its replicas);
	// Workloads are Kueue's Workloads of them (a Deployment's one a pod).
	Queued, Admitted map[string]int
	Workloads        int
	// MLCompared are the admitted ML workloads of several pod sets, and
	// MLCaught those a checker giving every role its first role's flavor
	// would have disagreed on.
	MLCompared, MLCaught int
	// MLPodsCompared are the deliberate bugs (mlMutants) held against the
	// pods the ML kinds' controllers (or the harness) made of admitted
	// workloads, and MLPodsCaught those the pods contradicted.
	MLPodsCompared, MLPodsCaught int
	// ByController is kind → the pods its controller made of the classes'
	// user workloads; Held counts the queued ones Kueue held.
	ByController map[string]int
	Held         int
	// UnitPods are kind → the pods the controllers made of the admitted
	// workloads; of all of them, UnitBound were bound to their flavor's
	// pool, UnitPending left Pending and UnitGated still gated by Kueue,
	// as the checker's units said.
	UnitPods                          map[string]int
	UnitBound, UnitPending, UnitGated int
	// Preempted counts the fleets whose scenario's ClusterQueue let the
	// higher class preempt the lower and Kueue did; Protected those whose
	// ClusterQueue protects the lower and Kueue preempted none.
	Preempted, Protected int
	// Waves are the Jobs not queued that run in waves, and WavesBound of
	// their pods bound at once, as the units' AtOnce said.
	Waves, WavesBound int
	// OverQuota counts tenants whose Kueue admitted pods quota admission
	// refused, as KueueResourceQuota said.
	OverQuota int
	// DevicePluginNodes are GPU nodes the real chart's DaemonSet reached.
	DevicePluginNodes, MPSNodes int
	// DRANodes are nodes the DRA driver chart's kubelet plugin reached
	// (each then publishing its ResourceSlice); DRAClaims the ResourceClaims
	// the resourceclaim controller made and kube-scheduler allocated for
	// bound pods of DRA classes.
	DRANodes, DRAClaims int
	// EFANodes run eksctl's EFA device plugin.
	EFANodes int
	// DriftNodes are the Node objects gpufleet drift found no drift on.
	DriftNodes int
	// Evictions counts spot Jobs that survived one, and whose copy without
	// the podFailurePolicy failed.
	Evictions int
	// TASAdmitted are the queued workloads Kueue placed by topology on the
	// standing nodes of their TAS flavor's pool, each with a topology
	// assignment there and its pods bound in its domains; TASRefused
	// those it never admitted, for the checker's reason, where
	// KueueTopology said so.
	TASAdmitted, TASRefused int
	// CAScaleUps are the scale-ups of managed node groups the restated
	// cluster-autoscaler (e2e/scaleup) made for classes' Unschedulable
	// pods, and CANodes the nodes they added.
	CAScaleUps, CANodes int
	// CAUnready are the managed groups' nodes it counts unready for
	// their GPUs, as AutoscalerGPUReady said.
	CAUnready int
	// KarpenterNodes are the nodes the real Karpenter (kwok provider)
	// launched for classes' Unschedulable pods, in KarpenterLaunches
	// rounds; KarpenterBound the pods bound on them.
	KarpenterNodes, KarpenterLaunches, KarpenterBound int
	// KarpenterRefused are the classes Karpenter launched nothing for
	// some pod of (FailedScheduling), KarpenterDRA those for DRA claims,
	// then judged at max size.
	KarpenterRefused, KarpenterDRA int
	// KarpenterTypeAgrees are its nodes of the type the checker credits
	// the class on their NodePool, KarpenterTypeDiffers of another.
	KarpenterTypeAgrees, KarpenterTypeDiffers int
	// KarpenterLaunch are the classes it launched nothing for where
	// KarpenterLaunch says it never does.
	KarpenterLaunch int
	// CAMaxSize are the classes whose pods no scale-up helped, judged
	// then at max size.
	CAMaxSize int
	// TASUnmatched are those Kueue's flavor assigner refused, with the
	// checker's message (KueueFlavor), for asking topology of a flavor
	// without one, or nothing of a TAS flavor.
	TASUnmatched int
}

// fleetRun is one fleet on the control plane.
type fleetRun struct {
	t       *fleetT
	ctx     context.Context
	cp      *ControlPlane
	a       *Applier
	res     *compiler.Result
	cl      *sched.Cluster
	st      *Stats
	kueue   *kueue
	model   *kueuemodel.Model
	nodeKey string
	nodes   nodeSet
	// The fleet's pools as its infrastructure files declare them, the
	// device plugin's sharing profiles, and the pools whose nodes the real
	// device plugin chart reached (so they advertise GPUs).
	infra    []*infraPool
	region   string
	sharing  map[string]deviceplugin.Profile
	gpuPools map[string]bool
	// efaPools are the pools whose nodes run eksctl's EFA device plugin.
	efaPools map[string]bool
	// agents are the node agents' objects, and daemonSets their
	// DaemonSets, whose pods every node set waits for (ensureNodes).
	agents, daemonSets []*unstructured.Unstructured
	// draObjects are the DRA driver chart's objects (among agents), and
	// slices how many ResourceSlices the harness published for them.
	draObjects []*unstructured.Unstructured
	slices     int
	// scheds are the schedulers running for this fleet, for their logs;
	// own are those started for this fleet alone.
	scheds, own []*proc
	probeNS     map[string]bool
	syncs       int
	// noScaleUp is pod name → why cluster-autoscaler (restated) added
	// no node for it, at the last scale-up it was pending at.
	noScaleUp map[string]string
	// karp is the Karpenter controller while a class that grows from the
	// standing fleet runs (karpenter.go), else nil; kwok says the fleet
	// runs it (it has NodePools, and the binary is built).
	karp *karpenterProc
	kwok bool
	// karpRefused says Karpenter launched nothing for some pod of the
	// class's run, and karpDRA that it was for DRA claims (karpenterNoDRA).
	karpRefused, karpDRA bool
	// karpRefusals is pod name → Karpenter's last refusal of it.
	karpRefusals map[string]string
	// unscheduled are the schedulerNames no process serves: the tree's
	// pod of their scheduler fits no node (systemPods).
	unscheduled map[string]bool
}

func (fr *fleetRun) fail(format string, args ...any) {
	fr.t.Helper()
	fr.t.Errorf(format, args...)
}

// apply server-side applies every object of the tree and returns those
// accepted, for cleanup.
func (fr *fleetRun) apply() []*unstructured.Unstructured {
	objs, err := treeObjects(fr.res)
	if err != nil {
		fr.t.Fatal(err)
	}
	var applied []*unstructured.Unstructured
	for _, o := range objs {
		if fr.kwok && o.GetKind() == "NodePool" {
			if o, err = kwokNodePool(o); err != nil {
				fr.t.Fatal(err)
			}
		}
		if _, err := fr.a.Apply(fr.ctx, o); err != nil {
			fr.fail("the API server refused %s: %v", id(o), err)
			continue
		}
		applied = append(applied, o)
	}
	fr.st.Objects += len(applied)
	fr.t.Logf("applied %d/%d objects", len(applied), len(objs))
	return applied
}

// cleanup deletes what the fleet created, each wait bounded: pods and nodes,
// then the applied objects, namespaces last (the namespace controller
// deletes what is left in them).
func (fr *fleetRun) cleanup(applied []*unstructured.Unstructured) {
	for _, p := range fr.own {
		p.stop(10 * time.Second)
	}
	if err := deleteAllNodes(fr.ctx, fr.cp); err != nil {
		fr.fail("cleanup: nodes: %v", err)
	}
	var namespaces []*unstructured.Unstructured
	// Kueue keeps a ResourceFlavor while a ClusterQueue names it, and a
	// Topology while a ResourceFlavor does: queues go first, Topologies
	// last (deleted from the end).
	rank := func(o *unstructured.Unstructured) int {
		switch o.GetKind() {
		case "Topology":
			return 0
		case "ClusterQueue":
			return 2
		}
		return 1
	}
	sort.SliceStable(applied, func(i, j int) bool { return rank(applied[i]) < rank(applied[j]) })
	ours := map[string]bool{}
	for _, o := range applied {
		if o.GetKind() == "Namespace" {
			ours[o.GetName()] = true
		}
	}
	for i := len(applied) - 1; i >= 0; i-- {
		o := applied[i]
		if o.GetKind() == "Namespace" {
			namespaces = append(namespaces, o)
			continue
		}
		if o.GetNamespace() != "" && ours[o.GetNamespace()] {
			continue // the namespace controller deletes it
		}

		if err := fr.a.Delete(fr.ctx, o, 30*time.Second); err != nil {
			fr.fail("cleanup: %s: %v", id(o), err)
		}
		if o.GetKind() == "Deployment" {
			// In a namespace the tree does not own (kube-system, its
			// scheduler's): with no garbage collector, its ReplicaSets
			// and pods go by hand, or the next fleet's Deployment of the
			// same template adopts a pod bound to a node that is gone.
			fr.deleteReplicas(o)
		}
	}
	for ns := range fr.probeNS {
		namespaces = append(namespaces, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}})
	}
	zero := int64(0)
	// Namespaces go at once: the namespace controller takes seconds over
	// each, and they do not wait on one another.
	waits := make([]func(time.Duration) error, len(namespaces))
	for i, ns := range namespaces {
		// A pod bound to a node that is gone waits for a kubelet (or the
		// pod garbage collector, not run here) to confirm it stopped, and
		// the namespace with it: delete such pods now, as those would.
		err := fr.cp.Client.CoreV1().Pods(ns.GetName()).DeleteCollection(fr.ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{})
		if err != nil {
			fr.fail("cleanup: pods in %s: %v", ns.GetName(), err)
		}
		if waits[i], err = fr.a.StartDelete(fr.ctx, ns); err != nil {
			fr.fail("cleanup: %s: %v", id(ns), err)
		}
	}
	for i, ns := range namespaces {
		if waits[i] == nil {
			continue
		}
		if err := waits[i](90 * time.Second); err != nil {
			fr.fail("cleanup: %s: %v", id(ns), err)
		}
	}
}

// ensureNodes makes the cluster's nodes exactly set.
func (fr *fleetRun) ensureNodes(set nodeSet) {
	if k := set.key(); k != fr.nodeKey {
		if err := deleteAllNodes(fr.ctx, fr.cp); err != nil {
			fr.t.Fatal(err)
		}
		if err := createNodes(fr.ctx, fr.cp, set.nodes); err != nil {
			fr.t.Fatal(err)
		}
		fr.nodeKey, fr.nodes = k, set
		// The agents' daemon pods are bound before any class's, as on a
		// node that registers before its workloads arrive.
		if len(fr.daemonSets) > 0 {
			placed, err := fr.daemonPods(fr.daemonSets)
			if err != nil {
				fr.t.Fatalf("node agents: %v", err)
			}
			if len(fr.draObjects) > 0 {
				fr.publishSlices(placed)
			}
		}
	}
}

// diagnose prints what explains a failure: the namespace's events and what
// the schedulers logged about the batch.
func (fr *fleetRun) diagnose(ns, run string) {
	evs, err := fr.cp.Client.CoreV1().Events(ns).List(fr.ctx, metav1.ListOptions{})
	if err != nil {
		fr.t.Logf("events: %v", err)
		return
	}
	var lines []string
	for _, e := range evs.Items {
		if strings.HasPrefix(e.InvolvedObject.Name, run) {
			lines = append(lines, fmt.Sprintf("%s %s/%s: %s", e.Reason, e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Message))
		}
	}
	sort.Strings(lines)
	fr.t.Logf("events for %s in %s:\n%s", run, ns, strings.Join(lines, "\n"))
	for _, p := range fr.scheds {
		fr.t.Logf("%s log about %s:\n%s", p.name, run, p.grep(40, run))
	}
}

// podsOf is n copies of the class's example pod.
func podsOf(c *sched.Class, run string, n int) []*corev1.Pod {
	pods := make([]*corev1.Pod, n)
	for i := range pods {
		p := c.Pod.DeepCopy()
		p.Name = fmt.Sprintf("%s-%d", run, i)
		pods[i] = p
	}
	return pods
}

// deleteReplicas deletes a deleted Deployment's ReplicaSets and pods, as
// the garbage collector (not run here) would.
func (fr *fleetRun) deleteReplicas(d *unstructured.Unstructured) {
	ns := d.GetNamespace()
	labels, _, err := unstructured.NestedStringMap(d.Object, "spec", "selector", "matchLabels")
	if err != nil || len(labels) == 0 {
		fr.fail("cleanup: %s: no spec.selector.matchLabels (%v)", id(d), err)
		return
	}
	zero := int64(0)
	list := metav1.ListOptions{LabelSelector: k8slabels.SelectorFromSet(labels).String()}
	if err := fr.cp.Client.AppsV1().ReplicaSets(ns).DeleteCollection(fr.ctx, metav1.DeleteOptions{}, list); err != nil {
		fr.fail("cleanup: ReplicaSets of %s: %v", id(d), err)
	}
	if err := fr.cp.Client.CoreV1().Pods(ns).DeleteCollection(fr.ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, list); err != nil {
		fr.fail("cleanup: pods of %s: %v", id(d), err)
	}
}
