package nodediff

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/karpenter-provider-aws/pkg/providers/drametadata"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
)

// draCompared are the attributes gpufleet synthesises; the others
// Karpenter lists (the PCIe root) differ per device and node.
var draCompared = []resourcev1.QualifiedName{"type", "brand", "productName", "architecture", "cudaComputeCapability"}

// compareDRA holds the devices gpufleet synthesises for each built-in GPU
// type (aws.DRADevices), after mutate, to those karpenter-provider-aws
// v1.15.1 scraped from the NVIDIA DRA driver on that type
// (drametadata.GPUMetadataByInstanceType): the count, the attributes a
// DeviceClass or a claim's CEL selector reads, and the memory capacity.
func compareDRA(cat catalog.Catalog, mutate func(*resourcev1.Device)) (types int, bad []string) {
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range cat {
			if !yield(n) {
				return
			}
		}
	}) {
		in := cat[name]
		if in.GPU == nil || in.GPU.Count == 0 {
			continue
		}
		types++
		ours, ok := aws.DRADevices(in)
		theirs := drametadata.GPUMetadataByInstanceType[name]
		switch {
		case theirs == nil:
			bad = append(bad, fmt.Sprintf("%s: Karpenter has no DRA metadata for it", name))
			continue
		case !ok:
			bad = append(bad, fmt.Sprintf("%s: gpufleet synthesises no DRA devices, the driver publishes %d", name, theirs.Count))
			continue
		case len(ours) != theirs.Count || len(theirs.Devices) != theirs.Count:
			bad = append(bad, fmt.Sprintf("%s: %d devices, the driver publishes %d", name, len(ours), theirs.Count))
			continue
		}
		for i := range ours {
			d, t := ours[i], theirs.Devices[i]
			if mutate != nil {
				mutate(&d)
			}
			for _, a := range draCompared {
				if got, want := attr(d.Attributes[a]), attr(t.Attributes[a]); got != want {
					bad = append(bad, fmt.Sprintf("%s %s: %s %s, the driver publishes %s", name, d.Name, a, got, want))
				}
			}
			got, want := d.Capacity["memory"].Value, t.Capacity["memory"].Value
			if got.Cmp(want) != 0 {
				bad = append(bad, fmt.Sprintf("%s %s: memory %s, the driver publishes %s", name, d.Name, got.String(), want.String()))
			}
		}
	}
	return types, bad
}

// attr prints an attribute's one value.
func attr(a resourcev1.DeviceAttribute) string {
	switch {
	case a.StringValue != nil:
		return fmt.Sprintf("string %q", *a.StringValue)
	case a.VersionValue != nil:
		return "version " + *a.VersionValue
	case a.IntValue != nil:
		return fmt.Sprintf("int %d", *a.IntValue)
	case a.BoolValue != nil:
		return fmt.Sprintf("bool %v", *a.BoolValue)
	}
	return "none"
}

// TestDRADevices: every built-in GPU type's devices, as a DRA node
// publishes them, equal the driver's on that type.
func TestDRADevices(t *testing.T) {
	_, _, cat := setup(t)
	types, bad := compareDRA(cat, nil)
	if len(bad) > 0 {
		t.Errorf("%d differences over %d GPU types (the driver is right):\n%s", len(bad), types, strings.Join(bad, "\n"))
	}
	if types < 30 {
		t.Errorf("%d GPU types compared: the catalog no longer exercises the table", types)
	}
	// What a minMemoryGiB selector on DRA devices meets: less than the
	// catalog's label on most models.
	var less []string
	for _, name := range []string{"g4dn.xlarge", "g5.xlarge", "g6.xlarge", "g6e.xlarge", "p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge", "p5e.48xlarge"} {
		d, _ := aws.DRADevices(cat[name])
		m := d[0].Capacity["memory"].Value
		if m.Cmp(*resource.NewQuantity(cat[name].GPU.MemoryGiB<<30, resource.BinarySI)) < 0 {
			less = append(less, fmt.Sprintf("%s %s < %dGi", name, m.String(), cat[name].GPU.MemoryGiB))
		}
	}
	t.Logf("%d GPU types, each device equal to the driver's; published memory below the catalog's label: %s", types, strings.Join(less, ", "))
}

// TestDRADevicesCatch: the comparison fails a table that rounds memory up
// to whole GiB, or names products as gpufleet's labels do.
func TestDRADevicesCatch(t *testing.T) {
	_, _, cat := setup(t)
	for _, tc := range []struct {
		name   string
		mutate func(*resourcev1.Device)
	}{
		{"memory rounded up to whole GiB, as labels round it", func(d *resourcev1.Device) {
			m := d.Capacity["memory"].Value
			gi := (m.Value() + 1<<30 - 1) >> 30
			d.Capacity = map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{"memory": {Value: *resource.NewQuantity(gi<<30, resource.BinarySI)}}
		}},
		{"the product as gpufleet's label names it", func(d *resourcev1.Device) {
			p := strings.TrimPrefix(strings.TrimPrefix(*d.Attributes["productName"].StringValue, "NVIDIA "), "Tesla ")
			d.Attributes["productName"] = resourcev1.DeviceAttribute{StringValue: &p}
		}},
	} {
		_, bad := compareDRA(cat, tc.mutate)
		if len(bad) < 10 {
			t.Errorf("%s: %d differences, want many", tc.name, len(bad))
			continue
		}
		t.Logf("%s: %d differences, e.g. %s", tc.name, len(bad), bad[0])
	}
}
