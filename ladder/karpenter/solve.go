package nodediff

// Karpenter's provisioning scheduler, in-process: the instance types its
// AWS provider resolves for an EC2NodeClass (with offerings priced from the
// release's static on-demand prices), its scheduler's Solve over one
// NodePool, and the instance type its launch path would ask EC2 for.

import (
	"context"
	"flag"
	"fmt"
	"math"
	"slices"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	awscache "github.com/aws/karpenter-provider-aws/pkg/cache"
	kubeletcel "github.com/aws/karpenter-provider-aws/pkg/cel"
	"github.com/aws/karpenter-provider-aws/pkg/operator/options"
	"github.com/aws/karpenter-provider-aws/pkg/providers/arczonalshift"
	"github.com/aws/karpenter-provider-aws/pkg/providers/capacityreservation"
	instancefilter "github.com/aws/karpenter-provider-aws/pkg/providers/instance/filter"
	"github.com/aws/karpenter-provider-aws/pkg/providers/instancetype"
	"github.com/aws/karpenter-provider-aws/pkg/providers/instancetype/offering"
	"github.com/aws/karpenter-provider-aws/pkg/providers/nvidiadra"
	"github.com/aws/karpenter-provider-aws/pkg/providers/pricing"
	"github.com/go-logr/logr"
	"github.com/patrickmn/go-cache"
	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/sets"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/log"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/events"
	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"
	karpsched "sigs.k8s.io/karpenter/pkg/scheduling"
	"sigs.k8s.io/karpenter/pkg/scheduling/dynamicresources"
)

// Region is where the release's static prices are taken from.
const Region = "us-east-1"

// WithCoreOptions adds the core controller's options to ctx (the
// scheduler reads its feature gates, preference and minValues policies),
// parsed from no flags as the controller does.
func WithCoreOptions(ctx context.Context, args ...string) (context.Context, error) {
	o := &coreoptions.Options{}
	fs := &coreoptions.FlagSet{FlagSet: flag.NewFlagSet("karpenter-core", flag.ContinueOnError)}
	o.AddFlags(fs)
	if err := o.Parse(fs, args...); err != nil {
		return nil, err
	}
	return coreoptions.ToContext(ctx, o), nil
}

// WithSubnets gives nc the status subnet discovery would: one subnet per
// zone. Karpenter intersects an instance type's zones with these.
func WithSubnets(nc *v1.EC2NodeClass, zones []string) {
	nc.Status.Subnets = nil
	for i, z := range zones {
		nc.Status.Subnets = append(nc.Status.Subnets, v1.Subnet{ID: "subnet-" + z, Zone: z, ZoneID: fmt.Sprintf("use1-az%d", i+1)})
	}
}

// Offered are the instance types Karpenter's AWS provider lists for nc
// (instancetype.DefaultProvider.List): each resolved by its DefaultResolver
// (the EC2NodeClass's AMI family, block devices and kubelet settings), then
// given offerings by its offering provider: every zone of zones × the
// type's usage classes, priced by the pricing provider's static data (spot
// defaults to the on-demand price until a spot price update, which offline
// never comes). Every type is assumed offered in every zone, as the checker
// assumes too: the release ships no DescribeInstanceTypeOfferings data.
func Offered(ctx context.Context, nc *v1.EC2NodeClass, infos []ec2types.InstanceTypeInfo, zones []string) ([]*cloudprovider.InstanceType, error) {
	return OfferedReserved(ctx, nc, infos, zones, nil)
}

