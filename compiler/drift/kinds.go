package drift

// Kind names one way a live node differs from its pool. Findings carry it,
// and the github and sarif formats use it as the rule.
type Kind string

// The kinds of drift, in the order Kinds lists them.
const (
	NoPool         Kind = "NoPool"
	MissingLabel   Kind = "MissingLabel"
	ExtraLabel     Kind = "ExtraLabel"
	MissingTaint   Kind = "MissingTaint"
	ExtraTaint     Kind = "ExtraTaint"
	InstanceType   Kind = "InstanceType"
	Zone           Kind = "Zone"
	NoDevicePlugin Kind = "NoDevicePlugin"
	GPUs           Kind = "GPUs"
	Memory         Kind = "Memory"
)

// Reasons, one per kind (two for labels and instance types): node, pool,
// then what differs.
const (
	reasonNoPool          = "node %s belongs to no pool: none of its labels %s names one"
	reasonMissingLabel    = "node %s of pool %s lacks label %s=%s, which the pool sets"
	reasonWrongLabel      = "node %s of pool %s has label %s=%s, but the pool sets %s"
	reasonExtraLabel      = "node %s of pool %s has label %s=%s, which the pool does not set"
	reasonMissingTaint    = "node %s of pool %s lacks taint %s, which the pool sets: classes that should stay off it can land there"
	reasonExtraTaint      = "node %s of pool %s has taint %s, which the pool does not set: classes that tolerate only the pool's taints stay off it"
	reasonInstanceType    = "node %s of pool %s is instance type %s, not one of the pool's (%s)"
	reasonNoInstanceType  = "node %s of pool %s has no %s label"
	reasonZone            = "node %s of pool %s is in zone %s, not one of the pool's (%s): spread and the zone checks counted it elsewhere"
	reasonNoZone          = "node %s of pool %s has no %s label"
	reasonNoDevicePlugin  = "node %s of pool %s (%s) has %d GPU(s) but advertises no %s: the NVIDIA device plugin is not running there"
	reasonGPUs            = "node %s of pool %s (%s) advertises %d %s, the catalog predicts %d"
	reasonMemory          = "node %s of pool %s (%s) has %s allocatable memory, the catalog predicts %s (%+.1f%%, beyond ±%d%%)"
	reasonUnknownInstance = "node %s of pool %s is instance type %s, which the catalog does not know"
)

// MemoryTolerancePercent is how far a node's allocatable memory may be
// from the catalog's before it is drift. The catalog credits Karpenter's
// assumed VM overhead (7.5% of EC2's nominal memory); real kernels keep
// 3-7%, so a node with somewhat more than predicted is the catalog's
// estimate, not drift. Beyond 5% either way the checker's memory verdicts
// are off, or the node was configured otherwise (kube-reserved, eviction).
const MemoryTolerancePercent = 5

// KindInfo is a kind and what a cluster without its findings has.
type KindInfo struct {
	Kind     Kind
	Describe string
}

// Kinds lists every kind.
var Kinds = []KindInfo{
	{NoPool, "every node belongs to a pool of the fleet (by gpufleet's pool label, its node group's or its NodePool's)"},
	{MissingLabel, "every node carries its pool's labels"},
	{ExtraLabel, "no node carries a gpufleet label its pool does not set"},
	{MissingTaint, "every node carries its pool's taints"},
	{ExtraTaint, "no node carries a taint its pool does not set (other than the ones Kubernetes, Karpenter and cluster-autoscaler manage)"},
	{InstanceType, "every node is one of its pool's instance types"},
	{Zone, "every node is in one of its pool's zones"},
	{NoDevicePlugin, "every GPU node advertises nvidia.com/gpu (or its MIG slices): the NVIDIA device plugin runs there"},
	{GPUs, "every node advertises the GPUs (and replicas or MIG slices) the catalog predicts"},
	{Memory, "every node's allocatable memory is within 5% of the catalog's"},
}

// Describe returns the line Kinds gives the kind.
func Describe(k Kind) string {
	for _, d := range Kinds {
		if d.Kind == k {
			return d.Describe
		}
	}
	return ""
}
