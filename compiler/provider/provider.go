// Package provider is the seam for node-group outputs. A provider writes
// the files that launch a fleet's pools (eksctl and Terraform for EKS
// managed node groups, Karpenter's NodePools, later GKE or AKS node pools)
// and reads them back as the nodes the checker places pods on, so what is
// proved is what the provisioner receives. Adding one is a package under
// provider/ and a line in All.
package provider

import (
	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/encode"
	"github.com/gpufleet/gpufleet/compiler/nodes"
	"github.com/gpufleet/gpufleet/compiler/provider/eks"
	"github.com/gpufleet/gpufleet/compiler/provider/karpenter"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// Provider is one node-group output.
type Provider interface {
	// Name names the provider in messages.
	Name() string
	// Render lists the provider's files for the pools it provisions in out,
	// and returns those a GitOps controller applies (cluster objects, for
	// the root kustomization); files for other tools (eksctl, Terraform)
	// are not applied.
	Render(d *derive.Fleet, out *encode.Batch) (applied []string)
	// The checker's nodes: the provider reads its files back from a
	// rendered tree, the nodes each of its pools launches at max size.
	nodes.Source
}

// All are the providers, in the order their files are rendered and their
// groups merged: a pool on several provisioners is checked as the first
// one's group, and the others must agree with it.
var All = []Provider{eks.Provider{}, karpenter.Provider{}}

// NodeGroups reads every provider's node groups back from t and merges
// them (nodes.Merge).
func NodeGroups(t tree.Typed) ([]nodes.Group, error) {
	var all [][]nodes.Group
	for _, p := range All {
		groups, err := p.NodeGroups(t)
		if err != nil {
			return nil, err
		}
		all = append(all, groups)
	}
	return nodes.Merge(all...)
}
