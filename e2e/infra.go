package e2e

import (
	"fmt"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/nodegroup/eks"
	"github.com/gpufleet/gpufleet/compiler/nodegroup/karpenter"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// The e2e's nodes come from the infrastructure files in the tree, read
// here as eksctl and Karpenter read them, by code that shares nothing with
// the checker's own reading (compiler/nodegroup's NodeGroups and
// readback.FromTree): a mistake there shows as a pod the checker placed and
// the scheduler did not, or the other way round.

// infraPool is one node group as its infrastructure file declares it.
type infraPool struct {
	name      string
	karpenter bool // a Karpenter NodePool; else an EKS managed node group
	// prefix starts the names of the group's nodes: the pool's name, and
	// for the NodePool of a "both" pool, which has a managed group too,
	// <pool>-karpenter.
	prefix string
	types  []string
	// listed are a NodePool's types before those Karpenter has no price
	// for are taken out (karpenterMutant offers them).
	listed []string
	zones  []string
	max    int
	// min is what the group stands at with no pod pending: a managed
	// node group's minSize (cluster-autoscaler scales idle nodes down to
	// it); a NodePool's is 0, Karpenter launching only for pending pods.
	min    int
	labels map[string]string
	taints []corev1.Taint
	// tags are a managed node group's Auto Scaling group tags, whose
	// node-template tags cluster-autoscaler builds its template from.
	tags map[string]string
	spot bool
	efa  bool
	// hostPlugin pools run Bottlerocket, whose host runs the device plugin.
	hostPlugin bool
}

// eksctlFile is the part of eksctl's ClusterConfig a node takes.
type eksctlFile struct {
	Metadata struct {
		Region string `json:"region"`
	} `json:"metadata"`
	ManagedNodeGroups []struct {
		Name              string            `json:"name"`
		AMIFamily         string            `json:"amiFamily"`
		AvailabilityZones []string          `json:"availabilityZones"`
		InstanceType      string            `json:"instanceType"`
		InstanceTypes     []string          `json:"instanceTypes"`
		Labels            map[string]string `json:"labels"`
		Tags              map[string]string `json:"tags"`
		Taints            []corev1.Taint    `json:"taints"`
		MaxSize           *int              `json:"maxSize"`
		MinSize           *int              `json:"minSize"`
		Spot              bool              `json:"spot"`
		EFAEnabled        bool              `json:"efaEnabled"`
	} `json:"managedNodeGroups"`
}

// karpenterDoc is the part of a NodePool or EC2NodeClass a node takes.
type karpenterDoc struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		AMISelectorTerms []struct {
			Alias string `json:"alias"`
		} `json:"amiSelectorTerms"`
		Template struct {
			Metadata struct {
				Labels map[string]string `json:"labels"`
			} `json:"metadata"`
			Spec struct {
				NodeClassRef struct {
					Name string `json:"name"`
				} `json:"nodeClassRef"`
				Requirements []corev1.NodeSelectorRequirement `json:"requirements"`
				Taints       []corev1.Taint                   `json:"taints"`
			} `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

// readInfra reads the tree's eksctl ClusterConfig and Karpenter NodePools.
// A "both" pool is two groups: the managed node group's baseline and the
// NodePool's share, each at its own max.
func readInfra(t tree.Tree) (region string, pools []*infraPool, err error) {
	var cfg eksctlFile
	if raw, ok := t[eks.EksctlPath]; ok {
		if err := yaml.Unmarshal(raw, &cfg); err != nil {
			return "", nil, fmt.Errorf("%s: %w", eks.EksctlPath, err)
		}
	}
	seen := map[string]bool{}
	for _, ng := range cfg.ManagedNodeGroups {
		types := ng.InstanceTypes
		if ng.InstanceType != "" {
			types = []string{ng.InstanceType}
		}
		if ng.MaxSize == nil || ng.MinSize == nil || len(types) == 0 || len(ng.AvailabilityZones) == 0 {
			return "", nil, fmt.Errorf("%s: node group %s has no maxSize, minSize, instance types or zones", eks.EksctlPath, ng.Name)
		}
		// A pool with zoneGroups has a group per zone, <pool>-<zone>: its
		// nodes carry the pool's label.
		pool := ng.Name
		if l := ng.Labels[keys.LabelPool]; l != "" {
			pool = l
		}
		pools = append(pools, &infraPool{name: pool, prefix: ng.Name, types: types, zones: ng.AvailabilityZones, max: *ng.MaxSize, min: *ng.MinSize,
			labels: ng.Labels, taints: ng.Taints, tags: ng.Tags, spot: ng.Spot, efa: ng.EFAEnabled, hostPlugin: ng.AMIFamily == "Bottlerocket"})
		seen[pool] = true
	}
	docs, err := karpenterDocs(t)
	if err != nil {
		return "", nil, err
	}
	bottlerocket := map[string]bool{}
	for _, d := range docs {
		if d.Kind == "EC2NodeClass" && len(d.Spec.AMISelectorTerms) > 0 {
			bottlerocket[d.Metadata.Name] = strings.HasPrefix(d.Spec.AMISelectorTerms[0].Alias, "bottlerocket@")
		}
	}
	for _, d := range docs {
		if d.Kind != "NodePool" {
			continue
		}
		p, err := nodePool(d, bottlerocket[d.Spec.Template.Spec.NodeClassRef.Name])
		if err != nil {
			return "", nil, err
		}
		// Karpenter never launches a type it has no price for (an offering
		// without one is unavailable): aws.Unpriced, which make
		// test-karpenter holds to Karpenter's own offering resolver. A NodePool
		// left with none launches no nodes (nodes.go), whatever its max.
		p.listed = slices.Clone(p.types)
		p.types = slices.DeleteFunc(p.types, func(it string) bool { return aws.Unpriced(cfg.Metadata.Region, it) })
		if seen[p.name] {
			p.prefix = p.name + "-karpenter"
		}
		pools = append(pools, p)
	}
	sort.Slice(pools, func(i, j int) bool { return pools[i].prefix < pools[j].prefix })
	return cfg.Metadata.Region, pools, nil
}

func karpenterDocs(t tree.Tree) ([]karpenterDoc, error) {
	raw, ok := t[karpenter.Path]
	if !ok {
		return nil, nil
	}
	objs, err := decodeAll(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", karpenter.Path, err)
	}
	docs := make([]karpenterDoc, len(objs))
	for i, o := range objs {
		b, err := yaml.Marshal(o.Object)
		if err == nil {
			err = yaml.Unmarshal(b, &docs[i])
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", karpenter.Path, err)
		}
	}
	return docs, nil
}

// nodePool reads a NodePool as Karpenter launches from it: the node carries
// the template's labels and taints and the value of every requirement
// that allows only one.
func nodePool(d karpenterDoc, bottlerocket bool) (*infraPool, error) {
	name := d.Metadata.Name
	max, err := strconv.Atoi(d.Metadata.Annotations[keys.AnnotationMaxNodes])
	if err != nil {
		return nil, fmt.Errorf("%s: NodePool %s: annotation %s: %w", karpenter.Path, name, keys.AnnotationMaxNodes, err)
	}
	p := &infraPool{name: name, prefix: name, karpenter: true, max: max, labels: map[string]string{}, taints: d.Spec.Template.Spec.Taints, hostPlugin: bottlerocket}
	for k, v := range d.Spec.Template.Metadata.Labels {
		p.labels[k] = v
	}
	for _, r := range d.Spec.Template.Spec.Requirements {
		if r.Operator != corev1.NodeSelectorOpIn {
			continue
		}
		switch r.Key {
		case keys.LabelInstanceType:
			p.types = r.Values
		case keys.LabelZone:
			p.zones = r.Values
		case karpenterCapacityType:
			p.spot = len(r.Values) == 1 && r.Values[0] == "spot"
		}
		if len(r.Values) == 1 {
			p.labels[r.Key] = r.Values[0]
		}
	}
	if len(p.types) == 0 || len(p.zones) == 0 {
		return nil, fmt.Errorf("%s: NodePool %s names no instance types or zones", karpenter.Path, name)
	}
	return p, nil
}

const karpenterCapacityType = "karpenter.sh/capacity-type"

// nodesInZone balances max over the zones as the auto scaling group does,
// the remainder to the first zones listed.
func (p *infraPool) nodesInZone(i int) int { return spread(p.max, len(p.zones), i) }

// standingInZone is min balanced the same way: the group's nodes that
// stand in zone i, the first of those nodesInZone counts.
func (p *infraPool) standingInZone(i int) int { return spread(p.min, len(p.zones), i) }

func spread(total, zones, i int) int {
	n := total / zones
	if i < total%zones {
		n++
	}
	return n
}

// graviton matches the Arm instance families (m7g, c6gn, g5g …).
var graviton = regexp.MustCompile(`^[a-z]+[0-9]+[a-z]*g[a-z]*\.`)

// wellKnownLabels are the labels the kubelet, the AWS cloud provider, EKS
// or Karpenter put on every node of the pool.
func (p *infraPool) wellKnownLabels(name, typ, zone, region string) map[string]string {
	arch := "amd64"
	if graviton.MatchString(typ) {
		arch = "arm64"
	}
	l := map[string]string{
		keys.LabelHostname: name, keys.LabelOS: "linux", "kubernetes.io/arch": arch,
		keys.LabelInstanceType: typ, keys.LabelZone: zone, "topology.kubernetes.io/region": region,
	}
	capacity := map[bool]string{false: "on-demand", true: "spot"}[p.spot]
	if p.karpenter {
		l["karpenter.sh/nodepool"], l[karpenterCapacityType] = p.name, capacity
		l["karpenter.sh/registered"], l["karpenter.sh/initialized"] = "true", "true"
	} else {
		l["eks.amazonaws.com/nodegroup"] = p.name
		l["eks.amazonaws.com/capacityType"] = strings.ToUpper(strings.ReplaceAll(capacity, "-", "_"))
	}
	return l
}

// poolNames lists the pools the groups launch, once each: a "both" pool
// has two groups.
func poolNames(pools []*infraPool) string {
	var names []string
	for _, p := range pools {
		names = append(names, p.name)
	}
	sort.Strings(names)
	return strings.Join(slices.Compact(names), " ")
}

func checkerPools(cl *sched.Cluster) string {
	names := make([]string, len(cl.Pools))
	for i, p := range cl.Pools {
		names[i] = p.Name
	}
	sort.Strings(names)
	return strings.Join(names, " ")
}

// standingDiff says which pools' groups stand at other than the nodes the
// checker says stand (sched.Pool.Standing, which Kueue's topology-aware
// scheduling places on), or "".
func standingDiff(groups []*infraPool, cl *sched.Cluster) string {
	total := map[string]int{}
	for _, g := range groups {
		total[g.name] += g.min
	}
	var diffs []string
	for _, p := range cl.Pools {
		if total[p.Name] != int(p.Standing) {
			diffs = append(diffs, fmt.Sprintf("%s: %d nodes stand, the checker says %d", p.Name, total[p.Name], p.Standing))
		}
	}
	return strings.Join(diffs, "; ")
}

// overMax says which pools' groups together launch other than the spec's
// max size, or "": a "both" pool's managed node group and NodePool each
// scale on their own, so only their maxes added bound the pool.
func overMax(groups []*infraPool, pools map[string]spec.Pool) string {
	total := map[string]int{}
	for _, g := range groups {
		total[g.name] += g.max
	}
	var diffs []string
	for _, name := range spec.Keys(pools) {
		if want := int(pools[name].Size.Max); total[name] != want {
			diffs = append(diffs, fmt.Sprintf("%s: %d nodes at most, spec max %d", name, total[name], want))
		}
	}
	return strings.Join(diffs, "; ")
}
