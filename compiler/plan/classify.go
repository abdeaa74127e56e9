package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The actions of a change, in terraform plan's words: what the merge does
// to the objects and nodes the change touches.
const (
	Create  = "create"
	Update  = "update"
	Replace = "replace"
	Destroy = "destroy"
	Refuse  = "refused"
)

// Symbol is the mark terraform plan puts before a change of that action.
func Symbol(action string) string {
	switch action {
	case Create:
		return "+"
	case Replace:
		return "-/+"
	case Destroy:
		return "-"
	case Refuse:
		return "!"
	}
	return "~"
}

// danger orders actions, most dangerous first: the section a change goes
// to, and the action of a change of several parts.
var danger = map[string]int{Refuse: 0, Destroy: 1, Replace: 2, Update: 3, Create: 4}

func worst(a, b string) string {
	if a == "" || danger[b] < danger[a] {
		return b
	}
	return a
}

// A pool handed to another provisioner: the old one's node groups or
// NodePool go with their nodes.
const whyProvisioner = "its nodes move from %s to %s: the old node groups are deleted with their nodes"

// Karpenter's drift reasons, in its own words (sigs.k8s.io/karpenter
// pkg/controllers/nodeclaim/disruption/drift.go, karpenter-provider-aws
// pkg/cloudprovider/drift.go, v1.15).
const (
	// NodePoolDrifted: the NodePool's hash (NodePool.Hash, pkg/apis/v1/
	// nodepool.go: spec.template's labels, annotations, taints,
	// startupTaints, nodeClassRef, expireAfter and terminationGracePeriod,
	// not its requirements) is not the karpenter.sh/nodepool-hash its
	// NodeClaims carry: every node of the NodePool drifts.
	NodePoolDrifted = "NodePoolDrifted"
	// RequirementsDrifted: a NodeClaim's labels no longer meet the
	// NodePool's requirements (areRequirementsDrifted): only the nodes
	// outside the new requirements drift.
	RequirementsDrifted = "RequirementsDrifted"
	// NodeClassDrift: the EC2NodeClass's hash (EC2NodeClass.Hash hashes
	// the resolved AMI family, AMIFamily()) is not the one its NodeClaims
	// carry (karpenter.k8s.aws/ec2nodeclass-hash): every node drifts.
	NodeClassDrift = "NodeClassDrift"
)

// restartWhy is what a class's changed pod template does: the Deployment
// and StatefulSet controllers roll out a changed spec.template
// (k8s.io/kubernetes pkg/controller/deployment, statefulset), and a Job's
// spec.template is immutable (ValidateJobSpecUpdate,
// pkg/apis/batch/validation), so the API server refuses the change to a
// Job that exists.
const restartWhy = "every Deployment and StatefulSet that includes its Component rolls on the next sync, a gang restarting whole; a Job's pod template is immutable, so the API server refuses the change to a Job that exists until it is recreated"

// Drift is the nodes of a pool's NodePool that Karpenter replaces.
type Drift struct {
	Reason string `json:"reason"`
	// Nodes says which: "all", or the nodes of the instance types, zones
	// or capacity type the requirements dropped.
	Nodes string `json:"nodes"`
}

// pacing is how Karpenter replaces drifted nodes: the NodePool's
// disruption budgets (gpufleet sets none, so Karpenter's default, nodes
// "10%", pkg/apis/v1/nodepool.go), and pods it may not evict.
const pacing = "Karpenter replaces drifted nodes at most 10% of the NodePool at a time (its default disruption budget), each after a new node is ready; a pod with karpenter.sh/do-not-disrupt, or whose PodDisruptionBudget allows no eviction, holds its node"

// classify sets each change's action, and why where it destroys,
// replaces or drifts. before says which classes landed on a pool, after
// where they land now.
func (p *Plan) classify(before, after *State, components map[string]bool) {
	for i := range p.NodeGroups {
		p.NodeGroups[i].classify(before.Report, after.Report)
	}
	for i := range p.Classes {
		c := &p.Classes[i]
		switch c.Change {
		case Added:
			c.Action = Create
		case Removed:
			c.Action = Destroy
			c.Why = "on prune its Component (classes/" + c.Class + "/) is deleted, and a workload that includes it no longer builds"
		default:
			c.Action = Update
			if components[c.Class] {
				c.Restart = true
				c.Why = restartWhy
			}
		}
	}
	for i := range p.Tenants {
		t := &p.Tenants[i]
		switch t.Change {
		case Added:
			t.Action = Create
		case Removed:
			t.Action = Destroy
		default:
			t.Action = Update
			if len(t.NamespacesRemoved) > 0 {
				t.Action = Destroy
			}
		}
	}
	s := &p.Summary
	count := func(action string) {
		switch action {
		case Create:
			s.Create++
		case Update:
			s.Update++
		case Replace:
			s.Replace++
		case Destroy:
			s.Destroy++
		case Refuse:
			s.Refused++
		}
	}
	for _, g := range p.NodeGroups {
		count(g.Action)
	}
	for _, c := range p.Classes {
		count(c.Action)
	}
	for _, t := range p.Tenants {
		count(t.Action)
	}
	for _, o := range p.Objects {
		count(o.Action)
	}
}

