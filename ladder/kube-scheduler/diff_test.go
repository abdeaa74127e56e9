package kubesched

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

var (
	generated = flag.Int("fleets", 300, "full-feature generated fleets in the differential tests")
	tricky    = flag.Int("tricky", 100, "generated fleets with the escape hatches (fleetgen Options.Tricky)")
)

// fleetCase is one fleet to compare: an example directory or a generated
// spec written to a temp file.
type fleetCase struct {
	name, path string
}

func fleetCases(t testing.TB) []fleetCase {
	t.Helper()
	_, dirs, err := testfleet.Examples("../..")
	if err != nil {
		t.Fatal(err)
	}
	var cases []fleetCase
	for _, d := range dirs {
		cases = append(cases, fleetCase{filepath.Base(d), d})
	}
	tmp := t.TempDir()
	write := func(name string, f *spec.Fleet) {
		path := filepath.Join(tmp, strings.ReplaceAll(name, " ", "-")+".json")
		if err := os.WriteFile(path, fleetgen.JSON(f), 0o644); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, fleetCase{name, path})
	}
	// The full generator covers the whole spec; the tricky one, the
	// escape hatches (taints of every effect, Gt/Lt, wrong tolerations).
	for seed := 1; seed <= *generated; seed++ {
		write(fmt.Sprintf("full seed %d", seed), fleetgen.Generate(uint64(seed), fleetgen.S, fleetgen.Options{Full: true}))
	}
	for seed := 1; seed <= *tricky; seed++ {
		size := fleetgen.S
		if seed%10 == 0 {
			size = fleetgen.Size{Name: "tiny", Pools: 3, Classes: 4, Tenants: 2}
		}
		write(fmt.Sprintf("tricky seed %d", seed), fleetgen.Generate(uint64(seed), size, fleetgen.Options{Tricky: seed%3 != 0}))
	}
	return cases
}

// compile compiles the fleet and reads the checked cluster back.
func (fc fleetCase) compile(t testing.TB) (*compiler.Result, *sched.Cluster) {
	t.Helper()
	res, err := compiler.Compile([]string{fc.path})
	if err != nil {
		t.Fatalf("%s: %v", fc.name, err)
	}
	cl, err := res.Cluster()
	if err != nil {
		t.Fatalf("%s: %v", fc.name, err)
	}
	return res, cl
}

// disagreement is one node on which the checker and kube-scheduler differ,
// kept with the pod and node so it can be replayed.
type disagreement struct {
	fleet, class, node string
	ours, theirs       []string
	pod                *v1.Pod
	n                  *v1.Node
}

func (d disagreement) String() string {
	p, _ := yaml.Marshal(d.pod)
	n, _ := yaml.Marshal(d.n)
	return fmt.Sprintf("%s: class %s on node %s: checker %q, kube-scheduler %q\n--- pod\n%s--- node\n%s",
		d.fleet, d.class, d.node, d.ours, d.theirs, p, n)
}

