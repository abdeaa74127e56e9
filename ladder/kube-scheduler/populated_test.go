package kubesched

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

var populatedSteps = flag.Int("populated-steps", 16, "pods of each class placed one by one in the populated differential")

// TestPopulatedDifferential compares the checker's node filters with
// kube-scheduler's PreFilter and Filter on clusters already running pods,
// where spread and anti-affinity refuse nodes one by one. Each fleet's
// pools stand at max size, their instance types taking turns; a few pods of
// random classes run there first (a background), then each class's pods
// are added one at a time, on a node the real filters accept, chosen at
// random from a seeded source (no heuristic of the checker's). Before each
// pod, every node's verdict and reasons must agree.
func TestPopulatedDifferential(t *testing.T) {
	var cov coverage
	var bad []disagreement
	for fi, fc := range fleetCases(t) {
		if strings.HasPrefix(fc.name, "tricky") {
			continue // the examples and the full fleets
		}
		_, cl := fc.compile(t)
		nodes := cluster(cl)
		rng := rand.New(rand.NewPCG(uint64(fi), 18))
		var background []*v1.Pod
		for k := 0; k < 8 && len(cl.Classes) > 1; k++ {
			c := &cl.Classes[rng.IntN(len(cl.Classes))]
			if c.Info.Claims.Asks() {
				continue // judged on occupied nodes by TestPlacementDifferential
			}
			background = addPods(t, c, nodes, background, 4, rng, fc.name, nil, nil)
		}
		for i := range cl.Classes {
			c := &cl.Classes[i]
			// A class the extended-resource bridge gives devices is
			// judged here on a cluster without the driver chart's
			// DeviceClass (Filter's framework holds none, and
			// FilterPopulated reads no bridge): the other filters on
			// occupied nodes. TestPlacementDifferential judges it with
			// the class, the DRA manager and the devices.
			if c.Info.Claims.Asks() {
				// A DRA class on occupied nodes: TestPlacementDifferential
				// places its pods one by one with the DRA manager, and
				// holds every node's reasons for the first refused one.
				continue
			}
			addPods(t, c, nodes, background, min(int(c.Pods), *populatedSteps), rng, fc.name, &cov, &bad)
		}
	}
	t.Logf("populated clusters: %s; %d disagreements", cov.String(), len(bad))
	record("populated", cov)
	if len(bad) > 0 {
		slices.SortFunc(bad, func(a, b disagreement) int { return size(a) - size(b) })
		t.Fatalf("%d disagreements; smallest:\n%s", len(bad), bad[0])
	}
	cov.floors(t)
}

// addPods places up to n of c's pods one by one, comparing every node's
// verdict before each (when cov is set), and returns existing with them.
func addPods(t *testing.T, c *sched.Class, nodes []*v1.Node, existing []*v1.Pod, n int, rng *rand.Rand, fleet string, cov *coverage, bad *[]disagreement) []*v1.Pod {
	t.Helper()
	existing = slices.Clone(existing)
	for k := 0; k < n; k++ {
		pod := c.Pod.DeepCopy()
		pod.Name, pod.Namespace = fmt.Sprintf("%s-%d", c.Name, len(existing)), "default"
		theirs, err := Filter(pod, nodes, existing)
		if err != nil {
			t.Fatalf("%s: class %s: %v", fleet, c.Name, err)
		}
		if cov != nil {
			ours := sched.FilterPopulated(pod, nodes, existing)
			for _, node := range nodes {
				want, got := sorted(theirs[node.Name]), sorted(ours[node.Name])
				cov.add(want, k > 0 || len(existing) > 0)
				if !slices.Equal(got, want) {
					*bad = append(*bad, disagreement{fmt.Sprintf("%s (after %d pods)", fleet, len(existing)), c.Name, node.Name, got, want, pod, node})
				}
			}
		}
		var feasible []*v1.Node
		for _, node := range nodes {
			if len(theirs[node.Name]) == 0 {
				feasible = append(feasible, node)
			}
		}
		if len(feasible) == 0 {
			break
		}
		pod.Spec.NodeName = feasible[rng.IntN(len(feasible))].Name
		existing = append(existing, pod)
	}
	return existing
}

// cluster is every pool at max size: in each zone its share of nodes,
// its instance types taking turns, named as the checker names hosts.
func cluster(cl *sched.Cluster) []*v1.Node {
	var nodes []*v1.Node
	for _, p := range cl.Pools {
		for _, zone := range p.Zones {
			var types []*v1.Node
			for _, n := range p.Nodes {
				if n.Zone == zone {
					types = append(types, n.Node)
				}
			}
			if len(types) == 0 {
				continue
			}
			for k := int64(0); k < p.NodesInZone(zone); k++ {
				node := types[int(k)%len(types)].DeepCopy()
				node.Name = fmt.Sprintf("%s-%s-%d", p.Name, zone, k)
				node.Labels["kubernetes.io/hostname"] = node.Name
				nodes = append(nodes, node)
			}
		}
	}
	return nodes
}