// Disruptive says the change replaces, destroys, or has a change the API
// server refuses.
func (p *Plan) Disruptive() bool {
	return p.Summary.Replace+p.Summary.Destroy+p.Summary.Refused > 0
}

// managed and karpenter say which provisioners launch a pool's nodes.
func (g *Group) managed() bool   { return g.Max > g.KarpenterNodes }
func (g *Group) karpenter() bool { return g.KarpenterNodes > 0 }

func (g *GroupChange) classify(before, after *Report) {
	switch g.Change {
	case Added:
		g.Action = Create
		return
	case Removed:
		g.Action = Destroy
		g.Why = append(g.Why, "every node drains and is terminated")
		g.hits(before, after)
		return
	}
	b, a := g.Before, g.After
	g.Action = Update
	has := func(f string) bool { return slices.Contains(g.Fields, f) }
	if b.managed() != a.managed() || b.karpenter() != a.karpenter() {
		g.Action = Replace
		g.Why = append(g.Why, fmt.Sprintf(whyProvisioner, provisioners(b), provisioners(a)))
	}
	if b.managed() && a.managed() && b.fixed != nil {
		// What the provisioner cannot change in place (for EKS's
		// managed node groups, its update APIs: nodegroup/eks).
		names := map[string]string{"instanceTypes": "instance types", "capacityType": "capacity type", "zones": "zones (subnets)", "amiFamily": "AMI family"}
		var fixed []string
		for _, f := range b.fixed.Fields {
			if has(f) {
				fixed = append(fixed, names[f])
			}
		}
		if len(fixed) > 0 {
			g.Action = Replace
			g.Why = append(g.Why, fmt.Sprintf(b.fixed.Why, strings.Join(fixed, ", ")))
		}
		if has("nodeGroups") {
			g.Action = Replace
			gone, added := setDiff(b.NodeGroups, a.NodeGroups), setDiff(a.NodeGroups, b.NodeGroups)
			g.Why = append(g.Why, fmt.Sprintf(b.fixed.Renamed, orNone(strings.Join(gone, ", ")), orNone(strings.Join(added, ", "))))
		}
	}
	if b.karpenter() && a.karpenter() {
		g.Drift = karpenterDrift(g)
		if len(g.Drift) > 0 {
			g.Action = Replace
		}
	}
	if g.Action == Replace {
		g.hits(before, after)
	}
}

// karpenterDrift is what Karpenter's drift decides of the pool's nodes,
// from what changed in its NodePool and EC2NodeClass.
func karpenterDrift(g *GroupChange) []Drift {
	has := func(f string) bool { return slices.Contains(g.Fields, f) }
	// What NodePool.Hash covers of what gpufleet writes: the template's
	// labels, taints, nodeClassRef (an AMI family is its own
	// EC2NodeClass) and expireAfter. The Karpenter rung holds this to
	// the hash itself (TestPlanDriftIsKarpenters).
	if has("labels") || has("taints") || has("nodeClass") || has("expireAfter") {
		return []Drift{{Reason: NodePoolDrifted, Nodes: "all"}}
	}
	if has("amiFamily") {
		return []Drift{{Reason: NodeClassDrift, Nodes: "all"}}
	}
	// In requirements only: a node drifts if its value left them.
	b, a := g.Before, g.After
	var out []string
	if gone := setDiff(b.InstanceTypes, a.InstanceTypes); len(gone) > 0 {
		out = append(out, "of instance type "+strings.Join(gone, ", "))
	}
	if gone := setDiff(b.Zones, a.Zones); len(gone) > 0 {
		out = append(out, "in zone "+strings.Join(gone, ", "))
	}
	if b.Spot != a.Spot {
		out = append(out, capacity(b.Spot))
	}
	if len(out) == 0 {
		return nil
	}
	return []Drift{{Reason: RequirementsDrifted, Nodes: "the nodes " + strings.Join(out, "; ")}}
}

// hits lists the classes that landed on the pool, and those of them that
// land on no other pool after the change.
func (g *GroupChange) hits(before, after *Report) {
	for _, class := range slices.Sorted(maps.Keys(before.Lands)) {
		if _, ok := before.Lands[class][g.Pool]; !ok {
			continue
		}
		g.Classes = append(g.Classes, class)
		elsewhere := false
		for pool := range after.Lands[class] {
			elsewhere = elsewhere || pool != g.Pool || g.Change == Changed
		}
		if !elsewhere {
			g.Stranded = append(g.Stranded, class)
		}
	}
}

func provisioners(g *Group) string {
	switch {
	case g.managed() && g.karpenter():
		return "managed node groups and Karpenter"
	case g.karpenter():
		return "Karpenter"
	}
	return "managed node groups"
}

// setDiff is what a has that b does not, in a's order.
func setDiff(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}
