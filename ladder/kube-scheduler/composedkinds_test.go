//go:build composed

package kubesched

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/internal/handoff"
)

// TestComposedPlaceRoles: the ML kinds' workloads reach kube-scheduler
// role by role, each pod set pinned to its own flavor, and a Kueue half
// that made every role's pods from the first pod set's template (its
// PodSets[0], as a one-PodSet integration reads them) is caught: the
// other roles' pods then carry the first role's requests and flavor.
func TestComposedPlaceRoles(t *testing.T) {
	recs := readComposed(t)
	var roles, caught, tried int
	var examples []string
	eachFleet(t, recs, func(fl *composedFleet, recs []handoff.Record) bool {
		first := map[[2]string]*handoff.Record{}
		for i := range recs {
			r := &recs[i]
			if r.Role == "" || r.Template == nil {
				continue
			}
			roles++
			u := [2]string{r.Tenant, r.Class}
			f := first[u]
			if f == nil {
				first[u] = r
				continue
			}
			tried++
			_, _, b, err := fl.judge(r, f.Template)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > 0 {
				caught++
				examples = append(examples, fmt.Sprintf("%s: %s", recordString(r), b[0]))
			}
		}
		return true
	})
	t.Logf("%d roles of ML kinds placed pinned; every role made from the first pod set's template caught on %d of %d:\n%s", roles, caught, tried, strings.Join(examples, "\n"))
	if roles == 0 {
		t.Fatal("no role of an ML kind reached kube-scheduler: the Kueue half no longer admits them")
	}
	if caught == 0 {
		t.Error("every role made from the first pod set's template went unnoticed")
	}
}
