package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/cost"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/internal/par"
)

// The sparse report (schemaVersion 2) lists, per class, the pools it lands
// on with their capacity, and its refusals grouped by reason set with the
// pools each covers, instead of every class × pool cell: the full matrix
// grows with the square of the fleet (a gigabyte at 4.5 M cells), this
// with the fleet plus the pool names behind the refusals, each written
// once per class on one line.

// sparseDoc is the document around the placement, which is spliced in
// where it says null.
type sparseDoc struct {
	SchemaVersion int              `json:"schemaVersion"`
	Pools         []string         `json:"pools"`
	PoolInfo      []check.PoolInfo `json:"poolInfo,omitempty"`
	Classes       []string         `json:"classes"`
	Placement     *struct{}        `json:"placement"`
	Findings      []check.Finding  `json:"findings"`
	Capacity      []check.Commit   `json:"capacity"`
	Units         []check.Unit     `json:"units,omitempty"`
	Cost          *cost.Cost       `json:"cost,omitempty"`
	Summary       Summary          `json:"summary"`
}

// refusal is the pools of one class refused for one reason set.
type refusal struct {
	reasons []string
	pools   []int32
	n       int // len(pools), counted before they are listed
}

// row is one class's placement: the cells of the pools it lands on and
// its refusals, in pool order of their first pool.
type row struct {
	lands   []*sched.Cell
	refused []refusal
}

// placement is every class's row, made on every CPU, for the JSON and the
// Markdown alike.
func placement(r *check.Report) []row {
	rows := make([]row, len(r.Classes))
	par.EachWith(len(rows), func() *[]int32 { return new([]int32) }, func(i int, scratch *[]int32) {
		rows[i] = rowOf(r, i, scratch)
	})
	return rows
}

// rowOf groups class i's cells: the evaluated ones, and the reasons of the
// pools ruled out between them, without making their cells. The refused
// pools of a big fleet's row are thousands: each pool's refusal is noted
// in scratch first, so that they are listed in one array of the exact
// size.
func rowOf(r *check.Report, i int, scratch *[]int32) row {
	var w row
	if i >= len(r.Rows) {
		return w
	}
	cr := &r.Rows[i]
	of := slices.Grow((*scratch)[:0], cr.Len())[:cr.Len()] // refusal of each pool, -1 where it lands
	*scratch = of
	k := 0 // the next evaluated cell
	var last []string
	f, refused := 0, 0 // last's refusal, pools refused
	for j := range cr.Len() {
		var reasons []string
		if k < len(cr.At) && int(cr.At[k]) == j {
			cell := &cr.Evaluated[k]
			k++
			if cell.Fits {
				w.lands = append(w.lands, cell)
				of[j] = -1
				continue
			}
			reasons = cell.Reasons
		} else {
			reasons = cr.RuledOut(j)
		}
		// Refusals share their reason sets (the ruled-out pools' above
		// all), and the same set tends to follow itself.
		if !same(reasons, last) {
			last = reasons
			f = slices.IndexFunc(w.refused, func(f refusal) bool { return slices.Equal(f.reasons, reasons) })
			if f < 0 {
				f = len(w.refused)
				w.refused = append(w.refused, refusal{reasons: reasons})
			}
		}
		of[j] = int32(f)
		w.refused[f].n++
		refused++
	}
	pools := make([]int32, refused)
	for f := range w.refused {
		n := w.refused[f].n
		w.refused[f].pools, pools = pools[:0:n], pools[n:]
	}
	for j, f := range of {
		if f >= 0 {
			w.refused[f].pools = append(w.refused[f].pools, int32(j))
		}
	}
	return w
}

// same reports whether a and b are one slice.
func same(a, b []string) bool {
	return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0]
}

// sparseJSON is the schemaVersion 2 document, indented as
// json.MarshalIndent indents, except that each landing and refusal is one
// line. The placement, nearly all of a big fleet's document, is spliced
// in where the document without it says null: each row is measured, then
// written in place on every CPU into one buffer of the exact size, with
// room for Write's final newline (building rows apart, growing them, and
// copying them in cost several times the document in allocation).
func sparseJSON(r *check.Report, rows []row) ([]byte, error) {
	doc, err := json.MarshalIndent(sparseDoc{
		SchemaVersion: SchemaVersion, Pools: r.Pools, PoolInfo: r.PoolInfo, Classes: r.Classes,
		Findings: r.Findings, Capacity: r.Capacity, Units: r.Units, Cost: r.Cost,
		Summary: Summary{Errors: r.Errors(), Warnings: len(r.Findings) - r.Errors()},
	}, "", "  ")
	if err != nil {
		return nil, err
	}
	const hole, open = "\"placement\": null", "\"placement\": ["
	at := bytes.Index(doc, []byte(hole))
	if at < 0 {
		return nil, fmt.Errorf("report: no placement field in %.80s", doc)
	}
	pools := make([]string, len(r.Pools)) // quoted once, written thousands of times
	for j, p := range r.Pools {
		pools[j] = string(appendQuoted(nil, p))
	}
	size := make([]int, len(rows))
	par.Each(len(rows), func(i int) { size[i] = rowLen(r, i, rows[i], pools) })
	offset := make([]int, len(rows))
	n := at + len(open)
	for i := range rows {
		if i > 0 {
			n++ // ','
		}
		offset[i] = n
		n += size[i]
	}
	closing := "]"
	if len(rows) > 0 {
		closing = "\n  ]"
	}
	tail := doc[at+len(hole):]
	buf := make([]byte, n+len(closing)+len(tail), n+len(closing)+len(tail)+1)
	copy(buf, doc[:at])
	copy(buf[at:], open)
	par.Each(len(rows), func(i int) {
		if i > 0 {
			buf[offset[i]-1] = ','
		}
		b := appendRow(buf[offset[i]:offset[i]:offset[i]+size[i]], r, i, rows[i], pools)
		if len(b) != size[i] {
			panic(fmt.Sprintf("report: class %s's placement took %d bytes, rowLen said %d", r.Classes[i], len(b), size[i]))
		}
	})
	copy(buf[n:], closing)
	copy(buf[n+len(closing):], tail)
	return buf, nil
}

