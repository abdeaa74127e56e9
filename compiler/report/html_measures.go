package report

import (
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/cost"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// measure is what a matrix's cells are shaded by: each landing cell's
// value (an integer, so every machine shades alike), how it reads, and
// whether it is known.
type measure struct {
	id, name, legend string
	top              int64
	value            func(i, j int, cell *sched.Cell) (v int64, known bool)
	format           func(v int64) string
}

// measures are the matrix's three views, pods first: the pods of the
// class a pool holds at max size (kube-scheduler's filters, the cell's
// capacity); the GPUs of the pool at max size (its max size times the
// gpu-count of the instance type credited); the class's workload on the
// pool in dollars per hour (cost.ClassCost, in cents).
func measures(r *check.Report, classes, pools []int) []measure {
	itoa := func(v int64) string { return strconv.FormatInt(v, 10) }
	pods := measure{id: "pods", name: "pods", legend: "Pods at max size", format: itoa,
		value: func(_, _ int, c *sched.Cell) (int64, bool) { return c.Capacity, true }}
	gpus := measure{id: "gpus", name: "GPUs", legend: "GPUs of the pool at max size", format: itoa,
		value: func(_, j int, c *sched.Cell) (int64, bool) {
			if j >= len(r.PoolInfo) {
				return 0, false
			}
			info := &r.PoolInfo[j]
			for _, t := range info.Types {
				if t.Type == c.Type {
					return int64(info.Max) * t.GPUs, true
				}
			}
			return 0, false
		}}
	drawn := make(map[string]bool, len(classes))
	for _, i := range classes {
		drawn[r.Classes[i]] = true
	}
	priced := map[[2]string]*cost.ClassCost{}
	if r.Cost != nil {
		for k := range r.Cost.Classes {
			if cc := &r.Cost.Classes[k]; drawn[cc.Class] {
				priced[[2]string{cc.Class, cc.Pool}] = cc
			}
		}
	}
	dollars := measure{id: "dollars", name: "dollars", legend: "USD per hour of the class&#39;s workload",
		format: func(v int64) string { return "$" + strconv.FormatFloat(float64(v)/100, 'f', 2, 64) },
		value: func(i, j int, c *sched.Cell) (int64, bool) {
			cc := priced[[2]string{r.Classes[i], r.Pools[j]}]
			if cc == nil || cc.Hourly == nil {
				return 0, false
			}
			return int64(math.Round(*cc.Hourly * 100)), true
		}}
	ms := []measure{pods, gpus, dollars}
	for k := range ms {
		m := &ms[k]
		for _, i := range classes {
			for _, j := range pools {
				if i < len(r.Rows) {
					if c := r.Rows[i].Evaluation(j); c != nil && c.Fits {
						if v, ok := m.value(i, j, c); ok {
							m.top = max(m.top, v)
						}
					}
				}
			}
		}
	}
	return ms
}

// measuredCell is a cell where the class lands, or one not evaluated,
// shaded by m. The pods view (full) carries the cell's data as
// attributes; the others only their figure.
func (p *page) measuredCell(m measure, i, j int, class, pool string, cell sched.Cell, ok, full bool) {
	p.raw("<td")
	v, known := int64(0), false
	if ok {
		v, known = m.value(i, j, &cell)
	}
	switch {
	case ok && known:
		p.raw(" class=\"h")
		p.raw(strconv.Itoa(heat(v, m.top)))
		p.raw("\"")
	case ok:
		p.raw(" class=\"unk\"")
	default:
		p.raw(" class=\"no\"")
	}
	if full {
		p.attr("data-class", class)
		p.attr("data-pool", pool)
		p.attr("data-fits", strconv.FormatBool(ok))
		p.attr("data-capacity", strconv.FormatInt(cell.Capacity, 10))
	}
	switch {
	case !ok:
		p.attr("title", "not evaluated")
		p.raw(">?</td>")
	case !known:
		p.attr("title", "unknown: "+strconv.FormatInt(cell.Capacity, 10)+" pods at max size, on "+cell.Type)
		p.raw(">?</td>")
	default:
		if full {
			p.attr("data-type", cell.Type)
		}
		p.attr("title", strconv.FormatInt(cell.Capacity, 10)+" pods at max size, on "+cell.Type)
		p.raw(">")
		p.text(m.format(v))
		p.raw("</td>")
	}
}

// refusedCell is a refused cell: grey, the letter of its reason set; in
// the pods view (full), its reasons on hover too (in the others, the
// legend under the tables spells the letter out: a big fleet's reasons
// drawn three times would pass the page's bound).
func (p *page) refusedCell(class, pool string, reasons []string, letter string, full bool) {
	p.raw("<td class=\"no\"")
	if full {
		p.attr("data-class", class)
		p.attr("data-pool", pool)
		p.raw(" data-fits=\"false\" data-capacity=\"0\"")
		p.attr("data-refusal", letter)
		p.attr("title", strings.Join(reasons, "; "))
	}
	p.raw(">")
	p.raw(letter)
	p.raw("</td>")
}

// scale is a heat map's legend: the values each shade stands for.
func (p *page) scale(m measure, withID bool) {
	if m.top <= 0 {
		p.raw("<p class=\"scale\">No class lands on a pool drawn with a known figure.</p>\n")
		return
	}
	p.raw("<p class=\"scale\"")
	if withID {
		p.raw(" id=\"heat-scale\"")
	}
	p.raw(">")
	p.raw(m.legend)
	p.raw(": ")
	lo, hi, last := int64(0), int64(0), 0
	flush := func() {
		p.raw("<span class=\"h")
		p.raw(strconv.Itoa(last))
		p.raw("\">")
		p.text(m.format(lo))
		if hi > lo {
			p.raw("–")
			p.text(m.format(hi))
		}
		p.raw("</span>")
	}
	for l := 1; l <= bits.Len64(uint64(m.top)); l++ {
		from, to := int64(1)<<(l-1), min(int64(1)<<l-1, m.top)
		h := heat(from, m.top)
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
