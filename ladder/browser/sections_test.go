package browser_test

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/report"
)

// mdSection is one heading of report/placement.md and what is under it up
// to the next: its tables' body rows and its list items.
type mdSection struct {
	level int
	title string
	rows  [][]string
	items []string
}

var mdHeading = regexp.MustCompile(`^(#{1,6}) (.+)$`)

// parseMarkdown splits the Markdown report into its sections, on its own
// terms: a heading is a line of #s, a table row a line of "| a | b |"
// (the line of dashes under a table's head, and its head, left out), an
// item a line of "- ".
func parseMarkdown(md []byte) []mdSection {
	var out []mdSection
	head := false // the next table row is a head
	sc := bufio.NewScanner(bytes.NewReader(md))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := mdHeading.FindStringSubmatch(line); m != nil {
			out = append(out, mdSection{level: len(m[1]), title: m[2]})
			head = true
			continue
		}
		if len(out) == 0 {
			continue
		}
		s := &out[len(out)-1]
		switch {
		case strings.HasPrefix(line, "|---"):
		case strings.HasPrefix(line, "| "):
			if head {
				head = false
				continue
			}
			s.rows = append(s.rows, strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "| "), " |"), " | "))
		case strings.HasPrefix(line, "- "):
			s.items = append(s.items, strings.ReplaceAll(strings.TrimPrefix(line, "- "), "**", ""))
		case line == "":
		default:
			head = true // a paragraph: the next table starts with its head
		}
	}
	return out
}

// tableOf is each section's table on the page whose cells the Markdown's
// are, by the Markdown's heading; the page may hold more in a column
// (contains).
var tableOf = map[string]struct {
	id       string
	contains map[int]bool
}{
	"Admission, then placement": {id: "units"},
	"Quota against capacity":    {id: "quota-capacity"},
	"Reserved capacity":         {id: "reserved-capacity"},
	"Pools at max size":         {id: "pools-at-max", contains: map[int]bool{1: true}},
}

// checkSections holds the page Chromium rendered to the Markdown report:
// every heading of the Markdown at the same level and in the same words,
// in the same order; the findings, each as the Markdown words it; and
// the tables the page draws as the Markdown does, cell for cell.
func checkSections(doc *html.Node, md []byte) []string {
	var bad []string
	type heading struct {
		level int
		title string
	}
	var page []heading
	for _, n := range find(doc, func(n *html.Node) bool {
		return n.DataAtom == atom.H1 || n.DataAtom == atom.H2 || n.DataAtom == atom.H3
	}) {
		page = append(page, heading{int(n.Data[1] - '0'), text(n)})
	}
	at := 0
	for _, s := range parseMarkdown(md) {
		want := strings.Repeat("#", s.level) + " " + s.title
		i := at
		for i < len(page) && page[i] != (heading{s.level, s.title}) {
			i++
		}
		if i == len(page) {
			bad = append(bad, fmt.Sprintf("the page has no %q after the sections before it", want))
			continue
		}
		at = i + 1
		if s.title == "Findings" {
			bad = append(bad, checkFindings(doc, s)...)
		}
		if tb, ok := tableOf[s.title]; ok {
			bad = append(bad, checkTable(doc, want, tb.id, s.rows, tb.contains)...)
		}
	}
	return bad
}

// checkFindings: the page lists the Markdown's findings, in its order.
func checkFindings(doc *html.Node, s mdSection) []string {
	var got []string
	for _, ul := range find(doc, func(n *html.Node) bool { return n.DataAtom == atom.Ul && hasClass(n, "findings") }) {
		for _, li := range children(ul, atom.Li) {
			got = append(got, text(li))
		}
	}
	want := s.items[:min(len(s.items), report.HTMLRows)]
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		return []string{fmt.Sprintf("the page's findings are %q, the Markdown's %q", got, want)}
	}
	return nil
}

