package e2e

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/check/provisioning"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/check/scheduling"
	"github.com/gpufleet/gpufleet/e2e/scaleup"
)

// A class's run starts from the standing fleet: each managed node group
// at its min (startNodes), and grows as cluster-autoscaler would grow it,
// by the restatement in e2e/scaleup (not the component: the module proxy
// refuses it), while pods stay Unschedulable. Karpenter's NodePools
// stand at no node, and the real Karpenter controller (karpenter.go)
// launches their nodes.

// standingSize is fullSize with every managed node group at its min and
// every NodePool at none.
func (fr *fleetRun) standingSize(class string) nodeSet {
	return fr.nodesFor(class, func(p *infraPool) bool { return !p.karpenter || fr.kwok })
}

// startNodes are the nodes a class's run starts from: a class Kueue
// places by topology meets kueueSize (Kueue places it on the nodes that
// stand, and no pod of it pends for an autoscaler); any other the
// standing fleet, and grows is true.
//
// A class PodTopologySpread refuses is judged at max size too: the
// checker counts every zone the class matches, but kube-scheduler's
// PodTopologySpread counts only the domains of nodes that exist, so from
// a standing fleet whose other pools have no node in those zones it
// places the pods skewed (broken_zone_spread shows it).
func (fr *fleetRun) startNodes(c *sched.Class, tenant string) (nodeSet, bool) {
	if fr.tasClass(c, tenant) {
		return fr.kueueSize(c.Name), false
	}
	for _, f := range fr.res.Report.Findings {
		if f.Check == scheduling.IDPodTopologySpread && f.Class == c.Name {
			fr.t.Logf("class %s: PodTopologySpread counts domains of nodes that exist; judged at max size", c.Name)
			return fr.fullSize(c.Name), false
		}
	}
	return fr.standingSize(c.Name), true
}

// triedOn reads the node count of kube-scheduler's "0/N nodes are
// available" message (0 for "no nodes available to schedule pods", its
// message with no node at all: pkg/scheduler/schedule_one.go,
// ErrNoNodesAvailable), or -1.
var triedOn = regexp.MustCompile(`^0/(\d+) nodes are available`)

