package report_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/cost"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/report"
)

var shadedCell = regexp.MustCompile(`<td class="h(\d)"[^>]*>([^<]*)</td>`)

// shades are the shade and figure of each landing cell of table#id.
func shades(t *testing.T, page, id string) (levels []int, figures []string) {
	t.Helper()
	i := strings.Index(page, `id="`+id+`"`)
	if i < 0 {
		t.Fatalf("no table#%s", id)
	}
	table := page[i : i+strings.Index(page[i:], "</table>")]
	for _, m := range shadedCell.FindAllStringSubmatch(table, -1) {
		h, _ := strconv.Atoi(m[1])
		levels, figures = append(levels, h), append(figures, m[2])
	}
	return levels, figures
}

// The case: a class lands on 6 H100 nodes (48 GPUs, 6 pods, $590
// an hour) and on 24 time-sliced T4 nodes (24 GPUs, 96 pods, $12.60). By
// pods the T4 pool is the darker cell; by GPUs and by dollars the H100
// pool is. A GPUs or dollars view shaded by pods, or by the other's
// figure, fails.
func TestHTMLMeasures(t *testing.T) {
	usd := func(v float64) *float64 { return &v }
	r := &check.Report{
		Classes: []string{"mixed"}, Pools: []string{"h100", "t4-sliced"}, Findings: []check.Finding{},
		PoolInfo: []check.PoolInfo{
			{Pool: "h100", Product: "H100", Types: []check.PoolType{{Type: "p5.48xlarge", GPUs: 8}}, Max: 6},
			{Pool: "t4-sliced", Product: "T4", Spot: true, Types: []check.PoolType{{Type: "g4dn.xlarge", GPUs: 1}}, Min: 2, Max: 24},
		},
		Rows: []sched.Row{*sched.NewRow([]sched.Cell{
			{Class: "mixed", Pool: "h100", Fits: true, Type: "p5.48xlarge", Capacity: 6},
			{Class: "mixed", Pool: "t4-sliced", Fits: true, Type: "g4dn.xlarge", Capacity: 96},
		})},
		Cost: &cost.Cost{Classes: []cost.ClassCost{
			{Class: "mixed", Pool: "h100", Type: "p5.48xlarge", Hourly: usd(590)},
			{Class: "mixed", Pool: "t4-sliced", Type: "g4dn.xlarge", Hourly: usd(12.6)},
		}},
	}
	page := string(report.HTML(r))
	for _, tc := range []struct {
		id      string
		figures string
		darker  int // the index of the darker cell
	}{
		{"placement-matrix", "6 96", 1},
		{"matrix-gpus", "48 24", 0},
		{"matrix-dollars", "$590.00 $12.60", 0},
	} {
		levels, figures := shades(t, page, tc.id)
		if strings.Join(figures, " ") != tc.figures || len(levels) != 2 {
			t.Errorf("table#%s shows %q, want %q", tc.id, figures, tc.figures)
			continue
		}
		if levels[tc.darker] <= levels[1-tc.darker] {
			t.Errorf("table#%s: shades %v, want cell %d (%s) the darker", tc.id, levels, tc.darker, figures[tc.darker])
		}
	}
	for _, head := range []string{"H100 · on-demand · p5.48xlarge · 0–6 nodes", "T4 · spot · g4dn.xlarge · 2–24 nodes"} {
		if !strings.Contains(page, head) {
			t.Errorf("no pool head %q", head)
		}
	}
}
