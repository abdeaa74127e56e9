package aws

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/catalog"
)

func TestReservedCPU(t *testing.T) {
	for vcpu, want := range map[int64]int64{1: 60, 2: 70, 4: 80, 8: 90, 96: 310, 192: 550} {
		if got := ReservedCPUMilli(vcpu); got != want {
			t.Errorf("ReservedCPUMilli(%d) = %d, want %d", vcpu, got, want)
		}
	}
	// The closed form agrees with the AMI's rule applied core by core,
	// and takes no time for any int64: the loop took hours for a vcpu
	// override near its maximum.
	for vcpu := int64(0); vcpu <= 5000; vcpu++ {
		if got, want := ReservedCPUMilli(vcpu), coreByCore(vcpu); got != want {
			t.Fatalf("ReservedCPUMilli(%d) = %d, core by core %d", vcpu, got, want)
		}
	}
	if got := ReservedCPUMilli(1 << 40); got != (700+100+25*(1<<40-4))/10 {
		t.Errorf("ReservedCPUMilli(2^40) = %d", got)
	}
}

func coreByCore(vcpu int64) int64 {
	var tenths int64
	for core := int64(1); core <= vcpu; core++ {
		switch {
		case core == 1:
			tenths += 600
		case core == 2:
			tenths += 100
		case core <= 4:
			tenths += 50
		default:
			tenths += 25
		}
	}
	return tenths / 10
}

func TestAllocatable(t *testing.T) {
	cat := Catalog(nil)
	// g4dn.xlarge: 4 vCPU, 16 GiB, 29 pods, 1 T4.
	got := cat["g4dn.xlarge"].Allocatable()
	want := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("3920m"),
		// 16384 - ceil(7.5% of 16384) - (255 + 11*29) - 100
		corev1.ResourceMemory: resource.MustParse("14481Mi"),
		corev1.ResourcePods:   resource.MustParse("29"),
		catalog.ResourceGPU:   resource.MustParse("1"),
	}
	for k, v := range want {
		g := got[k]
		if g.Cmp(v) != 0 {
			t.Errorf("%s = %s, want %s", k, g.String(), v.String())
		}
	}
	if _, ok := cat["m7i.large"].Allocatable()[catalog.ResourceGPU]; ok {
		t.Error("a CPU instance must not advertise GPUs")
	}
}
