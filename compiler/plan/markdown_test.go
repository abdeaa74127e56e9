package plan

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/nodes"
)

var files = []FileChange{{Path: "x", Kind: "changed"}}

// outsideCode is a Markdown line without its code spans (a run of
// backticks to the next run of the same length): what GitHub's mention
// and autolink filters read.
func outsideCode(l string) string {
	var out strings.Builder
	for {
		i := strings.Index(l, "`")
		if i < 0 {
			return out.String() + l
		}
		n := len(l[i:]) - len(strings.TrimLeft(l[i:], "`"))
		out.WriteString(l[:i])
		rest, end := l[i+n:], -1
		for j := 0; j < len(rest); {
			m := len(rest[j:]) - len(strings.TrimLeft(rest[j:], "`"))
			if m == n {
				end = j
				break
			}
			j += max(m, 1)
		}
		if end < 0 {
			out.WriteString(l[i : i+n])
			l = rest
			continue
		}
		l = rest[end+n:]
	}
}

// Mentions, issue references and links from the committed tree or the
// spec are code spans in the comment: GitHub neither pings nor links them.
func TestMarkdownNoLiveMentionsOrLinks(t *testing.T) {
	hostile := []string{"@octocat", "@org/team", "a@b.example", "#12", "org/repo#3", "https://evil.example/x", "HTTP://e.example", "www.evil-login.example", "(www.e.example)", "`@x`", "x``@y"}
	after := state()
	for _, h := range hostile {
		after.Report.Findings = append(after.Report.Findings, check.Finding{Severity: "error", Check: "Lands", Message: "see " + h + " now"})
	}
	after.Examples["c"] = Example{Scheduler: "www.evil-login.example", Priority: "p"}
	md := string(Compare(state(), after, files).Markdown("", nil))
	live := regexp.MustCompile(`(?i)@[a-z0-9]|#[0-9]|://|www\.`)
	for _, l := range strings.Split(md, "\n") {
		if rest := outsideCode(l); live.MatchString(rest) {
			t.Errorf("live outside a code span: %q (of %q)", rest, l)
		}
	}
	for _, w := range []string{"- error Lands: see `@octocat` now", "scheduler default-scheduler → `www.evil-login.example`", "see ```x``@y``` now", "see `` `@x` `` now"} {
		if !strings.Contains(md, w) {
			t.Errorf("markdown lacks %q:\n%s", w, md)
		}
	}
}

// bigPlan is a dense change (issue 51's was 2,000 pools and classes):
// every pool grows, every class lands on every pool with more pods, and
// each class has a new warning. Its pools' names hold '&', which the
// Markdown writes as "&amp;", so the classes' section alone would exceed
// the limit.
func bigPlan(n int) *Plan {
	before, after := state(), state()
	for i := range n {
		pool := fmt.Sprintf("pool-%04d"+strings.Repeat("&", 30), i)
		g := nodes.Group{Pool: pool, Source: "eksctl", InstanceTypes: []string{"g5.xlarge"}, Zones: []string{"z1"}, MaxNodes: 4}
		before.Groups = append(before.Groups, g)
		g.MaxNodes = 8
		after.Groups = append(after.Groups, g)
	}
	for i := range n {
		class := fmt.Sprintf("class-%04d", i)
		before.Report.Classes = append(before.Report.Classes, class)
		after.Report.Classes = append(after.Report.Classes, class)
		before.Report.Lands[class], after.Report.Lands[class] = map[string]Land{}, map[string]Land{}
		for _, g := range before.Groups[1:] {
			before.Report.Lands[class][g.Pool] = Land{Type: "g5.xlarge", Capacity: 4}
			after.Report.Lands[class][g.Pool] = Land{Type: "g5.xlarge", Capacity: 8}
		}
		after.Report.Findings = append(after.Report.Findings, check.Finding{Severity: "warning", Check: "Spread", Class: class, Message: "spread " + class})
	}
	return Compare(before, after, files)
}

