package nodediff

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/scheduling"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/plan"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/write"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// poolEdits are the edits of a Karpenter pool a spec change makes; each
// returns false where it does not apply.
var poolEdits = map[string]func(p *spec.Pool) bool{
	"max grows": func(p *spec.Pool) bool { p.Size.Max += 2; return true },
	"label added": func(p *spec.Pool) bool {
		p.Labels = map[string]string{"example.com/team": "vision"}
		return true
	},
	"taint added": func(p *spec.Pool) bool {
		p.Taints = append(p.Taints, spec.Taint{Key: "example.com/maintenance", Value: "true", Effect: "NoSchedule"})
		return true
	},
	"instance type dropped": func(p *spec.Pool) bool {
		if len(p.InstanceTypes) < 2 {
			return false
		}
		p.InstanceTypes = p.InstanceTypes[:len(p.InstanceTypes)-1]
		return true
	},
	"instance types reordered": func(p *spec.Pool) bool {
		if len(p.InstanceTypes) < 2 {
			return false
		}
		p.InstanceTypes = append(p.InstanceTypes[1:len(p.InstanceTypes):len(p.InstanceTypes)], p.InstanceTypes[0])
		return true
	},
	"zone dropped": func(p *spec.Pool) bool {
		if len(p.Zones) < 2 {
			return false
		}
		p.Zones = p.Zones[:len(p.Zones)-1]
		return true
	},
	"capacity flipped": func(p *spec.Pool) bool {
		if p.Capacity == spec.Spot {
			p.Capacity = spec.OnDemand
		} else {
			p.Capacity = spec.Spot
		}
		return true
	},
	"AMI family": func(p *spec.Pool) bool {
		if p.AMIFamily == "" && p.Sharing == nil && p.MIG == "" {
			p.AMIFamily = "Bottlerocket"
			return true
		}
		return false
	},
	"expireAfter": func(p *spec.Pool) bool { p.ExpireAfter = "333h"; return true },
}

// realDrift is Karpenter's own decision for a node of the before NodePool
// after the change: NodePoolDrifted if the NodePool's hash moved
// (areStaticFieldsDrifted: NodePool.Hash), NodeClassDrift if its
// EC2NodeClass's did (EC2NodeClass.Hash), else RequirementsDrifted for
// each node the new requirements exclude (areRequirementsDrifted, on a
// NodeClaim labelled as Karpenter labels one it launched in each
// instance type and zone the old requirements allow), counted.
func realDrift(b, a *karpv1.NodePool, bc, ac *v1.EC2NodeClass) (reason string, drifted, nodes int) {
	var types, zones []string
	labels := map[string]string{}
	for k, v := range b.Spec.Template.Labels {
		labels[k] = v
	}
	for _, r := range b.Spec.Template.Spec.Requirements {
		switch r.Key {
		case "node.kubernetes.io/instance-type":
			types = r.Values
		case "topology.kubernetes.io/zone":
			zones = r.Values
		case karpv1.CapacityTypeLabelKey:
			// Karpenter labels each node with the capacity type it
			// launched as: one of a reserved pool's [reserved, on-demand].
			labels[r.Key] = r.Values[0]
		default:
			if len(r.Values) == 1 {
				labels[r.Key] = r.Values[0]
			}
		}
	}
	nodes = len(types) * len(zones)
	switch {
	case b.Hash() != a.Hash():
		return plan.NodePoolDrifted, nodes, nodes
	case bc.Hash(nil) != ac.Hash(nil):
		return plan.NodeClassDrift, nodes, nodes
	}
	want := scheduling.NewNodeSelectorRequirementsWithMinValues(a.Spec.Template.Spec.Requirements...)
	for _, t := range types {
		for _, z := range zones {
			l := map[string]string{"node.kubernetes.io/instance-type": t, "topology.kubernetes.io/zone": z}
			for k, v := range labels {
				l[k] = v
			}
			if scheduling.NewLabelRequirements(l).Compatible(want) != nil {
				drifted++
			}
		}
	}
	if drifted > 0 {
		return plan.RequirementsDrifted, drifted, nodes
	}
	return "", 0, nodes
}

// driftCase is one edit of one Karpenter pool, both answers.
type driftCase struct {
	name               string
	real, ours         string // reasons, "" for none
	realAll, oursAll   bool   // every node drifts
	drifted, nodeCount int
}

