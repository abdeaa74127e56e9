package browser_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/gpufleet/gpufleet/compiler/report"
)

// placementJSON is what the check reads of report/placement.json
// (schemaVersion 2), decoded on its own terms rather than with the
// compiler's types, so that a bug shared by both cannot hide.
type placementJSON struct {
	SchemaVersion int      `json:"schemaVersion"`
	Pools         []string `json:"pools"`
	Classes       []string `json:"classes"`
	Placement     []struct {
		Class string `json:"class"`
		Lands []struct {
			Pool     string `json:"pool"`
			Type     string `json:"type"`
			Capacity int64  `json:"capacity"`
		} `json:"lands"`
		Refused []struct {
			Reasons []string `json:"reasons"`
			Pools   []string `json:"pools"`
		} `json:"refused"`
	} `json:"placement"`
	Cost *struct {
		Classes []struct {
			Class   string   `json:"class"`
			Pool    string   `json:"pool"`
			Type    string   `json:"type"`
			Nodes   int64    `json:"nodes"`
			Hourly  *float64 `json:"hourly"`
			Unknown string   `json:"unknown"`
		} `json:"classes"`
		Tenants []struct {
			Tenant string `json:"tenant"`
			Low    *struct {
				Pool   string   `json:"pool"`
				Hourly *float64 `json:"hourly"`
			} `json:"low"`
			High *struct {
				Pool   string   `json:"pool"`
				Hourly *float64 `json:"hourly"`
			} `json:"high"`
			Unknown string `json:"unknown"`
		} `json:"tenants"`
		Stranded []struct {
			Pool     string `json:"pool"`
			Type     string `json:"type"`
			Resource string `json:"resource"`
			PerNode  int64  `json:"perNode"`
			Usable   int64  `json:"usable"`
			Stranded int64  `json:"stranded"`
			Nodes    int64  `json:"nodes"`
		} `json:"stranded"`
		Fleet *struct {
			Low  *float64 `json:"low"`
			High *float64 `json:"high"`
		} `json:"fleet"`
	} `json:"cost"`
}

// cellWant is one class × pool cell as the JSON says it.
type cellWant struct {
	fits     bool
	capacity int64
	typ      string
	reasons  []string
}

func parseReport(b []byte) (*placementJSON, error) {
	var p placementJSON
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, err
	}
	if p.SchemaVersion != 2 {
		return nil, fmt.Errorf("schemaVersion %d, want 2", p.SchemaVersion)
	}
	return &p, nil
}

// cells is every class × pool cell the JSON holds, by class then pool.
func (p *placementJSON) cells() map[[2]string]cellWant {
	m := map[[2]string]cellWant{}
	for _, row := range p.Placement {
		for _, l := range row.Lands {
			m[[2]string{row.Class, l.Pool}] = cellWant{fits: true, capacity: l.Capacity, typ: l.Type}
		}
		for _, r := range row.Refused {
			for _, pool := range r.Pools {
				m[[2]string{row.Class, pool}] = cellWant{reasons: r.Reasons}
			}
		}
	}
	return m
}

// firstByName is the first n names in name order.
func firstByName(names []string, n int) []string {
	s := slices.Sorted(slices.Values(names))
	return s[:min(n, len(s))]
}

// drawn are the classes and pools the page's matrix must draw, in name
// order, and how many pools the classes land on: the first classes by
// name; the pools they land on by name, then the others by name, up to
// the page's limit.
func (p *placementJSON) drawn() (classes, pools []string, landing int) {
	classes = firstByName(p.Classes, report.HTMLClasses)
	lands := map[string]bool{}
	for _, row := range p.Placement {
		if slices.Contains(classes, row.Class) {
			for _, l := range row.Lands {
				lands[l.Pool] = true
			}
		}
	}
	var landed, others []string
	for _, pool := range firstByName(p.Pools, len(p.Pools)) {
		if lands[pool] {
			landed = append(landed, pool)
		} else {
			others = append(others, pool)
		}
	}
	pools = append(landed[:min(len(landed), report.HTMLPools)], others[:min(len(others), report.HTMLPools-min(len(landed), report.HTMLPools))]...)
	return classes, firstByName(pools, len(pools)), len(landed)
}

