package derive

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// TestSplitEven: the shares add up to the total, differ by at most one
// unit, and the first namespaces take the remainder.
func TestSplitEven(t *testing.T) {
	total := corev1.ResourceList{
		QuotaGPU:    resource.MustParse("7"),
		QuotaCPU:    resource.MustParse("1"),
		QuotaMemory: resource.MustParse("3000Gi"),
	}
	got := SplitEven(total, 3)
	want := []map[corev1.ResourceName]string{
		{QuotaGPU: "3", QuotaCPU: "334m", QuotaMemory: "1000Gi"},
		{QuotaGPU: "2", QuotaCPU: "333m", QuotaMemory: "1000Gi"},
		{QuotaGPU: "2", QuotaCPU: "333m", QuotaMemory: "1000Gi"},
	}
	for i, share := range got {
		for name, q := range share {
			if q.String() != want[i][name] {
				t.Errorf("namespace %d: %s is %s, want %s", i, name, q.String(), want[i][name])
			}
		}
	}
	for name, q := range total {
		var sum resource.Quantity
		for _, share := range got {
			sum.Add(share[name])
		}
		if sum.Cmp(q) != 0 {
			t.Errorf("%s: shares add up to %s, not %s", name, sum.String(), q.String())
		}
	}
}