// driftCases compiles each fleet and each edit of its Karpenter pools,
// and asks Karpenter's code and plan what drifts.
func driftCases(t *testing.T) []driftCase {
	t.Helper()
	names, paths, err := testfleet.Examples("../..")
	if err != nil {
		t.Fatal(err)
	}
	var specs []*spec.Fleet
	var fleetNames []string
	for i, p := range paths {
		if f := load(t, names[i], p); f != nil {
			specs, fleetNames = append(specs, f.res.Fleet.Spec), append(fleetNames, names[i])
		}
	}
	for seed := uint64(1); seed <= 3; seed++ {
		g := fleetgen.Generate(seed, fleetgen.S, fleetgen.Options{Buildable: true})
		for name, p := range g.Pools {
			if p.MIG == "" && !p.EFA {
				p.Provisioner = spec.Karpenter
				g.Pools[name] = p
			}
		}
		specs, fleetNames = append(specs, g), append(fleetNames, fmt.Sprintf("karpenter seed %d", seed))
	}
	tmp := t.TempDir()
	var out []driftCase
	for i, f := range specs {
		base := filepath.Join(tmp, fmt.Sprintf("f%d", i))
		before := loadSpec(t, base+"-before.json", f)
		if before == nil {
			continue
		}
		if _, err := write.Tree(base, before.res.Tree); err != nil {
			t.Fatal(err)
		}
		pools := 0
		for _, np := range before.pools {
			if pools++; pools > 3 {
				break
			}
			for _, edit := range slices.Sorted(func(yield func(string) bool) {
				for k := range poolEdits {
					if !yield(k) {
						return
					}
				}
			}) {
				g := clone(t, f)
				p, ok := g.Pools[np.Name]
				if !ok || !poolEdits[edit](&p) {
					continue
				}
				g.Pools[np.Name] = p
				after := loadSpec(t, base+"-after.json", g)
				if after == nil {
					continue
				}
				var anp *karpv1.NodePool
				for _, x := range after.pools {
					if x.Name == np.Name {
						anp = x
					}
				}
				if anp == nil {
					continue
				}
				c := driftCase{name: fleetNames[i] + ", pool " + np.Name + ", " + edit}
				c.real, c.drifted, c.nodeCount = realDrift(np, anp, before.classes[np.Spec.Template.Spec.NodeClassRef.Name], after.classes[anp.Spec.Template.Spec.NodeClassRef.Name])
				c.realAll = c.real == plan.NodePoolDrifted || c.real == plan.NodeClassDrift
				pl, err := compiler.Plan(after.res, base)
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				for _, gc := range pl.NodeGroups {
					if gc.Pool == np.Name {
						for _, d := range gc.Drift {
							c.ours, c.oursAll = d.Reason, d.Nodes == "all"
						}
					}
				}
				out = append(out, c)
			}
		}
	}
	return out
}

// clone is a deep copy of f, through its JSON.
func clone(t *testing.T, f *spec.Fleet) *spec.Fleet {
	t.Helper()
	var g spec.Fleet
	if err := json.Unmarshal(fleetgen.JSON(f), &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

// loadSpec writes f as JSON to path and loads it as load does; nil if
// gpufleet refuses the spec (an edit a pool cannot take).
func loadSpec(t *testing.T, path string, f *spec.Fleet) *fleet {
	t.Helper()
	if err := os.WriteFile(path, fleetgen.JSON(f), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := compiler.Compile([]string{path}); err != nil {
		return nil
	}
	return load(t, filepath.Base(path), path)
}

// plan's drift list is Karpenter's own: on every edit of the example
// fleets' and generated fleets' Karpenter pools, the NodePool's and
// EC2NodeClass's hashes from Karpenter's code and its requirements check
// decide which nodes drift, and plan says the same reason. The first
// model, which hashed neither expireAfter nor nodeClassRef (an AMI family
// is an EC2NodeClass of its own, so Karpenter says NodePoolDrifted, not
// NodeClassDrift), disagreed on 28 edits when this test first ran.
func TestPlanDriftIsKarpenters(t *testing.T) {
	cases := driftCases(t)
	drifts := 0
	for _, c := range cases {
		if c.real != "" {
			drifts++
		}
	}
	if drifts == 0 || drifts == len(cases) {
		t.Fatalf("%d of %d edits drift: the edits test nothing", drifts, len(cases))
	}
	if bad := disagree(t, cases, true); bad > 0 {
		t.Errorf("plan and Karpenter disagree on %d of %d edits", bad, len(cases))
	}
	t.Logf("%d edits of Karpenter pools, %d drift nodes", len(cases), drifts)

	// Deliberate bugs in plan's answers, each caught on the same edits:
	// expireAfter not hashed, the labels not hashed, a requirement
	// narrowed read as no drift, and every drift read as of all nodes.
	for name, bug := range map[string]func(c *driftCase){
		"expireAfter not hashed": func(c *driftCase) {
			if strings.HasSuffix(c.name, ", expireAfter") {
				c.ours, c.oursAll = "", false
			}
		},
		"labels not hashed": func(c *driftCase) {
			if strings.HasSuffix(c.name, ", label added") {
				c.ours, c.oursAll = "", false
			}
		},
		"requirements ignored": func(c *driftCase) {
			if c.ours == plan.RequirementsDrifted {
				c.ours = ""
			}
		},
		"every drift of all nodes": func(c *driftCase) {
			if c.ours != "" {
				c.oursAll = true
			}
		},
	} {
		mutated := slices.Clone(cases)
		for i := range mutated {
			bug(&mutated[i])
		}
		if n := disagree(t, mutated, false); n == 0 {
			t.Errorf("the bug %q went unnoticed", name)
		} else {
			t.Logf("bug %q caught on %d edits", name, n)
		}
	}
}

// disagree counts the cases where plan is not Karpenter.
func disagree(t *testing.T, cases []driftCase, log bool) int {
	bad := 0
	for _, c := range cases {
		if c.real != c.ours || c.realAll != c.oursAll {
			bad++
			if log {
				t.Logf("%s: Karpenter drifts %d of %d nodes (%q), plan says %q (all: %v)", c.name, c.drifted, c.nodeCount, c.real, c.ours, c.oursAll)
			}
		}
	}
	return bad
}
