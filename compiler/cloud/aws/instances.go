package aws

import (
	"math"
	"slices"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// Catalog is the EC2 instance types with a fleet's instanceTypes merged
// over them.
func Catalog(extra map[string]spec.InstanceType) catalog.Catalog {
	return catalog.New(&instanceTable, extra)
}

var instanceTable = func() catalog.Table {
	t := catalog.Table{EFA: efaInterfaces, NetworkLayers: networkLayers, Reserve: reserve}
	for _, r := range builtin {
		t.Instances = append(t.Instances, catalog.Instance{Name: r.Name, VCPU: r.VCPU, MemoryGiB: r.MemoryGiB, MaxPods: r.MaxPods, GPU: r.GPU})
	}
	return t
}()

// efaInterfaces are the EFA-capable types' interfaces (EC2's
// MaximumEfaInterfaces, one per network card), as karpenter-provider-aws
// v1.15.1's EC2 and EFA device data give them (make test-karpenter): the
// 8xlarge and larger g4dn, g5, g6 and g6e take EFA too, which this table
// once left out.
var efaInterfaces = map[string]int64{
	"g4dn.8xlarge": 1, "g4dn.12xlarge": 1, "g4dn.16xlarge": 1, "g4dn.metal": 1,
	"g5.8xlarge": 1, "g5.12xlarge": 1, "g5.16xlarge": 1, "g5.24xlarge": 1, "g5.48xlarge": 1,
	"g6.8xlarge": 1, "g6.12xlarge": 1, "g6.16xlarge": 1, "g6.24xlarge": 1, "g6.48xlarge": 1,
	"g6e.8xlarge": 1, "g6e.12xlarge": 1, "g6e.16xlarge": 1, "g6e.24xlarge": 2, "g6e.48xlarge": 4,
	"gr6.8xlarge": 1, "p5.4xlarge": 1,
	"p4d.24xlarge": 4, "p4de.24xlarge": 4, "p5.48xlarge": 32, "p5e.48xlarge": 32, "p5en.48xlarge": 16,
	"p6-b200.48xlarge": 8, "p6-b300.48xlarge": 16,
}

// networkLayers are the types EC2 topology describes, with the network
// nodes DescribeInstanceTopology returns for each: the AWS cloud
// controller manager (k8s.io/cloud-provider-aws v1.35.1,
// pkg/providers/v1/instances_v2.go, getAdditionalLabels) labels a node
// topology.k8s.aws/network-node-layer-1 to -N from them at registration,
// and no other type gets the labels (the EC2 User Guide, "Prerequisites
// for Amazon EC2 topology": 3 nodes for g6e, p4d, p4de, p5.48xlarge, p5e
// and p5en; 4 for p6-b200; none for g4dn, g5, g6 or p5.4xlarge). The
// controller's own pattern (topology.go, ^(hpc|trn|p)[0-9]+...) only
// says which types must answer, not which do.
var networkLayers = map[string]int{
	"g6e.xlarge": 3, "g6e.2xlarge": 3, "g6e.4xlarge": 3, "g6e.8xlarge": 3,
	"g6e.12xlarge": 3, "g6e.16xlarge": 3, "g6e.24xlarge": 3, "g6e.48xlarge": 3,
	"p4d.24xlarge": 3, "p4de.24xlarge": 3, "p5.48xlarge": 3, "p5e.48xlarge": 3, "p5en.48xlarge": 3,
	"p6-b200.48xlarge": 4,
}

// LabelNetworkNodeLayer is the prefix of the AWS cloud controller
// manager's topology labels (well_known_labels.go,
// LabelNetworkNodePrefix): layer 1 is the top of the network, the widest.
const LabelNetworkNodeLayer = "topology.k8s.aws/network-node-layer-"

// VMMemoryOverheadPercent is Karpenter's AWS provider's default
// (VM_MEMORY_OVERHEAD_PERCENT, karpenter-provider-aws v1.15.1): a node
// reports less memory than EC2's nominal figure, and Karpenter launches
// only types whose memory less this share holds the pods.
const VMMemoryOverheadPercent = 0.075

// reserve is what an EKS node keeps from pods: the VM's share of memory,
// rounded as Karpenter's instancetype.memory rounds it (up to a whole
// MiB), and the EKS AMI's kube-reserved.
func reserve(in catalog.Instance) catalog.Reserved {
	mi := int64(in.MemoryGiB * 1024)
	return catalog.Reserved{
		VMMemoryMi: int64(math.Ceil(float64(mi) * VMMemoryOverheadPercent)),
		CPUMilli:   ReservedCPUMilli(in.VCPU),
		MemoryMi:   ReservedMemoryMi(in.MaxPods),
	}
}

// ReservedCPUMilli is the EKS AMI's CPU reservation: 6% of the first core,
// 1% of the second, 0.5% of the next two and 0.25% of the rest. It is
// computed in tenths of a millicore, to keep 0.25% exact, in closed form:
// a spec may override vcpu.
func ReservedCPUMilli(vcpu int64) int64 {
	if vcpu < 1 {
		return 0
	}
	tenths := int64(600)
	if vcpu >= 2 {
		tenths += 100
	}
	tenths += 50 * min(max(vcpu-2, 0), 2)
	tenths += 25 * max(vcpu-4, 0)
	return tenths / 10
}

// ReservedMemoryMi is the EKS AMI's memory reservation: 255 MiB plus
// 11 MiB per pod the node may run.
func ReservedMemoryMi(maxPods int64) int64 { return 255 + 11*maxPods }

// Unpriced reports whether karpenter-provider-aws's static prices for
// region lack the built-in instanceType. Karpenter makes an offering
// without a price unavailable (offering/base_resolver.go), and seeds its
// spot prices from these, so it never launches the type. False where the
// table does not cover region (Karpenter fetches live prices there), and
// for types the spec adds, which the table never holds; spec prices do
// not count, since Karpenter does not see them.
func Unpriced(region, instanceType string) bool {
	table, ok := onDemandUSD[region]
	if !ok {
		return false
	}
	if _, ok := table[instanceType]; ok {
		return false
	}
	return slices.ContainsFunc(builtin, func(r row) bool { return r.Name == instanceType })
}

// GPU products, named as the spec names them.
const (
	t4   = "T4"
	a10g = "A10G"
	l4   = "L4"
	l40s = "L40S"
	a100 = "A100"
	h100 = "H100"
	h200 = "H200"
	b200 = "B200"
	b300 = "B300"
)

// row is an Instance as the table lists it.
type row struct {
	Name      string
	VCPU      int64
	MemoryGiB float64
	MaxPods   int64
	GPU       *catalog.GPU
}

func gpu(n int64, product string, mem int64) *catalog.GPU {
	return &catalog.GPU{Count: n, Product: product, MemoryGiB: mem}
}

// builtin is the EC2 instance table. vCPU and memory are AWS's published
// figures; MaxPods is from the EKS AMI's eni-max-pods.txt.
var builtin = []row{
	// NVIDIA T4
	{"g4dn.xlarge", 4, 16, 29, gpu(1, t4, 16)},
	{"g4dn.2xlarge", 8, 32, 29, gpu(1, t4, 16)},
	{"g4dn.4xlarge", 16, 64, 29, gpu(1, t4, 16)},
	{"g4dn.8xlarge", 32, 128, 58, gpu(1, t4, 16)},
	{"g4dn.12xlarge", 48, 192, 234, gpu(4, t4, 16)},
	{"g4dn.16xlarge", 64, 256, 58, gpu(1, t4, 16)},
	{"g4dn.metal", 96, 384, 737, gpu(8, t4, 16)},
	// NVIDIA A10G
	{"g5.xlarge", 4, 16, 58, gpu(1, a10g, 24)},
	{"g5.2xlarge", 8, 32, 58, gpu(1, a10g, 24)},
	{"g5.4xlarge", 16, 64, 234, gpu(1, a10g, 24)},
	{"g5.8xlarge", 32, 128, 234, gpu(1, a10g, 24)},
	{"g5.12xlarge", 48, 192, 737, gpu(4, a10g, 24)},
	{"g5.16xlarge", 64, 256, 234, gpu(1, a10g, 24)},
	{"g5.24xlarge", 96, 384, 737, gpu(4, a10g, 24)},
	{"g5.48xlarge", 192, 768, 345, gpu(8, a10g, 24)},
	// NVIDIA L4
	{"g6.xlarge", 4, 16, 58, gpu(1, l4, 24)},
	{"g6.2xlarge", 8, 32, 58, gpu(1, l4, 24)},
	{"g6.4xlarge", 16, 64, 234, gpu(1, l4, 24)},
	{"g6.8xlarge", 32, 128, 234, gpu(1, l4, 24)},
	{"g6.12xlarge", 48, 192, 234, gpu(4, l4, 24)},
	{"g6.16xlarge", 64, 256, 737, gpu(1, l4, 24)},
	{"g6.24xlarge", 96, 384, 737, gpu(4, l4, 24)},
	{"g6.48xlarge", 192, 768, 737, gpu(8, l4, 24)},
	// NVIDIA L4 with more memory per vCPU (gr6).
	{"gr6.4xlarge", 16, 128, 234, gpu(1, l4, 24)},
	{"gr6.8xlarge", 32, 256, 234, gpu(1, l4, 24)},
	// NVIDIA L40S
	{"g6e.xlarge", 4, 32, 58, gpu(1, l40s, 48)},
	{"g6e.2xlarge", 8, 64, 58, gpu(1, l40s, 48)},
	{"g6e.4xlarge", 16, 128, 234, gpu(1, l40s, 48)},
	{"g6e.8xlarge", 32, 256, 234, gpu(1, l40s, 48)},
	{"g6e.12xlarge", 48, 384, 292, gpu(4, l40s, 48)},
	{"g6e.16xlarge", 64, 512, 737, gpu(1, l40s, 48)},
	{"g6e.24xlarge", 96, 768, 492, gpu(4, l40s, 48)},
	{"g6e.48xlarge", 192, 1536, 492, gpu(8, l40s, 48)},
	// NVIDIA A100, H100, H200, B200, B300
	{"p4d.24xlarge", 96, 1152, 737, gpu(8, a100, 40)},
	{"p4de.24xlarge", 96, 1152, 737, gpu(8, a100, 80)},
	{"p5.4xlarge", 16, 256, 118, gpu(1, h100, 80)},
	{"p5.48xlarge", 192, 2048, 100, gpu(8, h100, 80)},
	{"p5e.48xlarge", 192, 2048, 100, gpu(8, h200, 141)},
	{"p5en.48xlarge", 192, 2048, 198, gpu(8, h200, 141)},
	{"p6-b200.48xlarge", 192, 2048, 198, gpu(8, b200, 180)},
	{"p6-b300.48xlarge", 192, 4096, 198, gpu(8, b300, 268)},
	// General purpose, compute and memory optimised (Nitro; same ENI limits per size).
	{"m7i.large", 2, 8, 29, nil},
	{"m7i.xlarge", 4, 16, 58, nil},
	{"m7i.2xlarge", 8, 32, 58, nil},
	{"m7i.4xlarge", 16, 64, 234, nil},
	{"m7i.8xlarge", 32, 128, 234, nil},
	{"m7i.12xlarge", 48, 192, 234, nil},
	{"m7i.16xlarge", 64, 256, 737, nil},
	{"m7i.24xlarge", 96, 384, 737, nil},
	{"m6i.large", 2, 8, 29, nil},
	{"m6i.xlarge", 4, 16, 58, nil},
	{"m6i.2xlarge", 8, 32, 58, nil},
	{"m6i.4xlarge", 16, 64, 234, nil},
	{"m6i.8xlarge", 32, 128, 234, nil},
	{"m5.large", 2, 8, 29, nil},
	{"m5.xlarge", 4, 16, 58, nil},
	{"m5.2xlarge", 8, 32, 58, nil},
	{"m5.4xlarge", 16, 64, 234, nil},
	{"c7i.large", 2, 4, 29, nil},
	{"c7i.xlarge", 4, 8, 58, nil},
	{"c7i.2xlarge", 8, 16, 58, nil},
	{"c7i.4xlarge", 16, 32, 234, nil},
	{"c6i.xlarge", 4, 8, 58, nil},
	{"c6i.2xlarge", 8, 16, 58, nil},
	{"r7i.large", 2, 16, 29, nil},
	{"r7i.xlarge", 4, 32, 58, nil},
	{"r7i.2xlarge", 8, 64, 58, nil},
	{"r7i.4xlarge", 16, 128, 234, nil},
}
