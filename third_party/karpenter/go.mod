// Pins of Karpenter's releases, whose NodePool, NodeClaim and EC2NodeClass
// CRDs the tests and the end-to-end run use. A module of its own because
// these releases declare go >= 1.26.10: internal/upstream runs the go command
// here with GOTOOLCHAIN=auto, which fetches that toolchain from the module
// proxy once when the installed Go is older. Nothing here is compiled.
module github.com/gpufleet/gpufleet/third_party/karpenter

go 1.26.10

require (
	github.com/aws/karpenter-provider-aws v1.15.1
	sigs.k8s.io/karpenter v1.15.0
)
