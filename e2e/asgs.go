package e2e

import (
	"sort"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/e2e/scaleup"
)

// What the restated cluster-autoscaler (e2e/scaleup) is given: the managed
// node groups as the AWS provider reads them, and the pending pods' DRA
// devices as their ResourceClaims request them.

// asgs are the managed node groups as cluster-autoscaler's AWS provider
// sees them: each an Auto Scaling group with the eksctl file's tags and
// the managed group's labels and taints, its nodes and what each
// publishes in ResourceSlices.
func (fr *fleetRun) asgs() []*scaleup.Group {
	devices := map[string]int64{}
	rs, err := fr.cp.Client.ResourceV1().ResourceSlices().List(fr.ctx, metav1.ListOptions{})
	if err != nil {
		fr.t.Fatal(err)
	}
	for _, s := range rs.Items {
		if s.Spec.NodeName != nil {
			devices[*s.Spec.NodeName] += int64(len(s.Spec.Devices))
		}
	}
	var out []*scaleup.Group
	for _, p := range fr.infra {
		if p.karpenter || len(p.types) == 0 {
			continue
		}
		in := fr.res.Catalog[p.types[0]]
		it := scaleup.InstanceType{Name: in.Name, VCPU: in.VCPU, MemoryMiB: int64(in.MemoryGiB * 1024), Architecture: "amd64"}
		if graviton.MatchString(in.Name) {
			it.Architecture = "arm64"
		}
		if in.GPU != nil {
			it.GPU = in.GPU.Count
		}
		g := &scaleup.Group{Name: p.prefix, Zones: p.zones, Type: it, Tags: p.tags, Labels: p.labels, Taints: p.taints,
			Min: p.min, Max: p.max, Devices: map[string]int64{}}
		for _, n := range fr.nodes.nodes {
			if fr.nodes.groupOf[n.Name] == p {
				g.Nodes = append(g.Nodes, n)
				g.Devices[n.Name] = devices[n.Name]
			}
		}
		g.Size = len(g.Nodes)
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (fr *fleetRun) groupNamed(prefix string) *infraPool {
	for _, p := range fr.infra {
		if p.prefix == prefix && !p.karpenter {
			return p
		}
	}
	fr.t.Fatalf("no managed node group %s", prefix)
	return nil
}

// claimDevices is pod name → the devices its ResourceClaims request
// (each request's exact count; a request of all devices or of a list of
// alternatives counted as its first's).
func (fr *fleetRun) claimDevices(ns string) map[string]int64 {
	l, err := fr.cp.Client.ResourceV1().ResourceClaims(ns).List(fr.ctx, metav1.ListOptions{})
	if err != nil {
		fr.t.Fatal(err)
	}
	out := map[string]int64{}
	for _, claim := range l.Items {
		for _, ref := range claim.OwnerReferences {
			if ref.Kind == "Pod" {
				out[ref.Name] += requested(claim.Spec.Devices.Requests)
			}
		}
	}
	return out
}

func requested(reqs []resourcev1.DeviceRequest) int64 {
	var n int64
	for _, r := range reqs {
		switch {
		case r.Exactly != nil && r.Exactly.AllocationMode == resourcev1.DeviceAllocationModeExactCount:
			n += max(r.Exactly.Count, 1)
		case len(r.FirstAvailable) > 0 && r.FirstAvailable[0].AllocationMode == resourcev1.DeviceAllocationModeExactCount:
			n += max(r.FirstAvailable[0].Count, 1)
		default:
			n++
		}
	}
	return n
}
