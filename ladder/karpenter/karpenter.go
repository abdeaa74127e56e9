// Package nodediff holds gpufleet's instance catalog (compiler/cloud/aws) to
// karpenter-provider-aws v1.15.1: the EC2 data it ships and its own
// instance-type computation, called in-process, never restated here.
package nodediff

import (
	"context"
	"flag"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/aws/karpenter-provider-aws/pkg/fake"
	"github.com/aws/karpenter-provider-aws/pkg/operator/options"
	"github.com/aws/karpenter-provider-aws/pkg/providers/drametadata"
	"github.com/aws/karpenter-provider-aws/pkg/providers/instancetype"
	"github.com/samber/lo"
	resourcev1 "k8s.io/api/resource/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"

	"github.com/gpufleet/gpufleet/compiler/catalog"
)

// Context carries Karpenter's options as its controller parses them from
// no flags: VM_MEMORY_OVERHEAD_PERCENT, RESERVED_ENIS and the rest take
// Karpenter's own defaults (or the environment's, as in a real deployment;
// the test refuses to run with them set). The cluster name is required.
// args are further flags (ChartArgs).
func Context(args ...string) (context.Context, error) {
	o := &options.Options{}
	fs := &coreoptions.FlagSet{FlagSet: flag.NewFlagSet("karpenter", flag.ContinueOnError)}
	o.AddFlags(fs)
	if err := o.Parse(fs, append([]string{"--cluster-name=gpufleet"}, args...)...); err != nil {
		return nil, err
	}
	return options.ToContext(context.Background(), o), nil
}

// Described is the EC2 DescribeInstanceTypes data Karpenter's tests run on,
// scraped from EC2 (pkg/fake/zz_generated.describe_instance_types.go), by
// name: the only vCPU and memory figures the release ships.
func Described(ctx context.Context) (map[string]ec2types.InstanceTypeInfo, error) {
	out, err := fake.NewEC2API().DescribeInstanceTypes(ctx, &ec2.DescribeInstanceTypesInput{})
	if err != nil {
		return nil, err
	}
	m := map[string]ec2types.InstanceTypeInfo{}
	for _, info := range out.InstanceTypes {
		m[string(info.InstanceType)] = info
	}
	return m, nil
}

// GPUs is Karpenter's scraped NVIDIA driver data for a type (nil if none).
func GPUs(name string) *drametadata.DeviceMetadata {
	return drametadata.GPUMetadataByInstanceType[name]
}

// EFAs is Karpenter's scraped EFA device data for a type (nil if none).
func EFAs(name string) *drametadata.DeviceMetadata {
	return drametadata.EFAMetadataByInstanceType[name]
}

// Info is the InstanceTypeInfo Karpenter would receive from EC2 for a
// catalog type: the described one where the release ships it; otherwise
// one assembled from Karpenter's own tables (network cards and IPv4
// addresses from its VPC limits, GPUs and EFA from its device data) around
// the catalog's vCPU and memory, which then are the only inputs not
// Karpenter's. ok is false when Karpenter's VPC limits lack the type.
func Info(described map[string]ec2types.InstanceTypeInfo, in catalog.Instance) (info ec2types.InstanceTypeInfo, real, ok bool) {
	if info, ok := described[in.Name]; ok {
		return info, true, true
	}
	info, ok = Assemble(in)
	return info, false, ok
}

// Assemble is the InstanceTypeInfo Info falls back to; the test holds it to
// EC2's described data where the release has both.
func Assemble(in catalog.Instance) (info ec2types.InstanceTypeInfo, ok bool) {
	lim, ok := instancetype.Limits[in.Name]
	if !ok {
		return info, false
	}
	cards := lo.Map(lim.NetworkCards, func(c instancetype.NetworkCard, _ int) ec2types.NetworkCardInfo {
		return ec2types.NetworkCardInfo{NetworkCardIndex: lo.ToPtr(int32(c.NetworkCardIndex)), MaximumNetworkInterfaces: lo.ToPtr(int32(c.MaximumNetworkInterfaces))}
	})
	info = ec2types.InstanceTypeInfo{
		InstanceType:  ec2types.InstanceType(in.Name),
		ProcessorInfo: &ec2types.ProcessorInfo{SupportedArchitectures: []ec2types.ArchitectureType{ec2types.ArchitectureTypeX8664}},
		VCpuInfo:      &ec2types.VCpuInfo{DefaultVCpus: lo.ToPtr(int32(in.VCPU))},
		MemoryInfo:    &ec2types.MemoryInfo{SizeInMiB: lo.ToPtr(int64(in.MemoryGiB * 1024))},
		Hypervisor:    ec2types.InstanceTypeHypervisor(lim.Hypervisor),
		BareMetal:     lo.ToPtr(lim.IsBareMetal),
		NetworkInfo: &ec2types.NetworkInfo{
			Ipv4AddressesPerInterface: lo.ToPtr(int32(lim.IPv4PerInterface)),
			DefaultNetworkCardIndex:   lo.ToPtr(int32(lim.DefaultNetworkCardIndex)),
			NetworkCards:              cards,
		},
		SupportedUsageClasses: []ec2types.UsageClassType{ec2types.UsageClassTypeOnDemand},
	}
	if g := GPUs(in.Name); g != nil {
		info.GpuInfo = &ec2types.GpuInfo{Gpus: []ec2types.GpuDeviceInfo{{
			Manufacturer: lo.ToPtr("NVIDIA"), Count: lo.ToPtr(int32(g.Count)),
			MemoryInfo: &ec2types.GpuDeviceMemoryInfo{},
		}}}
	}
	if e := EFAs(in.Name); e != nil {
		info.NetworkInfo.EfaInfo = &ec2types.EfaInfo{MaximumEfaInterfaces: lo.ToPtr(int32(e.Count))}
	}
	return info, true
}

// Families are the AMI families gpufleet's EC2NodeClasses use.
var Families = []string{v1.AMIFamilyAL2023, v1.AMIFamilyBottlerocket}

// InstanceType is Karpenter's own instance type for info under an
// EC2NodeClass as gpufleet renders it: the family's alias, no kubelet
// settings (so Karpenter's default max pods, kube-reserved and eviction
// threshold), no network interfaces, no capacity reservations.
func InstanceType(ctx context.Context, info ec2types.InstanceTypeInfo, family string) *cloudprovider.InstanceType {
	return instancetype.NewInstanceType(ctx, info, "us-east-1", nil, nil, nil, nil, nil,
		nil, nil, nil, nil, nil, nil, family, nil)
}

// ENILimitedPods is Karpenter's VPC CNI pod limit for info, with the
// reserved ENIs its options carry.
func ENILimitedPods(ctx context.Context, info ec2types.InstanceTypeInfo) int64 {
	return instancetype.ENILimitedPods(ctx, info, options.FromContext(ctx).ReservedENIs, nil).Value()
}

// Attr is a string attribute of the first device in Karpenter's driver
// data ("" if absent).
func Attr(g *drametadata.DeviceMetadata, name resourcev1.QualifiedName) string {
	if g == nil || len(g.Devices) == 0 {
		return ""
	}
	return lo.FromPtr(g.Devices[0].Attributes[name].StringValue)
}
