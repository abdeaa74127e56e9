package plan

import (
	"strings"
	"testing"

	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/gpufleet/gpufleet/compiler/check/cost"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

func pdb(maxUnavailable, minAvailable *intstr.IntOrString) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: maxUnavailable, MinAvailable: minAvailable}}
}

func num(i int32) *intstr.IntOrString  { v := intstr.FromInt32(i); return &v }
func pct(s string) *intstr.IntOrString { v := intstr.FromString(s); return &v }

// budgetCases are the disruption controller's answers
// (pkg/controller/disruption/disruption.go, getExpectedPodCount and
// updatePdbStatus, k8s.io/kubernetes v1.36.5) with every pod healthy.
var budgetCases = []struct {
	name             string
	pdb              *policyv1.PodDisruptionBudget
	pods             int32
	desired, allowed int32
}{
	{"maxUnavailable 1 of 3", pdb(num(1), nil), 3, 2, 1},
	{"maxUnavailable 2 of 2: desiredHealthy 0", pdb(num(2), nil), 2, 0, 2},
	{"maxUnavailable 5 of 2: desiredHealthy never below 0", pdb(num(5), nil), 2, 0, 2},
	{"maxUnavailable 0 blocks", pdb(num(0), nil), 4, 4, 0},
	{"maxUnavailable 50% of 3 rounds up to 2", pdb(pct("50%"), nil), 3, 1, 2},
	{"minAvailable 2 of 3", pdb(nil, num(2)), 3, 2, 1},
	{"minAvailable 50% of 3 rounds up to 2", pdb(nil, pct("50%")), 3, 2, 1},
	{"minAvailable above the replicas allows none", pdb(nil, num(5)), 3, 5, 0},
	{"no pods expected allows none", pdb(num(1), nil), 0, 0, 0},
}

func checkBudgets(status func(*policyv1.PodDisruptionBudget, int32) (int32, int32, error)) []string {
	var bad []string
	for _, c := range budgetCases {
		d, a, err := status(c.pdb, c.pods)
		if err != nil || d != c.desired || a != c.allowed {
			bad = append(bad, c.name)
		}
	}
	return bad
}

func TestBudgetIsTheDisruptionControllers(t *testing.T) {
	if bad := checkBudgets(BudgetStatus); len(bad) > 0 {
		t.Errorf("BudgetStatus disagrees with the disruption controller on %v", bad)
	}
}

// The table catches a budget that rounds a percentage down (as
// GetScaledValueFromIntOrPercent does with roundUp false), and one that
// lets desiredHealthy go below 0.
func TestBudgetCatchesBugs(t *testing.T) {
	roundDown := func(p *policyv1.PodDisruptionBudget, n int32) (int32, int32, error) {
		if p.Spec.MaxUnavailable != nil && p.Spec.MaxUnavailable.Type == intstr.String {
			mu, err := intstr.GetScaledValueFromIntOrPercent(p.Spec.MaxUnavailable, int(n), false)
			return n - int32(mu), int32(mu), err
		}
		return BudgetStatus(p, n)
	}
	negative := func(p *policyv1.PodDisruptionBudget, n int32) (int32, int32, error) {
		if p.Spec.MaxUnavailable != nil && p.Spec.MaxUnavailable.Type == intstr.Int {
			return n - p.Spec.MaxUnavailable.IntVal, p.Spec.MaxUnavailable.IntVal, nil
		}
		return BudgetStatus(p, n)
	}
	for name, bug := range map[string]func(*policyv1.PodDisruptionBudget, int32) (int32, int32, error){"round down": roundDown, "negative": negative} {
		if len(checkBudgets(bug)) == 0 {
			t.Errorf("the table does not catch a budget that %s", name)
		}
	}
}

