//go:build composed

package kubesched

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/internal/fleetgen"
	"github.com/gpufleet/gpufleet/internal/handoff"
)

// The composed rung's pair table (issue 46, item 5): every pair of the
// features fleetgen lists (features.go), counted over the pinned units of
// which kube-scheduler placed at least one pod, each unit with its class's
// features and those of the pool Kueue pinned it to. The pair fleets
// (fleetgen.PairFleets, a covering array) are there to fill it; a pair no
// unit reached fails the rung.

// reachedUnits are the features of each unit TestComposedPlace saw
// placed, for TestComposedPlaceCatchesRemovedFeature.
var reachedUnits [][]string

// reached counts the unit in the table if the scheduling cycle placed any
// of its pods.
func reached(table fleetgen.PairTable, fl *composedFleet, r *handoff.Record, got *placed) {
	if got == nil || got.refused != "" || got.bound == 0 {
		return
	}
	table.Add(fleetgen.Features(fl.res.Fleet.Spec, r.Tenant, r.Class, r.Pool))
}

// pairGaps are the rung's failures for the table: each possible pair no
// unit reached.
func pairGaps(table fleetgen.PairTable) []string {
	var out []string
	for _, p := range table.Empty() {
		out = append(out, fmt.Sprintf("no unit reached kube-scheduler with %s: the generators (fleetgen PairFleets, Options.Composed) no longer combine them", p))
	}
	return out
}

// TestComposedPlaceCatchesRemovedFeature proves the pair table can fail: the
// records of every unit with MPS left out, as if the generator no longer
// made MPS pools, leave every possible pair of MPS empty, and the rung
// fails.
func TestComposedPlaceCatchesRemovedFeature(t *testing.T) {
	if reachedUnits == nil {
		t.Skip("TestComposedPlace did not run first: it counts the units this takes MPS out of")
	}
	table := fleetgen.PairTable{}
	for _, feats := range reachedUnits {
		if !slices.Contains(feats, fleetgen.FeatMPS) {
			table.Add(feats)
		}
	}
	gaps := pairGaps(table)
	empty := table.Empty()
	for _, p := range fleetgen.Pairs() {
		if (p[0] == fleetgen.FeatMPS || p[1] == fleetgen.FeatMPS) && !slices.Contains(empty, p) {
			t.Errorf("MPS left out, and %s still counts units", p)
		}
	}
	if len(gaps) == 0 {
		t.Fatal("MPS left out, and the pair table has no empty pair")
	}
	// A pair other units of MPS pools alone reached empties too.
	t.Logf("MPS left out: %d empty pairs:\n%s", len(gaps), strings.Join(gaps, "\n"))
}
