// Package eks is the provisioner of EKS managed node groups: pools whose
// provisioner is "managed" or "both" get a node group in an eksctl
// ClusterConfig and in terraform-aws-modules/eks input, and the checker's
// nodes are read back from the eksctl file.
package eks

import (
	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/encode"
)

// Provisioner provisions EKS managed node groups.
type Provisioner struct{}

// Name implements nodegroup.Provisioner.
func (Provisioner) Name() string { return "EKS managed node groups" }

// Render writes eksctl's and Terraform's files; neither is applied by a
// GitOps controller (eksctl and Terraform apply them).
func (Provisioner) Render(d *derive.Fleet, out *encode.Batch) []string {
	eksctlConfig(d, out)
	terraformVars(d, out)
	return nil
}