func TestWork(t *testing.T) {
	price := 2.5
	before := &State{Examples: map[string]Example{
		"web":   {Kind: keys.KindDeployment, Pods: 3, Budget: pdb(num(1), nil)},
		"train": {Kind: keys.KindJob, Pods: 8, Gang: true},
		"ray":   {Kind: keys.KindRayJob, Pods: 2},
		"etl":   {Kind: keys.KindJob, Pods: 4},
		"solo":  {Kind: keys.KindDeployment, Pods: 4, Budget: pdb(num(1), nil)},
		"both":  {Kind: keys.KindDeployment, Pods: 4, Budget: pdb(num(1), nil)},
	}, Report: &Report{Cost: &cost.Cost{Pools: []cost.PoolCost{{Pool: "p", Low: &cost.PoolPrice{NodeHourly: &price}, High: &cost.PoolPrice{NodeHourly: &price}}}}}}
	p := &Plan{NodeGroups: []GroupChange{{
		Pool: "p", Change: Changed, Action: Replace, Why: []string{"EKS cannot"}, Fields: []string{"nodeGroups"},
		Before: &Group{Max: 6, KarpenterNodes: 0}, After: &Group{Max: 6},
		Classes: []string{"etl", "ray", "train", "web"}, Stranded: []string{"web"},
	}, {
		Pool: "k", Change: Changed, Action: Replace, Drift: []Drift{{Reason: NodePoolDrifted, Nodes: "all"}},
		Before: &Group{Max: 11, KarpenterNodes: 11}, After: &Group{Max: 11, KarpenterNodes: 11},
	}, {
		// Recreated under its own name: deleted first, nothing runs twice.
		Pool: "m", Change: Changed, Action: Replace, Why: []string{"EKS cannot"}, Fields: []string{"instanceTypes"},
		Before: &Group{Max: 4}, After: &Group{Max: 4}, Classes: []string{"both", "solo"},
	}}}
	after := &State{Report: &Report{Lands: map[string]map[string]Land{"etl": {"p": {}, "q": {}}, "ray": {"p": {}}, "train": {"q": {}}, "web": {"m": {}}, "solo": {"m": {}}, "both": {"m": {}, "q": {}}}}}
	p.work(before, after)
	g := p.NodeGroups[0]
	var order []string
	for _, h := range g.Hits {
		order = append(order, h.Class)
	}
	// Nowhere to go first, then the gangs (a RayJob's roles are one), then
	// the rest.
	if got := strings.Join(order, " "); got != "web ray train etl" {
		t.Errorf("hits in order %q", got)
	}
	web := g.Hits[0]
	if web.Moves || web.Budget == nil || !web.Budget.Below || web.Budget.DesiredHealthy != 2 || web.Budget.DisruptionsAllowed != 1 {
		t.Errorf("web: %+v %+v", web, web.Budget)
	}
	if !g.Hits[1].Gang || !g.Hits[2].Gang || g.Hits[3].Gang {
		t.Errorf("gangs: %+v", g.Hits)
	}
	if g.Surge == nil || g.Surge.Nodes != 6 || *g.Surge.Hourly.Low != 15 {
		t.Errorf("managed surge: %+v", g.Surge)
	}
	// Karpenter's budget: 10% of 11 nodes, rounded up.
	if s := p.NodeGroups[1].Surge; s == nil || s.Nodes != 2 || s.Hourly.Low != nil {
		t.Errorf("Karpenter surge: %+v", s)
	}
	if s := p.NodeGroups[2].Surge; s == nil || !s.Gap || s.Nodes != 0 || s.Hourly != nil {
		t.Errorf("a managed group recreated under its name: %+v", s)
	}
	// solo lands only on m, which is deleted before it is created again:
	// it waits, below its budget; both moves to q.
	if m := p.NodeGroups[2].Hits; len(m) != 2 || m[0].Class != "solo" || !m[0].Waits || !m[0].Budget.Below || m[1].Waits || m[1].Budget.Below {
		t.Errorf("hits of a pool recreated under its name: %+v", m)
	}
	items := p.workItems()
	if len(items) != 9 || !strings.Contains(items[0], "falls below 2 ready replicas") || !strings.Contains(items[6], "$15.00/h ($10,950/month") || !strings.Contains(items[7], "no price") || !strings.Contains(items[1], "class solo on pool m: its evicted pods wait for the pool's new nodes") || !strings.Contains(items[8], "deleted before they are created again") {
		t.Errorf("items:\n%s", strings.Join(items, "\n"))
	}
}
