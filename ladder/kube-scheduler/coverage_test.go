package kubesched

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

// coverage counts what a differential compared, by kube-scheduler's
// verdict, so that a generator that stops exercising a filter shows.
type coverage struct {
	pairs, fit, populated int
	refused               map[string]int // by kind of reason
}

// kind sorts kube-scheduler's reasons into what decided the refusal.
func kind(reasons []string) string {
	r := strings.Join(reasons, ",")
	switch {
	case strings.Contains(r, "Insufficient") || strings.Contains(r, "Too many pods"):
		return "resources"
	case strings.Contains(r, "topology spread"):
		return "spread"
	case strings.Contains(r, "anti-affinity"):
		return "anti-affinity"
	case strings.Contains(r, "taint"):
		return "taints"
	case strings.Contains(r, "cannot allocate all claims"):
		return "claims"
	case strings.Contains(r, "affinity/selector"):
		return "node affinity"
	}
	return "other"
}

func (c *coverage) add(theirs []string, populated bool) {
	c.pairs++
	if populated {
		c.populated++
	}
	if len(theirs) == 0 {
		c.fit++
		return
	}
	if c.refused == nil {
		c.refused = map[string]int{}
	}
	c.refused[kind(theirs)]++
}

func (c *coverage) refusals() int { return c.pairs - c.fit }

// share is the percentage of refusals of the given kinds.
func (c *coverage) share(kinds ...string) float64 {
	n := 0
	for _, k := range kinds {
		n += c.refused[k]
	}
	return 100 * float64(n) / float64(max(1, c.refusals()))
}

func (c *coverage) String() string {
	var parts []string
	for _, k := range sortedKeys(c.refused) {
		parts = append(parts, fmt.Sprintf("%s %.1f%%", k, c.share(k)))
	}
	return fmt.Sprintf("%d class × node pairs (%d on a populated cluster): %d fit, %d refused (%s)",
		c.pairs, c.populated, c.fit, c.refusals(), strings.Join(parts, ", "))
}

// floors fail the test when the refusals that need arithmetic (resources,
// spread, anti-affinity) fall under a sixth, or one of them vanishes. (A
// fifth until DRA pools: node affinity keeps each GPU class to its API's
// pools, so more refusals are node affinity's; 18.3% of 322,541 then.)
func (c *coverage) floors(t *testing.T) {
	t.Helper()
	if s := c.share("resources", "spread", "anti-affinity"); s < 100.0/6 {
		t.Errorf("only %.1f%% of refusals on resources, spread or anti-affinity: want at least a sixth", s)
	}
	for _, k := range []string{"resources", "spread", "anti-affinity"} {
		if c.refused[k] == 0 {
			t.Errorf("no refusal on %s: the generator no longer exercises it", k)
		}
	}
}

func sortedKeys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// figures are each differential's lines of the coverage table, printed
// once all tests have run.
var figures []string

func record(name string, c coverage) {
	figures = append(figures, fmt.Sprintf("%-10s %s", name, c.String()))
}

func TestMain(m *testing.M) {
	code := m.Run()
	if len(figures) > 0 {
		fmt.Println("coverage:")
		for _, f := range figures {
			fmt.Println("  " + f)
		}
	}
	os.Exit(code)
}
