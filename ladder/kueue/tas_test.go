package kueuediff

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/internal/crdtest"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

// liveNode is a node of a live TAS pool: its network nodes, one value per
// layer, widest first ("" for a label the node lacks), and its state.
type liveNode struct {
	layers   [3]string
	notReady bool
	cordoned bool
}

// TestLiveNodes judges kueuemodel.TASFit on live nodes (check --nodes)
// against Kueue's TAS on the very same nodes: research's train-efa, a gang
// of 4 pods of 8 GPUs, on its pool a100-efa (p4d.24xlarge, one pod a
// node), with every request its Topology allows, on hand-made nodes
// labelled as the AWS cloud controller manager labels them
// (topology.k8s.aws/network-node-layer-1 to -3, zone-id). Kueue's TAS
// cache keeps only Ready, schedulable nodes, and its Topology only those
// with every level's label (a node EC2 reports fewer layers for is left
// out: kueue#6996); the checker must count the same nodes, in the same
// domains.
func TestLiveNodes(t *testing.T) {
	ctx := context.Background()
	crds, err := crdtest.Load(upstream.Kueue, upstream.KueueCRDs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := compiler.Check([]string{"../../fleets/research"})
	if err != nil {
		t.Fatal(err)
	}
	k, err := Load(ctx, crds, res.Tree)
	if err != nil {
		t.Fatal(err)
	}
	ours, err := kueuemodel.New(res.Typed())
	if err != nil {
		t.Fatal(err)
	}
	cl, err := res.Cluster()
	if err != nil {
		t.Fatal(err)
	}
	const flavor, class = "a100-efa", "train-efa"
	topology, levels, ok := k.TASFlavor(flavor)
	pool := PoolOf(cl, k.pool(flavor))
	if !ok || pool == nil || len(pool.Nodes) == 0 {
		t.Fatalf("flavor %s: no Topology or pool", flavor)
	}
	var q *kueuemodel.Queue
	for _, qq := range compiler.KueueIntent(res.Fleet) {
		if slices.Contains(qq.Classes, class) {
			q = &qq
			break
		}
	}
	if q == nil {
		t.Fatalf("no tenant queues %s", class)
	}
	w, err := ClassWorkload(ctx, res.Tree, class, q.Namespace)
	if err != nil {
		t.Fatal(err)
	}
	c := cl.Class(class)
	request, pods := ours.ClassRequest(c, q.Namespace), kueuemodel.UnitPods(c)
	template := pool.Nodes[0].Node

	// make builds the live nodes as the node controller and the AWS cloud
	// controller manager leave them.
	make := func(name string, nodes []liveNode) []*corev1.Node {
		var out []*corev1.Node
		for i, ln := range nodes {
			n := template.DeepCopy()
			n.Name = fmt.Sprintf("ip-10-0-%d-%d.us-east-2.compute.internal", len(name), i)
			n.Labels = maps.Clone(template.Labels)
			n.Labels[keys.LabelHostname] = n.Name
			n.Labels["topology.k8s.aws/zone-id"] = "use2-az1"
			for l, v := range ln.layers {
				if v != "" {
					n.Labels[fmt.Sprintf("%s%d", aws.LabelNetworkNodeLayer, l+1)] = v
				}
			}
			ready := corev1.ConditionTrue
			if ln.notReady {
				ready = corev1.ConditionFalse
				n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule})
			}
			if ln.cordoned {
				n.Spec.Unschedulable = true
				n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule})
			}
			n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready}}
			out = append(out, n)
		}
		return out
	}
	one := liveNode{layers: [3]string{"nn-1a2b3c4d5e6f7a8b9", "nn-2b3c4d5e6f7a8b9c0", "nn-3c4d5e6f7a8b9c0d1"}}
	other := liveNode{layers: [3]string{one.layers[0], one.layers[1], "nn-4d5e6f7a8b9c0d1e2"}}
	apart := liveNode{layers: [3]string{one.layers[0], "nn-5e6f7a8b9c0d1e2f3", "nn-6f7a8b9c0d1e2f3a4"}}
	noL3 := liveNode{layers: [3]string{one.layers[0], one.layers[1], ""}}
	down, cordoned := one, one
	down.notReady, cordoned.cordoned = true, true
	cases := []struct {
		name  string
		nodes []liveNode
	}{
		{"four nodes under one network node", []liveNode{one, one, one, one}},
		{"two and two under two layer-3 network nodes", []liveNode{one, one, other, other}},
		{"three under one layer-3 network node, two under another layer-2 one", []liveNode{one, one, one, apart, apart}},
		{"one of four lacks network-node-layer-3 (kueue#6996)", []liveNode{one, one, one, noL3}},
		{"one of four NotReady", []liveNode{one, one, one, down}},
		{"one of four cordoned", []liveNode{one, cordoned, one, one}},
		{"none with network-node labels", []liveNode{{}, {}, {}, {}}},
		{"all NotReady", []liveNode{down, down, down, down}},
	}
	var compared, fit int
	refused := map[string]int{}
	for _, tc := range cases {
		nodes := make(tc.name, tc.nodes)
		live := sched.Pool{Name: pool.Name, Zones: pool.Zones, MaxNodes: pool.MaxNodes, Live: true, Standing: int32(len(nodes))}
		for _, n := range nodes {
			live.Nodes = append(live.Nodes, sched.Node{InstanceType: n.Labels[keys.LabelInstanceType], Zone: n.Labels[keys.LabelZone], Node: n})
		}
		cell := sched.Evaluate(c, &live)
		if err := k.SyncNodes(ctx, nodes); err != nil {
			t.Fatal(err)
		}
		for _, v := range requestVariants(levels, w.PodSets[0].Count) {
			where := fmt.Sprintf("%s, %s", tc.name, describe(v))
			pod, vw := variant(ctx, t, c.Pod, w, pool.Name, v)
			a := ours.Assign(q.ClusterQueue, pod, request, pods)
			var want verdict
			var f kueuemodel.Fit
			switch {
			case !a.Admitted():
				// A request the flavor cannot serve (a slice at a level
				// its Topology lacks): refused before TAS places it.
				want = verdict{false, map[string]string{}, a.Message}
			case !a.TAS || a.Flavor() != flavor:
				t.Fatalf("%s: the checker does not admit it to %s by topology: %+v", where, flavor, a)
			default:
				f = kueuemodel.TASFit(&live, &cell, levels, nil, kueuemodel.TopologyOf(pod), int64(vw.PodSets[0].Count))
				if f.Worst != f.Best {
					t.Errorf("%s: TASFit on live nodes is a bound: %+v", where, f)
				}
				want = verdict{f.Sure(), names(a.Flavors), ""}
				if !want.Admitted {
					want = verdict{false, map[string]string{}, "couldn't assign flavors to pod set main: " + f.NotFit(topology, f.Best)}
				}
			}
			got, err := k.AssignPodSets(ctx, q.ClusterQueue, q.Namespace, vw.Name, vw.PodSets)
			if err != nil {
				t.Fatal(err)
			}
			theirs := verdict{got.Mode == "Fit", names(got.Flavors), got.Message}
			if !theirs.Admitted {
				theirs.Flavors = map[string]string{}
			}
			compared++
			if theirs.Admitted {
				fit++
			} else {
				refused[kind(theirs.Message)]++
			}
			if want.String() != theirs.String() || want.Message != theirs.Message {
				t.Errorf("%s:\n  checker: %s (%d of %d node(s) standing, %d pod(s) fit)\n  Kueue:   %s", where, want, f.Standing, len(nodes), f.Best, theirs)
			}
		}
	}
	t.Logf("live fixtures: %d cases × %d requests: %d compared, fit %d, refused %d %v", len(cases), len(requestVariants(levels, w.PodSets[0].Count)), compared, fit, compared-fit, summary(refused))
}
