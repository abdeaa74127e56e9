package kubesched

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
)

// placementChecks are the checker's multi-pod proofs: all of a class's pods
// can run at once.
var placementChecks = []check.ID{check.IDLands, check.IDGang, check.IDCapacity, check.IDInterPodAffinity, check.IDPodTopologySpread}

// TestPlacementDifferential builds each pool at max size (its nodes of the
// type the checker credits, balanced over its zones) and places each
// class's pods one by one with kube-scheduler's real filters, choosing the
// least-loaded zone, then node. All pods placed must mean the checker has no
// placement finding for the class, and the reverse.
func TestPlacementDifferential(t *testing.T) {
	classes, placedAll, refused := 0, 0, 0
	byCheck := map[check.ID]int{}
	var bad []string
	for _, fc := range fleetCases(t) {
		res, cl := fc.compile(t)
		for i := range cl.Classes {
			c := &cl.Classes[i]
			ours := checkerPlaces(res, c.Name)
			if !ours && landsNowhere(res, c.Name) {
				continue // the node-level differential covers these
			}
			nodes := fullSize(cl, c, res.Report)
			placed, err := place(c, nodes)
			if err != nil {
				t.Fatalf("%s: class %s: %v", fc.name, c.Name, err)
			}
			theirs := placed == int(c.Pods)
			classes++
			if theirs {
				placedAll++
			} else {
				refused++
			}
			for _, f := range res.Report.Findings {
				if f.Class == c.Name && slices.Contains(placementChecks, f.Check) {
					byCheck[f.Check]++
				}
			}
			if ours != theirs {
				bad = append(bad, fmt.Sprintf("%s: class %s (%d pods): checker says all place = %v, kube-scheduler placed %d on %d nodes; findings: %v",
					fc.name, c.Name, c.Pods, ours, placed, len(nodes), findingsOf(res, c.Name)))
			}
		}
	}
	t.Logf("placed %d classes pod by pod: %d placed whole, %d not (checker findings %v); %d disagreements", classes, placedAll, refused, byCheck, len(bad))
	figures = append(figures, fmt.Sprintf("%-10s %d classes placed pod by pod: %d whole, %d not; findings: gang %d, capacity %d, spread %d, anti-affinity %d",
		"placement", classes, placedAll, refused, byCheck[check.IDGang], byCheck[check.IDCapacity], byCheck[check.IDPodTopologySpread], byCheck[check.IDInterPodAffinity]))
	if placedAll == 0 || refused == 0 {
		t.Errorf("the fleets exercised only one outcome (placed %d, refused %d)", placedAll, refused)
	}
	for _, check := range placementChecks[1:] {
		if byCheck[check] == 0 {
			t.Errorf("no generated class failed %s: the generator no longer exercises it", check)
		}
	}
	if len(bad) > 0 {
		t.Fatalf("%d disagreements:\n%s", len(bad), strings.Join(bad, "\n"))
	}
}

func checkerPlaces(res *compiler.Result, class string) bool {
	return len(findingsOf(res, class)) == 0
}

func findingsOf(res *compiler.Result, class string) []string {
	var out []string
	for _, f := range res.Report.Findings {
		if f.Class == class && slices.Contains(placementChecks, f.Check) {
			out = append(out, string(f.Check)+": "+f.Message)
		}
	}
	return out
}

func landsNowhere(res *compiler.Result, class string) bool {
	for _, f := range res.Report.Findings {
		if f.Class == class && f.Check == "Lands" {
			return true
		}
	}
	return false
}

// fullSize is every pool at max size for class c.
func fullSize(cl *check.Cluster, c *check.Class, r *check.Report) []*v1.Node {
	var nodes []*v1.Node
	for _, p := range cl.Pools {
		typ := r.Cell(c.Name, p.Name).Type
		if typ == "" {
			typ = p.Nodes[0].InstanceType
		}
		for _, n := range p.Nodes {
			if n.InstanceType != typ {
				continue
			}
			for k := int64(0); k < p.NodesInZone(n.Zone); k++ {
				node := n.Node.DeepCopy()
				node.Name = fmt.Sprintf("%s-%s-%d", p.Name, n.Zone, k)
				node.Labels["kubernetes.io/hostname"] = node.Name
				nodes = append(nodes, node)
			}
		}
	}
	return nodes
}

// place schedules c's pods one at a time and returns how many were placed.
func place(c *check.Class, nodes []*v1.Node) (int, error) {
	zoneOf := map[string]string{}
	for _, n := range nodes {
		zoneOf[n.Name] = n.Labels["topology.kubernetes.io/zone"]
	}
	perZone, perNode := map[string]int{}, map[string]int{}
	var existing []*v1.Pod
	for i := 0; i < int(c.Pods); i++ {
		pod := c.Pod.DeepCopy()
		pod.Name = fmt.Sprintf("%s-%d", c.Name, i)
		reasons, err := Filter(pod, nodes, existing)
		if err != nil {
			return i, err
		}
		best := ""
		for _, n := range nodes {
			if len(reasons[n.Name]) > 0 {
				continue
			}
			if best == "" || less(n.Name, best, zoneOf, perZone, perNode) {
				best = n.Name
			}
		}
		if best == "" {
			return i, nil
		}
		pod.Spec.NodeName = best
		pod.Namespace = "default"
		existing = append(existing, pod)
		perZone[zoneOf[best]]++
		perNode[best]++
	}
	return int(c.Pods), nil
}

func less(a, b string, zoneOf map[string]string, perZone, perNode map[string]int) bool {
	if za, zb := perZone[zoneOf[a]], perZone[zoneOf[b]]; za != zb {
		return za < zb
	}
	if na, nb := perNode[a], perNode[b]; na != nb {
		return na < nb
	}
	return a < b
}
