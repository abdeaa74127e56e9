package catalog

// GPU products, named as the spec names them.
const (
	t4   = "T4"
	a10g = "A10G"
	l4   = "L4"
	l40s = "L40S"
	a100 = "A100"
	h100 = "H100"
	h200 = "H200"
)

// row is an Instance as the table lists it.
type row struct {
	Name      string
	VCPU      int64
	MemoryGiB float64
	MaxPods   int64
	GPU       *GPU
}

func gpu(n int64, product string, mem int64) *GPU {
	return &GPU{Count: n, Product: product, MemoryGiB: mem}
}

// builtin is the instance table. vCPU and memory are AWS's published figures;
// MaxPods is from the EKS AMI's eni-max-pods.txt.
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
	// NVIDIA L40S
	{"g6e.xlarge", 4, 32, 58, gpu(1, l40s, 48)},
	{"g6e.2xlarge", 8, 64, 58, gpu(1, l40s, 48)},
	{"g6e.4xlarge", 16, 128, 234, gpu(1, l40s, 48)},
	{"g6e.8xlarge", 32, 256, 234, gpu(1, l40s, 48)},
	{"g6e.12xlarge", 48, 384, 292, gpu(4, l40s, 48)},
	{"g6e.16xlarge", 64, 512, 737, gpu(1, l40s, 48)},
	{"g6e.24xlarge", 96, 768, 492, gpu(4, l40s, 48)},
	{"g6e.48xlarge", 192, 1536, 492, gpu(8, l40s, 48)},
	// NVIDIA A100, H100, H200
	{"p4d.24xlarge", 96, 1152, 737, gpu(8, a100, 40)},
	{"p4de.24xlarge", 96, 1152, 737, gpu(8, a100, 80)},
	{"p5.48xlarge", 192, 2048, 100, gpu(8, h100, 80)},
	{"p5e.48xlarge", 192, 2048, 100, gpu(8, h200, 141)},
	{"p5en.48xlarge", 192, 2048, 198, gpu(8, h200, 141)},
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
