package nodediff

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/gpufleet/gpufleet/compiler/check/provisioning"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// knownSolve is for the defaults.
var (
	solveFleets    = flag.Int("solve-fleets", 12, "generated Full fleets in TestKarpenterSolve")
	solveKarpenter = flag.Int("solve-karpenter", 12, "generated Buildable fleets, launched by Karpenter, in TestKarpenterSolve")
)

// verdict is one class × NodePool cell as each side sees it.
type verdict struct {
	scheduled int64    // pods placed: Karpenter's, or the checker's Holds on the pool alone
	perNode   int64    // most pods on one node (NodeClaim)
	claims    int64    // nodes (NodeClaims) for the scheduled pods
	typ       []string // the type launched for the fullest node: the checker's credited one, or EC2 Fleet's cheapest
	capacity  string
	options   []string // spot: what Fleet chooses from for the fullest NodeClaim
	reason    string   // Karpenter's error for a pod left unscheduled
}

// key names one disagreement: the cell, what differs, and each side's
// figure.
type key struct {
	fleet, class, pool, what, checker, karpenter string
}

// row is a disagreement with why: Karpenter's own error for a pod it left
// unscheduled, or for a known one, the reason it is known.
type row struct {
	key
	why string
}

func (r row) String() string {
	return fmt.Sprintf("%-18s %-22s %-22s %-13s %-16s %-24s %s", r.fleet, r.class, r.pool, r.what, r.checker, r.karpenter, r.why)
}

// TestKarpenterSolve judges the checker's verdict for every class on every
// Karpenter pool against Karpenter's own provisioning scheduler, given that
// NodePool alone and no nodes: whether it provisions the class's whole
// workload, how many pods a NodeClaim holds and how many NodeClaims it
// makes, and which instance type EC2 Fleet launches for it. Every
// disagreement must be a known one (knownSolve), and every known one must
// still occur.
func TestKarpenterSolve(t *testing.T) {
	var cells, fits, whole, spot, typed int
	var draCells, draFits, draRefused int
	var bad []row
	fleets := eachSolved(t, func(*sched.Class) bool { return true }, func(x solved) {
		f, c, np, theirs := x.f, x.c, x.np, x.theirs
		cells++
		ours := checker(t, f, c, x.p, &x.sh)
		if ours.scheduled > 0 {
			fits++
		}
		if c.Info.Claims.Asks() {
			draCells++
			if ours.scheduled > 0 {
				draFits++
			}
			if strings.Contains(theirs.reason, "Dynamic Resource Allocation") {
				draRefused++
			}
		}
		if ours.scheduled == int64(c.Pods) {
			whole++
		}
		if theirs.capacity == karpv1.CapacityTypeSpot {
			spot++
		} else if len(theirs.typ) > 0 && ours.scheduled > 0 {
			typed++
		}
		bad = append(bad, compare(f.name, c.Name, np.Name, ours, theirs)...)
	})
	t.Logf("%d fleets with Karpenter pools: %d class × NodePool cells, %d where the class lands (%d whole workloads); launched types compared in %d on-demand cells, option sets in %d spot ones",
		fleets, cells, fits, whole, typed, spot)
	t.Logf("DRA: %d cells of classes that claim devices, %d where Karpenter launches for them, %d where it refuses them (IGNORE_DRA_REQUESTS)", draCells, draFits, draRefused)
	if fleets < 3 || fits == 0 || whole == cells || typed == 0 || spot == 0 || draFits == 0 || draRefused == 0 {
		t.Errorf("the fleets exercised too little: %d fleets, %d cells, %d land, %d whole, %d on-demand types, %d spot", fleets, cells, fits, whole, typed, spot)
	}
	known := map[key]bool{}
	for _, k := range knownSolve {
		known[k.key] = false
	}
	var fresh []string
	for _, r := range bad {
		if _, ok := known[r.key]; ok {
			known[r.key] = true
			continue
		}
		// A DRA variant of a fleet shares its known disagreements on the
		// cells DRA leaves as they were (its CPU classes, and whole GPUs
		// counted as devices instead).
		k := r.key
		k.fleet = strings.TrimSuffix(strings.TrimSuffix(k.fleet, " no DRA"), " DRA")
		if _, ok := known[k]; ok && k.fleet != r.fleet {
			continue
		}
		fresh = append(fresh, r.String())
	}
	header := fmt.Sprintf("%-18s %-22s %-22s %-13s %-16s %-24s %s", "fleet", "class", "pool", "what", "checker", "karpenter", "why")
	if len(fresh) > 0 {
		t.Errorf("%d disagreements (Karpenter is right):\n%s\n%s", len(fresh), header, strings.Join(fresh, "\n"))
	}
	var gone []string
	for _, k := range knownSolve {
		if !known[k.key] {
			gone = append(gone, k.String())
		}
	}
	if len(gone) > 0 {
		t.Errorf("%d known disagreements no longer occur: remove them from knownSolve:\n%s\n%s", len(gone), header, strings.Join(gone, "\n"))
	}
	if len(knownSolve) > 0 {
		var rows []string
		for _, k := range knownSolve {
			rows = append(rows, k.String())
		}
		t.Logf("%d known disagreements:\n%s\n%s", len(knownSolve), header, strings.Join(rows, "\n"))
	}
}

