package plan

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/cost"
	"github.com/gpufleet/gpufleet/compiler/nodes"
)

// state is a small fleet: pool a (managed, max 4) and class c landing on
// it with 4 pods, tenant t with a GPU quota in two namespaces.
func state() *State {
	hourly := 10.0
	r := &Report{
		Pools: []string{"a"}, Classes: []string{"c"},
		Lands:    map[string]map[string]Land{"c": {"a": {Type: "g5.xlarge", Capacity: 4}}},
		Units:    map[string]check.Unit{"c": {Class: "c", AtOnce: 4}},
		Findings: []check.Finding{{Severity: "warning", Check: "Spread", Message: "old"}},
		Cost: &cost.Cost{
			Classes: []cost.ClassCost{{Class: "c", Pool: "a", Hourly: &hourly}},
			Fleet:   &cost.FleetCost{Low: &hourly, High: &hourly},
		},
	}
	return &State{
		Groups: []nodes.Group{{Pool: "a", Source: "eksctl", InstanceTypes: []string{"g5.xlarge"}, Zones: []string{"z1"}, MaxNodes: 4}},
		Report: r,
		Quotas: map[string][]Quota{"t": {
			{Scope: "namespace n1", Resource: "requests.nvidia.com/gpu", Value: resource.MustParse("8")},
			{Scope: "namespace n2", Resource: "requests.nvidia.com/gpu", Value: resource.MustParse("8")},
		}},
		Examples: map[string]Example{"c": {Scheduler: "default-scheduler", Priority: "p"}},
	}
}

func TestCompare(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(s *State)
		want []string // lines the text must hold
		lost int
	}{
		{"no change", func(*State) {}, []string{"No changes"}, 0},
		{"grow", func(s *State) {
			s.Groups[0].MaxNodes = 8
			s.Report.Lands["c"]["a"] = Land{Capacity: 8}
		}, []string{"pool a's node groups: max 4 → 8 nodes", "class c: a: 4 → 8 pods at max size"}, 0},
		{"shrink comes first", func(s *State) {
			s.Groups[0].MaxNodes = 2
			s.Report.Lands["c"]["a"] = Land{Capacity: 2}
			s.Report.Units["c"] = check.Unit{Class: "c", AtOnce: 2}
		}, []string{"Capacity lost:\n  - ~ pool a's node groups: max 4 → 2 nodes\n  - ~ class c: a: 4 → 2 pods at max size; pods at once 4 → 2 (2 that ran at once now pend)"}, 1},
		{"pool removed", func(s *State) {
			s.Groups = nil
			delete(s.Report.Lands, "c")
		}, []string{"pool a's node groups: removed: it had up to 4 nodes of g5.xlarge", "class c: no longer lands on a (had 4 pods at max size)"}, 1},
		{"types, spot, zones", func(s *State) {
			s.Groups[0].InstanceTypes, s.Groups[0].Spot, s.Groups[0].Zones = []string{"g6.xlarge"}, true, []string{"z1", "z2"}
		}, []string{"instance types g5.xlarge → g6.xlarge; on-demand → spot; zones z1 → z1, z2"}, 0},
		{"quota, both namespaces alike", func(s *State) {
			for i := range s.Quotas["t"] {
				s.Quotas["t"][i].Value = resource.MustParse("16")
			}
		}, []string{"tenant t, namespaces n1, n2: requests.nvidia.com/gpu 8 → 16"}, 0},
		{"scheduler and priority", func(s *State) {
			s.Examples["c"] = Example{Scheduler: "binpack", Priority: ""}
		}, []string{"class c: scheduler default-scheduler → binpack; PriorityClass p → none"}, 0},
		{"price and findings", func(s *State) {
			h := 12.5
			s.Report.Cost = &cost.Cost{Classes: []cost.ClassCost{{Class: "c", Pool: "a", Hourly: &h}}, Fleet: &cost.FleetCost{Unknown: "a: no price"}}
			s.Report.Findings = []check.Finding{{Severity: "error", Check: "Lands", Class: "c", Message: "new"}}
		}, []string{"the fleet at max size: $10.00/h ($7,300/month) → unknown", "class c: $10.00/h ($7,300/month) → $12.50/h ($9,125/month), +$2.50/h (+$1,825/month)", "New errors:\n  - error Lands (class c): new", "Resolved findings:\n  - warning Spread: old"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			after := state()
			tc.edit(after)
			files := []FileChange{{Path: "report/placement.json", Kind: "changed"}}
			if tc.name == "no change" {
				files = nil
			}
			p := Compare(state(), after, files)
			text := string(p.Text("see diff", nil))
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("text lacks %q:\n%s", w, text)
				}
			}
			if p.Summary.ClassesLost != tc.lost {
				t.Errorf("classes lost = %d, want %d", p.Summary.ClassesLost, tc.lost)
			}
		})
	}
}

// A spec's names and messages are text in the comment: never HTML, a link
// or an image.
func TestMarkdownEscapes(t *testing.T) {
	after := state()
	after.Report.Findings = []check.Finding{{Severity: "error", Check: "Lands", Message: "<img src=x> ![a](e/x.png) [l](e) `c` *b* _i_ $x$\n# h"}}
	md := string(Compare(state(), after, []FileChange{{Path: "x", Kind: "changed"}}).Markdown("", nil))
	for _, bad := range []string{"<img", "![a](", "[l](", "`c`", "*b*", "_i_", "$x$", "\n# h"} {
		if strings.Contains(md, bad) {
			t.Errorf("markdown holds %q unescaped:\n%s", bad, md)
		}
	}
}

// However many changes, the Markdown stays under GitHub's comment limit,
// folds long sections, and says how many it left out.
func TestMarkdownLimit(t *testing.T) {
	before, after := state(), state()
	for i := range 20000 {
		after.Report.Findings = append(after.Report.Findings, check.Finding{Severity: "error", Check: "Lands", Message: strings.Repeat("x", 200) + string(rune('a'+i%26))})
		after.Quotas["t"] = append(after.Quotas["t"], Quota{Scope: "namespace m" + strings.Repeat("y", i%50), Resource: "r" + string(rune('a'+i%26)) + strings.Repeat("z", i/26), Value: resource.MustParse("1")})
	}
	md := Compare(before, after, []FileChange{{Path: "x", Kind: "changed"}}).Markdown("", nil)
	if len(md) > MaxMarkdown {
		t.Fatalf("markdown is %d bytes, over %d", len(md), MaxMarkdown)
	}
	for _, w := range []string{"<details><summary>New errors (20000)</summary>", "more: `gpufleet plan --format json` lists them all."} {
		if !strings.Contains(string(md), w) {
			t.Errorf("markdown lacks %q", w)
		}
	}
}