// appendRow appends class i's placement, its pools as quoted in pools.
// rowLen is its length and must change with it.
func appendRow(b []byte, r *check.Report, i int, w row, pools []string) []byte {
	b = append(b, "\n    {\n      \"class\": "...)
	b = appendQuoted(b, r.Classes[i])
	b = append(b, ",\n      \"lands\": ["...)
	for k, c := range w.lands {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n        {\"pool\": "...)
		b = appendQuoted(b, c.Pool)
		b = append(b, ", \"type\": "...)
		b = appendQuoted(b, c.Type)
		b = append(b, ", \"capacity\": "...)
		b = strconv.AppendInt(b, c.Capacity, 10)
		b = append(b, '}')
	}
	if len(w.lands) > 0 {
		b = append(b, "\n      "...)
	}
	b = append(b, "],\n      \"refused\": ["...)
	for k, f := range w.refused {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n        {\"reasons\": ["...)
		for i, reason := range f.reasons {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendQuoted(b, reason)
		}
		b = append(b, "], \"pools\": ["...)
		for i, j := range f.pools {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, pools[j]...)
		}
		b = append(b, "]}"...)
	}
	if len(w.refused) > 0 {
		b = append(b, "\n      "...)
	}
	return append(b, "]\n    }"...)
}

func rowLen(r *check.Report, i int, w row, pools []string) int {
	n := len("\n    {\n      \"class\": ") + quotedLen(r.Classes[i]) + len(",\n      \"lands\": [")
	var digits [20]byte
	for _, c := range w.lands {
		n += len("\n        {\"pool\": ") + quotedLen(c.Pool) + len(", \"type\": ") + quotedLen(c.Type) +
			len(", \"capacity\": ") + len(strconv.AppendInt(digits[:0], c.Capacity, 10)) + len("}")
	}
	if len(w.lands) > 0 {
		n += len(w.lands) - 1 + len("\n      ")
	}
	n += len("],\n      \"refused\": [")
	for _, f := range w.refused {
		n += len("\n        {\"reasons\": [") + len("], \"pools\": [") + len("]}")
		for _, reason := range f.reasons {
			n += quotedLen(reason)
		}
		n += max(0, len(f.reasons)-1) * len(", ")
		for _, j := range f.pools {
			n += len(pools[j])
		}
		n += max(0, len(f.pools)-1) * len(", ")
	}
	if len(w.refused) > 0 {
		n += len(w.refused) - 1 + len("\n      ")
	}
	return n + len("]\n    }")
}

// sparseMarkdown is the schemaVersion 2 report for people: one line per
// class, refusals named by pool while there are few of them. The lines
// are made on every CPU.
func sparseMarkdown(r *check.Report, rows []row) []byte {
	lines := make([][]byte, len(rows))
	par.Each(len(rows), func(i int) { lines[i] = appendMarkdownRow(nil, r, i, rows[i]) })
	var b bytes.Buffer
	n := 0
	for _, l := range lines {
		n += len(l)
	}
	b.Grow(n + 4096)
	b.WriteString("<!-- Generated by gpufleet. DO NOT EDIT. -->\n# Placement report\n\n")
	b.WriteString("Where each class can land, proved with kube-scheduler's filters on nodes synthesised from the node groups at max size.\n\n")
	b.WriteString("| class | lands on (pods at max size) | refused by |\n|---|---|---|\n")
	for _, l := range lines {
		b.Write(l)
	}
	b.WriteString("\n`report/placement.json` names the pools behind every refusal; `gpufleet explain SPEC CLASS --pool POOL` shows each filter for one class on one pool.\n\n")
	tail(&b, r)
	return b.Bytes()
}

// appendMarkdownRow appends class i's line: "| class | pool (N), ... |
// pools: reasons; ... |", "none" for either list when it is empty.
func appendMarkdownRow(b []byte, r *check.Report, i int, w row) []byte {
	b = append(b, "| "...)
	b = append(b, r.Classes[i]...)
	b = append(b, " | "...)
	for k, c := range w.lands {
		if k > 0 {
			b = append(b, ", "...)
		}
		b = append(b, c.Pool...)
		b = append(b, " ("...)
		b = strconv.AppendInt(b, c.Capacity, 10)
		b = append(b, ')')
	}
	if len(w.lands) == 0 {
		b = append(b, "none"...)
	}
	b = append(b, " | "...)
	for k, f := range w.refused {
		if k > 0 {
			b = append(b, "; "...)
		}
		if len(f.pools) <= 5 {
			for i, j := range f.pools {
				if i > 0 {
					b = append(b, ", "...)
				}
				b = append(b, r.Pools[j]...)
			}
		} else {
			b = strconv.AppendInt(b, int64(len(f.pools)), 10)
			b = append(b, " pools"...)
		}
		b = append(b, ": "...)
		b = append(b, strings.Join(f.reasons, ", ")...)
	}
	if len(w.refused) == 0 {
		b = append(b, "none"...)
	}
	return append(b, " |\n"...)
}
