package report_test

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/report"
)

var (
	mdHeading   = regexp.MustCompile(`(?m)^(#{1,3}) (.+)$`)
	pageHeading = regexp.MustCompile(`<h([1-3])[^>]*>([^<]*)</h[1-3]>`)
)

// missingHeadings are the Markdown report's headings the page has not at
// the same level and in the same words.
func missingHeadings(md, page []byte) []string {
	have := map[string]bool{}
	for _, m := range pageHeading.FindAllSubmatch(page, -1) {
		have[string(m[1])+" "+html.UnescapeString(string(m[2]))] = true
	}
	var missing []string
	for _, m := range mdHeading.FindAllSubmatch(md, -1) {
		if key := fmt.Sprint(len(m[1])) + " " + string(m[2]); !have[key] {
			missing = append(missing, string(m[0]))
		}
	}
	return missing
}

// Every example fleet's page has every section of its Markdown report,
// under the same heading, and each pool's product, capacity type,
// instance types and size in the matrix's head; a page with one section
// dropped is caught.
func TestHTMLSupersetOfMarkdown(t *testing.T) {
	for _, dir := range exampleSpecs(t) {
		res, err := compiler.Compile([]string{dir})
		if err != nil {
			t.Fatal(err)
		}
		md, page := res.Tree[report.MarkdownPath], res.Tree[report.HTMLPath]
		if missing := missingHeadings(md, page); len(missing) > 0 {
			t.Errorf("%s: the page lacks the Markdown's %q", dir, missing)
		}
		for _, info := range res.Report.PoolInfo {
			if info.Max == 0 || len(info.Types) == 0 {
				t.Errorf("%s: pool %s has no size or type: %+v", dir, info.Pool, info)
			}
			head := fmt.Sprintf("data-pool-info=%q>", info.Pool)
			if !bytes.Contains(page, []byte(head)) || !strings.Contains(string(page), fmt.Sprintf("%d–%d nodes", info.Min, info.Max)) {
				t.Errorf("%s: the matrix's head does not say what pool %s is", dir, info.Pool)
			}
		}
		for _, id := range []string{`id="matrix-gpus"`, `id="matrix-dollars"`, `id="per-tenant"`} {
			if !bytes.Contains(page, []byte(id)) {
				t.Errorf("%s: the page has no %s", dir, id)
			}
		}
		// The deliberate bug: the quota section dropped.
		i := bytes.Index(page, []byte(`<section id="quota">`))
		j := bytes.Index(page[i:], []byte("</section>\n"))
		bug := append(append([]byte{}, page[:i]...), page[i+j+len("</section>\n"):]...)
		if missing := missingHeadings(md, bug); len(missing) != 1 || missing[0] != "## Quota against capacity" {
			t.Errorf("%s: the page without its quota section is missing %q", dir, missing)
		}
	}
}
