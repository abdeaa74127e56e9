package e2e

import (
	"fmt"
	"strconv"
	"strings"
)

// shard keeps the fleets of shard i of n, from E2E_SHARD "i/n" (all of them
// when it is empty): scripts/e2e.sh runs n control planes at once, each on
// its own fleets, since a fleet's run mostly waits on controllers.
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
	for k, f := range fleets {
		if k%n == i {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("E2E_SHARD=%s: no fleets in this shard of %d", spec, len(fleets))
	}
	return out, nil
}
