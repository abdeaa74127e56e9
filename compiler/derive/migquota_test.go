package derive

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// TestMIGQuotaSplit: a tenant's GPU quota counts a MIG pool's GPUs as it
// counts whole ones, and its flavor gets that share of each of the pool's
// slices. Slices per GPU are the pinned MIG manager config's
// (compiler/catalog/migparted/config.yaml): all-1g.10gb makes seven
// 1g.10gb of an A100 80GB (p4de, 8 GPUs), all-balanced two 1g.10gb, one
// 2g.20gb and one 3g.40gb of an H100 (p5, 8 GPUs). Before, every tenant
// got the whole pool's slices, whatever its GPU quota: two tenants could
// each be admitted all of them.
func TestMIGQuotaSplit(t *testing.T) {
	gpus := func(n int64) *int64 { return &n }
	// A gang of pods, one slice each: one workload of them all.
	job := func(profile string, pods int32) spec.Class {
		return spec.Class{Priority: "batch", Kind: keys.KindJob, Replicas: pods, Gang: &pods, Capacity: spec.OnDemand,
			Container: "main", Image: "img", GPU: &spec.GPU{Count: 1, MIG: profile}}
	}
	wholeJob := spec.Class{Priority: "batch", Kind: keys.KindJob, Replicas: 1, Capacity: spec.OnDemand,
		Container: "main", Image: "img", GPU: &spec.GPU{Count: 1}}
	for _, tc := range []struct {
		name    string
		pools   map[string]spec.Pool
		classes map[string]spec.Class
		tenants map[string]spec.Tenant
		// want is "tenant/flavor resource=nominal[+borrow]" for each
		// nominal quota the test looks at.
		want []string
	}{
		{
			name:    "two tenants whose GPU quotas sum to the pool hold its slices between them",
			pools:   map[string]spec.Pool{"mig": {InstanceTypes: []string{"p4de.24xlarge"}, Capacity: spec.OnDemand, Size: spec.Size{Max: 1}, MIG: "all-1g.10gb"}},
			classes: map[string]spec.Class{"eval": job("1g.10gb", 1)},
			tenants: map[string]spec.Tenant{
				"a": {Namespaces: []string{"a"}, Classes: []string{"eval"}, Quota: &spec.Quota{GPU: gpus(4)}},
				"b": {Namespaces: []string{"b"}, Classes: []string{"eval"}, Quota: &spec.Quota{GPU: gpus(4)}},
			},
			want: []string{"a/mig nvidia.com/mig-1g.10gb=28", "a/mig nvidia.com/gpu=0", "b/mig nvidia.com/mig-1g.10gb=28"},
		},
		{
			name: "the GPU quota is split over whole and MIG pools alike",
			pools: map[string]spec.Pool{
				"mig":   {InstanceTypes: []string{"p4de.24xlarge"}, Capacity: spec.OnDemand, Size: spec.Size{Max: 1}, MIG: "all-1g.10gb"},
				"whole": {InstanceTypes: []string{"p4de.24xlarge"}, Capacity: spec.OnDemand, Size: spec.Size{Max: 1}},
			},
			classes: map[string]spec.Class{"eval": job("1g.10gb", 1), "train": wholeJob},
			tenants: map[string]spec.Tenant{
				"a": {Namespaces: []string{"a"}, Classes: []string{"eval", "train"}, Quota: &spec.Quota{GPU: gpus(8)}},
			},
			want: []string{"a/mig nvidia.com/mig-1g.10gb=28", "a/mig nvidia.com/gpu=0", "a/whole nvidia.com/gpu=4", "a/whole nvidia.com/mig-1g.10gb=0"},
		},
		{
			name:    "a mixed layout: each profile the tenant asks for, in its share",
			pools:   map[string]spec.Pool{"bal": {InstanceTypes: []string{"p5.48xlarge"}, Capacity: spec.OnDemand, Size: spec.Size{Max: 1}, MIG: "all-balanced"}},
			classes: map[string]spec.Class{"small": job("1g.10gb", 1), "big": job("3g.40gb", 1)},
			tenants: map[string]spec.Tenant{
				"a": {Namespaces: []string{"a"}, Classes: []string{"small", "big"}, Quota: &spec.Quota{GPU: gpus(2)}},
			},
			want: []string{"a/bal nvidia.com/mig-1g.10gb=4", "a/bal nvidia.com/mig-3g.40gb=2"},
		},
		{
			name:    "no GPU quota: the whole pool, as for GPUs",
			pools:   map[string]spec.Pool{"mig": {InstanceTypes: []string{"p4de.24xlarge"}, Capacity: spec.OnDemand, Size: spec.Size{Max: 2}, MIG: "all-1g.10gb"}},
			classes: map[string]spec.Class{"eval": job("1g.10gb", 1)},
			tenants: map[string]spec.Tenant{"a": {Namespaces: []string{"a"}, Classes: []string{"eval"}, Quota: &spec.Quota{CPU: "100"}}},
			want:    []string{"a/mig nvidia.com/mig-1g.10gb=112"},
		},
		{
			name: "the largest workload's GPUs first: 15 slices take 3 GPUs of 7",
			pools: map[string]spec.Pool{
				"mig":   {InstanceTypes: []string{"p4de.24xlarge"}, Capacity: spec.OnDemand, Size: spec.Size{Max: 1}, MIG: "all-1g.10gb"},
				"whole": {InstanceTypes: []string{"p4de.24xlarge"}, Capacity: spec.OnDemand, Size: spec.Size{Max: 9}},
			},
			classes: map[string]spec.Class{"eval": job("1g.10gb", 15), "train": wholeJob},
			tenants: map[string]spec.Tenant{
				"a": {Namespaces: []string{"a"}, Classes: []string{"eval", "train"}, Quota: &spec.Quota{GPU: gpus(4)}},
			},
			want: []string{"a/mig nvidia.com/mig-1g.10gb=21", "a/whole nvidia.com/gpu=1"},
		},
		{
			name:    "poolQuotas: the slices of the GPUs it names",
			pools:   map[string]spec.Pool{"mig": {InstanceTypes: []string{"p4de.24xlarge"}, Capacity: spec.OnDemand, Size: spec.Size{Max: 1}, MIG: "all-1g.10gb"}},
			classes: map[string]spec.Class{"eval": job("1g.10gb", 1)},
			tenants: map[string]spec.Tenant{
				"a": {Namespaces: []string{"a"}, Classes: []string{"eval"}, PoolQuotas: map[string]spec.Quota{"mig": {GPU: gpus(2)}}},
			},
			want: []string{"a/mig nvidia.com/mig-1g.10gb=14"},
		},
		{
			name:    "borrowing: the slices of the GPUs it may borrow, none without",
			pools:   map[string]spec.Pool{"mig": {InstanceTypes: []string{"p4de.24xlarge"}, Capacity: spec.OnDemand, Size: spec.Size{Max: 1}, MIG: "all-1g.10gb"}},
			classes: map[string]spec.Class{"eval": job("1g.10gb", 1)},
			tenants: map[string]spec.Tenant{
				"a": {Namespaces: []string{"a"}, Classes: []string{"eval"}, Cohort: "c", Quota: &spec.Quota{GPU: gpus(4)}, Borrow: &spec.Quota{GPU: gpus(2)}},
				"b": {Namespaces: []string{"b"}, Classes: []string{"eval"}, Cohort: "c", Quota: &spec.Quota{GPU: gpus(4)}, Borrow: &spec.Quota{CPU: "1"}},
			},
			want: []string{"a/mig nvidia.com/mig-1g.10gb=28+14", "b/mig nvidia.com/mig-1g.10gb=28+0"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &spec.Fleet{
				Cluster:    spec.Cluster{Zones: []string{"us-east-1a"}},
				Priorities: map[string]spec.Priority{"batch": {Value: 100}},
				Pools:      tc.pools, Classes: tc.classes, Tenants: tc.tenants,
			}
			if len(tc.tenants) > 0 && tc.tenants[spec.Keys(tc.tenants)[0]].Cohort != "" {
				f.Cohorts = map[string]spec.Cohort{"c": {}}
			}
			d := Derive(f, aws.Cloud{}, aws.Catalog(nil))
			// Each class lands on every pool whose kind of GPU it asks for.
			landsOn := func(class string) []string {
				var out []string
				for name, p := range tc.pools {
					if (p.MIG != "") == (tc.classes[class].GPU.MIG != "") {
						out = append(out, name)
					}
				}
				return out
			}
			queues := Queues(d, landsOn)
			for _, w := range tc.want {
				who, res, _ := strings.Cut(w, " ")
				tenant, flavor, _ := strings.Cut(who, "/")
				r, _, _ := strings.Cut(res, "=")
				var q *Queue
				for i, ten := range d.Tenants {
					if ten.Name == tenant {
						q = queues[i]
					}
				}
				if q == nil {
					t.Fatalf("no queue for tenant %s", tenant)
				}
				nominal := q.Nominal[flavor][corev1.ResourceName(r)]
				got := fmt.Sprintf("%s/%s %s=%s", tenant, flavor, r, nominal.String())
				if strings.Contains(w, "+") {
					b, ok := q.Borrow[flavor][corev1.ResourceName(r)]
					bs := "none"
					if ok {
						bs = b.String()
					}
					got += "+" + bs
				}
				if got != w {
					t.Errorf("got %s, want %s (nominal %v)", got, w, q.Nominal)
				}
			}
		})
	}
}
