package compiler_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// TestStrandedProperties holds the stranded-GPU rule over generated fleets:
// a node never strands more than it has, nor less than zero, and strands
// none when a class landing there takes a divisor of its units and fits
// enough pods to fill it.
func TestStrandedProperties(t *testing.T) {
	dir := t.TempDir()
	rows, zero, some, divided := 0, 0, 0, 0
	for seed := range uint64(30) {
		p := filepath.Join(dir, fmt.Sprintf("fleet-%d.json", seed))
		opts := fleetgen.Options{Full: seed%3 == 0, Tricky: seed%3 == 1}
		if err := os.WriteFile(p, fleetgen.JSON(fleetgen.Generate(seed, fleetgen.S, opts)), 0o644); err != nil {
			t.Fatal(err)
		}
		res := compile(t, p)
		cl, err := res.Cluster()
		if err != nil {
			t.Fatal(err)
		}
		cost := res.Report.Cost
		if cost == nil {
			t.Fatalf("seed %d: no cost", seed)
		}
		for _, s := range cost.Stranded {
			rows++
			node := nodeOf(t, cl, s.Pool, s.Type)
			have := node.Status.Capacity[corev1.ResourceName(s.Resource)]
			if s.PerNode != have.Value() || s.Stranded < 0 || s.Stranded > s.PerNode || s.Usable+s.Stranded != s.PerNode {
				t.Errorf("seed %d: %+v: the node has %s of %s", seed, s, have.String(), s.Resource)
			}
			divides := false
			for _, name := range s.Classes {
				c := cl.Class(name)
				want := c.Info.Request[corev1.ResourceName(s.Resource)]
				g := want.Value()
				if g > 0 && s.PerNode%g == 0 && sched.PodsPerNode(c.Info, node.Node)*g >= s.PerNode && !hostnameAntiAffinity(c) {
					divides = true
				}
			}
			if divides {
				divided++
			}
			if divides && s.Stranded != 0 {
				t.Errorf("seed %d: %+v: a class's request divides the node's %d, yet %d are stranded", seed, s, s.PerNode, s.Stranded)
			}
			if len(s.Classes) == 0 && s.Stranded != s.PerNode {
				t.Errorf("seed %d: %+v: no class lands, yet not every unit is stranded", seed, s)
			}
			if s.Stranded == 0 {
				zero++
			} else {
				some++
			}
		}
		for _, cc := range cost.Classes {
			if cc.Nodes < 1 || cc.Nodes < (cc.Pods+cc.PodsPerNode-1)/cc.PodsPerNode {
				t.Errorf("seed %d: %+v: too few nodes", seed, cc)
			}
			if (cc.Hourly == nil) != (cc.Unknown != "") || cc.Spot && cc.Hourly != nil {
				t.Errorf("seed %d: %+v: a generated fleet gives no spot price, and every on-demand one is in the table", seed, cc)
			}
		}
	}
	// The generator must reach both sides of the rule.
	if zero == 0 || some == 0 || divided == 0 {
		t.Errorf("%d stranded rows: %d strand none, %d strand some, %d have a class that divides the node", rows, zero, some, divided)
	}
	t.Logf("%d GPU pool rows: %d strand none, %d strand some, %d have a class that divides the node", rows, zero, some, divided)
}

func nodeOf(t *testing.T, cl *sched.Cluster, pool, instanceType string) sched.Node {
	t.Helper()
	for _, p := range cl.Pools {
		if p.Name != pool {
			continue
		}
		for _, n := range p.Nodes {
			if n.InstanceType == instanceType {
				return n
			}
		}
	}
	t.Fatalf("no %s node in pool %s", instanceType, pool)
	return sched.Node{}
}

func hostnameAntiAffinity(c *sched.Class) bool {
	a := c.Pod.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return false
	}
	for _, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if term.TopologyKey == keys.LabelHostname {
			return true
		}
	}
	return false
}
