package e2e

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// shard keeps the fleets of shard i of n, from E2E_SHARD "i/n" (all of them
// when it is empty): scripts/e2e.sh runs n control planes at once, each on
// its own fleets, since a fleet's run mostly waits on controllers. The
// heaviest fleets are placed first, each on the shard with the least work
// so far (longest processing time first), by their measured weights, so
// that the shards end together; each shard runs its fleets in the order
// given.
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
	order := make([]int, len(fleets))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return weight(fleets[b]) - weight(fleets[a]) })
	load := make([]int, n)
	mine := make([]bool, len(fleets))
	for _, k := range order {
		least := 0
		for s := range load {
			if load[s] < load[least] {
				least = s
			}
		}
		mine[k] = least == i
		load[least] += weight(fleets[k])
	}
	var out []fleetCase
	for k, f := range fleets {
		if mine[k] {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("E2E_SHARD=%s: no fleets in this shard of %d", spec, len(fleets))
	}
	return out, nil
}

// Weights, in units of about 12 s, a fleet's run in a warm CI with three
// shards (2026-11-26): research 114 s, platform 65, llm-serving 61, a
// broken fleet 5 to 26 (most 10 to 16). Measured again with Kueue's TAS
// (32 broken fleets, the two TAS ones 15 and 17 s): research 130 s,
// platform 68, llm-serving 64, a broken fleet 5 to 27; research at 10 or
// 11 would end the shards less evenly (the heaviest 246 or 248 s of
// fleets against 241). An example fleet not listed weighs exampleWeight.
var exampleWeights = map[string]int{"research": 9, "platform": 5, "llm-serving": 5}

const exampleWeight = 5

func weight(f fleetCase) int {
	if f.broken {
		return 1
	}
	if w, ok := exampleWeights[f.name]; ok {
		return w
	}
	return exampleWeight
}
