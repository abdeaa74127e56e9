package derive

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// TestSplitReservesAdmittedRequests: a flavor's share of the tenant's quota
// holds the whole gang as Kueue counts it, after the namespace's LimitRange
// has given every container naming no CPU or memory the tenant's default
// (LimitRanger; workload.AdjustResources). A sidecar adds its request to
// the pod's, an ordinary init container only raises it to its own
// (resourcehelper.PodRequests). The quota is tight: the gang's pool gets
// only its reserve, and what a short reserve leaves goes to the other.
func TestSplitReservesAdmittedRequests(t *testing.T) {
	always := "Always"
	for _, tc := range []struct {
		name     string
		main     spec.Resources
		init     spec.InitContainer
		defaults spec.Resources
		// The gang's three pods as Kueue counts them.
		cpu, memory string
	}{
		{
			name:     "sidecar naming no memory gets the default",
			main:     spec.Resources{CPU: "1", Memory: "2Gi"},
			init:     spec.InitContainer{CPU: "100m", RestartPolicy: always},
			defaults: spec.Resources{CPU: "100m", Memory: "256Mi"},
			cpu:      "3300m", memory: "6912Mi", // 3 × (2Gi + 256Mi)
		},
		{
			name:     "main container naming no CPU gets the default",
			main:     spec.Resources{Memory: "2Gi"},
			init:     spec.InitContainer{CPU: "100m", Memory: "256Mi", RestartPolicy: always},
			defaults: spec.Resources{CPU: "500m", Memory: "256Mi"},
			cpu:      "1800m", memory: "6912Mi", // 3 × (500m + 100m)
		},
		{
			name:     "sidecar naming neither gets both defaults",
			main:     spec.Resources{CPU: "1", Memory: "2Gi"},
			init:     spec.InitContainer{RestartPolicy: always},
			defaults: spec.Resources{CPU: "400m", Memory: "1536Mi"},
			cpu:      "4200m", memory: "10752Mi", // 3 × (1400m, 3.5Gi)
		},
		{
			name:     "ordinary init container: the larger, not the sum",
			main:     spec.Resources{CPU: "1", Memory: "2Gi"},
			init:     spec.InitContainer{CPU: "100m"},
			defaults: spec.Resources{CPU: "100m", Memory: "256Mi"},
			cpu:      "3", memory: "6Gi",
		},
		{
			name:     "sidecar naming its memory",
			main:     spec.Resources{CPU: "1", Memory: "2Gi"},
			init:     spec.InitContainer{CPU: "100m", Memory: "512Mi", RestartPolicy: always},
			defaults: spec.Resources{CPU: "100m", Memory: "256Mi"},
			cpu:      "3300m", memory: "7680Mi",
		},
		{
			name: "no defaults: what names none counts none",
			main: spec.Resources{CPU: "1", Memory: "2Gi"},
			init: spec.InitContainer{CPU: "100m", RestartPolicy: always},
			cpu:  "3300m", memory: "6Gi",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gang, one := int32(3), int32(1)
			init := tc.init
			init.Name, init.Image = "init", "busybox"
			want := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(tc.cpu), corev1.ResourceMemory: resource.MustParse(tc.memory)}
			// The other class's pool, first in flavor order and far
			// larger, takes what is left over.
			cpu := ceilUnits(want[corev1.ResourceCPU], unitOf(corev1.ResourceCPU)) + 1
			mem := ceilUnits(want[corev1.ResourceMemory], unitOf(corev1.ResourceMemory)) + 1
			f := &spec.Fleet{
				Cluster:    spec.Cluster{Zones: []string{"us-east-1a"}},
				Priorities: map[string]spec.Priority{"batch": {Value: 100}},
				Pools: map[string]spec.Pool{
					"a-big":   {InstanceTypes: []string{"m7i.2xlarge"}, Capacity: spec.OnDemand, Size: spec.Size{Max: 100}},
					"b-small": {InstanceTypes: []string{"m7i.2xlarge"}, Capacity: spec.OnDemand, Size: spec.Size{Max: 3}},
				},
				Classes: map[string]spec.Class{
					"big": {Priority: "batch", Kind: keys.KindJob, Gang: &one, Capacity: spec.OnDemand, Container: "main", Image: "img",
						Resources: spec.Resources{CPU: "1", Memory: "1Gi"}},
					"gang": {Priority: "batch", Kind: keys.KindJob, Gang: &gang, Capacity: spec.OnDemand, Container: "main", Image: "img",
						Resources: tc.main, InitContainers: []spec.InitContainer{init}},
				},
				Tenants: map[string]spec.Tenant{"t": {
					Namespaces: []string{"t"}, Classes: []string{"big", "gang"}, Defaults: tc.defaults,
					Quota: &spec.Quota{CPU: spec.Quantity(resource.NewQuantity(cpu, resource.DecimalSI).String()),
						Memory: spec.Quantity(resource.NewQuantity(mem<<30, resource.BinarySI).String())},
				}},
			}
			d := Derive(f, aws.Cloud{}, aws.Catalog(nil))
			home := map[string]string{"big": "a-big", "gang": "b-small"}
			q := Queues(d, func(class string) []string { return []string{home[class]} })[0]
			if len(q.Flavors) != 2 || q.Flavors[1] != "b-small" {
				t.Fatalf("flavors %v, want [a-big b-small]", q.Flavors)
			}
			for r, w := range want {
				if got := q.Nominal["b-small"][r]; got.Cmp(w) < 0 {
					t.Errorf("b-small's nominal %s = %s, less than the gang's %s: Kueue admits it nowhere", r, got.String(), w.String())
				}
			}
		})
	}
}
