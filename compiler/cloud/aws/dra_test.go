package aws

import (
	"testing"

	"github.com/gpufleet/gpufleet/compiler/catalog"
)

// DRADevices names the devices as the driver does, one per GPU, and gives
// none for a type without a GPU or a model the table lacks (ladder/karpenter
// holds the figures to the driver's).
func TestDRADevices(t *testing.T) {
	cat := Catalog(nil)
	d, ok := DRADevices(cat["p5e.48xlarge"])
	if !ok || len(d) != 8 || d[0].Name != "gpu-0" || d[7].Name != "gpu-7" {
		t.Fatalf("p5e.48xlarge: %v, %v", d, ok)
	}
	if p := d[3].Attributes["productName"].StringValue; p == nil || *p != "NVIDIA H200" {
		t.Errorf("productName %v", p)
	}
	if m := d[0].Capacity["memory"].Value; m.String() != "140Gi" {
		t.Errorf("memory %s", m.String())
	}
	for _, in := range []catalog.Instance{cat["m7i.large"], {Name: "x", GPU: &catalog.GPU{Count: 1, Product: "T4", MemoryGiB: 8}}} {
		if d, ok := DRADevices(in); ok || d != nil {
			t.Errorf("%s: %v", in.Name, d)
		}
	}
}
