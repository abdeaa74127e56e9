package plan

import (
	"fmt"
	"strings"
)

// GitHub refuses a pull-request comment over 65,536 characters (and a step
// summary over 1 MiB): the Markdown is at most MaxMarkdown bytes, with
// room for a workflow's own lines around it.
const MaxMarkdown = 60000

// MaxItem is the most runes of one item (a change, a finding, a note) the
// Markdown quotes, and MaxTextItem the text's: a name in the committed
// tree may be of any length.
const (
	MaxItem     = 500
	MaxTextItem = 4000
)

// A section of more than openItems items is collapsed into <details>, and
// one of more than maxItems lists that many and says how many more.
const (
	openItems = 8
	maxItems  = 50
)

// mdSection is a section as its Markdown lines.
type mdSection struct {
	open, close []string // the heading or <details>, and what ends it
	items       []string // "- item" each
	note        []string
	total       int
}

// Markdown is the plan for a pull-request comment: the headline, then each
// section, most consequential first. Names and messages are literal text
// (mdText): no HTML, link, image, mention or autolink. line, if not nil,
// is applied to every line as the caller will print it (the CLI escapes
// each for the log), so the size cap holds what is printed.
//
// Past MaxMarkdown, every section keeps its head (its first openItems
// items, as far as they fit, in order of consequence) before any gets
// more, and the plan ends saying how much it left out.
func (p *Plan) Markdown(diffHint string, line func(string) string) []byte {
	if line == nil {
		line = func(s string) string { return s }
	}
	var b strings.Builder
	put := func(ls ...string) {
		for _, l := range ls {
			b.WriteString(line(l) + "\n")
		}
	}
	put("### gpufleet plan", "", "**"+mdText(p.Headline())+"**")
	if !p.Changed {
		return []byte(b.String())
	}
	put("", mdText(p.CountLine()))
	var secs []mdSection
	clipped, total := 0, 0
	for _, s := range p.sections(diffHint) {
		if len(s.items) == 0 {
			continue
		}
		m := mdSection{total: len(s.items)}
		title := fmt.Sprintf("%s (%d)", s.title, len(s.items))
		if len(s.items) > openItems {
			m.open, m.close = []string{"", "<details><summary>" + title + "</summary>", ""}, []string{"", "</details>"}
		} else {
			m.open = []string{"", "#### " + title, ""}
		}
		for _, it := range s.items[:min(len(s.items), maxItems)] {
			c := clip(it, MaxItem)
			if c != it {
				clipped++
			}
			m.items = append(m.items, line("- "+mdItem(c))+"\n")
		}
		if s.note != "" {
			m.note = []string{"", mdText(clip(s.note, MaxItem))}
		}
		total += len(s.items)
		secs = append(secs, m)
	}

	// The budget after every section's heading, note and "more" line.
	budget := MaxMarkdown - b.Len() - len(line(cutLine(total, total, total))) - 1
	for _, s := range secs {
		budget -= linesLen(line, s.open) + linesLen(line, s.close) + linesLen(line, s.note) + len(line(moreLine(s.total))) + 1
	}
	shown := make([]int, len(secs))
	for _, upTo := range []int{openItems, maxItems} {
		for i, s := range secs {
			for shown[i] < min(upTo, len(s.items)) && len(s.items[shown[i]]) <= budget {
				budget -= len(s.items[shown[i]])
				shown[i]++
			}
		}
	}

	left := 0
	for i, s := range secs {
		put(s.open...)
		for _, it := range s.items[:shown[i]] {
			b.WriteString(it)
		}
		if n := s.total - shown[i]; n > 0 {
			put(moreLine(n))
			left += n
		}
		put(s.note...)
		put(s.close...)
	}
	if left > 0 || clipped > 0 {
		put("", cutLine(total-left, total, clipped))
	}
	return []byte(b.String())
}

func moreLine(n int) string {
	return fmt.Sprintf("- … and %d more: `gpufleet plan --format json` lists them all.", n)
}

// cutLine says what a cut plan left out, and where the whole plan is.
func cutLine(shown, total, clipped int) string {
	s := fmt.Sprintf("**This comment shows %d of the plan's %d items", shown, total)
	if clipped > 0 {
		s += fmt.Sprintf(" (%d shortened to %d characters)", clipped, MaxItem)
	}
	return s + ", to stay readable and under GitHub's comment limit: `gpufleet plan --format json` has the whole plan.**"
}

func linesLen(line func(string) string, ls []string) int {
	n := 0
	for _, l := range ls {
		n += len(line(l)) + 1
	}
	return n
}

// clip is s cut to max runes, saying how many it left out.
func clip(s string, max int) string {
	n := 0
	for i := range s {
		if n == max {
			return s[:i] + fmt.Sprintf("… (%d more characters)", len([]rune(s[i:])))
		}
		n++
	}
	return s
}

// mdItem is an item as Markdown: its action's symbol, if it starts with
// one, as code ("- - x" and "- + x" would be nested lists), then the
// literal text.
func mdItem(it string) string {
	for _, a := range []string{Create, Update, Replace, Destroy, Refuse} {
		if rest, ok := strings.CutPrefix(it, Symbol(a)+" "); ok {
			return "`" + Symbol(a) + "` " + mdText(rest)
		}
	}
	return mdText(it)
}