// DOM helpers.

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func find(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if match(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func byID(doc *html.Node, id string) *html.Node {
	found := find(doc, func(n *html.Node) bool {
		v, ok := attr(n, "id")
		return n.Type == html.ElementNode && ok && v == id
	})
	if len(found) != 1 {
		return nil
	}
	return found[0]
}

func elements(n *html.Node, a atom.Atom) []*html.Node {
	return find(n, func(c *html.Node) bool { return c.Type == html.ElementNode && c.DataAtom == a })
}

// children are n's element children of kind a.
func children(n *html.Node, a atom.Atom) []*html.Node {
	var out []*html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == a {
			out = append(out, c)
		}
	}
	return out
}

// text is what n shows, its whitespace collapsed.
func text(n *html.Node) string {
	var b strings.Builder
	for _, t := range find(n, func(c *html.Node) bool { return c.Type == html.TextNode }) {
		b.WriteString(t.Data)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func hasClass(n *html.Node, class string) bool {
	v, _ := attr(n, "class")
	return slices.Contains(strings.Fields(v), class)
}

// thousands writes n with a comma every three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// money is a total as the page must show it: to the cent, or unknown.
func money(v *float64) string {
	if v == nil {
		return "unknown"
	}
	return "$" + strconv.FormatFloat(*v, 'f', 2, 64)
}

// sameUSD reports whether a data attribute says the JSON's price.
func sameUSD(attr string, v *float64) bool {
	if v == nil {
		return attr == "unknown"
	}
	f, err := strconv.ParseFloat(attr, 64)
	return err == nil && f == *v
}

// checkSelfContained lists what in the DOM reaches outside the page or
// runs: any script, frame, image or external style, and any link that is
// not to a place on the page.
func checkSelfContained(doc *html.Node) []string {
	var bad []string
	for _, n := range find(doc, func(n *html.Node) bool { return n.Type == html.ElementNode }) {
		switch n.DataAtom {
		case atom.Script, atom.Iframe, atom.Img, atom.Link, atom.Object, atom.Embed, atom.Frame, atom.Video, atom.Audio, atom.Svg, atom.Form, atom.Base:
			bad = append(bad, fmt.Sprintf("a <%s> element", n.Data))
		}
		for _, a := range n.Attr {
			switch {
			case strings.HasPrefix(a.Key, "on"):
				bad = append(bad, fmt.Sprintf("an event handler %s on <%s>", a.Key, n.Data))
			case a.Key == "src" || a.Key == "srcset" || a.Key == "action":
				bad = append(bad, fmt.Sprintf("%s=%q on <%s>", a.Key, a.Val, n.Data))
			case a.Key == "href" && !strings.HasPrefix(a.Val, "#"):
				bad = append(bad, fmt.Sprintf("a link outside the page: %q", a.Val))
			}
		}
	}
	return bad
}

// checkPage lists every way the DOM of a report's page disagrees with
// the report's JSON: the matrix's cells (which are drawn, where, their
// verdict, capacity, shade, reasons and what they show), the cost and
// stranded GPU tables, and anything that leaves the page.
func checkPage(doc *html.Node, rep *placementJSON) []string {
	bad := checkSelfContained(doc)
	bad = append(bad, checkMatrix(doc, rep)...)
	bad = append(bad, checkCost(doc, rep)...)
	bad = append(bad, checkStranded(doc, rep)...)
	return bad
}

func checkMatrix(doc *html.Node, rep *placementJSON) []string {
	var bad []string
	table := byID(doc, "placement-matrix")
	if table == nil {
		return []string{"no table#placement-matrix"}
	}
	wantClasses, wantPools, landing := rep.drawn()
	cut := len(wantClasses) < len(rep.Classes) || len(wantPools) < len(rep.Pools)
	if note := byID(doc, "matrix-cut"); cut != (note != nil) {
		bad = append(bad, fmt.Sprintf("the matrix is cut: %v, but the page says so: %v", cut, note != nil))
	} else if cut {
		for _, want := range []string{
			fmt.Sprintf("first %s of %s classes by name", thousands(len(wantClasses)), thousands(len(rep.Classes))),
			fmt.Sprintf(" %s pools those classes land on", thousands(landing)),
			fmt.Sprintf("%s classes and %s pools are left out", thousands(len(rep.Classes)-len(wantClasses)), thousands(len(rep.Pools)-len(wantPools))),
		} {
			if !strings.Contains(text(note), want) {
				bad = append(bad, fmt.Sprintf("the note on the cut matrix does not say %q: %s", want, text(note)))
			}
		}
	}
	// The columns: the header row names the pools, in order.
	var pools []string
	for _, th := range elements(table, atom.Thead) {
		for _, h := range find(th, func(n *html.Node) bool { return n.DataAtom == atom.Th }) {
			if p, ok := attr(h, "data-pool"); ok {
				if text(h) != p {
					bad = append(bad, fmt.Sprintf("column header shows %q for pool %q", text(h), p))
				}
				pools = append(pools, p)
			}
		}
	}
	if !slices.Equal(pools, wantPools) {
		bad = append(bad, fmt.Sprintf("the columns are pools %v, want %v", pools, wantPools))
	}
	want := rep.cells()
	lands := map[string]int{}
	for _, row := range rep.Placement {
		lands[row.Class] = len(row.Lands)
	}
	seen := map[[2]string]bool{}
	type shaded struct {
		capacity int64
		level    int
		where    string
	}
	var shades []shaded
	legend := map[string]string{} // refusal letter → reasons it names
	var classes []string
	for _, tbody := range elements(table, atom.Tbody) {
		for _, tr := range children(tbody, atom.Tr) {
			class, _ := attr(tr, "data-class")
			classes = append(classes, class)
			ths := children(tr, atom.Th)
			if len(ths) != 1 || text(ths[0]) != class {
				bad = append(bad, fmt.Sprintf("row %q is not headed by its class's name", class))
			}
			tds := children(tr, atom.Td)
			if len(tds) != len(pools)+1 {
				bad = append(bad, fmt.Sprintf("row %q has %d cells, want %d pools and the count", class, len(tds), len(pools)))
				continue
			}
			if n := text(tds[len(pools)]); n != strconv.Itoa(lands[class]) {
				bad = append(bad, fmt.Sprintf("%s lands on %s pools on the page, %d in the JSON", class, n, lands[class]))
			}
			for k, td := range tds[:len(pools)] {
				c, _ := attr(td, "data-class")
				p, _ := attr(td, "data-pool")
				where := class + " × " + pools[k]
				if c != class || p != pools[k] {
					bad = append(bad, fmt.Sprintf("the cell in row %s, column %s says it is %s × %s", class, pools[k], c, p))
					continue
				}
				key := [2]string{class, p}
				seen[key] = true
				w, ok := want[key]
				if !ok {
					bad = append(bad, where+": a cell the JSON does not have")
					continue
				}
				fits, _ := attr(td, "data-fits")
				capAttr, _ := attr(td, "data-capacity")
				title, _ := attr(td, "title")
				shown := text(td)
				if fits != strconv.FormatBool(w.fits) {
					bad = append(bad, fmt.Sprintf("%s: data-fits %q, the JSON says fits %v", where, fits, w.fits))
					continue
				}
				if w.fits {
					capacity := strconv.FormatInt(w.capacity, 10)
					if capAttr != capacity || shown != capacity {
						bad = append(bad, fmt.Sprintf("%s: capacity %s (shows %q), the JSON says %s", where, capAttr, shown, capacity))
					}
					if typ, _ := attr(td, "data-type"); typ != w.typ || !strings.Contains(title, w.typ) {
						bad = append(bad, fmt.Sprintf("%s: type %q (title %q), the JSON says %q", where, typ, title, w.typ))
					}
					level := -1
					for l := 1; l <= 8; l++ {
						if hasClass(td, "h"+strconv.Itoa(l)) {
							level = l
						}
					}
					if level < 0 {
						bad = append(bad, where+": a cell that fits has no shade")
					}
					shades = append(shades, shaded{w.capacity, level, where})
					continue
				}
				if capAttr != "0" || !hasClass(td, "no") {
					bad = append(bad, fmt.Sprintf("%s: refused, yet capacity %q, class %v", where, capAttr, td.Attr))
				}
				if title != strings.Join(w.reasons, "; ") {
					bad = append(bad, fmt.Sprintf("%s: title %q, the JSON's reasons %q", where, title, w.reasons))
				}
				letter, _ := attr(td, "data-refusal")
				if shown != letter || letter == "" {
					bad = append(bad, fmt.Sprintf("%s: shows %q for the refusal %q", where, shown, letter))
				}
				if prev, ok := legend[letter]; ok && prev != title {
					bad = append(bad, fmt.Sprintf("%s: refusal %s stands for %q and for %q", where, letter, prev, title))
				}
				legend[letter] = title
			}
		}
	}
	if !slices.Equal(classes, wantClasses) {
		bad = append(bad, fmt.Sprintf("the rows are classes %v, want %v", classes, wantClasses))
	}
	for _, c := range wantClasses {
		for _, p := range wantPools {
			if !seen[[2]string{c, p}] {
				bad = append(bad, fmt.Sprintf("%s × %s: not drawn", c, p))
			}
		}
	}
	// The shades are a scale: more pods never a lighter shade.
	for _, a := range shades {
		for _, b := range shades {
			if a.capacity > b.capacity && a.level < b.level {
				bad = append(bad, fmt.Sprintf("%s (%d pods) is shaded h%d, lighter than %s (%d pods, h%d)", a.where, a.capacity, a.level, b.where, b.capacity, b.level))
			}
		}
	}
	// The legend under the matrix names each letter's reasons.
	if len(legend) > 0 {
		dl := byID(doc, "refusals")
		if dl == nil {
			return append(bad, "no legend of the refusals")
		}
		for _, dd := range elements(dl, atom.Dd) {
			letter, _ := attr(dd, "data-refusal")
			if reasons, ok := legend[letter]; ok && !strings.HasPrefix(text(dd), strings.Join(strings.Fields(reasons), " ")) {
				bad = append(bad, fmt.Sprintf("the legend says %s is %q, the cells %q", letter, text(dd), reasons))
			}
			delete(legend, letter)
		}
		for letter := range legend {
			bad = append(bad, "the legend does not name the refusal "+letter)
		}
	}
	return bad
}

// rows are the body rows of the table with the id.
func rows(doc *html.Node, id string) ([]*html.Node, error) {
	table := byID(doc, id)
	if table == nil {
		return nil, fmt.Errorf("no table#%s", id)
	}
	var out []*html.Node
	for _, tbody := range elements(table, atom.Tbody) {
		for _, tr := range children(tbody, atom.Tr) {
			if len(tr.Attr) > 0 && !hasClass(tr, "group") { // not a "none" row, nor a group's head
				out = append(out, tr)
			}
		}
	}
	return out, nil
}

func checkCost(doc *html.Node, rep *placementJSON) []string {
	c := rep.Cost
	if c == nil {
		return []string{"the JSON has no cost"}
	}
	var bad []string
	if f := c.Fleet; f != nil {
		p := byID(doc, "fleet-cost")
		if p == nil {
			bad = append(bad, "no fleet cost")
		} else {
			lo, _ := attr(p, "data-low")
			hi, _ := attr(p, "data-high")
			if !sameUSD(lo, f.Low) || !sameUSD(hi, f.High) || !strings.Contains(text(p), money(f.Low)) || !strings.Contains(text(p), money(f.High)) {
				bad = append(bad, fmt.Sprintf("the fleet at max size: %q (low %s, high %s), the JSON %s to %s", text(p), lo, hi, money(f.Low), money(f.High)))
			}
		}
	}
	trs, err := rows(doc, "class-cost")
	if err != nil {
		return append(bad, err.Error())
	}
	if len(trs) != min(len(c.Classes), report.HTMLRows) {
		bad = append(bad, fmt.Sprintf("%d class cost rows, the JSON %d", len(trs), len(c.Classes)))
	}
	// The rows are grouped by pool, in the report's pool order, each
	// pool's classes in the JSON's order.
	want := map[[2]string]int{}
	for i, w := range c.Classes {
		want[[2]string{w.Class, w.Pool}] = i
	}
	poolAt := map[string]int{}
	for j, p := range rep.Pools {
		poolAt[p] = j
	}
	last, lastPool := -1, -1
	for i, tr := range trs {
		class, _ := attr(tr, "data-class")
		pool, _ := attr(tr, "data-pool")
		hourly, _ := attr(tr, "data-hourly")
		k, ok := want[[2]string{class, pool}]
		if !ok {
			bad = append(bad, fmt.Sprintf("class cost row %d is %s on %s, which the JSON does not price", i, class, pool))
			continue
		}
		w := c.Classes[k]
		if j := poolAt[pool]; j < lastPool || (j == lastPool && k < last) {
			bad = append(bad, fmt.Sprintf("class cost row %d (%s on %s) is out of the pools' order", i, class, pool))
		} else {
			last, lastPool = k, j
		}
		tds := children(tr, atom.Td)
		where := w.Class + " on " + w.Pool
		if len(tds) != 7 || text(tds[0]) != w.Class || text(tds[1]) != w.Pool || text(tds[2]) != w.Type {
			bad = append(bad, fmt.Sprintf("class cost row %d shows %s, the JSON's %s", i, text(tr), where))
			continue
		}
		if text(tds[4]) != strconv.FormatInt(w.Nodes, 10) {
			bad = append(bad, fmt.Sprintf("%s: %s nodes, the JSON %d", where, text(tds[4]), w.Nodes))
		}
		if !sameUSD(hourly, w.Hourly) || text(tds[6]) != money(w.Hourly) {
			bad = append(bad, fmt.Sprintf("%s: costs %q (data %s), the JSON %s", where, text(tds[6]), hourly, money(w.Hourly)))
		}
		if w.Hourly == nil {
			spans := find(tds[6], func(n *html.Node) bool { return hasClass(n, "unknown") })
			why := ""
			if len(spans) == 1 {
				why, _ = attr(spans[0], "title")
			}
			if why != w.Unknown {
				bad = append(bad, fmt.Sprintf("%s: unknown, but not why (%q, the JSON %q)", where, why, w.Unknown))
			}
		} else if len(find(tds[6], func(n *html.Node) bool { return hasClass(n, "fill") })) != 1 {
			bad = append(bad, where+": a price without its bar")
		}
	}
	trs, err = rows(doc, "tenant-cost")
	if err != nil {
		return append(bad, err.Error())
	}
	if len(trs) != min(len(c.Tenants), report.HTMLRows) {
		bad = append(bad, fmt.Sprintf("%d tenant rows, the JSON %d", len(trs), len(c.Tenants)))
	}
	for i, tr := range trs[:min(len(trs), len(c.Tenants))] {
		w := c.Tenants[i]
		tenant, _ := attr(tr, "data-tenant")
		lo, _ := attr(tr, "data-low")
		hi, _ := attr(tr, "data-high")
		var low, high *float64
		if w.Low != nil {
			low = w.Low.Hourly
		}
		if w.High != nil {
			high = w.High.Hourly
		}
		tds := children(tr, atom.Td)
		if tenant != w.Tenant || len(tds) != 5 || !strings.HasPrefix(text(tds[0]), w.Tenant) {
			bad = append(bad, fmt.Sprintf("tenant row %d is %q, the JSON's %q", i, tenant, w.Tenant))
			continue
		}
		shown := text(tds[4])
		want := money(low)
		if low != nil && high != nil && *high != *low {
			want += " to " + money(high)
		}
		if !sameUSD(lo, low) || !sameUSD(hi, high) || shown != want {
			bad = append(bad, fmt.Sprintf("tenant %s: %q (data %s to %s), the JSON %q", w.Tenant, shown, lo, hi, want))
		}
	}
	return bad
}

func checkStranded(doc *html.Node, rep *placementJSON) []string {
	if rep.Cost == nil {
		return nil
	}
	s := rep.Cost.Stranded
	if len(s) == 0 {
		if byID(doc, "no-stranded") == nil {
			return []string{"no GPU pool, and the page does not say so"}
		}
		return nil
	}
	trs, err := rows(doc, "stranded-gpus")
	if err != nil {
		return []string{err.Error()}
	}
	var bad []string
	if len(trs) != min(len(s), report.HTMLRows) {
		bad = append(bad, fmt.Sprintf("%d stranded rows, the JSON %d", len(trs), len(s)))
	}
	for i, tr := range trs[:min(len(trs), len(s))] {
		w := s[i]
		tds := children(tr, atom.Td)
		got := make([]string, len(tds))
		for k, td := range tds {
			got[k] = text(td)
		}
		want := []string{w.Pool, w.Type, w.Resource, fmt.Sprint(w.PerNode), fmt.Sprint(w.Usable), fmt.Sprint(w.Stranded), fmt.Sprint(w.Nodes), fmt.Sprint(w.Stranded * w.Nodes)}
		if len(got) != len(want)+1 || !slices.Equal(got[:len(want)], want) {
			bad = append(bad, fmt.Sprintf("stranded row %d shows %q, the JSON %q", i, got, want))
		}
		for k, v := range map[string]int64{"data-per-node": w.PerNode, "data-stranded": w.Stranded, "data-nodes": w.Nodes, "data-total": w.Stranded * w.Nodes} {
			if a, _ := attr(tr, k); a != strconv.FormatInt(v, 10) {
				bad = append(bad, fmt.Sprintf("stranded %s %s: %s=%q, the JSON %d", w.Pool, w.Type, k, a, v))
			}
		}
	}
	return bad
}
