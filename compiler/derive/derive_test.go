package derive

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

var (
	tolGPU  = corev1.Toleration{Key: keys.TaintGPU, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	tolSpot = corev1.Toleration{Key: keys.TaintSpot, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
)

func gpuClass(capacity string) spec.Class {
	return spec.Class{Priority: "p", Kind: "Deployment", Replicas: 1, Capacity: capacity, Container: "main", Image: "img",
		GPU: &spec.GPU{Count: 1, Products: []string{"H100"}}}
}

func TestClassPlacement(t *testing.T) {
	product := req(keys.LabelGPUProduct, corev1.NodeSelectorOpIn, "H100")
	// Whole-GPU classes stay off time-sliced and MIG nodes.
	noShare := req(keys.LabelDevicePluginConfig, corev1.NodeSelectorOpDoesNotExist)
	// Every layout of the pinned MIG manager config for the catalog's GPUs
	// (catalog.TestMIG lists them).
	noMIG := req(keys.LabelMIGConfig, corev1.NodeSelectorOpNotIn, catalog.AllMIGLayouts()...)
	for _, tc := range []struct {
		name      string
		class     spec.Class
		dedicated []string
		tols      []corev1.Toleration
		required  [][]corev1.NodeSelectorRequirement
		preferred []corev1.PreferredSchedulingTerm
	}{
		{
			name:     "on-demand GPU",
			class:    gpuClass(spec.OnDemand),
			tols:     []corev1.Toleration{tolGPU},
			required: [][]corev1.NodeSelectorRequirement{{product, noShare, noMIG, req(keys.LabelCapacity, corev1.NodeSelectorOpIn, "on-demand")}},
		},
		{
			name:     "spot only",
			class:    gpuClass(spec.Spot),
			tols:     []corev1.Toleration{tolGPU, tolSpot},
			required: [][]corev1.NodeSelectorRequirement{{product, noShare, noMIG, req(keys.LabelCapacity, corev1.NodeSelectorOpIn, "spot")}},
		},
		{
			name:      "prefer spot",
			class:     gpuClass(spec.PreferSpot),
			tols:      []corev1.Toleration{tolGPU, tolSpot},
			required:  [][]corev1.NodeSelectorRequirement{{product, noShare, noMIG}},
			preferred: []corev1.PreferredSchedulingTerm{{Weight: 100, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{req(keys.LabelCapacity, corev1.NodeSelectorOpIn, "spot")}}}},
		},
		{
			name:     "any capacity",
			class:    gpuClass(spec.AnyCap),
			tols:     []corev1.Toleration{tolGPU, tolSpot},
			required: [][]corev1.NodeSelectorRequirement{{product, noShare, noMIG}},
		},
		{
			name: "minimum GPU memory is Gt one less",
			class: func() spec.Class {
				c := gpuClass(spec.AnyCap)
				c.GPU.MinMemoryGiB = 40
				return c
			}(),
			tols:     []corev1.Toleration{tolGPU, tolSpot},
			required: [][]corev1.NodeSelectorRequirement{{product, req(keys.LabelGPUMemory, corev1.NodeSelectorOpGt, "39"), noShare, noMIG}},
		},
		{
			name: "user terms are each ANDed with the derived policy",
			class: func() spec.Class {
				c := gpuClass(spec.AnyCap)
				c.Affinity.Required = []spec.NodeSelectorTerm{
					{MatchExpressions: []spec.Requirement{{Key: "a", Operator: "Exists"}}},
					{MatchExpressions: []spec.Requirement{{Key: "b", Operator: "Gt", Values: []string{"3"}}}},
				}
				return c
			}(),
			tols: []corev1.Toleration{tolGPU, tolSpot},
			required: [][]corev1.NodeSelectorRequirement{
				{product, noShare, noMIG, req("a", corev1.NodeSelectorOpExists)},
				{product, noShare, noMIG, req("b", corev1.NodeSelectorOpGt, "3")},
			},
		},
		{
			name: "shared GPUs: only time-sliced or MPS nodes",
			class: func() spec.Class {
				c := gpuClass(spec.OnDemand)
				c.GPU.Shared = true
				return c
			}(),
			tols: []corev1.Toleration{tolGPU},
			required: [][]corev1.NodeSelectorRequirement{{product, req(keys.LabelDevicePluginConfig, corev1.NodeSelectorOpExists),
				req(keys.LabelCapacity, corev1.NodeSelectorOpIn, "on-demand")}},
		},
		{
			name: "MIG slice: layouts offering the profile, GPU toleration kept",
			class: func() spec.Class {
				c := gpuClass(spec.Spot)
				c.GPU.MIG = "1g.10gb"
				return c
			}(),
			tols: []corev1.Toleration{tolGPU, tolSpot},
			required: [][]corev1.NodeSelectorRequirement{{product, req(keys.LabelMIGConfig, corev1.NodeSelectorOpIn, "all-1g.10gb", "all-balanced"),
				req(keys.LabelCapacity, corev1.NodeSelectorOpIn, "spot")}},
		},
		{
			name:      "dedicated pool: Equal toleration, preferred pool",
			class:     spec.Class{Capacity: spec.AnyCap},
			dedicated: []string{"h100-train"},
			tols:      []corev1.Toleration{tolSpot, {Key: keys.TaintDedicated, Operator: corev1.TolerationOpEqual, Value: "h100-train", Effect: corev1.TaintEffectNoSchedule}},
			preferred: []corev1.PreferredSchedulingTerm{{Weight: 50, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{req(keys.LabelPool, corev1.NodeSelectorOpIn, "h100-train")}}}},
		},
		{
			name:     "CPU only: no GPU toleration",
			class:    spec.Class{Capacity: spec.OnDemand},
			required: [][]corev1.NodeSelectorRequirement{{req(keys.LabelCapacity, corev1.NodeSelectorOpIn, "on-demand")}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := deriveClass("c", tc.class, tc.dedicated, aws.Cloud{})
			ps := c.Template.Spec
			if diff := cmp.Diff(tc.tols, ps.Tolerations); diff != "" {
				t.Errorf("tolerations (-want +got):\n%s", diff)
			}
			var gotReq [][]corev1.NodeSelectorRequirement
			var gotPref []corev1.PreferredSchedulingTerm
			if a := ps.Affinity; a != nil && a.NodeAffinity != nil {
				if r := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
					for _, term := range r.NodeSelectorTerms {
						gotReq = append(gotReq, term.MatchExpressions)
					}
				}
				gotPref = a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution
			}
			if diff := cmp.Diff(tc.required, gotReq); diff != "" {
				t.Errorf("required node affinity (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.preferred, gotPref); diff != "" {
				t.Errorf("preferred node affinity (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSpreadAndAntiAffinity(t *testing.T) {
	c := gpuClass(spec.OnDemand)
	c.Spread = &spec.Spread{Zones: spec.Required, Hosts: spec.Preferred, MaxSkew: 2}
	c.AntiAffinity = spec.Required
	ps := deriveClass("c", c, nil, aws.Cloud{}).Template.Spec
	got := map[string]corev1.UnsatisfiableConstraintAction{}
	for _, tsc := range ps.TopologySpreadConstraints {
		got[tsc.TopologyKey] = tsc.WhenUnsatisfiable
		if tsc.MaxSkew != 2 || tsc.LabelSelector.MatchLabels[keys.LabelClass] != "c" {
			t.Errorf("constraint %+v: want maxSkew 2 selecting the class's pods", tsc)
		}
	}
	want := map[string]corev1.UnsatisfiableConstraintAction{keys.LabelZone: corev1.DoNotSchedule, keys.LabelHostname: corev1.ScheduleAnyway}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spread (-want +got):\n%s", diff)
	}
	anti := ps.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	if len(anti) != 1 || anti[0].TopologyKey != keys.LabelHostname || anti[0].LabelSelector.MatchLabels[keys.LabelClass] != "c" {
		t.Errorf("required anti-affinity = %+v, want one hostname term on the class label", anti)
	}
}

func TestGraceAndResources(t *testing.T) {
	secs := int64(300)
	for _, tc := range []struct {
		name  string
		class spec.Class
		want  *int64
	}{
		{"on-demand Job keeps the default", spec.Class{Kind: "Job", Capacity: spec.OnDemand}, nil},
		{"spot Job gets the spot notice", spec.Class{Kind: "Job", Capacity: spec.Spot}, ptr(int64(aws.SpotNoticeSeconds))},
		{"explicit checkpoint wins", spec.Class{Kind: "Job", Capacity: spec.Spot, CheckpointSecs: &secs}, &secs},
		{"Deployment on spot keeps the default", spec.Class{Kind: "Deployment", Capacity: spec.Spot}, nil},
	} {
		got := deriveClass("c", tc.class, nil, aws.Cloud{}).Template.Spec.TerminationGracePeriodSeconds
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: grace (-want +got):\n%s", tc.name, diff)
		}
	}
	c := gpuClass(spec.OnDemand)
	c.GPU.Count = 4
	ctr := deriveClass("c", c, nil, aws.Cloud{}).Template.Spec.Containers[0]
	r, l := ctr.Resources.Requests[keys.ResourceGPU], ctr.Resources.Limits[keys.ResourceGPU]
	if r.Value() != 4 || l.Value() != 4 {
		t.Errorf("GPU request %s limit %s, want 4 and 4", r.String(), l.String())
	}
}

func ptr[T any](v T) *T { return &v }

func TestPools(t *testing.T) {
	cat := aws.Catalog(nil)
	zones := []string{"a", "b"}
	gpuSpot := derivePool("g", spec.Pool{InstanceTypes: []string{"p4d.24xlarge", "p4de.24xlarge"}, Capacity: spec.Spot, DedicatedTo: []string{"x"}}, zones, aws.Cloud{}, cat)
	wantTaints := []corev1.Taint{
		{Key: keys.TaintGPU, Value: "true", Effect: corev1.TaintEffectNoSchedule},
		{Key: keys.TaintSpot, Value: "true", Effect: corev1.TaintEffectNoSchedule},
		{Key: keys.TaintDedicated, Value: "g", Effect: corev1.TaintEffectNoSchedule},
	}
	if diff := cmp.Diff(wantTaints, gpuSpot.Taints); diff != "" {
		t.Errorf("taints (-want +got):\n%s", diff)
	}
	wantLabels := map[string]string{keys.LabelPool: "g", keys.LabelCapacity: "spot", keys.LabelGPUProduct: "A100", keys.LabelGPUMemory: "40", keys.LabelGPUCount: "8", keys.LabelDedicated: "g"}
	if diff := cmp.Diff(wantLabels, gpuSpot.Labels); diff != "" {
		t.Errorf("labels (-want +got): the memory label must be the smallest:\n%s", diff)
	}
	if diff := cmp.Diff(zones, gpuSpot.Zones); diff != "" {
		t.Errorf("zones default to the cluster's (-want +got):\n%s", diff)
	}
	mixed := derivePool("m", spec.Pool{InstanceTypes: []string{"g5.xlarge", "g5.12xlarge"}, Capacity: spec.OnDemand}, zones, aws.Cloud{}, cat)
	if _, ok := mixed.Labels[keys.LabelGPUCount]; ok {
		t.Errorf("a pool whose types differ in GPU count must not claim one: %v", mixed.Labels)
	}
	cpu := derivePool("c", spec.Pool{InstanceTypes: []string{"m7i.large"}, Capacity: spec.OnDemand}, zones, aws.Cloud{}, cat)
	if len(cpu.Taints) != 0 || cpu.GPU != nil {
		t.Errorf("an on-demand CPU pool needs no taints: %v", cpu.Taints)
	}
}

func TestTenantQuotaIncludesBorrowing(t *testing.T) {
	gpu, more := int64(8), int64(4)
	tn := deriveTenant("t", spec.Tenant{
		Classes: []string{"a", "b"},
		Quota:   &spec.Quota{GPU: &gpu, CPU: "10"},
		Borrow:  &spec.Quota{GPU: &more, CPU: "500m"},
	}, map[string]spec.Class{"a": {GPU: &spec.GPU{Count: 2}}, "b": {GPU: &spec.GPU{Count: 8}}})
	want := corev1.ResourceList{QuotaGPU: resource.MustParse("12"), QuotaCPU: resource.MustParse("10500m")}
	for k, v := range want {
		got := tn.Hard[k]
		if got.Cmp(v) != 0 {
			t.Errorf("%s = %s, want %s", k, got.String(), v.String())
		}
	}
	if tn.MaxGPUPerPod != 8 {
		t.Errorf("MaxGPUPerPod = %d, want 8", tn.MaxGPUPerPod)
	}
}

// TestGPURequests: a MIG class asks for slices, not GPUs, with requests
// equal to limits; a shared class asks for nvidia.com/gpu as usual.
func TestGPURequests(t *testing.T) {
	for _, tc := range []struct {
		name string
		gpu  spec.GPU
		want corev1.ResourceName
	}{
		{"whole", spec.GPU{Count: 2}, keys.ResourceGPU},
		{"shared", spec.GPU{Count: 2, Shared: true}, keys.ResourceGPU},
		{"mig", spec.GPU{Count: 2, MIG: "3g.40gb"}, "nvidia.com/mig-3g.40gb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := gpuClass(spec.OnDemand)
			c.GPU = &tc.gpu
			rr := deriveClass("c", c, nil, aws.Cloud{}).Template.Spec.Containers[0].Resources
			two := resource.MustParse("2")
			for _, rl := range []corev1.ResourceList{rr.Requests, rr.Limits} {
				if len(rl) != 1 || rl.Name(tc.want, resource.DecimalSI).Cmp(two) != 0 {
					t.Errorf("got %v, want only %s: 2", rl, tc.want)
				}
			}
		})
	}
}

// TestPoolSharing: sharing and MIG become the labels the device plugin and
// MIG manager read, and Units counts what they advertise.
func TestPoolSharing(t *testing.T) {
	cat := aws.Catalog(nil)
	zones := []string{"us-east-1a"}
	ts := derivePool("ts", spec.Pool{InstanceTypes: []string{"g6.12xlarge"}, Capacity: spec.OnDemand, Size: spec.Size{Max: 3},
		Sharing: &spec.Sharing{Strategy: "time-slicing", Replicas: 4}}, zones, aws.Cloud{}, cat)
	mig := derivePool("mig", spec.Pool{InstanceTypes: []string{"p4de.24xlarge"}, Capacity: spec.OnDemand, Size: spec.Size{Max: 2},
		MIG: "all-2g.20gb"}, zones, aws.Cloud{}, cat)
	if got := ts.Labels[keys.LabelDevicePluginConfig]; got != "time-slicing-4" {
		t.Errorf("time-sliced pool's %s = %q", keys.LabelDevicePluginConfig, got)
	}
	if got := mig.Labels[keys.LabelMIGConfig]; got != "all-2g.20gb" {
		t.Errorf("MIG pool's %s = %q", keys.LabelMIGConfig, got)
	}
	if _, ok := mig.Labels[keys.LabelDevicePluginConfig]; ok {
		t.Error("MIG pool has a device plugin sharing label")
	}
	one := resource.MustParse("1")
	for _, tc := range []struct {
		pool *Pool
		r    corev1.ResourceName
		want int64
	}{
		{&ts, keys.ResourceGPU, 4 * 4 * 3},
		{&mig, keys.ResourceGPU, 0},
		{&mig, "nvidia.com/mig-2g.20gb", 8 * 3 * 2},
		{&mig, "nvidia.com/mig-1g.10gb", 0},
	} {
		if got := tc.pool.Units(tc.r, one); got != tc.want {
			t.Errorf("%s: Units(%s) = %d, want %d", tc.pool.Name, tc.r, got, tc.want)
		}
	}
}
