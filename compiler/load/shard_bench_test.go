package load

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// BenchmarkShards loads generated fleets whole and in two shards, for the
// size below which one shard is faster (shardMinBytes).
func BenchmarkShards(b *testing.B) {
	for _, size := range []fleetgen.Size{fleetgen.S, {Name: "S2", Pools: 20, Classes: 12, Tenants: 40}, {Name: "S4", Pools: 30, Classes: 20, Tenants: 80}, fleetgen.M, fleetgen.L} {
		data := fleetgen.JSON(fleetgen.Generate(1, size, fleetgen.Options{Buildable: true}))
		p := filepath.Join(b.TempDir(), "fleet.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
		for _, k := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s-%dKiB/shards=%d", size.Name, len(data)>>10, k), func(b *testing.B) {
				for b.Loop() {
					src, err := evaluate([]string{p}, k)
					if err == nil {
						err = src.Decode()
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
