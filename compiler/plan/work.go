package plan

import (
	"fmt"
	"slices"
	"strings"

	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/gpufleet/gpufleet/compiler/keys"
)

// Hit is a class that lands on a pool the change replaces or destroys, and
// what draining the pool's nodes does to its work. Moves says it lands
// after the change on another pool, or on the replaced pool's new nodes;
// where it does not, its evicted pods stay Pending. Gang says its pods run
// together (a Job the checker reads as a gang, an ML kind's roles): one
// evicted pod restarts the whole of it. Budget is a serving class's
// PodDisruptionBudget as the disruption controller counts it.
type Hit struct {
	Class string `json:"class"`
	Kind  string `json:"kind,omitempty"`
	Moves bool   `json:"moves"`
	// Waits says its evicted pods wait for the pool's new nodes: its
	// managed node groups are deleted before they are created again
	// (Surge.Gap), and it lands on no other pool.
	Waits  bool    `json:"waits,omitempty"`
	Gang   bool    `json:"gang,omitempty"`
	Budget *Budget `json:"budget,omitempty"`
}

// Budget is a PodDisruptionBudget's status with every replica healthy, as
// k8s.io/kubernetes pkg/controller/disruption/disruption.go
// (DisruptionController.getExpectedPodCount, updatePdbStatus; v1.36.5)
// computes it: ExpectedPods the workload's replicas, DesiredHealthy
// ExpectedPods less maxUnavailable scaled up from a percentage,
// DisruptionsAllowed the healthy pods above it (never below 0). The
// eviction API evicts only while DisruptionsAllowed is above 0.
//
// Below says the drain takes the class below DesiredHealthy ready
// replicas: its evicted pods have nowhere to go (or wait for the pool's
// new nodes), so the budget only delays the loss (a deleted node group's or Karpenter's node is terminated once
// its grace period ends). Blocked says the budget allows no eviction at
// all: the drain waits on it.
type Budget struct {
	MaxUnavailable     string `json:"maxUnavailable,omitempty"`
	MinAvailable       string `json:"minAvailable,omitempty"`
	ExpectedPods       int32  `json:"expectedPods"`
	DesiredHealthy     int32  `json:"desiredHealthy"`
	DisruptionsAllowed int32  `json:"disruptionsAllowed"`
	Below              bool   `json:"below"`
	Blocked            bool   `json:"blocked,omitempty"`
}

// Surge is the old nodes that run beside their replacements while a pool
// is replaced, at the pool's max size, and what they cost on top.
// Karpenter launches each drifted node's replacement before it drains it
// (sigs.k8s.io/karpenter pkg/controllers/disruption, v1.15.0), at most its
// disruption budget at once: 10% of the NodePool's nodes, rounded up
// (pkg/apis/v1/nodepool.go Budget.GetAllowedDisruptions). Managed node
// groups under new names (zoneGroups on or off, another provisioner) can
// be created before the old are deleted: all the old nodes run beside
// them. Gap says a managed node group is recreated under its own name,
// which its provisioner does by deleting it first (nodes.Fixed.Recreated):
// no old and new nodes together, and work that lands only on the pool
// waits for the new ones.
type Surge struct {
	Nodes  int64  `json:"nodes"`
	Hourly *Range `json:"hourly,omitempty"`
	Gap    bool   `json:"gap,omitempty"`
	gapWhy string // the provisioner's words for the gap (nodes.Fixed)
}

