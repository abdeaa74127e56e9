// Package registry lists every check: its ID, the stage and function
// that run it, its severity, whether the spec may lower it, and what a
// fleet without its findings has. It is the one place that names every
// check, as kube-scheduler's plugins/registry.go names every plugin; the
// checks live in the package of the component they restate.
package registry

import (
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/disruption"
	"github.com/gpufleet/gpufleet/compiler/check/nodeagents"
	"github.com/gpufleet/gpufleet/compiler/check/provisioning"
	"github.com/gpufleet/gpufleet/compiler/check/queueing"
	"github.com/gpufleet/gpufleet/compiler/check/resourcequota"
	"github.com/gpufleet/gpufleet/compiler/check/scheduling"
)

// Checks lists every check, in the order docs/checks.md documents them.
// check.RunCluster runs their StageRow and StageCluster checks, check.Kueue
// their StageKueue and StageQueue ones, each stage's in this order.
var Checks = []check.Check{
	{ID: scheduling.IDLands, Run: check.OnRow(scheduling.Lands), Severity: check.Error, Proves: "every class can land on at least one pool (kube-scheduler's Filter plugins)"},
	{ID: scheduling.IDGang, Run: check.OnRow(scheduling.Gang), Severity: check.Error, Proves: "a Job's whole gang fits at once on the pools it lands on, at max size"},
	{ID: scheduling.IDCapacity, Run: check.OnRow(scheduling.Capacity), Severity: check.Error, Proves: "all of a workload's replicas fit at once on the pools it lands on, at max size"},
	{ID: scheduling.IDRollout, Run: check.OnRow(scheduling.Rollout), Severity: check.Error, Proves: "a Deployment's rolling update progresses at max size: maxUnavailable at least 1, or room for a surge pod beside every old one"},
	{ID: scheduling.IDInterPodAffinity, Run: check.OnRow(scheduling.InterPodAffinity), Severity: check.Error, Proves: "required anti-affinity leaves a node or zone for every replica"},
	{ID: scheduling.IDPodTopologySpread, Run: check.OnRow(scheduling.PodTopologySpread), Severity: check.Error, Proves: "DoNotSchedule spread constraints hold for every pod, placed one by one"},
	{ID: scheduling.IDSystemLands, Run: check.OnCluster(scheduling.SystemLands), Severity: check.Error, Proves: "every workload the tree itself deploys (its second scheduler) fits some pool: system pools' taints are tolerated"},
	{ID: scheduling.IDCPUOnGPU, Run: check.OnCluster(scheduling.CPUOnGPU), Severity: check.Error, Lowerable: true, Proves: "no CPU-only class can land on a GPU pool"},
	{ID: scheduling.IDOnDemandOnSpot, Run: check.OnCluster(scheduling.OnDemandOnSpot), Severity: check.Error, Lowerable: true, Proves: "no on-demand class can land on a spot pool"},
	{ID: scheduling.IDDedicated, Run: check.OnCluster(scheduling.Dedicated), Severity: check.Error, Lowerable: true, Proves: "no class lands on a pool dedicated to others"},
	{ID: nodeagents.IDDevicePlugin, Run: check.OnCluster(nodeagents.DevicePlugin), Severity: check.Error, Proves: "the NVIDIA device plugin's DaemonSet runs on every GPU pool's nodes (which otherwise advertise no GPUs), and on no other"},
	{ID: nodeagents.IDDevicePluginAllocate, Run: check.OnRow(nodeagents.DevicePluginAllocate), Severity: check.Error, Proves: "the NVIDIA device plugin allocates what each container asks where its class lands: none asks for more than one MPS replica, which the plugin refuses after kube-scheduler binds the pod"},
	{ID: nodeagents.IDDRAPlugin, Run: check.OnCluster(nodeagents.DRAPlugin), Severity: check.Error, Proves: "the NVIDIA DRA driver's kubelet plugin runs on every DRA pool's nodes (which otherwise publish no devices), and the device plugin on none of them"},
	{ID: nodeagents.IDEFADevicePlugin, Run: check.OnCluster(nodeagents.EFADevicePlugin), Severity: check.Error, Proves: "eksctl's EFA device plugin runs on every EFA pool's nodes, which otherwise advertise no vpc.amazonaws.com/efa"},
	{ID: provisioning.IDAutoscalerGPUReady, Run: check.OnCluster(provisioning.AutoscalerGPUReady), Severity: check.Error, Proves: "no node group cluster-autoscaler scales carries its GPU label without advertising nvidia.com/gpu, which it would count unready for ever (MIG pools)"},
	{ID: provisioning.IDAutoscalerDRAFromZero, Run: check.OnCluster(provisioning.AutoscalerDRAFromZero), Severity: check.Error, Proves: "cluster-autoscaler adds a node for every class claiming DRA devices that lands on a managed node group: none of its groups scales to zero, where it builds the next node from the Auto Scaling group with no ResourceSlices and no claim allocates"},
	{ID: provisioning.IDZoneSpreadNodeGroup, Run: check.OnRow(provisioning.ZoneSpreadNodeGroup), Severity: check.Warning, Proves: "a class that requires spreading over zones lands only where new nodes launch in the zone a pod needs: not on a managed node group over several zones"},
	{ID: provisioning.IDKarpenterLaunch, Run: check.OnRow(provisioning.KarpenterLaunch), Severity: check.Error, Proves: "Karpenter launches a node for every class that lands on a Karpenter pool: no pod asks for more GPUs than the type has, which shared GPUs would hide"},
	{ID: provisioning.IDKarpenterDRA, Run: check.OnRow(provisioning.KarpenterDRA), Severity: check.Error, Proves: "Karpenter launches a node for every class claiming DRA devices that lands on a Karpenter pool: it runs with its DRANVIDIAGPU feature gate and IGNORE_DRA_REQUESTS off"},
	{ID: provisioning.IDMixedTypes, Run: check.OnCluster(provisioning.MixedTypes), Severity: check.Warning, Proves: "a managed node group's instance types match in CPU, memory and GPUs, so the type it launches is the one the checker credits"},
	{ID: provisioning.IDReservedGang, Run: check.OnRow(provisioning.ReservedGang), Severity: check.Error, Proves: "a gang landing on a pool that launches only into its reservations fits the reserved instances of one zone"},
	{ID: provisioning.IDReservedRunTime, Run: check.OnRow(provisioning.ReservedRunTime), Severity: check.Error, Proves: "a workload that runs to completion and can land on a Capacity Block has a run time (Kueue's maximum execution time) that ends before its nodes go: Karpenter deletes them 40 minutes before the block's end, EC2 terminates a managed group's 30 minutes before it"},
	{ID: provisioning.IDReservedStranded, Run: check.OnCluster(provisioning.ReservedStranded), Severity: check.Warning, Proves: "every reserved pool, paid for whether used or not, has a class that lands on it"},
	{ID: provisioning.IDKarpenterUnpriced, Run: check.OnCluster(provisioning.KarpenterUnpriced), Severity: check.Error, Proves: "every type a Karpenter pool lists has a price in Karpenter's own data for the cluster's region, without which it never launches the type (a warning while another type is left)"},
	{ID: resourcequota.IDQuotaFit, Run: check.OnCluster(resourcequota.QuotaFit), Severity: check.Error, Proves: "each tenant's quotas hold one whole workload (a gang, or all replicas) of each of its classes"},
	{ID: resourcequota.IDRolloutQuota, Run: check.OnCluster(resourcequota.RolloutQuota), Severity: check.Error, Proves: "a tenant's quotas hold a Deployment's replicas plus its surge pods when maxUnavailable is 0, so its rollout is not refused at quota admission"},
	{ID: resourcequota.IDQuotaOverCapacity, Run: check.OnCluster(resourcequota.QuotaOverCapacity), Severity: check.Warning, Proves: "no tenant's GPU quota exceeds the GPUs of the pools its classes land on at max size, and the tenants' quotas together not the fleet's: GPUs admitted beyond them stay Pending"},
	{ID: scheduling.IDSchedulerVersion, Run: check.OnCluster(scheduling.SchedulerVersion), Severity: check.Warning, Proves: "the cluster runs the kube-scheduler minor whose filters the checker restates and the differential tests run (v1.36)"},
	{ID: disruption.IDSpotCheckpoint, Run: check.OnRow(disruption.SpotCheckpoint), Severity: check.Warning, Proves: "no Job class that cannot checkpoint (karpenter.sh/do-not-disrupt) lands on spot, where an interruption restarts it"},
	{ID: disruption.IDSpotGracePeriod, Run: check.OnCluster(disruption.SpotGracePeriod), Severity: check.Warning, Proves: "no class that lands on spot asks for a checkpoint window longer than the spot interruption notice, after which the instance is gone"},
	{ID: disruption.IDPriorityOrder, Run: check.OnCluster(disruption.PriorityOrder), Severity: check.Warning, Proves: "no preempting batch class outranks a critical serving class"},
	{ID: queueing.IDKueueFlavor, Run: check.OnQueue(queueing.KueueFlavor), Severity: check.Error, Proves: "some flavor of the tenant's ClusterQueue admits each queued class where it lands"},
	{ID: queueing.IDKueueDRA, Run: check.OnQueue(queueing.KueueDRA), Severity: check.Error, Proves: "Kueue can charge every queued class's claims: each claims a DeviceClass the tree's deviceClassMappings map, with no CEL selector (which Kueue admits only while matching devices already stand)"},
	{ID: queueing.IDKueueOrder, Run: check.OnQueue(queueing.KueueOrder), Severity: check.Error, Proves: "no flavor Kueue tries first sends a queued class where it cannot land"},
	{ID: queueing.IDKueueQuota, Run: check.OnQueue(queueing.KueueQuota), Severity: check.Error, Proves: "Kueue's flavor assigner admits one whole queued workload: guaranteed quota plus what the cohort tree lends, within borrowingLimit"},
	{ID: queueing.IDKueueCovered, Run: check.OnQueue(queueing.KueueCovered), Severity: check.Error, Proves: "every resource a queued class requests is covered by its ClusterQueue"},
	{ID: queueing.IDKueueLimits, Run: check.OnKueue(queueing.KueueLimits), Severity: check.Error, Proves: "flavors and resource groups stay within Kueue's CRD limits"},
	{ID: queueing.IDKueueBorrow, Run: check.OnQueue(queueing.KueueBorrow), Severity: check.Warning, Proves: "a tenant that may borrow shares its cohort tree with another ClusterQueue to borrow from"},
	{ID: queueing.IDKueueGang, Run: check.OnQueue(queueing.KueueGang), Severity: check.Error, Proves: "every flavor Kueue may admit a queued Job or StatefulSet to is a pool where kube-scheduler then places the pinned pods: a gang's or a StatefulSet's all, one of a Job that runs in waves"},
	{ID: queueing.IDKueueRoles, Run: check.OnQueue(queueing.KueueRoles), Severity: check.Error, Proves: "Kueue admits one whole workload of each queued ML kind (a JobSet, LeaderWorkerSet group, Ray cluster, PyTorchJob), a flavor for each of its roles' PodSets within the quota the earlier ones left, and each role lands on its flavor's pool"},
	{ID: queueing.IDKueueTopology, Run: check.OnQueue(queueing.KueueTopology), Severity: check.Error, Proves: "Kueue's topology-aware scheduling can place every workload it places by topology on the nodes of its flavor that exist with no pod pending, in one domain of a required level"},
	{ID: queueing.IDKueueTopologyBound, Run: check.OnQueue(queueing.KueueTopologyBound), Severity: check.Warning, Proves: "such a workload fits however EC2 places those nodes under its network nodes, not only when enough share one"},
	{ID: queueing.IDKueueDeployment, Run: check.OnQueue(queueing.KueueDeployment), Severity: check.Error, Proves: "a queued Deployment's replicas, which Kueue admits one by one into the first flavor with quota, all run in the pool they pile into"},
	{ID: queueing.IDKueueResourceQuota, Run: check.OnQueue(queueing.KueueResourceQuota), Severity: check.Error, Proves: "no namespace's ResourceQuota refuses the pods of what its tenant's ClusterQueue may admit"},
	{ID: queueing.IDKueueGatedQuota, Run: check.OnQueue(queueing.KueueGatedQuota), Severity: check.Error, Proves: "no namespace's ResourceQuota refuses a preempting workload's pods for the gated pods of the queued Deployment or StatefulSet Kueue preempted for it, which the controller recreates and quota admission still charges"},
	{ID: queueing.IDKueuePriorityQuota, Run: check.OnQueue(queueing.KueuePriorityQuota), Severity: check.Warning, Proves: "no PriorityClass-scoped quota, which Kueue does not see, is below what Kueue may admit of a queued class at that priority"},
}

// OnLiveNodes are the checks that check --nodes runs on a running
// cluster's nodes with check.KueueLive, besides RunCluster's: the Kueue
// checks that read nodes rather than quota. Kueue's topology-aware
// scheduling places on the nodes that exist, whose labels give its
// domains, so there they are exact.
func OnLiveNodes() []check.Check {
	return pick(queueing.IDKueueTopology, queueing.IDKueueTopologyBound)
}

// pick is the registered checks of ids, in registry order.
func pick(ids ...check.ID) []check.Check {
	var out []check.Check
	for _, c := range Checks {
		for _, id := range ids {
			if c.ID == id {
				out = append(out, c)
			}
		}
	}
	return out
}

// Lookup returns the registered check of that ID.
func Lookup(id check.ID) (check.Check, bool) {
	for _, c := range Checks {
		if c.ID == id {
			return c, true
		}
	}
	return check.Check{}, false
}
