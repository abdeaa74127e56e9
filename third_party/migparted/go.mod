// Pin of the NVIDIA GPU Operator, whose default MIG manager config
// (assets/state-mig-manager/0400_configmap.yaml, the ConfigMap
// default-mig-parted-config the operator installs) compiler/catalog embeds
// as compiler/catalog/migparted/config.yaml. The module proxy serves the
// operator only at commits (its v25.x tags lack the /v25 suffix Go
// requires): d73a0086a6ba is the merge of the 25.3.4 version bump. Nothing
// here is compiled: compiler/catalog's test asks internal/upstream for the
// file and requires the embedded copy to be it.
module github.com/gpufleet/gpufleet/third_party/migparted

go 1.26.0

require github.com/NVIDIA/gpu-operator v0.0.0-20250917190837-d73a0086a6ba
