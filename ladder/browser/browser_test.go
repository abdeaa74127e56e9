package browser_test

import (
	"bytes"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/report"
	"github.com/gpufleet/gpufleet/internal/cli"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

func exampleFleets(t *testing.T) []string {
	t.Helper()
	fleets, err := filepath.Glob("../../fleets/*")
	if err != nil || len(fleets) == 0 {
		t.Fatalf("no example fleets under ../../fleets: %v", err)
	}
	return fleets
}

// build runs `gpufleet build SPEC -o DIR` in-process and returns DIR.
func build(t *testing.T, spec string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "tree")
	var stdout, stderr bytes.Buffer
	if code := cli.Run([]string{"build", spec, "-o", out}, &stdout, &stderr); code != cli.ExitOK {
		t.Fatalf("gpufleet build %s -o %s: exit %d\n%s%s", spec, out, code, stdout.String(), stderr.String())
	}
	return out
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writePage(t *testing.T, page []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "placement.html")
	if err := os.WriteFile(p, page, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func report1(bad []string) string {
	const most = 20
	if len(bad) > most {
		bad = append(bad[:most:most], "...")
	}
	return strings.Join(bad, "\n")
}

// Each example fleet's page, as gpufleet build writes it, shows in
// Chromium every cell and figure of the placement.json beside it, and
// draws a heat map.
func TestExampleFleetPages(t *testing.T) {
	for _, spec := range exampleFleets(t) {
		t.Run(filepath.Base(spec), func(t *testing.T) {
			t.Parallel()
			tree := build(t, spec)
			rep, err := parseReport(readFile(t, filepath.Join(tree, report.JSONPath)))
			if err != nil {
				t.Fatalf("%s: %v", report.JSONPath, err)
			}
			page := filepath.Join(tree, report.HTMLPath)
			doc, shot := renderWhole(t, page, filepath.Base(spec))
			if bad := checkPage(doc, rep); len(bad) > 0 {
				t.Errorf("the page disagrees with placement.json:\n%s", report1(bad))
			}
			md := readFile(t, filepath.Join(tree, report.MarkdownPath))
			if bad := checkSections(doc, md); len(bad) > 0 {
				t.Errorf("the page lacks what placement.md says:\n%s", report1(bad))
			}
			t.Logf("%d sections of placement.md on the page", len(parseMarkdown(md)))
			cells := len(find(doc, func(n *xhtml.Node) bool {
				_, ok := attr(n, "data-fits")
				return n.DataAtom == atom.Td && ok
			}))
			t.Logf("%d classes × %d pools: %d cells, %d class costs, %d tenants, %d stranded rows held to the JSON; page %d bytes",
				len(rep.Classes), len(rep.Pools), cells, len(rep.Cost.Classes), len(rep.Cost.Tenants), len(rep.Cost.Stranded), len(readFile(t, page)))
			if err := checkPicture(shot); err != nil {
				t.Errorf("screenshot: %v", err)
			}
		})
	}
}

// A generated fleet bigger than the page's matrix (150 classes, 300
// pools: fleetgen's L) is cut to the first classes by name and the pools
// they land on, and the page says what it left out; every cell it draws
// is still the JSON's, and the screenshot is a heat map.
func TestCutMatrixPage(t *testing.T) {
	t.Parallel()
	spec := filepath.Join(t.TempDir(), "L.json")
	if err := os.WriteFile(spec, fleetgen.JSON(fleetgen.Generate(1, fleetgen.L, fleetgen.Options{Buildable: true})), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := compiler.Compile([]string{spec})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := parseReport(res.Tree[report.JSONPath])
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Classes) <= report.HTMLClasses || len(rep.Pools) <= report.HTMLPools {
		t.Fatalf("%d classes × %d pools fit the page's %d × %d: the matrix is not cut", len(rep.Classes), len(rep.Pools), report.HTMLClasses, report.HTMLPools)
	}
	doc, shot := render(t, writePage(t, res.Tree[report.HTMLPath]))
	if bad := checkPage(doc, rep); len(bad) > 0 {
		t.Errorf("the page disagrees with placement.json:\n%s", report1(bad))
	}
	if note := byID(doc, "matrix-cut"); note != nil {
		t.Logf("%s", text(note))
	}
	if err := checkPicture(shot); err != nil {
		t.Errorf("screenshot: %v", err)
	}
}

// platform compiles the platform example in-process: its report, and the
// placement.json its tree holds.
func platform(t *testing.T) (*check.Report, *placementJSON) {
	t.Helper()
	res, err := compiler.Compile([]string{"../../fleets/platform"})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := parseReport(res.Tree[report.JSONPath])
	if err != nil {
		t.Fatal(err)
	}
	return res.Report, rep
}

// mustReport fails unless one of the checker's complaints matches want.
func mustReport(t *testing.T, bad []string, want string) {
	t.Helper()
	re := regexp.MustCompile(want)
	for _, b := range bad {
		if re.MatchString(b) {
			t.Logf("caught: %s", b)
			return
		}
	}
	t.Errorf("the check missed the bug: no complaint matches %q in:\n%s", want, report1(bad))
}

// The checks catch what they are for: a page of a report that differs
// from the JSON in one capacity, or one price; a blank page; a page whose
// style is lost; a page that lets a name through as markup.
func TestDeliberateBugs(t *testing.T) {
	t.Run("capacity changed", func(t *testing.T) {
		t.Parallel()
		r, rep := platform(t)
		changed := ""
	rows:
		for i := range r.Rows {
			for k := range r.Rows[i].Evaluated {
				if c := &r.Rows[i].Evaluated[k]; c.Fits {
					c.Capacity++
					changed = c.Class + " × " + c.Pool
					break rows
				}
			}
		}
		if changed == "" {
			t.Fatal("no class lands on a pool in the platform fleet")
		}
		bad := checkPage(dumpDOM(t, writePage(t, report.HTML(r))), rep)
		mustReport(t, bad, "^"+regexp.QuoteMeta(changed)+`: capacity \d+ \(shows "\d+"\), the JSON says \d+$`)
	})
	t.Run("price changed", func(t *testing.T) {
		t.Parallel()
		r, rep := platform(t)
		changed := ""
		for i := range r.Cost.Classes {
			if c := &r.Cost.Classes[i]; c.Hourly != nil {
				v := *c.Hourly + 0.01
				c.Hourly, changed = &v, c.Class+" on "+c.Pool
				break
			}
		}
		if changed == "" {
			t.Fatal("no priced class in the platform fleet")
		}
		bad := checkPage(dumpDOM(t, writePage(t, report.HTML(r))), rep)
		mustReport(t, bad, "^"+regexp.QuoteMeta(changed)+`: costs "\$[0-9.]+" \(data [0-9.]+\), the JSON \$[0-9.]+$`)
	})
	t.Run("blank page", func(t *testing.T) {
		t.Parallel()
		_, rep := platform(t)
		page := writePage(t, []byte("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Placement report</title></head><body></body></html>\n"))
		doc, shot := render(t, page)
		if err := checkPicture(shot); err == nil {
			t.Error("the picture check passed a blank page")
		} else {
			t.Logf("caught: %v", err)
		}
		mustReport(t, checkPage(doc, rep), `^no table#placement-matrix$`)
	})
	t.Run("style lost", func(t *testing.T) {
		t.Parallel()
		r, rep := platform(t)
		page := report.HTML(r)
		unstyled := regexp.MustCompile(`(?s)<style>.*</style>`).ReplaceAll(page, nil)
		if bytes.Equal(unstyled, page) {
			t.Fatal("the page has no <style> to lose: update the bug case")
		}
		doc, shot := render(t, writePage(t, unstyled))
		// The DOM is the same, so the DOM check cannot see it ...
		if bad := checkPage(doc, rep); len(bad) > 0 {
			t.Errorf("the unstyled page's DOM disagrees with the JSON:\n%s", report1(bad))
		}
		// ... but the picture has no heat map.
		if err := checkPicture(shot); err == nil {
			t.Error("the picture check passed a page without its style")
		} else {
			t.Logf("caught: %v", err)
		}
	})
	t.Run("name unescaped", func(t *testing.T) {
		t.Parallel()
		hostile := []string{`<script>document.title="pwned"</script>`, `"><img src=x onerror=alert(1)>`, `x' onmouseover='alert(1)`}
		r := &check.Report{Classes: hostile, Pools: hostile, Findings: []check.Finding{}}
		for i, c := range hostile {
			cells := make([]sched.Cell, len(hostile))
			for j, p := range hostile {
				cells[j] = sched.Cell{Class: c, Pool: p, Fits: i == j, Capacity: int64(i + 1), Type: p}
				if i != j {
					cells[j].Reasons = []string{hostile[(i+j)%len(hostile)]}
				}
			}
			r.Rows = append(r.Rows, *sched.NewRow(cells))
		}
		page := report.HTML(r)
		doc := dumpDOM(t, writePage(t, page))
		if bad := checkSelfContained(doc); len(bad) > 0 {
			t.Errorf("hostile names reached the DOM as markup:\n%s", report1(bad))
		}
		var classes []string
		for _, tr := range find(doc, func(n *xhtml.Node) bool { return n.DataAtom == atom.Tr }) {
			if c, ok := attr(tr, "data-class"); ok {
				classes = append(classes, c)
			}
		}
		if want := firstByName(hostile, len(hostile)); strings.Join(classes, "\n") != strings.Join(want, "\n") {
			t.Errorf("the rows name classes %q, want the names as written %q", classes, want)
		}
		// The same page with one name left unescaped is caught.
		name := hostile[1]
		leaky := bytes.Replace(page, []byte(html.EscapeString(name)), []byte(name), 1)
		if bytes.Equal(leaky, page) {
			t.Fatal("the page does not hold the escaped name: update the bug case")
		}
		mustReport(t, checkSelfContained(dumpDOM(t, writePage(t, leaky))), `^(a <img> element|src="x" on <img>|an event handler onerror on <img>)$`)
	})
}