// solved is one class × NodePool cell with Karpenter's verdict on it.
type solved struct {
	f      *fleet
	np     *karpv1.NodePool
	p      *sched.Pool // the checker's pool
	sh     sched.Pool  // its NodePool's share
	c      *sched.Class
	theirs verdict
}

// eachSolved runs Karpenter's Solve on every cell of the rung's fleets
// whose class keep accepts, calls fn with each, and returns how many
// fleets have Karpenter pools.
func eachSolved(t *testing.T, keep func(*sched.Class) bool, fn func(solved)) (fleets int) {
	t.Helper()
	_, described, _ := setup(t)
	names, paths := fleetPaths(t, *solveFleets, *solveKarpenter)
	for i := range paths {
		f := load(t, names[i], paths[i])
		if f == nil {
			continue
		}
		fleets++
		ctx := f.context(t)
		its := f.instanceTypes(t, ctx, described)
		daemons := f.daemons(t)
		for _, np := range f.pools {
			p := poolNamed(t, f.cl, np.Name)
			sh := share(t, *p, np)
			for j := range f.cl.Classes {
				c := &f.cl.Classes[j]
				if !keep(c) {
					continue
				}
				theirs, err := karpenter(ctx, np, its[np.Spec.Template.Spec.NodeClassRef.Name], c, daemons)
				if err != nil {
					t.Fatalf("%s: class %s, NodePool %s: %v", f.name, c.Name, np.Name, err)
				}
				fn(solved{f: f, np: np, p: p, sh: sh, c: c, theirs: theirs})
			}
		}
	}
	return fleets
}

// checker is the checker's verdict for c on the NodePool's share of pool
// p: the cell Evaluate makes, and Holds on a row of that cell alone.
// Where the NodePool is the whole pool, the cell must be the report's.
func checker(t *testing.T, f *fleet, c *sched.Class, p, sh *sched.Pool) verdict {
	t.Helper()
	cell := sched.Evaluate(c, sh)
	if sh.MaxNodes == p.MaxNodes {
		if rc := f.res.Report.Cell(c.Name, p.Name); rc == nil || rc.Fits != cell.Fits || rc.Type != cell.Type || rc.Capacity != cell.Capacity {
			t.Fatalf("%s: class %s, pool %s: Evaluate's cell %+v is not the report's %+v", f.name, c.Name, p.Name, cell, rc)
		}
	}
	return verdictOf(c, cell, sh)
}

// verdictOf is the checker's verdict for c on sh given its cell there.
func verdictOf(c *sched.Class, cell sched.Cell, sh *sched.Pool) verdict {
	v := verdict{}
	if !cell.Fits {
		return v
	}
	row := sched.NewRow([]sched.Cell{cell})
	if len(provisioning.KarpenterLaunch(c, row, []sched.Pool{*sh})) > 0 || len(provisioning.KarpenterDRA(c, row, []sched.Pool{*sh})) > 0 {
		return v // the checker finds that Karpenter launches no node for it
	}
	v.scheduled = sched.Holds(c, row, []sched.Pool{*sh})
	for _, z := range cell.Zones {
		v.perNode = max(v.perNode, z.PodsPerNode)
	}
	if v.perNode > 0 {
		v.claims = (v.scheduled + v.perNode - 1) / v.perNode
	}
	v.typ = []string{cell.Type}
	return v
}

// compare lists where the two verdicts differ. The launched type is
// compared for on-demand (EC2 Fleet's lowest price; a tie lists every
// cheapest type, and the checker's must be one of them); for spot, the
// checker's type must be among Fleet's options.
func compare(fleet, class, pool string, ours, theirs verdict) []row {
	var out []row
	add := func(what string, a, b any, why string) {
		out = append(out, row{key{fleet, class, pool, what, fmt.Sprint(a), fmt.Sprint(b)}, why})
	}
	if ours.scheduled != theirs.scheduled {
		add("pods placed", ours.scheduled, theirs.scheduled, theirs.reason)
		return out
	}
	if ours.scheduled == 0 {
		return out
	}
	// A node holds at most the pods there are.
	if per := min(ours.perNode, ours.scheduled); per != theirs.perNode {
		add("pods per node", per, theirs.perNode, "")
	}
	if ours.claims != theirs.claims {
		add("nodes", ours.claims, theirs.claims, "")
	}
	switch {
	case theirs.capacity == karpv1.CapacityTypeSpot:
		if !slices.Contains(theirs.options, ours.typ[0]) {
			add("spot options", ours.typ[0], strings.Join(theirs.options, ","), "")
		}
	case !slices.Contains(theirs.typ, ours.typ[0]):
		add("type", ours.typ[0], strings.Join(theirs.typ, ","), "")
	}
	return out
}

func poolNamed(t *testing.T, cl *sched.Cluster, name string) *sched.Pool {
	t.Helper()
	for i := range cl.Pools {
		if cl.Pools[i].Name == name {
			return &cl.Pools[i]
		}
	}
	t.Fatalf("NodePool %s: no such pool in the checked cluster", name)
	return nil
}