// checkTable: table#id's body rows are the Markdown's rows, cell for cell.
func checkTable(doc *html.Node, section, id string, want [][]string, contains map[int]bool) []string {
	table := byID(doc, id)
	if table == nil {
		return []string{fmt.Sprintf("%s: no table#%s", section, id)}
	}
	var bad []string
	var got [][]string
	for _, tbody := range elements(table, atom.Tbody) {
		for _, tr := range children(tbody, atom.Tr) {
			var cells []string
			for _, td := range children(tr, atom.Td) {
				cells = append(cells, text(td))
			}
			got = append(got, cells)
		}
	}
	if len(want) == 0 && len(got) == 1 && len(got[0]) == 1 {
		return nil // "None."
	}
	if len(got) != min(len(want), report.HTMLRows) {
		bad = append(bad, fmt.Sprintf("%s: %d rows on the page, the Markdown %d", section, len(got), len(want)))
	}
	for i := range min(len(got), len(want)) {
		if len(got[i]) != len(want[i]) {
			bad = append(bad, fmt.Sprintf("%s: row %d has %d cells, the Markdown's %d", section, i, len(got[i]), len(want[i])))
			continue
		}
		for k := range want[i] {
			if g, w := got[i][k], strings.Join(strings.Fields(want[i][k]), " "); g != w && !(contains[k] && strings.Contains(g, w)) {
				bad = append(bad, fmt.Sprintf("%s: row %d, cell %d shows %q, the Markdown %q", section, i, k, g, w))
			}
		}
	}
	return bad
}

// renderWhole loads the page at path once for its DOM and a screenshot
// of the whole page (a window as tall as the example fleets' pages),
// saved as name.png in the test's artifact directory (go test -artifacts
// keeps it under -outputdir) and its path logged; it returns the DOM and
// the screenshot's first screen, shotW × shotH, as render's.
func renderWhole(t *testing.T, path, name string) (*html.Node, image.Image) {
	t.Helper()
	shot := filepath.Join(t.ArtifactDir(), name+".png")
	out := chromium(t, "--dump-dom", "--screenshot="+shot, fmt.Sprintf("--window-size=%d,%d", shotW, pageH), fileURL(t, path))
	_, img := decodeShot(t, path, shot)
	t.Logf("screenshot of the whole page: %s", shot)
	first, ok := img.(interface {
		SubImage(image.Rectangle) image.Image
	})
	if !ok || img.Bounds().Dx() != shotW || img.Bounds().Dy() < shotH {
		t.Fatalf("screenshot of %s is %v, want %d wide and %d tall or more", path, img.Bounds(), shotW, shotH)
	}
	return parseDOM(t, path, out), first.SubImage(image.Rect(0, 0, shotW, shotH))
}

// pageH is the height of the window renderWhole takes.
const pageH = 7000

// The checks of the sections catch what they are for: the platform
// fleet's page without one of the Markdown's sections, and with one
// figure of the admission table changed.
func TestSectionBugs(t *testing.T) {
	t.Parallel()
	res, err := compiler.Compile([]string{"../../fleets/platform"})
	if err != nil {
		t.Fatal(err)
	}
	md, page := res.Tree[report.MarkdownPath], res.Tree[report.HTMLPath]
	dropped := regexp.MustCompile(`(?s)<section id="quota">.*?</section>\n`).ReplaceAll(page, nil)
	if bytes.Equal(dropped, page) {
		t.Fatal("the page has no quota section to drop: update the bug case")
	}
	mustReport(t, checkSections(dumpDOM(t, writePage(t, dropped)), md), `^the page has no "## Quota against capacity" after the sections before it$`)

	r := *res.Report
	r.Units = append(r.Units[:0:0], r.Units...)
	r.Units[0].Pods++
	mustReport(t, checkSections(dumpDOM(t, writePage(t, report.HTML(&r))), md), `^## Admission, then placement: row 0, cell 3 shows "\d+", the Markdown "\d+"$`)
}
