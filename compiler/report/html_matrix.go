package report

import (
	"math/bits"
	"strconv"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
)

// matrix is the class × pool heat map, at most HTMLClasses × HTMLPools
// cells. A refused cell shows a letter naming its reason set, listed
// under the table, and its title (hover) the reasons themselves.
func (p *page) matrix(r *check.Report) {
	classes := firstByName(r.Classes, HTMLClasses)
	pools, landing := drawnPools(r, classes)
	p.raw("<section id=\"matrix\">\n<h2>Classes × pools</h2>\n")
	p.raw("<p>Each cell is the number of the class&#39;s pods the pool holds at max size where the class lands, shaded on a log scale; a refused cell is grey, with a letter naming kube-scheduler&#39;s reasons (below, and on hover). The last column counts the pools the class lands on, of all ")
	p.raw(thousands(int64(len(r.Pools))))
	p.raw(".</p>\n")
	if len(classes) < len(r.Classes) || len(pools) < len(r.Pools) {
		p.raw("<p class=\"note\" id=\"matrix-cut\"><strong>Not every cell is drawn.</strong> The matrix draws the first ")
		p.raw(thousands(int64(len(classes))))
		p.raw(" of ")
		p.count(len(r.Classes), "class", "classes")
		p.raw(" by name, and ")
		p.raw(thousands(int64(len(pools))))
		p.raw(" of ")
		p.count(len(r.Pools), "pool", "pools")
		if landing <= len(pools) {
			p.raw(": the ")
			p.count(landing, "pool", "pools")
			p.raw(" those classes land on, then the first others by name. ")
		} else {
			p.raw(": the first by name of the ")
			p.count(landing, "pool", "pools")
			p.raw(" those classes land on. ")
		}
		p.raw(thousands(int64(len(r.Classes) - len(classes))))
		p.raw(" classes and ")
		p.raw(thousands(int64(len(r.Pools) - len(pools))))
		p.raw(" pools are left out of it (")
		p.raw(thousands(int64(len(r.Classes)*len(r.Pools) - len(classes)*len(pools))))
		p.raw(" cells); report/placement.json and placement.md have every one.</p>\n")
	}
	if len(classes) == 0 || len(pools) == 0 {
		p.raw("<p>No class or no pool: no matrix.</p>\n</section>\n")
		return
	}
	// The scale runs to the most pods of any cell drawn.
	var top int64
	for _, i := range classes {
		for _, j := range pools {
			if i < len(r.Rows) {
				if c := r.Rows[i].Evaluation(j); c != nil && c.Fits {
					top = max(top, c.Capacity)
				}
			}
		}
	}
	p.scale(top)
	p.raw("<div class=\"scroll\"><table class=\"matrix\" id=\"placement-matrix\"")
	p.attr("data-classes", strconv.Itoa(len(r.Classes)))
	p.attr("data-pools", strconv.Itoa(len(r.Pools)))
	p.attr("data-shown-classes", strconv.Itoa(len(classes)))
	p.attr("data-shown-pools", strconv.Itoa(len(pools)))
	p.raw(">\n<thead><tr><th scope=\"col\">class \\ pool</th>")
	for _, j := range pools {
		p.raw("<th scope=\"col\" class=\"pool\"")
		p.attr("data-pool", r.Pools[j])
		p.raw(">")
		p.text(r.Pools[j])
		p.raw("</th>")
	}
	p.raw("<th scope=\"col\">lands on</th></tr></thead>\n<tbody>\n")
	codes := map[string]int{}
	var sets [][]string
	var refusedCells []int
	for _, i := range classes {
		class := r.Classes[i]
		p.raw("<tr")
		p.attr("data-class", class)
		p.raw("><th scope=\"row\">")
		p.text(class)
		p.raw("</th>")
		for _, j := range pools {
			cell, ok := cellAt(r, i, j)
			p.raw("<td")
			switch {
			case ok && cell.Fits:
				p.raw(" class=\"h")
				p.raw(strconv.Itoa(heat(cell.Capacity, top)))
				p.raw("\"")
			default:
				p.raw(" class=\"no\"")
			}
			p.attr("data-class", class)
			p.attr("data-pool", r.Pools[j])
			p.attr("data-fits", strconv.FormatBool(ok && cell.Fits))
			p.attr("data-capacity", strconv.FormatInt(cell.Capacity, 10))
			switch {
			case !ok:
				p.attr("title", "not evaluated")
				p.raw(">?</td>")
			case cell.Fits:
				p.attr("data-type", cell.Type)
				p.attr("title", strconv.FormatInt(cell.Capacity, 10)+" pods at max size, on "+cell.Type)
				p.raw(">")
				p.int(cell.Capacity)
				p.raw("</td>")
			default:
				key := strings.Join(cell.Reasons, "\x00")
				k, seen := codes[key]
				if !seen {
					k = len(sets)
					codes[key] = k
					sets = append(sets, cell.Reasons)
					refusedCells = append(refusedCells, 0)
				}
				refusedCells[k]++
				p.attr("data-refusal", letters(k))
				p.attr("title", strings.Join(cell.Reasons, "; "))
				p.raw(">")
				p.raw(letters(k))
				p.raw("</td>")
			}
		}
		lands := 0
		if i < len(r.Rows) {
			for k := range r.Rows[i].Evaluated {
				if r.Rows[i].Evaluated[k].Fits {
					lands++
				}
			}
		}
		p.raw("<td class=\"lands\"")
		p.attr("data-lands", strconv.Itoa(lands))
		p.raw(">")
		p.int(int64(lands))
		p.raw("</td></tr>\n")
	}
	p.raw("</tbody>\n</table></div>\n")
	if len(sets) > 0 {
		p.raw("<h3>Refused by</h3>\n<dl class=\"reasons\" id=\"refusals\">\n")
		for k, reasons := range sets {
			p.raw("<dt>")
			p.raw(letters(k))
			p.raw("</dt><dd")
			p.attr("data-refusal", letters(k))
			p.raw(">")
			if len(reasons) == 0 {
				p.raw("no reason given")
			}
			for n, why := range reasons {
				if n > 0 {
					p.raw("; ")
				}
				p.text(why)
			}
			p.raw(" <span class=\"note\">(")
			p.count(refusedCells[k], "cell", "cells")
			p.raw(")</span></dd>\n")
		}
		p.raw("</dl>\n")
	}
	p.raw("</section>\n")
}

// scale is the heat map's legend: the capacities each shade stands for.
func (p *page) scale(top int64) {
	if top <= 0 {
		p.raw("<p class=\"scale\">No class lands on a pool drawn.</p>\n")
		return
	}
	p.raw("<p class=\"scale\" id=\"heat-scale\">Pods at max size: ")
	lo, hi, last := int64(0), int64(0), 0
	flush := func() {
		p.raw("<span class=\"h")
		p.raw(strconv.Itoa(last))
		p.raw("\">")
		p.int(lo)
		if hi > lo {
			p.raw("–")
			p.int(hi)
		}
		p.raw("</span>")
	}
	for l := 1; l <= bits.Len64(uint64(top)); l++ {
		from, to := int64(1)<<(l-1), min(int64(1)<<l-1, top)
		h := heat(from, top)
		if h != last {
			if last > 0 {
				flush()
			}
			lo, last = from, h
		}
		hi = to
	}
	flush()
	p.raw("</p>\n")
}

// letters names the k-th reason set: A to Z, then AA, AB, ...
func letters(k int) string {
	s := ""
	for k++; k > 0; k = (k - 1) / 26 {
		s = string(rune('A'+(k-1)%26)) + s
	}
	return s
}
