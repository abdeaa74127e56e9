package report

import (
	"strconv"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
)

// matrix is the class × pool heat map, at most HTMLClasses × HTMLPools
// cells, drawn once per measure (measures.go): pods, GPUs, dollars, each
// a static table of its own under an anchor. A refused cell shows a
// letter naming its reason set, listed under the tables, and its title
// (hover) the reasons themselves.
func (p *page) matrix(r *check.Report) {
	classes := firstByName(r.Classes, HTMLClasses)
	pools, landing := drawnPools(r, classes)
	p.raw("<section id=\"matrix\">\n<h2>Classes × pools</h2>\n")
	p.raw("<p>Each cell is where the class lands, shaded on a log scale by the measure chosen: the pods of the class the pool holds at max size, the GPUs of the pool at max size, or the dollars per hour of the class&#39;s workload there. A refused cell is grey, with a letter naming kube-scheduler&#39;s reasons (below, and on hover). Each column&#39;s head names the pool&#39;s GPU product, capacity type, instance types and min–max nodes. The last column counts the pools the class lands on, of all ")
	p.raw(thousands(int64(len(r.Pools))))
	p.raw(".</p>\n")
	if len(classes) < len(r.Classes) || len(pools) < len(r.Pools) {
		p.cutNote(r, classes, pools, landing)
	}
	if len(classes) == 0 || len(pools) == 0 {
		p.raw("<p>No class or no pool: no matrix.</p>\n</section>\n")
		return
	}
	ms := measures(r, classes, pools)
	p.raw("<nav class=\"views\">Shade by:")
	for _, m := range ms {
		p.raw(" <a href=\"#")
		p.raw(m.id)
		p.raw("\">")
		p.raw(m.name)
		p.raw("</a>")
	}
	p.raw("</nav>\n")
	codes := map[string]int{}
	var sets [][]string
	var refusedCells []int
	for k, m := range ms {
		p.raw("<h3")
		p.attr("id", m.id)
		p.raw(">Shaded by ")
		p.raw(m.name)
		p.raw("</h3>\n")
		p.scale(m, k == 0)
		p.raw("<div class=\"scroll\"><table class=\"matrix\"")
		if k == 0 {
			p.raw(" id=\"placement-matrix\"")
			p.attr("data-classes", strconv.Itoa(len(r.Classes)))
			p.attr("data-pools", strconv.Itoa(len(r.Pools)))
			p.attr("data-shown-classes", strconv.Itoa(len(classes)))
			p.attr("data-shown-pools", strconv.Itoa(len(pools)))
		} else {
			p.attr("id", "matrix-"+m.id)
		}
		p.attr("data-measure", m.id)
		p.raw(">\n")
		p.poolHeads(r, pools)
		p.raw("<tbody>\n")
		for _, i := range classes {
			class := r.Classes[i]
			p.raw("<tr")
			if k == 0 {
				p.attr("data-class", class)
			}
			p.raw("><th scope=\"row\">")
			p.text(class)
			p.raw("</th>")
			for _, j := range pools {
				cell, ok := cellAt(r, i, j)
				if ok && !cell.Fits {
					key := strings.Join(cell.Reasons, "\x00")
					c, seen := codes[key]
					if !seen {
						c = len(sets)
						codes[key] = c
						sets = append(sets, cell.Reasons)
						refusedCells = append(refusedCells, 0)
					}
					if k == 0 {
						refusedCells[c]++
					}
					p.refusedCell(class, r.Pools[j], cell.Reasons, letters(c), k == 0)
					continue
				}
				p.measuredCell(m, i, j, class, r.Pools[j], cell, ok, k == 0)
			}
			lands := 0
			if i < len(r.Rows) {
				for c := range r.Rows[i].Evaluated {
					if r.Rows[i].Evaluated[c].Fits {
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
	}
	p.refusals(sets, refusedCells)
	p.raw("</section>\n")
}

// cutNote says which classes and pools the matrix draws.
func (p *page) cutNote(r *check.Report, classes, pools []int, landing int) {
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

// poolHeads is a matrix's head: the pools' names, then what each is.
func (p *page) poolHeads(r *check.Report, pools []int) {
	p.raw("<thead><tr><th scope=\"col\" rowspan=\"2\">class \\ pool</th>")
	for _, j := range pools {
		p.raw("<th scope=\"col\" class=\"pool\"")
		p.attr("data-pool", r.Pools[j])
		p.raw(">")
		p.text(r.Pools[j])
		p.raw("</th>")
	}
	p.raw("<th scope=\"col\" rowspan=\"2\">lands on</th></tr>\n<tr class=\"info\">")
	for _, j := range pools {
		p.raw("<th class=\"pool\"")
		if j < len(r.PoolInfo) {
			p.attr("data-pool-info", r.PoolInfo[j].Pool)
		}
		p.raw(">")
		if j < len(r.PoolInfo) {
			p.text(poolSummary(r.PoolInfo[j]))
		}
		p.raw("</th>")
	}
	p.raw("</tr></thead>\n")
}

// poolSummary is "A10G · spot · g5.2xlarge · 0–10 nodes": the pool's
// product (or "CPU"), capacity type, first three instance types and size.
func poolSummary(info check.PoolInfo) string {
	var b strings.Builder
	if info.Product != "" {
		b.WriteString(info.Product)
	} else {
		b.WriteString("CPU")
	}
	b.WriteString(" · ")
	b.WriteString(capacityType(info.Spot))
	b.WriteString(" · ")
	for k, t := range info.Types {
		if k == 3 {
			b.WriteString(" +" + strconv.Itoa(len(info.Types)-3))
			break
		}
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString(t.Type)
	}
	b.WriteString(" · " + strconv.Itoa(int(info.Min)) + "–" + strconv.Itoa(int(info.Max)) + " nodes")
	return b.String()
}

func capacityType(spot bool) string {
	if spot {
		return "spot"
	}
	return "on-demand"
}

// refusals lists the reason sets the matrices' letters name.
func (p *page) refusals(sets [][]string, refusedCells []int) {
	if len(sets) == 0 {
		return
	}
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

// letters names the k-th reason set: A to Z, then AA, AB, ...
func letters(k int) string {
	s := ""
	for k++; k > 0; k = (k - 1) / 26 {
		s = string(rune('A'+(k-1)%26)) + s
	}
	return s
}