// OfferedReserved is Offered with Karpenter's capacity-reservation
// provider, whose reservations (the EC2NodeClass's status) its
// ReservedCapacityResolver offers as capacity type "reserved", each
// available while the provider counts instances left in it.
func OfferedReserved(ctx context.Context, nc *v1.EC2NodeClass, infos []ec2types.InstanceTypeInfo, zones []string, crp capacityreservation.Provider) ([]*cloudprovider.InstanceType, error) {
	cel, err := kubeletcel.NewEnvironment()
	if err != nil {
		return nil, err
	}
	parsed, err := v1.ParseKubeletConfig(nc.KubeletConfiguration())
	if err != nil {
		return nil, err
	}
	resolver := instancetype.NewDefaultResolver(Region, cel)
	byName := map[ec2types.InstanceType]ec2types.InstanceTypeInfo{}
	var its []*cloudprovider.InstanceType
	for _, info := range infos {
		it, err := resolver.Resolve(ctx, info, zones, nc, parsed)
		if err != nil {
			return nil, err
		}
		if it != nil {
			its = append(its, it)
			byName[info.InstanceType] = info
		}
	}
	offerings := offering.NewDefaultProvider(
		pricing.NewDefaultProvider(nil, nil, Region, false), crp, nil,
		awscache.NewUnavailableOfferings(),
		cache.New(awscache.InstanceTypesZonesAndOfferingsTTL, awscache.DefaultCleanupInterval),
		arczonalshift.NewNoopProvider(), nil)
	return offerings.InjectOfferings(ctx, its, byName, nc, sets.New(zones...)), nil
}

// WithDRADevices gives the instance types the devices the NVIDIA DRA
// driver publishes on them, as karpenter-provider-aws's cloud provider
// does when listing them (cloudprovider/dynamicresources.go
// populateDynamicResources, unexported): only with its DRANVIDIAGPU gate on
// and IGNORE_DRA_REQUESTS off, from its own nvidiadra provider (gpufleet
// writes no consumable-capacity annotation, so GPUs are whole).
func WithDRADevices(ctx context.Context, its []*cloudprovider.InstanceType) {
	if !options.FromContext(ctx).FeatureGates.DRANVIDIAGPU || coreoptions.FromContext(ctx).IgnoreDRARequests {
		return
	}
	res := nvidiadra.NewDefaultProvider().ResolveDynamicResources(ctx, its, nil)
	for _, it := range its {
		if r := res[it.Name]; len(r.ResourceSliceTemplates) > 0 {
			it.DynamicResources = r
		}
	}
}

// maxInstanceTypes is the instance provider's (instance/instance.go).
const maxInstanceTypes = 60

type noEvents struct{}

func (noEvents) Publish(...events.Event) {}

// Solve runs Karpenter's provisioner over pods with np as the only
// NodePool and no nodes, as Provisioner.Schedule does: NewTopology,
// NewScheduler with the daemon pods, Solve with the options Schedule
// passes, then TruncateInstanceTypes. objs are in the cluster (the pods'
// ResourceClaims, the DeviceClasses). Where IGNORE_DRA_REQUESTS is off,
// the scheduler gets the DRA allocator Schedule builds, with no node's
// slices and nothing allocated yet.
func Solve(ctx context.Context, np *karpv1.NodePool, its []*cloudprovider.InstanceType, pods, daemons []*corev1.Pod, objs ...client.Object) (scheduling.Results, error) {
	ctx = log.IntoContext(ctx, logr.Discard()) // its "could not schedule" logs: the test reports them
	kube := fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).WithObjects(objs...).Build()
	clk := clock.RealClock{}
	cluster := state.NewCluster(clk, kube, nil)
	pools := []*karpv1.NodePool{np}
	byPool := map[string][]*cloudprovider.InstanceType{np.Name: its}
	o := coreoptions.FromContext(ctx)
	opts := []scheduling.Options{
		scheduling.DisableReservedCapacityFallback,
		scheduling.NumConcurrentReconciles(int(math.Ceil(float64(o.CPURequests) / 1000.0))),
		scheduling.MinValuesPolicy(o.MinValuesPolicy),
	}
	topology, err := scheduling.NewTopology(ctx, kube, cluster, nil, pools, byPool, pods, opts...)
	if err != nil {
		return scheduling.Results{}, err
	}
	var allocator *dynamicresources.Allocator
	if !o.IgnoreDRARequests {
		allocator = dynamicresources.NewAllocator(nil, dynamicresources.AllocatedDeviceState{
			ExclusiveDevices: sets.New[cloudprovider.DeviceID](),
			ConsumedCapacity: map[cloudprovider.DeviceID]map[resourcev1.QualifiedName]resource.Quantity{},
		}, dynamicresources.BuildAttributeBindings(byPool), kube, nil)
	}
	s := scheduling.NewScheduler(ctx, kube, pools, cluster, nil, topology, byPool, daemons, noEvents{}, clk, nil, allocator, opts...)
	res, err := s.Solve(ctx, pods)
	if err != nil {
		return res, err
	}
	return res.TruncateInstanceTypes(ctx, scheduling.MaxInstanceTypes), nil
}

