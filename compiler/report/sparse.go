package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
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
	SchemaVersion int             `json:"schemaVersion"`
	Pools         []string        `json:"pools"`
	Classes       []string        `json:"classes"`
	Placement     *struct{}       `json:"placement"`
	Findings      []check.Finding `json:"findings"`
	Capacity      []check.Commit  `json:"capacity"`
	Cost          *check.Cost     `json:"cost,omitempty"`
	Summary       Summary         `json:"summary"`
}

// refusal is the pools of one class refused for one reason set.
type refusal struct {
	reasons []string
	pools   []int32
}

// row is one class's placement: the cells of the pools it lands on and
// its refusals, in pool order of their first pool.
type row struct {
	lands   []*check.Cell
	refused []refusal
}

// rowOf groups class i's cells: the evaluated ones, and the reasons of the
// pools ruled out between them, without making their cells.
func rowOf(r *check.Report, i int) row {
	var w row
	if i >= len(r.Rows) {
		return w
	}
	cr := &r.Rows[i]
	k := 0 // the next evaluated cell
	var last []string
	f := 0 // last's refusal
	for j := range cr.Len() {
		var reasons []string
		if k < len(cr.At) && int(cr.At[k]) == j {
			cell := &cr.Evaluated[k]
			k++
			if cell.Fits {
				w.lands = append(w.lands, cell)
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
		w.refused[f].pools = append(w.refused[f].pools, int32(j))
	}
	return w
}

// same reports whether a and b are one slice.
func same(a, b []string) bool {
	return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0]
}

// sparseJSON is the schemaVersion 2 document, indented as
// json.MarshalIndent indents, except that each landing and refusal is one
// line.
func sparseJSON(r *check.Report) ([]byte, error) {
	doc, err := json.MarshalIndent(sparseDoc{
		SchemaVersion: SchemaVersion, Pools: r.Pools, Classes: r.Classes,
		Findings: r.Findings, Capacity: r.Capacity, Cost: r.Cost,
		Summary: Summary{Errors: r.Errors(), Warnings: len(r.Findings) - r.Errors()},
	}, "", "  ")
	if err != nil {
		return nil, err
	}
	const hole = "\"placement\": null"
	at := bytes.Index(doc, []byte(hole))
	if at < 0 {
		return nil, fmt.Errorf("report: no placement field in %.80s", doc)
	}
	rows := make([][]byte, len(r.Classes))
	par.Each(len(r.Classes), func(i int) { rows[i] = appendRow(nil, r, i, rowOf(r, i)) })
	var b bytes.Buffer
	n := len(doc) + 2*len(rows) + 16
	for _, row := range rows {
		n += len(row)
	}
	b.Grow(n)
	b.Write(doc[:at])
	b.WriteString("\"placement\": [")
	for i, row := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(row)
	}
	if len(rows) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteByte(']')
	b.Write(doc[at+len(hole):])
	return b.Bytes(), nil
}

func appendRow(b []byte, r *check.Report, i int, w row) []byte {
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
			b = appendQuoted(b, r.Pools[j])
		}
		b = append(b, "]}"...)
	}
	if len(w.refused) > 0 {
		b = append(b, "\n      "...)
	}
	return append(b, "]\n    }"...)
}

// sparseMarkdown is the schemaVersion 2 report for people: one line per
// class, refusals named by pool while there are few of them.
func sparseMarkdown(r *check.Report) []byte {
	var b bytes.Buffer
	b.WriteString("<!-- Generated by gpufleet. DO NOT EDIT. -->\n# Placement report\n\n")
	b.WriteString("Where each class can land, proved with kube-scheduler's filters on nodes synthesised from the node groups at max size.\n\n")
	b.WriteString("| class | lands on (pods at max size) | refused by |\n|---|---|---|\n")
	for i, class := range r.Classes {
		w := rowOf(r, i)
		var lands, refused []string
		for _, c := range w.lands {
			lands = append(lands, fmt.Sprintf("%s (%d)", c.Pool, c.Capacity))
		}
		if len(lands) == 0 {
			lands = []string{"none"}
		}
		for _, f := range w.refused {
			who := fmt.Sprintf("%d pools", len(f.pools))
			if len(f.pools) <= 5 {
				var names []string
				for _, j := range f.pools {
					names = append(names, r.Pools[j])
				}
				who = strings.Join(names, ", ")
			}
			refused = append(refused, who+": "+strings.Join(f.reasons, ", "))
		}
		if len(refused) == 0 {
			refused = []string{"none"}
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", class, strings.Join(lands, ", "), strings.Join(refused, "; "))
	}
	b.WriteString("\n`report/placement.json` names the pools behind every refusal; `gpufleet explain SPEC CLASS --pool POOL` shows each filter for one class on one pool.\n\n")
	tail(&b, r)
	return b.Bytes()
}
