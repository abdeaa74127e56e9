package e2e

import (
	"fmt"
	"strconv"
	"strings"
)

// shard keeps the fleets of shard i of n, from E2E_SHARD "i/n" (all of them
// when it is empty): scripts/e2e.sh runs n control planes at once, each on
// its own fleets, since a fleet's run mostly waits on controllers. Each
// fleet goes, in order, to the shard with the least work so far, an example
// fleet counting as exampleWeight broken ones (measured: 64 to 120 s
// against about 20), so that the shards end together.
func shard(fleets []fleetCase, spec string) ([]fleetCase, error) {
	if spec == "" {
		return fleets, nil
	}
	a, b, ok := strings.Cut(spec, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return nil, fmt.Errorf("E2E_SHARD=%q: want i/n with 0 <= i < n", spec)
	}
	var out []fleetCase
	load := make([]int, n)
	for _, f := range fleets {
		least := 0
		for k := range load {
			if load[k] < load[least] {
				least = k
			}
		}
		if least == i {
			out = append(out, f)
		}
		load[least] += weight(f)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("E2E_SHARD=%s: no fleets in this shard of %d", spec, len(fleets))
	}
	return out, nil
}

const exampleWeight = 4

func weight(f fleetCase) int {
	if f.broken {
		return 1
	}
	return exampleWeight
}
