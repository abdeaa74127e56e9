// Package plan says what a change to a fleet spec does to the fleet, as a
// reviewer needs it: node groups, classes' pools and pods, tenants'
// quotas, cost and findings, from the committed tree (the "before", read
// from its own files) to what the spec compiles to now (the "after").
package plan

import (
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/nodes"
)

// SchemaVersion is the version of the plan's JSON; it changes only when a
// field is removed or changes meaning.
const SchemaVersion = 1

// Plan is the change. Every list holds only what changed, in name order.
type Plan struct {
	SchemaVersion int `json:"schemaVersion"`
	// Changed is false when every generated file is as committed.
	Changed    bool           `json:"changed"`
	NodeGroups []GroupChange  `json:"nodeGroups"`
	Classes    []ClassChange  `json:"classes"`
	Tenants    []TenantChange `json:"tenants"`
	Cost       CostChange     `json:"cost"`
	Findings   FindingsChange `json:"findings"`
	// Objects are the other objects whose change the API server refuses,
	// or that are created or destroyed: PriorityClasses.
	Objects []ObjectChange `json:"objects"`
	Files   []DirFiles     `json:"files"`
	Summary Summary        `json:"summary"`
	// Live is what was read of the running cluster, with --nodes (and
	// --pods); QuotaCuts the tenant quotas the change sets below what
	// their live pods use (live.go).
	Live      *Live           `json:"live,omitempty"`
	QuotaCuts []QuotaCut      `json:"quotaCuts,omitempty"`
	errors    []check.Finding // the new errors, with their spec positions
	// The states compared, for WithLive.
	before, after *State
}

// The kinds of change of a node group, class or tenant.
const (
	Added   = "added"
	Removed = "removed"
	Changed = "changed"
)

// Group is a pool's node groups as its provisioners launch them.
type Group struct {
	Provisioner   string   `json:"provisioner"`
	Spot          bool     `json:"spot"`
	InstanceTypes []string `json:"instanceTypes"`
	Zones         []string `json:"zones"`
	// Min, Desired and Max are node counts: Min and Desired are a managed
	// group's (Karpenter's stand at 0), Max all provisioners' together,
	// KarpenterNodes Karpenter's share of it.
	Min            int32 `json:"min"`
	Desired        int32 `json:"desired"`
	Max            int32 `json:"max"`
	KarpenterNodes int32 `json:"karpenterNodes,omitempty"`
	// NodeGroups are what the provisioners call the pool's node groups
	// or NodePool (one per zone with zoneGroups); Image the node image
	// family (eksctl's amiFamily, the EC2NodeClass's AMI alias).
	NodeGroups []string `json:"nodeGroups"`
	Image      string   `json:"image,omitempty"`
	labels     map[string]string
	taints     []string
	block      bool
	// A NodePool's nodeClassRef and expireAfter, hashed with its labels
	// and taints.
	nodeClass, expireAfter string
	// What its provisioner cannot change in place (nil: all).
	fixed *nodes.Fixed
}

// GroupChange is one pool's node groups added, removed or changed; Fields
// names what changed: min, desired, max, karpenterNodes, instanceTypes,
// capacityType, zones, provisioner, nodeGroups, amiFamily, labels,
// taints, nodeClass, expireAfter. Action is what the merge does (classify.go), Why says so where
// it destroys or replaces, Drift is Karpenter's decision, and Classes are
// those that landed on the pool when it is destroyed or replaced,
// Stranded those of them that land nowhere after. Hits are what draining
// the pool does to each of those classes' work, most dangerous first, and
// Surge what a replace runs twice (work.go).
type GroupChange struct {
	Pool     string   `json:"pool"`
	Change   string   `json:"change"`
	Action   string   `json:"action"`
	Fields   []string `json:"fields,omitempty"`
	Before   *Group   `json:"before,omitempty"`
	After    *Group   `json:"after,omitempty"`
	Why      []string `json:"why,omitempty"`
	Drift    []Drift  `json:"drift,omitempty"`
	Classes  []string `json:"classes,omitempty"`
	Stranded []string `json:"stranded,omitempty"`
	Hits     []Hit    `json:"hits,omitempty"`
	Surge    *Surge   `json:"surge,omitempty"`
	// LiveNodes and LivePods are the running nodes the pool's change
	// drains and the pods bound to them, with --nodes and --pods (live.go).
	LiveNodes []string  `json:"liveNodes,omitempty"`
	LivePods  []LivePod `json:"livePods,omitempty"`
}