// BudgetStatus is the disruption controller's arithmetic for pdb over a
// workload of expected pods, all healthy: desiredHealthy and
// disruptionsAllowed (the kube-scheduler rung holds it to the controller
// itself, TestPlanBudgetIsTheDisruptionControllers).
func BudgetStatus(pdb *policyv1.PodDisruptionBudget, expected int32) (desired, allowed int32, err error) {
	switch {
	case pdb.Spec.MaxUnavailable != nil:
		mu, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MaxUnavailable, int(expected), true)
		if err != nil {
			return 0, 0, err
		}
		desired = max(expected-int32(mu), 0)
	case pdb.Spec.MinAvailable != nil && pdb.Spec.MinAvailable.Type == intstr.Int:
		desired = pdb.Spec.MinAvailable.IntVal
	case pdb.Spec.MinAvailable != nil:
		ma, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MinAvailable, int(expected), true)
		if err != nil {
			return 0, 0, err
		}
		desired = int32(ma)
	}
	allowed = expected - desired
	if expected <= 0 || allowed <= 0 {
		allowed = 0
	}
	return desired, allowed, nil
}

// newHit is what draining a pool does to class, from its example before
// the change.
func newHit(class string, ex Example, moves, waits bool) Hit {
	h := Hit{Class: class, Kind: ex.Kind, Moves: moves, Waits: moves && waits, Gang: ex.Gang || slices.Contains(keys.RoleKinds, ex.Kind)}
	if pdb := ex.Budget; pdb != nil {
		desired, allowed, err := BudgetStatus(pdb, ex.Pods)
		if err == nil {
			b := &Budget{ExpectedPods: ex.Pods, DesiredHealthy: desired, DisruptionsAllowed: allowed}
			if pdb.Spec.MaxUnavailable != nil {
				b.MaxUnavailable = pdb.Spec.MaxUnavailable.String()
			}
			if pdb.Spec.MinAvailable != nil {
				b.MinAvailable = pdb.Spec.MinAvailable.String()
			}
			b.Below = (!moves || h.Waits) && desired > 0
			b.Blocked = allowed == 0
			h.Budget = b
		}
	}
	return h
}

// hitDanger orders a pool's hits, most dangerous first: work with nowhere
// to go, a budget broken or blocking, a gang restarting, then the rest.
func (h Hit) danger() int {
	switch {
	case !h.Moves:
		return 0
	case h.Waits || h.Budget != nil && (h.Budget.Below || h.Budget.Blocked):
		return 1
	case h.Gang:
		return 2
	}
	return 3
}

// work fills each replaced or destroyed pool's hits and surge; after says
// where each class lands after the change.
func (p *Plan) work(before, after *State) {
	for i := range p.NodeGroups {
		g := &p.NodeGroups[i]
		if g.Action != Replace && g.Action != Destroy {
			continue
		}
		if g.Action == Replace {
			g.Surge = surge(g, before.Report)
		}
		gap := g.Surge != nil && g.Surge.Gap
		for _, class := range g.Classes {
			elsewhere := false
			for pool := range after.Report.Lands[class] {
				elsewhere = elsewhere || pool != g.Pool
			}
			g.Hits = append(g.Hits, newHit(class, before.Examples[class], !slices.Contains(g.Stranded, class), gap && !elsewhere))
		}
		slices.SortStableFunc(g.Hits, func(a, b Hit) int { return a.danger() - b.danger() })
	}
}

// surge is what a replace runs twice: the old managed nodes where the
// node groups are created under new names, Karpenter's budget of nodes
// where its NodePool drifts; priced per node as the report prices the
// pool's types, cheapest to dearest.
func surge(g *GroupChange, r *Report) *Surge {
	b, a := g.Before, g.After
	s := &Surge{}
	switch {
	case b.managed() != a.managed() || b.karpenter() != a.karpenter():
		s.Nodes = int64(b.Max - b.KarpenterNodes)
		if !b.managed() {
			s.Nodes = int64(b.Max)
		}
	case slices.Contains(g.Fields, "nodeGroups"):
		s.Nodes = int64(b.Max - b.KarpenterNodes)
	case len(g.Why) > 0:
		s.Gap, s.gapWhy = true, "its node groups are deleted before they are created again"
		if b.fixed != nil && b.fixed.Recreated != "" {
			s.gapWhy = b.fixed.Recreated
		}
	}
	if len(g.Drift) > 0 {
		s.Nodes += (int64(b.KarpenterNodes) + 9) / 10
	}
	if s.Nodes == 0 && !s.Gap {
		return nil
	}
	if s.Nodes == 0 {
		return s
	}
	s.Hourly = &Range{Unknown: "the report has no price for the pool"}
	if r.Cost == nil {
		return s
	}
	for _, pc := range r.Cost.Pools {
		if pc.Pool != g.Pool {
			continue
		}
		s.Hourly.Unknown = pc.Unknown
		if pc.Low != nil && pc.High != nil && pc.Low.NodeHourly != nil && pc.High.NodeHourly != nil {
			low, high := *pc.Low.NodeHourly*float64(s.Nodes), *pc.High.NodeHourly*float64(s.Nodes)
			s.Hourly = &Range{Low: &low, High: &high}
		}
	}
	return s
}

