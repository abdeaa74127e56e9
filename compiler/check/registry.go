package check

// ID names a check. Findings carry it, the spec's checks settings lower it,
// and the github and sarif formats use it as the rule. Each check's file,
// named after it, declares its ID.
type ID string

// Check is one row of the registry: a check and the function that runs it.
type Check struct {
	ID  ID
	Run Run
	// Severity is the one its findings have, unless the spec's checks
	// setting lowers it (Lowerable).
	Severity  string
	Lowerable bool
	// Proves is what a fleet without its findings has, in a line.
	Proves string
}

// Registry lists every check, in the order docs/checks.md documents them.
// RunCluster runs the StageRow and StageCluster checks, Kueue the
// StageKueue and StageQueue ones, each stage's in this order.
var Registry = []Check{
	{IDLands, OnRow(Lands), Error, false, "every class can land on at least one pool (kube-scheduler's Filter plugins)"},
	{IDGang, OnRow(Gang), Error, false, "a Job's whole gang fits at once on the pools it lands on, at max size"},
	{IDCapacity, OnRow(Capacity), Error, false, "all of a workload's replicas fit at once on the pools it lands on, at max size"},
	{IDRollout, OnRow(Rollout), Error, false, "a Deployment's rolling update progresses at max size: maxUnavailable at least 1, or room for a surge pod beside every old one"},
	{IDInterPodAffinity, OnRow(InterPodAffinity), Error, false, "required anti-affinity leaves a node or zone for every replica"},
	{IDPodTopologySpread, OnRow(PodTopologySpread), Error, false, "DoNotSchedule spread constraints hold for every pod, placed one by one"},
	{IDSystemLands, OnCluster(SystemLands), Error, false, "every workload the tree itself deploys (its second scheduler) fits some pool: system pools' taints are tolerated"},
	{IDCPUOnGPU, OnCluster(CPUOnGPU), Error, true, "no CPU-only class can land on a GPU pool"},
	{IDOnDemandOnSpot, OnCluster(OnDemandOnSpot), Error, true, "no on-demand class can land on a spot pool"},
	{IDDedicated, OnCluster(Dedicated), Error, true, "no class lands on a pool dedicated to others"},
	{IDDevicePlugin, OnCluster(DevicePlugin), Error, false, "the NVIDIA device plugin's DaemonSet runs on every GPU pool's nodes (which otherwise advertise no GPUs), and on no other"},
	{IDDevicePluginAllocate, OnRow(DevicePluginAllocate), Error, false, "the NVIDIA device plugin allocates what each container asks where its class lands: none asks for more than one MPS replica, which the plugin refuses after kube-scheduler binds the pod"},
	{IDDRAPlugin, OnCluster(DRAPlugin), Error, false, "the NVIDIA DRA driver's kubelet plugin runs on every DRA pool's nodes (which otherwise publish no devices), and the device plugin on none of them"},
	{IDEFADevicePlugin, OnCluster(EFADevicePlugin), Error, false, "eksctl's EFA device plugin runs on every EFA pool's nodes, which otherwise advertise no vpc.amazonaws.com/efa"},
	{IDAutoscalerGPUReady, OnCluster(AutoscalerGPUReady), Error, false, "no node group cluster-autoscaler scales carries its GPU label without advertising nvidia.com/gpu, which it would count unready for ever (MIG pools)"},
	{IDZoneSpreadNodeGroup, OnRow(ZoneSpreadNodeGroup), Warning, false, "a class that requires spreading over zones lands only where new nodes launch in the zone a pod needs: not on a managed node group over several zones"},
	{IDKarpenterLaunch, OnRow(KarpenterLaunch), Error, false, "Karpenter launches a node for every class that lands on a Karpenter pool: no pod asks for more GPUs than the type has, which shared GPUs would hide"},
	{IDKarpenterDRA, OnRow(KarpenterDRA), Error, false, "Karpenter launches a node for every class claiming DRA devices that lands on a Karpenter pool: it runs with its DRANVIDIAGPU feature gate and IGNORE_DRA_REQUESTS off"},
	{IDMixedTypes, OnCluster(MixedTypes), Warning, false, "a managed node group's instance types match in CPU, memory and GPUs, so the type it launches is the one the checker credits"},
	{IDKarpenterUnpriced, OnCluster(KarpenterUnpriced), Error, false, "every type a Karpenter pool lists has a price in Karpenter's own data for the cluster's region, without which it never launches the type (a warning while another type is left)"},
	{IDQuotaFit, OnCluster(QuotaFit), Error, false, "each tenant's quotas hold one whole workload (a gang, or all replicas) of each of its classes"},
	{IDRolloutQuota, OnCluster(RolloutQuota), Error, false, "a tenant's quotas hold a Deployment's replicas plus its surge pods when maxUnavailable is 0, so its rollout is not refused at quota admission"},
	{IDSchedulerVersion, OnCluster(SchedulerVersion), Warning, false, "the cluster runs the kube-scheduler minor whose filters the checker restates and the differential tests run (v1.36)"},
	{IDSpotCheckpoint, OnRow(SpotCheckpoint), Warning, false, "no Job class that cannot checkpoint (karpenter.sh/do-not-disrupt) lands on spot, where an interruption restarts it"},
	{IDSpotGracePeriod, OnCluster(SpotGracePeriod), Warning, false, "no class that lands on spot asks for a checkpoint window longer than the spot interruption notice, after which the instance is gone"},
	{IDPriorityOrder, OnCluster(PriorityOrder), Warning, false, "no preempting batch class outranks a critical serving class"},
	{IDKueueFlavor, OnQueue(KueueFlavor), Error, false, "some flavor of the tenant's ClusterQueue admits each queued class where it lands"},
	{IDKueueDRA, OnQueue(KueueDRA), Error, false, "Kueue can charge every queued class's claims: each claims a DeviceClass the tree's deviceClassMappings map, with no CEL selector (which Kueue admits only while matching devices already stand)"},
	{IDKueueOrder, OnQueue(KueueOrder), Error, false, "no flavor Kueue tries first sends a queued class where it cannot land"},
	{IDKueueQuota, OnQueue(KueueQuota), Error, false, "Kueue's flavor assigner admits one whole queued workload: guaranteed quota plus what the cohort tree lends, within borrowingLimit"},
	{IDKueueCovered, OnQueue(KueueCovered), Error, false, "every resource a queued class requests is covered by its ClusterQueue"},
	{IDKueueLimits, OnKueue(KueueLimits), Error, false, "flavors and resource groups stay within Kueue's CRD limits"},
	{IDKueueBorrow, OnQueue(KueueBorrow), Warning, false, "a tenant that may borrow shares its cohort tree with another ClusterQueue to borrow from"},
	{IDKueueGang, OnQueue(KueueGang), Error, false, "every flavor Kueue may admit a queued Job or StatefulSet to is a pool where kube-scheduler then places the pinned pods: a gang's or a StatefulSet's all, one of a Job that runs in waves"},
	{IDKueueTopology, OnQueue(KueueTopology), Error, false, "Kueue's topology-aware scheduling can place every workload it places by topology on the nodes of its flavor that exist with no pod pending, in one domain of a required level"},
	{IDKueueTopologyBound, OnQueue(KueueTopologyBound), Warning, false, "such a workload fits however EC2 places those nodes under its network nodes, not only when enough share one"},
	{IDKueueDeployment, OnQueue(KueueDeployment), Error, false, "a queued Deployment's replicas, which Kueue admits one by one into the first flavor with quota, all run in the pool they pile into"},
	{IDKueueResourceQuota, OnQueue(KueueResourceQuota), Error, false, "no namespace's ResourceQuota refuses the pods of what its tenant's ClusterQueue may admit"},
	{IDKueuePriorityQuota, OnQueue(KueuePriorityQuota), Warning, false, "no PriorityClass-scoped quota, which Kueue does not see, is below what Kueue may admit of a queued class at that priority"},
}

// Lookup returns the registered check of that ID.
func Lookup(id ID) (Check, bool) {
	for _, c := range Registry {
		if c.ID == id {
			return c, true
		}
	}
	return Check{}, false
}
