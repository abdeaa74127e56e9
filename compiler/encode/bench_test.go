package encode_test

import (
	"testing"

	"github.com/gpufleet/gpufleet/compiler/encode"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// BenchmarkMarshal encodes every YAML file of a generated L fleet on one
// goroutine, by Marshal and by the old path (MarshalOld), so that one run
// gives their ratio. cpu-ns/op is the whole process's CPU time, garbage
// collection included.
func BenchmarkMarshal(b *testing.B) {
	files := compiledFiles(b, generatedSpec(b, 1, fleetgen.L, fleetgen.Options{Buildable: true}))
	for _, m := range []struct {
		name string
		f    func(...any) ([]byte, error)
	}{{"old", encode.MarshalOld}, {"new", encode.Marshal}} {
		b.Run(m.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0, ok := processCPU()
			for b.Loop() {
				for _, objs := range files {
					if _, err := m.f(objs...); err != nil {
						b.Fatal(err)
					}
				}
			}
			if cpu1, _ := processCPU(); ok {
				b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
			}
		})
	}
}