// ClassChange is one class's placement changed: the pools whose capacity
// for it moved (nil: it does not land there), the pods of its unit that
// run at once, and what its pods ask of the scheduler.
type ClassChange struct {
	Class  string `json:"class"`
	Change string `json:"change"`
	Action string `json:"action"`
	// Restart says its Component's pod template changed; Why says what
	// that, or its removal, does.
	Restart   bool       `json:"restart,omitempty"`
	Why       string     `json:"why,omitempty"`
	Pools     []PoolPods `json:"pools,omitempty"`
	AtOnce    *Count     `json:"atOnce,omitempty"`
	Scheduler *Text      `json:"scheduler,omitempty"`
	Priority  *Text      `json:"priority,omitempty"`
	// Lost says the class lost capacity: a pool, pods on one, or pods
	// that ran at once.
	Lost bool `json:"lost"`
	// LivePods are the running pods its label names when it is destroyed
	// or its workloads restart, with --pods.
	LivePods []LivePod `json:"livePods,omitempty"`
}

// PoolPods is a class's pods at max size on one pool, before and after.
type PoolPods struct {
	Pool   string `json:"pool"`
	Before *int64 `json:"before"`
	After  *int64 `json:"after"`
}

// Count is a number before and after; nil where there was none.
type Count struct {
	Before *int64 `json:"before"`
	After  *int64 `json:"after"`
}

// Text is a string before and after.
type Text struct {
	Before string `json:"before"`
	After  string `json:"after"`
}

// TenantChange is one tenant's quotas moved, and what its quota costs.
// Action is destroy when it loses a namespace, which a prune deletes with
// everything in it.
type TenantChange struct {
	Tenant            string        `json:"tenant"`
	Change            string        `json:"change"`
	Action            string        `json:"action"`
	Quotas            []QuotaChange `json:"quotas,omitempty"`
	NamespacesRemoved []string      `json:"namespacesRemoved,omitempty"`
	NamespacesAdded   []string      `json:"namespacesAdded,omitempty"`
	// Enforcement is how its admission policies' action moved; nil if
	// it did not.
	Enforcement *EnforcementChange `json:"enforcement,omitempty"`
	// LivePods are the running pods in the namespaces a prune deletes,
	// with --pods.
	LivePods []LivePod `json:"livePods,omitempty"`
}

// ObjectChange is an object other than the above created, destroyed, or
// changed where the API server refuses the update: Fields are the
// immutable fields that changed, Why the way out.
type ObjectChange struct {
	Kind   string   `json:"kind"`
	Name   string   `json:"name"`
	Action string   `json:"action"`
	Fields []string `json:"fields,omitempty"`
	Why    string   `json:"why,omitempty"`
}

// QuotaChange is one quota of a tenant; "" where there was none. Scope
// names the objects ("namespaces inference, training", "ClusterQueue
// ml-platform, flavor a100-train").
type QuotaChange struct {
	Scope    string `json:"scope"`
	Resource string `json:"resource"`
	Before   string `json:"before"`
	After    string `json:"after"`
}

// Range is a price in USD per hour, from Low to High (equal for one
// figure); both null when unknown, with the reason. A nil *Range is
// nothing to price: the class or tenant was not there.
type Range struct {
	Low     *float64 `json:"low"`
	High    *float64 `json:"high"`
	Unknown string   `json:"unknown,omitempty"`
}

// RangeChange is a price before and after.
type RangeChange struct {
	Name   string `json:"name,omitempty"`
	Before *Range `json:"before"`
	After  *Range `json:"after"`
}

// CostChange is what changed in cost: the fleet with every pool at max
// size, each class's workload from its cheapest pool to its dearest, and
// each tenant's nominal quota at full use.
type CostChange struct {
	Fleet   *RangeChange  `json:"fleet,omitempty"`
	Classes []RangeChange `json:"classes"`
	Tenants []RangeChange `json:"tenants"`
	// Reservations: each capacity reservation added, removed or repriced,
	// paid for used or not (reserved.go).
	Reservations []ReservationChange `json:"reservations,omitempty"`
}

// FindingsChange is the findings the change brings and those it resolves.
type FindingsChange struct {
	New      []check.Finding `json:"new"`
	Resolved []check.Finding `json:"resolved"`
}

// DirFiles counts the generated files that change in one top directory of
// the tree; 'gpufleet diff' shows their lines.
type DirFiles struct {
	Dir     string `json:"dir"`
	Changed int    `json:"changed"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Blocked int    `json:"blocked"`
}

// FileChange is one generated file that differs from the tree: Kind as
// write.Change's ("changed", "missing", "removed", "blocked").
type FileChange struct{ Path, Kind string }

// Summary counts the plan, for a headline and for programs.
type Summary struct {
	NodeGroups  int `json:"nodeGroups"`
	Classes     int `json:"classes"`
	ClassesLost int `json:"classesLost"`
	Tenants     int `json:"tenants"`
	NewErrors   int `json:"newErrors"`
	NewWarnings int `json:"newWarnings"`
	Resolved    int `json:"resolved"`
	Files       int `json:"files"`
	// The changes by action (node groups, classes, tenants, objects).
	Create  int `json:"create"`
	Update  int `json:"update"`
	Replace int `json:"replace"`
	Destroy int `json:"destroy"`
	Refused int `json:"refused"`
}

// NewErrors are the change's new error findings, with their positions in
// the spec as this run was given it.
func (p *Plan) NewErrors() []check.Finding { return p.errors }
