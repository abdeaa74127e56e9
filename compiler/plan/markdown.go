package plan

import (
	"bytes"
	"fmt"
	"strings"
)

// GitHub refuses a pull-request comment over 65,536 characters; the
// Markdown stays under MaxMarkdown with room for a workflow's own lines.
const MaxMarkdown = 60000

// A section of more than openItems items is collapsed into <details>, and
// one of more than maxItems lists that many and says how many more.
const (
	openItems = 8
	maxItems  = 50
)

// Markdown is the plan for a pull-request comment: the headline, then each
// section, most consequential first. Names and messages are escaped, so a
// spec's text cannot add links, images or HTML to the comment.
func (p *Plan) Markdown(diffHint string) []byte {
	limit := maxItems
	for {
		b := p.markdown(diffHint, limit)
		if len(b) <= MaxMarkdown || limit <= 1 {
			return b
		}
		limit /= 2
	}
}

func (p *Plan) markdown(diffHint string, limit int) []byte {
	var b bytes.Buffer
	b.WriteString("### gpufleet plan\n\n**" + mdEscape(p.Headline()) + "**\n")
	if !p.Changed {
		return b.Bytes()
	}
	for _, s := range p.sections(diffHint) {
		if len(s.items) == 0 {
			continue
		}
		title := fmt.Sprintf("%s (%d)", s.title, len(s.items))
		folded := len(s.items) > openItems
		if folded {
			b.WriteString("\n<details><summary>" + title + "</summary>\n\n")
		} else {
			b.WriteString("\n#### " + title + "\n\n")
		}
		for i, it := range s.items {
			if i == limit {
				fmt.Fprintf(&b, "- … and %d more: `gpufleet plan --format json` lists them all.\n", len(s.items)-limit)
				break
			}
			b.WriteString("- " + mdEscape(it) + "\n")
		}
		if s.note != "" {
			b.WriteString("\n" + mdEscape(s.note) + "\n")
		}
		if folded {
			b.WriteString("\n</details>\n")
		}
	}
	return b.Bytes()
}

// mdEscape makes s literal text in GitHub's Markdown: its HTML and the
// characters that start emphasis, code, links and images are escaped, and
// it stays on one line.
var mdEscape = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "!", `\!`, "|", `\|`, "~", `\~`, "#", `\#`,
	"\r", " ", "\n", " ",
).Replace
