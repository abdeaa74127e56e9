// Package karpenter is the provisioner of Karpenter NodePools: pools whose
// provisioner is "karpenter" or "both" get a NodePool and an EC2NodeClass,
// and the checker's nodes are read back from the NodePools.
package karpenter

import (
	"strings"

	"fmt"
	"regexp"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/nodes"
	"github.com/gpufleet/gpufleet/compiler/tree"
	wire "github.com/gpufleet/gpufleet/compiler/wire/karpenter"
)

// Path holds the NodePools and EC2NodeClasses of Karpenter pools.
const Path = "nodegroups/karpenter.yaml"

// Provisioner provisions Karpenter NodePools.
type Provisioner struct{}

// Name implements nodegroup.Provisioner.
func (Provisioner) Name() string { return "Karpenter" }

// NodeGroups reads the NodePools back (the file is absent when no pool uses
// Karpenter). Nodes get the labels Karpenter sets from single-valued
// requirements and its own; the pool's max size is our annotation, since
// Karpenter bounds a pool by resources alone.
func (Provisioner) NodeGroups(t tree.Typed) ([]nodes.Group, error) {
	groups, err := nodePools(t)
	if err != nil {
		return nil, fmt.Errorf("check: %s: %w", Path, err)
	}
	return groups, nil
}

func nodePools(tr tree.Typed) ([]nodes.Group, error) {
	var groups []nodes.Group
	var classes []wire.EC2NodeClass
	var pools []wire.NodePool
	if err := tree.DecodeKind(tr, Path, "EC2NodeClass", &classes); err != nil {
		return nil, err
	}
	if err := tree.DecodeKind(tr, Path, "NodePool", &pools); err != nil {
		return nil, err
	}
	noDRA, err := draLaunch(tr)
	if err != nil {
		return nil, err
	}
	// Bottlerocket's NVIDIA variants run the device plugin on the host.
	bottlerocket, image := map[string]bool{}, map[string]string{}
	for _, nc := range classes {
		for _, t := range nc.Spec.AMISelectorTerms {
			if strings.HasPrefix(t.Alias, "bottlerocket@") {
				bottlerocket[nc.Name] = true
			}
			if family, _, ok := strings.Cut(t.Alias, "@"); ok {
				image[nc.Name] = family
			}
		}
	}
	terms := map[string][]wire.CapacityReservationSelectorTerm{}
	for _, nc := range classes {
		terms[nc.Name] = nc.Spec.CapacityReservationSelectorTerms
	}
	for _, np := range pools {
		var capacities []string
		g := nodes.Group{
			Pool: np.Name, Names: []string{np.Name}, Source: Path, Taints: np.Spec.Template.Spec.Taints,
			Labels:           map[string]string{},
			OwnLabels:        map[string]string{wire.LabelKarpenterNodePool: np.Name},
			Image:            image[np.Spec.Template.Spec.NodeClassRef.Name],
			NodeClass:        np.Spec.Template.Spec.NodeClassRef.Name,
			ExpireAfter:      np.Spec.Template.Spec.ExpireAfter,
			HostDevicePlugin: bottlerocket[np.Spec.Template.Spec.NodeClassRef.Name],
			NoKarpenterDRA:   noDRA,
		}
		for k, v := range np.Spec.Template.Metadata.Labels {
			g.Labels[k] = v
		}
		for _, r := range np.Spec.Template.Spec.Requirements {
			if r.Operator != corev1.NodeSelectorOpIn {
				return nil, fmt.Errorf("NodePool %s: requirement on %s: the checker reads only In", np.Name, r.Key)
			}
			switch r.Key {
			case keys.LabelInstanceType:
				g.InstanceTypes = r.Values
			case keys.LabelZone:
				g.Zones = r.Values
			case wire.LabelKarpenterCapacity:
				if err := capacityTypes(&g, r.Values); err != nil {
					return nil, fmt.Errorf("NodePool %s: %s: %w", np.Name, r.Key, err)
				}
				capacities = r.Values
			}
		}
		if g.Reserved, err = reservations(np, capacities, terms[g.NodeClass]); err != nil {
			return nil, fmt.Errorf("NodePool %s: %w", np.Name, err)
		}
		n, err := strconv.ParseInt(np.Annotations[keys.AnnotationMaxNodes], 10, 32)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("NodePool %s: annotation %s: want the pool's max nodes, got %q", np.Name, keys.AnnotationMaxNodes, np.Annotations[keys.AnnotationMaxNodes])
		}
		g.MaxNodes, g.KarpenterNodes = int32(n), int32(n)
		if len(g.InstanceTypes) == 0 || len(g.Zones) == 0 {
			return nil, fmt.Errorf("NodePool %s: needs In requirements on %s and %s", np.Name, keys.LabelInstanceType, keys.LabelZone)
		}
		g.PriceRegion = regionOf.FindString(g.Zones[0])
		groups = append(groups, g)
	}
	return groups, nil
}

// Why Karpenter launches no node for a pod that claims DRA devices, as its
// chart's values set it up. The chart (charts/karpenter/templates/
// _helpers.tpl, karpenter.dra) turns DRANVIDIAGPU on for
// settings.enableDRA or settings.awsFeatureGates.draNVIDIAGPU, and
// IGNORE_DRA_REQUESTS off when a DRA gate is on (else it is
// settings.ignoreDRARequests, default true). With IGNORE_DRA_REQUESTS the
// scheduler refuses such pods (sigs.k8s.io/karpenter scheduling/
// scheduler.go); without DRANVIDIAGPU the AWS cloud provider gives the
// instance types no NVIDIA devices to allocate
// (cloudprovider/dynamicresources.go populateDynamicResources).
// ladder/karpenter renders the real chart with the tree's values and runs
// the scheduler with what it sets.
const (
	draIgnored   = "Karpenter runs with IGNORE_DRA_REQUESTS (its chart's default): \"pod has Dynamic Resource Allocation requirements that are not yet supported by Karpenter\""
	draNoDevices = "Karpenter runs without its DRANVIDIAGPU feature gate, so it knows no NVIDIA DRA devices on any instance type"
)

// draLaunch reads Karpenter's values (absent: the chart's defaults).
func draLaunch(tr tree.Typed) (string, error) {
	var vs []wire.Values
	if _, ok := tr.Tree[wire.ValuesPath]; ok {
		if err := tree.DecodeAll(tr, wire.ValuesPath, &vs, func(n int, f func(int) error) error {
			for i := range n {
				if err := f(i); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return "", fmt.Errorf("check: %s: %w", wire.ValuesPath, err)
		}
	}
	var s wire.Settings
	if len(vs) > 0 {
		s = vs[0].Settings
	}
	yes := func(b *bool) bool { return b != nil && *b }
	gate := yes(s.EnableDRA) || yes(s.AWSFeatureGates.DRANVIDIAGPU)
	switch {
	case !gate && (s.IgnoreDRARequests == nil || *s.IgnoreDRARequests):
		return draIgnored, nil
	case !gate:
		return draNoDevices, nil
	}
	return "", nil
}

// regionOf finds a zone's region (validate holds zones to the cluster's):
// us-east-1 of us-east-1a, us-west-2 of the Local Zone us-west-2-lax-1a.
var regionOf = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+`)