// line is a hit as the plan says it, after its pool and what the change
// does to it.
func (h Hit) line(pool, action string) string {
	s := "class " + h.Class + " on pool " + pool + ": "
	switch {
	case !h.Moves:
		s += "has nowhere to go: its evicted pods stay Pending"
	case h.Waits:
		s += "its evicted pods wait for the pool's new nodes, which come only after the old node groups are deleted"
	case action == Replace:
		s += "moves to the pool's new nodes, or another pool it lands on"
	default:
		s += "moves to another pool it lands on"
	}
	if h.Gang {
		s += "; a gang: one evicted pod restarts the whole workload"
	}
	if b := h.Budget; b != nil {
		rule := "maxUnavailable " + b.MaxUnavailable
		if b.MaxUnavailable == "" {
			rule = "minAvailable " + b.MinAvailable
		}
		s += fmt.Sprintf("; PodDisruptionBudget %s of %d replicas: %d must stay ready, %d evicted at a time", rule, b.ExpectedPods, b.DesiredHealthy, b.DisruptionsAllowed)
		switch {
		case b.Below:
			s += fmt.Sprintf(", so it falls below %d ready %s when the nodes go", b.DesiredHealthy, plural(int(b.DesiredHealthy), "replica", "replicas"))
		case b.Blocked:
			s += ", so the budget refuses every eviction and the drain waits"
		}
	}
	return s
}

// line is a replace's surge as the plan says it.
func (s Surge) line(pool string) string {
	var parts []string
	if s.Gap {
		parts = append(parts, s.gapWhy+": work that lands only on this pool waits for the new nodes")
	}
	if s.Nodes > 0 {
		nodes := fmt.Sprintf("%d old nodes beside their replacements", s.Nodes)
		if s.Nodes == 1 {
			nodes = "1 old node beside its replacement"
		}
		out := "old and new nodes run together: up to " + nodes + ", " + s.Hourly.money()
		if m := s.Hourly.monthly(); m != "" {
			out += " (" + m + " if it lasted a month)"
		}
		if s.Hourly.Low == nil || s.Hourly.High == nil {
			out += " (" + s.Hourly.Unknown + ")"
		}
		parts = append(parts, out)
	}
	return "pool " + pool + ": " + strings.Join(parts, "; ")
}

// workItems are the hits of every replaced or destroyed pool, most
// dangerous first (in the pools' order where equal), then the surges.
func (p *Plan) workItems() []string {
	type item struct {
		danger int
		line   string
	}
	var hits []item
	var surges []string
	for _, g := range p.NodeGroups {
		for _, h := range g.Hits {
			hits = append(hits, item{h.danger(), h.line(g.Pool, g.Action)})
		}
		if g.Surge != nil {
			surges = append(surges, g.Surge.line(g.Pool))
		}
	}
	slices.SortStableFunc(hits, func(a, b item) int { return a.danger - b.danger })
	var out []string
	for _, h := range hits {
		out = append(out, h.line)
	}
	return append(out, surges...)
}
