package eks_test

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/nodegroup/eks"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// TestReservedReadBack reads the reserved example's Capacity Block group
// back, then breaks its eksctl file the ways that would launch it outside
// its reservation, each of which the reader must refuse.
func TestReservedReadBack(t *testing.T) {
	f := renderedFleets(t)["reserved"]
	read := func(yaml string) error {
		tr := tree.Tree{}
		for p, b := range f.Tree {
			tr[p] = b
		}
		tr[eks.EksctlPath] = []byte(yaml)
		_, err := eks.Provisioner{}.NodeGroups(tree.Typed{Tree: tr})
		return err
	}
	y := string(f.Tree[eks.EksctlPath])
	groups, err := eks.Provisioner{}.NodeGroups(tree.Typed{Tree: f.Tree})
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, g := range groups {
		if g.Pool == "p5-block" {
			found = len(g.Reserved) == 1 && g.Reserved[0].Block && g.Reserved[0].Count == 2 && g.Reserved[0].End == "2026-12-28T11:30:00Z"
		}
	}
	if !found {
		t.Fatalf("p5-block read back without its Capacity Block: %+v", groups)
	}
	for _, tc := range []struct{ name, from, to, want string }{
		// A misspelled key (eksctl #7906/#8320/#8542) decodes here, as
		// encoding/json folds case; eksctl's own decode drops it, which
		// ladder/eksctl catches. A key misspelled otherwise is caught here.
		{"target misspelled", "capacityReservationTarget:", "capacityReservationTargets:", `unknown field "capacityReservationTargets"`},
		{"reservation dropped", "  capacityReservation:\n", "  capacityReservationX:\n", `unknown field "capacityReservationX"`},
		{"another reservation", "capacityReservationID: cr-0a1b2c3d4e5f60718", "capacityReservationID: cr-0ffffffffffffffff", "is not the one reservation"},
		{"market type dropped", "marketType: capacity-block", "marketType: spot", "disagrees with tag"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(y, tc.from) {
				t.Fatalf("eksctl.yaml has no %q", tc.from)
			}
			if err := read(strings.Replace(y, tc.from, tc.to, 1)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
