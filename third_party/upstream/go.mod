// Pins of the upstream releases whose published files (CRDs, JSON Schemas)
// the tests and the end-to-end run check gpufleet's output against. Nothing
// is compiled in this module: internal/upstream resolves each module's
// directory with `go mod download -json`, verified against this go.sum, and
// scripts/upstream-overlay.sh copies the NVIDIA device plugin and nodeadm
// (the EKS AL2023 AMI's node agent, at a commit: it has no releases) for the
// differentials that run inside them (ladder/device-plugin, ladder/nodeadm).
module github.com/gpufleet/gpufleet/third_party/upstream

go 1.26.0

require (
	github.com/NVIDIA/k8s-device-plugin v0.18.0
	github.com/argoproj/argo-cd/v3 v3.2.0
	github.com/aws/amazon-vpc-cni-k8s v1.20.4
	github.com/awslabs/amazon-eks-ami/nodeadm v0.0.0-20260213141146-147b13ea3f4a
	github.com/eksctl-io/eksctl v0.230.0
	github.com/fluxcd/helm-controller v1.4.0
	github.com/fluxcd/source-controller v1.7.0
	github.com/kubeflow/trainer/v2 v2.2.1
	github.com/kubeflow/training-operator v1.9.3
	github.com/ray-project/kuberay/ray-operator v1.6.2
	sigs.k8s.io/dra-driver-nvidia-gpu v0.4.1
	sigs.k8s.io/jobset v0.12.0
	sigs.k8s.io/kueue v0.19.2
	sigs.k8s.io/lws v0.9.0
)
