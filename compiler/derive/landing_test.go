package derive

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// TestLandingMemo holds landing's memos to what they memoise, asked in an
// order where a wrong key answers wrong: tenants whose defaults differ
// share classes that name no CPU, so a request memoised by class alone
// gives the second tenant the first's default; pools differ, and so do a
// pool's units of each resource, so units memoised by pool or resource
// alone are wrong too.
func TestLandingMemo(t *testing.T) {
	one := int32(1)
	f := &spec.Fleet{
		Cluster:    spec.Cluster{Zones: []string{"us-east-1a"}},
		Priorities: map[string]spec.Priority{"batch": {Value: 100}},
		Pools: map[string]spec.Pool{
			"cpu": {InstanceTypes: []string{"m7i.2xlarge"}, Capacity: spec.OnDemand, Size: spec.Size{Max: 100}},
			"gpu": {InstanceTypes: []string{"g5.12xlarge"}, Capacity: spec.OnDemand, Size: spec.Size{Max: 3}},
		},
		Classes: map[string]spec.Class{
			"small": {Priority: "batch", Kind: keys.KindJob, Gang: &one, Capacity: spec.OnDemand, Container: "main", Image: "img",
				Resources: spec.Resources{Memory: "1Gi"}},
			"large": {Priority: "batch", Kind: keys.KindJob, Gang: &one, Capacity: spec.OnDemand, Container: "main", Image: "img",
				Resources: spec.Resources{Memory: "8Gi"}},
		},
		Tenants: map[string]spec.Tenant{
			"a": {Namespaces: []string{"a"}, Classes: []string{"small", "large"}, Defaults: spec.Resources{CPU: "100m", Memory: "256Mi"}},
			"b": {Namespaces: []string{"b"}, Classes: []string{"small", "large"}, Defaults: spec.Resources{CPU: "700m", Memory: "256Mi"}},
			"c": {Namespaces: []string{"c"}, Classes: []string{"small", "large"}},
		},
	}
	d := Derive(f, aws.Cloud{}, aws.Catalog(nil))
	l := newLanding(d, func(string) []string { return nil })
	cpus := map[string]bool{}
	for _, tn := range d.Tenants {
		for _, name := range tn.Spec.Classes {
			c := d.Class(name)
			got, want := l.request(tn.Spec, c), admittedRequest(tn.Spec, c.Template.Spec)
			if !equality.Semantic.DeepEqual(got, want) {
				t.Errorf("tenant %s, class %s: memoised request %v, want %v", tn.Name, name, got, want)
			}
			cpu := want[corev1.ResourceCPU]
			cpus[cpu.String()] = true
		}
	}
	units := map[int64]bool{}
	for _, p := range d.Pools {
		for _, r := range append([]corev1.ResourceName{aws.ResourceEFA}, CoveredResources...) {
			got, want := l.unitsOf(p.Name, r), p.Units(r, unitOf(r))
			if got != want {
				t.Errorf("pool %s: memoised units of %s %d, want %d", p.Name, r, got, want)
			}
			units[want] = true
		}
	}
	if len(cpus) < 3 || len(units) < 5 {
		t.Fatalf("the fleet no longer tells a wrong key apart: CPU requests %v, units %v", cpus, units)
	}
}
