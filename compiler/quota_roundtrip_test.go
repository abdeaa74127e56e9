package compiler_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// Any quota the compiler accepts reaches the emitted objects exactly: each
// namespace's ResourceQuota holds quota plus borrowing, and the tenant's
// ClusterQueue flavors sum to the quota, and their borrowingLimits to the
// borrow (so Kueue, like the ResourceQuota, holds the tenant to quota
// plus borrow). Quantities are drawn in every suffix and up to the
// bounds validation allows. (The split over flavors once floored to whole
// cores and GiB: a quota of 1500m offered Kueue 1 core.)
func TestQuotaRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	cpu := func() string {
		switch r.IntN(3) {
		case 0:
			return fmt.Sprintf("%dm", 1+r.Int64N(1_000_000_000))
		case 1:
			return fmt.Sprint(1 + r.IntN(1_000_000))
		}
		return fmt.Sprintf("%.3f", r.Float64()*1000)
	}
	memory := func() string {
		switch r.IntN(5) {
		case 0:
			return fmt.Sprint(1 + r.Int64N(1<<50))
		case 1:
			return fmt.Sprintf("%dKi", 1+r.Int64N(1<<40))
		case 2:
			return fmt.Sprintf("%dMi", 1+r.Int64N(1<<30))
		case 3:
			return fmt.Sprintf("%dM", 1+r.Int64N(1_000_000_000))
		}
		return fmt.Sprintf("%dGi", 1+r.Int64N(1<<20))
	}
	dir := t.TempDir()
	for i := range 60 {
		quota := map[string]string{"cpu": cpu(), "memory": memory()}
		tenant := map[string]any{"namespaces": []string{"team", "team-b"}, "classes": []string{"batch"}, "quota": quota}
		borrow := map[string]string{}
		if i%2 == 1 {
			borrow = map[string]string{"cpu": cpu(), "memory": memory()}
			tenant["cohort"], tenant["borrow"] = "all", borrow
		}
		pools := map[string]any{}
		for j, it := range []string{"m7i.large", "m7i.2xlarge", "c7i.4xlarge"}[:1+i%3] {
			pools[fmt.Sprintf("p%d", j)] = map[string]any{"instanceTypes": []string{it}, "size": map[string]int{"min": 0, "max": 1 + r.IntN(50)}}
		}
		spec := map[string]any{
			"cluster":    map[string]any{"provider": "eks", "name": "q", "region": "us-east-1", "version": "1.36", "zones": []string{"us-east-1a", "us-east-1b"}},
			"priorities": map[string]any{"p": map[string]int{"value": 1}},
			"pools":      pools,
			"classes":    map[string]any{"batch": map[string]any{"priority": "p", "kind": "Job", "resources": map[string]string{"cpu": "1m", "memory": "1Mi"}}},
			"tenants":    map[string]any{"team": tenant},
		}
		raw, err := json.Marshal(spec)
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(dir, fmt.Sprintf("fleet-%d.json", i))
		if err := os.WriteFile(f, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		res := compile(t, f)
		for _, res0 := range []string{"cpu", "memory"} {
			want := resource.MustParse(quota[res0])
			hard := want.DeepCopy()
			if b, ok := borrow[res0]; ok {
				hard.Add(resource.MustParse(b))
			}
			seen := map[string]bool{}
			for _, doc := range tree.Docs(res.Tree["tenants/team/resourcequotas.yaml"]) {
				var rq corev1.ResourceQuota
				if err := tree.Decode(doc, &rq); err != nil {
					t.Fatal(err)
				}
				seen[rq.Namespace] = true
				got := rq.Spec.Hard[corev1.ResourceName("requests."+res0)]
				if got.Cmp(hard) != 0 {
					t.Errorf("%s: %s ResourceQuota requests.%s = %s, want quota %s + borrow %q = %s", f, rq.Namespace, res0, got.String(), quota[res0], borrow[res0], hard.String())
				}
			}
			if !seen["team"] || !seen["team-b"] {
				t.Fatalf("%s: ResourceQuotas for %v, want team and team-b", f, seen)
			}
			var cq kueue.ClusterQueue
			if err := tree.Decode(res.Tree[tree.KueueQueuesPath], &cq); err != nil {
				t.Fatal(err)
			}
			var sum, borrowed resource.Quantity
			flavors := 0
			for _, rg := range cq.Spec.ResourceGroups {
				for _, fl := range rg.Flavors {
					flavors++
					for _, q := range fl.Resources {
						if string(q.Name) != res0 {
							continue
						}
						sum.Add(q.NominalQuota)
						if _, ok := borrow[res0]; ok {
							if q.BorrowingLimit == nil {
								t.Fatalf("%s: flavor %s %s has no borrowingLimit", f, fl.Name, res0)
							}
							borrowed.Add(*q.BorrowingLimit)
						}
					}
				}
			}
			if flavors == 0 {
				t.Fatalf("%s: the ClusterQueue has no flavors", f)
			}
			if b, ok := borrow[res0]; ok && borrowed.Cmp(resource.MustParse(b)) != 0 {
				t.Errorf("%s: ClusterQueue flavors' %s borrowingLimits sum to %s, want the borrow %s", f, res0, borrowed.String(), b)
			}
			if sum.Cmp(want) != 0 {
				t.Errorf("%s: ClusterQueue flavors' nominal %s sum to %s, want the quota %s", f, res0, sum.String(), want.String())
			}
		}
	}
}
