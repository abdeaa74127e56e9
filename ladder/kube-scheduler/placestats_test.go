package kubesched

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// placeStats counts what the placement differential compared, from the
// first tie-break's runs, so a generator that stops refusing pods on
// resources, spread or anti-affinity shows.
type placeStats struct {
	fleets, classes, pods, placed int
	whole, partly, nowhere        int
	byProfile                     map[string]int
	// tieBreakMoved counts classes whose pods the other tie-break put
	// on other nodes.
	tieBreakMoved int
	// dra counts the runs of DRA classes, scheduled with the DRA manager.
	dra int
	// refusedOn counts refused classes by what the scheduler said on the
	// nodes where other pods of the class already run.
	refusedOn map[string]int
	// findings counts the refused classes' placement findings by check.
	findings map[check.ID]int
}

func (s *placeStats) count(c *sched.Class, res *compiler.Result, p *Placement) {
	if s.byProfile == nil {
		s.byProfile, s.refusedOn, s.findings = map[string]int{}, map[string]int{}, map[check.ID]int{}
	}
	s.classes++
	s.pods += int(c.Pods)
	s.placed += len(p.Bound)
	profile := c.Pod.Spec.SchedulerName
	if profile == "" {
		profile = "default-scheduler"
	}
	s.byProfile[profile]++
	switch {
	case p.Refused == nil:
		s.whole++
		return
	case len(p.Bound) == 0:
		s.nowhere++
	default:
		s.partly++
		occupied := map[string]bool{}
		for _, b := range p.Bound {
			occupied[b.Spec.NodeName] = true
		}
		kinds := map[string]bool{}
		for node := range occupied {
			if rs := p.Reasons[node]; len(rs) > 0 {
				kinds[kind(rs)] = true
			}
		}
		for k := range kinds {
			s.refusedOn[k]++
		}
	}
	for _, f := range res.Report.Findings {
		if f.Class == c.Name && f.Severity == check.Error {
			s.findings[f.Check]++
		}
	}
}

func (s placeStats) String() string {
	var profiles, on []string
	for _, k := range sortedKeys(s.byProfile) {
		profiles = append(profiles, fmt.Sprintf("%s %d", k, s.byProfile[k]))
	}
	for _, k := range sortedKeys(s.refusedOn) {
		on = append(on, fmt.Sprintf("%s %d", k, s.refusedOn[k]))
	}
	var found []string
	for _, id := range placementChecks {
		found = append(found, fmt.Sprintf("%s %d", id, s.findings[id]))
	}
	return fmt.Sprintf("%d fleets, %d classes by the scheduling cycle (%s): %d of %d pods placed, %d refused; %d classes whole, %d in part, %d nowhere; "+
		"refused on occupied nodes for %s; checker findings %s; the other tie-break moved pods in %d classes; %d runs of DRA classes with the DRA manager",
		s.fleets, s.classes, strings.Join(profiles, ", "), s.placed, s.pods, s.pods-s.placed, s.whole, s.partly, s.nowhere,
		strings.Join(on, ", "), strings.Join(found, ", "), s.tieBreakMoved, s.dra)
}

// floors fail the test when a kind of outcome vanishes from the fleets.
func (s placeStats) floors(t *testing.T) {
	t.Helper()
	if s.whole == 0 || s.partly == 0 || s.nowhere == 0 {
		t.Errorf("the fleets exercised too few outcomes: %d whole, %d in part, %d nowhere", s.whole, s.partly, s.nowhere)
	}
	if s.dra == 0 {
		t.Errorf("no DRA class scheduled: pods per node by claims go unjudged")
	}
	for _, k := range []string{"resources", "spread", "anti-affinity"} {
		if s.refusedOn[k] == 0 {
			t.Errorf("no class refused on %s where its pods run: the generator no longer exercises it", k)
		}
	}
	for _, p := range []string{"gpufleet-binpack", "gpufleet-spread"} {
		if s.byProfile[p] == 0 {
			t.Errorf("no class scheduled under %s", p)
		}
	}
}