// Launch is what karpenter-provider-aws's instance provider would ask EC2
// Fleet for a NodeClaim: the NodeClaim as the provisioner creates it
// (ToNodeClaim: options ordered by price, at most MaxInstanceTypes), its
// instance types through the launch filters (instance.filterInstanceTypes)
// and truncation, and the capacity type. For on-demand, Fleet's
// lowest-price strategy (instance/types.go) launches the cheapest override:
// cheapest are the types at the lowest compatible offering price (several
// only on a tie). For spot (price-capacity-optimized) it is not knowable
// offline: cheapest is nil and options are what Fleet chooses from.
func Launch(ctx context.Context, claim *scheduling.NodeClaim, its []*cloudprovider.InstanceType) (capacityType string, options, cheapest []string, err error) {
	nc := claim.ToNodeClaim()
	reqs := karpsched.NewNodeSelectorRequirementsWithMinValues(nc.Spec.Requirements...)
	names := sets.New(reqs.Get(corev1.LabelInstanceTypeStable).Values()...)
	var types []*cloudprovider.InstanceType
	for _, it := range its {
		if names.Has(it.Name) {
			types = append(types, it)
		}
	}
	for _, f := range []instancefilter.Filter{
		instancefilter.CompatibleLaunchableFilter(reqs, nc.Spec.Resources.Requests),
		instancefilter.CapacityReservationTypeFilter(reqs),
		instancefilter.CapacityBlockFilter(reqs),
		instancefilter.ReservedOfferingFilter(reqs),
		instancefilter.ExoticInstanceTypeFilter(reqs),
		instancefilter.SpotOfferingFilter(reqs),
	} {
		if types, _ = f.FilterReject(types); len(types) == 0 {
			return "", nil, nil, fmt.Errorf("all requested instance types were unavailable during launch (%s)", f.Name())
		}
	}
	if types, err = cloudprovider.InstanceTypes(types).Truncate(ctx, reqs, maxInstanceTypes); err != nil {
		return "", nil, nil, err
	}
	// getCapacityType (instance.go): spot when the NodeClaim allows it and
	// some type has a launchable spot offering, else on-demand (reserved
	// offerings need a capacity reservation; gpufleet renders none).
	capacityType = karpv1.CapacityTypeOnDemand
	if reqs.Get(karpv1.CapacityTypeLabelKey).Has(karpv1.CapacityTypeSpot) {
		spot := karpsched.NewRequirements(reqs.Values()...)
		spot[karpv1.CapacityTypeLabelKey] = karpsched.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, karpv1.CapacityTypeSpot)
		if lo.ContainsBy(types, func(it *cloudprovider.InstanceType) bool { return len(it.Offerings.Compatible(spot).Launchable()) > 0 }) {
			capacityType = karpv1.CapacityTypeSpot
		}
	}
	ct := karpsched.NewRequirements(karpsched.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, capacityType))
	best := math.MaxFloat64
	for _, it := range types {
		ofs := it.Offerings.Compatible(reqs).Compatible(ct).Launchable()
		if len(ofs) == 0 {
			continue
		}
		options = append(options, it.Name)
		p := ofs.Cheapest().Price
		switch {
		case p < best:
			best, cheapest = p, []string{it.Name}
		case p == best:
			cheapest = append(cheapest, it.Name)
		}
	}
	slices.Sort(options)
	slices.Sort(cheapest)
	if capacityType == karpv1.CapacityTypeSpot {
		cheapest = nil
	}
	return capacityType, options, cheapest, nil
}
