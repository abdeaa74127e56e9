// Package nodegroup is the seam for node-group outputs. A provisioner
// writes the files that launch a fleet's pools (eksctl and Terraform for
// EKS managed node groups, Karpenter's NodePools, later GKE or AKS node
// pools) and reads them back as the nodes the checker places pods on, so
// what is proved is what the provisioner receives. Adding one is a package
// under nodegroup/ and a line in All. The cloud's other facts are
// compiler/cloud's.
package nodegroup

import (
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/encode"
	"github.com/gpufleet/gpufleet/compiler/nodegroup/eks"
	"github.com/gpufleet/gpufleet/compiler/nodegroup/karpenter"
	"github.com/gpufleet/gpufleet/compiler/nodes"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// Provisioner is one node-group output.
type Provisioner interface {
	// Name names the provisioner in messages.
	Name() string
	// Render lists the provisioner's files for the pools it provisions in
	// out, and returns those a GitOps controller applies (cluster objects,
	// for the root kustomization); files for other tools (eksctl,
	// Terraform) are not applied.
	Render(d *derive.Fleet, out *encode.Batch) (applied []string)
	// The checker's nodes: the provisioner reads its files back from a
	// rendered tree, the nodes each of its pools launches at max size.
	nodes.Source
}

// All are each cloud's provisioners (by cloud.Cloud's Provider), in the order
// their files are rendered and their groups merged: a pool on several
// provisioners is checked as the first one's group, and the others must
// agree with it.
var All = map[string][]Provisioner{
	aws.Cloud{}.Provider(): {eks.Provisioner{}, karpenter.Provisioner{}},
}

// NodeGroups reads the node groups of every provisioner back from t and
// merges them (nodes.Merge). A tree does not say which cloud made it; a
// provisioner whose files are absent reads no groups.
func NodeGroups(t tree.Typed) ([]nodes.Group, error) {
	var all [][]nodes.Group
	for _, cloud := range spec.Keys(All) {
		for _, p := range All[cloud] {
			groups, err := p.NodeGroups(t)
			if err != nil {
				return nil, err
			}
			all = append(all, groups)
		}
	}
	return nodes.Merge(all...)
}