// TestDifferential compares the placement checker's verdict and reasons
// with kube-scheduler v1.35.4's own PreFilter and Filter plugins for every
// class on every synthesised node, over the example fleets and generated
// ones. Agreement must be total.
func TestDifferential(t *testing.T) {
	var nodePairs, poolPairs, fits, refused, mig, shared, system int
	var cov coverage
	var bad []disagreement
	var draClasses, draMIG, draPairs, bridged int
	for _, fc := range fleetCases(t) {
		res, cl := fc.compile(t)
		var nodes []*v1.Node
		for _, p := range cl.Pools {
			for _, n := range p.Nodes {
				nodes = append(nodes, n.Node)
			}
		}
		dra := draInputs(t, res, cl)
		// The tree's own workloads (its scheduler's Deployment) are held
		// to the filters as classes are: SystemLands reads their cells.
		system += len(cl.System)
		all := append(slices.Clone(cl.Classes), cl.System...)
		for i := range all {
			c := &all[i]
			var theirs map[string][]string
			var err error
			if len(c.Pod.Spec.ResourceClaims) > 0 || c.Info.Bridge.Asks() {
				// A pod asking for nvidia.com/gpu where the driver
				// chart's DeviceClass maps it is the DRA manager's
				// too: the extended-resource bridge.
				theirs, err = FilterDRA(c.Pod, nodes, nil, dra)
				bridged += b2i(c.Info.Bridge.Asks())
				draClasses++
				draPairs += len(nodes)
				if c.Info.Claims.Asks() && strings.HasPrefix(c.Info.Claims.Claims[0].Spec.Devices.Requests[0].Exactly.DeviceClassName, "mig-") {
					draMIG++
				}
			} else {
				theirs, err = Filter(c.Pod, nodes, nil)
			}
			if err != nil {
				t.Fatalf("%s: class %s: %v", fc.name, c.Name, err)
			}
			switch gpuKind(c.Pod) {
			case "mig":
				mig++
			case "shared":
				shared++
			}
			for j := range cl.Pools {
				cell := sched.Evaluate(c, &cl.Pools[j])
				poolPairs++
				for k, v := range cell.Nodes {
					n := cl.Pools[j].Nodes[k].Node
					nodePairs++
					want := sorted(theirs[n.Name])
					cov.add(want, false)
					if v.Fits {
						fits++
					} else {
						refused++
					}
					if got := sorted(v.Reasons); !slices.Equal(got, want) {
						bad = append(bad, disagreement{fc.name, c.Name, n.Name, got, want, c.Pod, n})
					}
				}
			}
		}
	}
	t.Logf("compared %d class × pool pairs (%d class × node pairs: %d fit, %d refused); %d disagreements",
		poolPairs, nodePairs, fits, refused, len(bad))
	t.Logf("%d MIG and %d shared-GPU classes compared; %d of the trees' own Deployments (their schedulers)", mig, shared, system)
	t.Logf("%d DRA classes (%d of them claiming MIG slices, %d asking nvidia.com/gpu through the extended-resource bridge) compared on %d nodes by the DynamicResources plugin with its DRA manager", draClasses, draMIG, bridged, draPairs)
	figures = append(figures, fmt.Sprintf("%-10s %d DRA classes (%d MIG, %d bridged) on %d nodes", "dra", draClasses, draMIG, bridged, draPairs))
	if draClasses == 0 || draMIG == 0 {
		t.Errorf("%d DRA classes compared, %d of them MIG: the DynamicResources filter goes unjudged", draClasses, draMIG)
	}
	if system == 0 {
		t.Errorf("no tree's own Deployment compared: SystemLands' cells go unjudged")
	}
	record("empty", cov)
	figures = append(figures, fmt.Sprintf("%-10s %d MIG and %d shared-GPU classes", "sharing", mig, shared))
	if fits == 0 || refused == 0 {
		t.Errorf("the fleets exercised only one verdict (fit %d, refused %d)", fits, refused)
	}
	if mig+shared < 100 || mig == 0 || shared == 0 {
		t.Errorf("%d MIG and %d shared-GPU classes compared: want at least 100, of both", mig, shared)
	}
	if len(bad) > 0 {
		// The smallest case: the disagreement with the fewest pod and
		// node fields to read.
		slices.SortFunc(bad, func(a, b disagreement) int { return size(a) - size(b) })
		t.Fatalf("%d disagreements; smallest:\n%s", len(bad), bad[0])
	}
}

// gpuKind is "mig" for a pod requesting MIG slices, "shared" for one
// selecting shared GPUs (the device plugin's config label), else "".
func gpuKind(p *v1.Pod) string {
	for _, c := range p.Spec.Containers {
		for r := range c.Resources.Requests {
			if strings.HasPrefix(string(r), "nvidia.com/mig-") {
				return "mig"
			}
		}
	}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, r := range term.MatchExpressions {
				if r.Key == "nvidia.com/device-plugin.config" && r.Operator == v1.NodeSelectorOpExists {
					return "shared"
				}
			}
		}
	}
	return ""
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	if len(out) == 0 {
		return nil
	}
	return out
}

func size(d disagreement) int {
	p, _ := yaml.Marshal(d.pod)
	n, _ := yaml.Marshal(d.n)
	return len(p) + len(n)
}

// BenchmarkFilters compares the checker's node filters with the real
// scheduler's on the same class × node pairs of one generated fleet.
func BenchmarkFilters(b *testing.B) {
	f := filepath.Join(b.TempDir(), "fleet.json")
	if err := os.WriteFile(f, fleetgen.JSON(fleetgen.Generate(7, fleetgen.S, fleetgen.Options{Tricky: true})), 0o644); err != nil {
		b.Fatal(err)
	}
	res, err := compiler.Compile([]string{f})
	if err != nil {
		b.Fatal(err)
	}
	cl, err := res.Cluster()
	if err != nil {
		b.Fatal(err)
	}
	var nodes []*v1.Node
	for _, p := range cl.Pools {
		for _, n := range p.Nodes {
			nodes = append(nodes, n.Node)
		}
	}
	pairs := float64(len(cl.Classes) * len(nodes))
	b.Run("gpufleet", func(b *testing.B) {
		for b.Loop() {
			for i := range cl.Classes {
				for j := range cl.Pools {
					sched.Evaluate(&cl.Classes[i], &cl.Pools[j])
				}
			}
		}
		b.ReportMetric(pairs*float64(b.N)/b.Elapsed().Seconds(), "nodepairs/s")
	})
	b.Run("kube-scheduler", func(b *testing.B) {
		start := time.Now()
		n := 0
		for b.Loop() {
			for i := range cl.Classes {
				if _, err := Filter(cl.Classes[i].Pod, nodes, nil); err != nil {
					b.Fatal(err)
				}
			}
			n++
		}
		b.ReportMetric(pairs*float64(n)/time.Since(start).Seconds(), "nodepairs/s")
	})
}