// Past GitHub's limit every section keeps its head, and the comment says
// how much it left out and where the whole plan is.
func TestMarkdownCapKeepsEverySection(t *testing.T) {
	p := bigPlan(400)
	md := string(p.Markdown("see the diff", nil))
	if len(md) > MaxMarkdown {
		t.Fatalf("markdown is %d bytes, over %d", len(md), MaxMarkdown)
	}
	for _, w := range []string{
		"<details><summary>Node groups (400)</summary>", "- `~` pool pool-0007&amp;&amp;",
		"<details><summary>Classes (400)</summary>", "- `~` class class-0007: pool-0000&amp;",
		"<details><summary>New warnings (400)</summary>", "- warning Spread: spread class-0007",
		"#### Generated files (1)", "see the diff",
		"- … and 350 more: `gpufleet plan --format json` lists them all.",
		"**This comment shows 1", "`gpufleet plan --format json` has the whole plan.**",
	} {
		if !strings.Contains(md, w) {
			t.Errorf("markdown lacks %q", w)
		}
	}
	// The classes' section is cut by the budget, after every section's
	// head: the warnings still list their first eight.
	classes, warnings := strings.Count(md, "\n- `~` class class-"), strings.Count(md, "\n- warning Spread")
	if classes < openItems || classes >= maxItems || warnings < openItems {
		t.Errorf("%d classes and %d warnings listed, want %d to %d classes and at least %d warnings", classes, warnings, openItems, maxItems-1, openItems)
	}
	if !strings.Contains(md, fmt.Sprintf("- … and %d more", 400-classes)) {
		t.Errorf("markdown does not say %d more classes", 400-classes)
	}
}

// A name of any length is cut in both formats, and a printer's escaping
// of each line is inside the cap.
func TestMarkdownHugeName(t *testing.T) {
	after := state()
	name := strings.Repeat("\x1b&", 1<<20)
	after.Report.Findings = []check.Finding{{Severity: "error", Check: "Lands", Message: name}}
	after.Examples["c"] = Example{Scheduler: name}
	p := Compare(state(), after, files)
	esc := func(s string) string { return strings.ReplaceAll(s, "\x1b", `\x1b`) }
	md := string(p.Markdown(name, esc))
	if len(md) > MaxMarkdown {
		t.Fatalf("markdown is %d bytes, over %d", len(md), MaxMarkdown)
	}
	for _, w := range []string{"… (2096652 more characters)", "shortened to 500 characters)"} {
		if !strings.Contains(md, w) {
			t.Errorf("markdown lacks %q:\n%.2000s", w, md)
		}
	}
	if text := p.Text(name, nil); len(text) > 4*(MaxTextItem*2+100) {
		t.Errorf("text is %d bytes", len(text))
	}
}

// The text plan has a total cap too (issue 51): a dense change, each of
// whose lines the printer escapes to twice its length, stays under
// MaxText as printed and says what it left out. Without the cap it is
// 2.5 MB.
func TestTextCap(t *testing.T) {
	p := bigPlan(400)
	double := func(s string) string { return strings.ReplaceAll(s, "&", "&&") }
	text := string(p.Text("see the diff", double))
	if len(text) > MaxText {
		t.Fatalf("text is %d bytes, over %d", len(text), MaxText)
	}
	if len(text) < MaxText/2 {
		t.Errorf("text is %d bytes: the cap cut far more than it needed", len(text))
	}
	shown := strings.Count(text, "\n  - ")
	want := fmt.Sprintf("This plan shows %d of its 1201 items, to stay under %d bytes: 'gpufleet plan --format json' has the whole plan.\n", shown, MaxText)
	if !strings.HasSuffix(text, want) {
		t.Errorf("text ends %q, want %q", text[max(0, len(text)-300):], want)
	}
	if small := string(Compare(state(), state(), files).Text("", nil)); strings.Contains(small, "This plan shows") {
		t.Errorf("an uncut plan says it was cut:\n%s", small)
	}
}
