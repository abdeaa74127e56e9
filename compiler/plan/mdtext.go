package plan

import (
	"regexp"
	"strings"
)

// mdText makes s literal text in GitHub's Markdown, on one line. A word
// GitHub would make live is a code span (mention and autolink filters
// leave code alone, and it stays readable): "@user", "@org/team", an
// e-mail address, "#123", "https://…" and "www.…", which a committed
// name or a spec's value (schedulerName: "www.evil-login.example") would
// otherwise turn into a ping or a link in the pull request. The rest is
// escaped (mdEscape).
func mdText(s string) string {
	s = strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
	return word.ReplaceAllStringFunc(s, func(w string) string {
		switch {
		case live(w):
			return codeSpan(w)
		case price.MatchString(w):
			return w // its '$' opens no math: no word closes it unescaped
		}
		return mdEscape(w)
	})
}

var (
	word  = regexp.MustCompile(`[^ \t]+`)
	price = regexp.MustCompile(`^\$[0-9]+\.[0-9]{2}$`)
)

// live is a word GitHub may render as a mention, an issue reference or a
// link: it holds '@' or '#', a scheme's "://" or "www.".
func live(w string) bool {
	l := strings.ToLower(w)
	return strings.ContainsAny(w, "@#") || strings.Contains(l, "://") || strings.Contains(l, "www.")
}

// codeSpan is w, which holds no space, as a code span: its fence is longer
// than any run of backticks in w, and a space each side (which Markdown
// strips) keeps a backtick at w's edge from joining the fence.
func codeSpan(w string) string {
	fence := "`"
	for strings.Contains(w, fence) {
		fence += "`"
	}
	if strings.HasPrefix(w, "`") || strings.HasSuffix(w, "`") {
		w = " " + w + " "
	}
	return fence + w + fence
}

// mdEscape makes a word literal text: its HTML and the characters that
// start emphasis, code, links, images and math are escaped.
var mdEscape = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "!", `\!`, "|", `\|`, "~", `\~`, "#", `\#`, "$", `\$`,
).Replace