func nodesTried(msg string) int {
	if strings.HasPrefix(msg, "no nodes available to schedule pods") {
		return 0
	}
	m := triedOn.FindStringSubmatch(msg)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// grower returns the hook a class's settle calls with each settled
// outcome: while pods of the run are Unschedulable over every node that
// exists, it asks the restatement which groups cluster-autoscaler grows,
// adds their nodes as the Auto Scaling groups would, and says true (the
// outcome is not final); false once no group can help.
//
// Once no group can help, pods still pending are judged at max size, as
// before (topUp): kube-scheduler must refuse them there in the checker's
// words. Only a class the checker says cluster-autoscaler never grows a
// group for (fromZero: AutoscalerDRAFromZero) is judged where it stands.
//
// Where Karpenter runs, it goes first: the nodes it launches for the
// pending pods join (karpenterGrow), and the restatement is asked only
// once Karpenter launches nothing more.
func (fr *fleetRun) grower(c *sched.Class, ns, run string, fromZero bool) func(outcome) bool {
	fr.noScaleUp = nil
	round := time.Now()
	return func(o outcome) bool {
		if len(o.pending) == 0 {
			return false
		}
		for _, msg := range o.pending {
			if nodesTried(msg) != len(fr.nodes.nodes) {
				return true // kube-scheduler has not yet tried the nodes added
			}
		}
		if fr.karp != nil {
			added, refused := fr.karpenterGrow(ns, round, o.pending)
			round = time.Now()
			if len(added) > 0 {
				fr.joined(added)
				fr.waitRetried(ns, run, o.pending)
				fr.st.KarpenterLaunches++
				fr.st.KarpenterNodes += len(added)
				fr.launchedAgrees(c.Name, added)
				fr.t.Logf("class %s: Karpenter launches %s for %d pending pods", c.Name, nodeTypes(added), len(o.pending))
				return true
			}
			for i, pod := range slices.Sorted(maps.Keys(refused)) {
				why := refused[pod]
				if i == 0 {
					fr.t.Logf("class %s: Karpenter launches nothing for %d pending pods; for pod %s: %s", c.Name, len(refused), pod, why)
				}
				fr.karpDRA = fr.karpDRA || strings.Contains(why, karpenterNoDRA)
				fr.karpRefused = true
			}
		}
		pods, err := fr.cp.Client.CoreV1().Pods(ns).List(fr.ctx, metav1.ListOptions{LabelSelector: runLabel + "=" + run})
		if err != nil {
			fr.t.Fatal(err)
		}
		devices := fr.claimDevices(ns)
		var pending []scaleup.Pod
		for i := range pods.Items {
			p := &pods.Items[i]
			if _, ok := o.pending[p.Name]; ok {
				pending = append(pending, scaleup.Pod{Pod: p, Devices: devices[p.Name]})
			}
		}
		groups := fr.asgs()
		d := scaleup.ScaleUp(groups, pending, scaleup.Defaults())
		fr.noScaleUp = d.NoScaleUp
		if len(d.Increases) == 0 {
			if len(d.NoScaleUp) > 0 && len(groups) > 0 {
				first := slices.Sorted(maps.Keys(d.NoScaleUp))[0]
				fr.t.Logf("class %s: cluster-autoscaler (restated) adds no node: %s: %s", c.Name, first, d.NoScaleUp[first])
			}
			if fromZero || !fr.topUp(c.Name) {
				return false
			}
			fr.st.CAMaxSize++
			fr.t.Logf("class %s: %d pods still pending; judged at max size", c.Name, len(o.pending))
			fr.waitRetried(ns, run, o.pending)
			return true
		}
		var added []*corev1.Node
		var grown []string
		for _, inc := range d.Increases {
			p := fr.groupNamed(inc.Group)
			for k := inc.From; k < inc.To; k++ {
				n := fr.nextNode(p)
				fr.nodes.add(n, p)
				added = append(added, n)
			}
			grown = append(grown, fmt.Sprintf("%s %d→%d", inc.Group, inc.From, inc.To))
		}
		fr.addNodes(added)
		fr.waitRetried(ns, run, o.pending)
		fr.st.CAScaleUps++
		fr.st.CANodes += len(added)
		fr.t.Logf("class %s: cluster-autoscaler (restated) grows %s for %d pending pods (expander: %s)", c.Name, strings.Join(grown, ", "), len(d.Helped), d.Best)
		return true
	}
}

// noScaleUpAgrees says how the restated cluster-autoscaler's reasons for
// adding no node contradict the checker's, which want is the filter
// reason of (expect), or "".
func (fr *fleetRun) noScaleUpAgrees(want string, o outcome) string {
	if want == "" {
		return ""
	}
	for pod := range o.pending {
		if strings.Contains(fr.noScaleUp[pod], want) {
			return ""
		}
	}
	return fmt.Sprintf("the checker says cluster-autoscaler adds no node for the class's pods (%q), but no pending pod was refused a scale-up so (%v)", want, fr.noScaleUp)
}

// gpuReadyAgrees holds the restatement's GPU readiness (scaleup.Ready)
// to the checker's AutoscalerGPUReady: a managed group's node is unready
// for cluster-autoscaler exactly where the check names its pool.
func (fr *fleetRun) gpuReadyAgrees() {
	flagged := map[string]bool{}
	for _, f := range fr.res.Report.Findings {
		if f.Check == provisioning.IDAutoscalerGPUReady {
			flagged[f.Pool] = true
		}
	}
	for _, n := range fr.nodes.nodes {
		p := fr.nodes.groupOf[n.Name]
		if p.karpenter {
			continue
		}
		switch ready := scaleup.Ready(n, scaleup.GPULabel); {
		case !ready && !flagged[p.name]:
			fr.fail("node %s of pool %s: cluster-autoscaler (restated) counts it unready for its GPUs, and AutoscalerGPUReady says nothing", n.Name, p.name)
		case ready && flagged[p.name]:
			fr.fail("node %s of pool %s: AutoscalerGPUReady says cluster-autoscaler counts it unready, the restatement counts it ready", n.Name, p.name)
		case !ready:
			fr.st.CAUnready++
		}
	}
}

// waitRetried waits, bounded, until kube-scheduler has bound each of the
// pods that were pending or tried it against every node there is now,
// so that the next outcome settle reads is that of the grown fleet.
func (fr *fleetRun) waitRetried(ns, run string, pending map[string]string) {
	err := poll(30*time.Second, 200*time.Millisecond, func() (bool, error) {
		l, err := fr.cp.Client.CoreV1().Pods(ns).List(fr.ctx, metav1.ListOptions{LabelSelector: runLabel + "=" + run})
		if err != nil {
			return false, err
		}
		for _, p := range l.Items {
			if _, ok := pending[p.Name]; !ok || p.Spec.NodeName != "" {
				continue
			}
			tried := false
			for _, c := range p.Status.Conditions {
				tried = tried || c.Type == corev1.PodScheduled && nodesTried(c.Message) == len(fr.nodes.nodes)
			}
			if !tried {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil && !errors.Is(err, errTimeout) {
		fr.t.Fatal(err)
	}
}

// addNodes registers nodes already in fr.nodes, waits for their daemon
// pods and publishes their ResourceSlices, as a node joining does.
func (fr *fleetRun) addNodes(added []*corev1.Node) {
	if err := createNodes(fr.ctx, fr.cp, added); err != nil {
		fr.t.Fatal(err)
	}
	fr.joined(added)
}

// joined waits for the daemon pods of nodes added to the run's set and
// publishes their ResourceSlices.
func (fr *fleetRun) joined(added []*corev1.Node) {
	fr.nodeKey = fr.nodes.key()
	if len(fr.daemonSets) == 0 {
		return
	}
	placed, err := fr.daemonPods(fr.daemonSets)
	if err != nil {
		fr.t.Fatalf("node agents on the added nodes: %v", err)
	}
	if len(fr.draObjects) > 0 {
		fr.addSlices(placed, added)
	}
}

// topUp adds the nodes fullSize has and the run's set lacks, and says
// whether it added any: what no scale-up helps, and a Deployment's
// rollout, are judged at max size. A NodePool keeps the nodes Karpenter
// launched, topped up to its max.
func (fr *fleetRun) topUp(class string) bool {
	var added []*corev1.Node
	full := fr.fullSize(class)
	have, want := map[*infraPool]int{}, map[*infraPool]int{}
	for _, n := range full.nodes {
		want[full.groupOf[n.Name]]++
	}
	for _, n := range fr.nodes.nodes {
		have[fr.nodes.groupOf[n.Name]]++
	}
	for _, n := range full.nodes {
		if g := full.groupOf[n.Name]; g.karpenter && fr.kwok {
			if have[g] >= want[g] {
				continue
			}
			have[g]++
		}
		if _, ok := fr.nodes.poolOf[n.Name]; !ok {
			fr.nodes.add(n, full.groupOf[n.Name])
			added = append(added, n)
		}
	}
	if len(added) > 0 {
		fr.addNodes(added)
	}
	return len(added) > 0
}

// nextNode is the node the Auto Scaling group launches next: in the
// zone with the fewest of its nodes, the first listed on a tie (EC2 Auto
// Scaling's AZ balancing), numbered after those.
func (fr *fleetRun) nextNode(p *infraPool) *corev1.Node {
	count := map[string]int{}
	for _, n := range fr.nodes.nodes {
		if fr.nodes.groupOf[n.Name] == p {
			count[n.Labels[corev1.LabelTopologyZone]]++
		}
	}
	zone := p.zones[0]
	for _, z := range p.zones {
		if count[z] < count[zone] {
			zone = z
		}
	}
	return fr.poolNode(p, fr.nodes.typeOf[p.name], zone, count[zone])
}

// nodeTypes lists nodes' instance types and zones, for the log.
func nodeTypes(nodes []*corev1.Node) string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.Labels[corev1.LabelInstanceTypeStable]+" in "+n.Labels[corev1.LabelTopologyZone])
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}
