package report

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/internal/par"
)

// A big fleet's report is a gigabyte, nearly all cells. They are encoded on
// every CPU straight into one buffer of the exact size, with room for
// Write's final newline: building them apart and copying them in (or
// growing a buffer by doubling) cost more than encoding them, in page
// faults and in collecting the copies.

const (
	chunk   = 4096 // cells per task, about
	cellSep = ",\n    "
)

// span is one task's rows, from and to, and the bytes their cells take.
type span struct{ from, to, size int }

// spliceCells returns doc with every row's cells in place of the hole at
// doc[at:], written as json.MarshalIndent(doc, "", "  ") would write them.
// A task takes whole rows, about chunk cells; each cell is made from its
// row twice, to measure it and to write it.
func spliceCells(doc []byte, at, hole int, rows []sched.Row) []byte {
	const open, closing = "\n  \"cells\": [\n    ", "\n  ]"
	var tasks []span
	for i := 0; i < len(rows); {
		t, cells := span{from: i}, 0
		for ; i < len(rows) && cells < chunk; i++ {
			cells += rows[i].Len()
		}
		if t.to = i; cells > 0 {
			tasks = append(tasks, t)
		}
	}
	par.Each(len(tasks), func(k int) {
		t := &tasks[k]
		for i := t.from; i < t.to; i++ {
			for j := range rows[i].Len() {
				c := rows[i].Cell(j)
				t.size += cellLen(&c) + len(cellSep)
			}
		}
		t.size -= len(cellSep)
	})
	offset := make([]int, len(tasks))
	n := at + len(open)
	for k, t := range tasks {
		if k > 0 {
			n += len(cellSep)
		}
		offset[k] = n
		n += t.size
	}
	tail := doc[at+hole:]
	buf := make([]byte, n+len(closing)+len(tail), n+len(closing)+len(tail)+1)
	copy(buf, doc[:at])
	copy(buf[at:], open)
	par.Each(len(tasks), func(k int) {
		t := tasks[k]
		if k > 0 {
			copy(buf[offset[k]-len(cellSep):], cellSep)
		}
		b := buf[offset[k] : offset[k] : offset[k]+t.size]
		for i := t.from; i < t.to; i++ {
			for j := range rows[i].Len() {
				if len(b) > 0 {
					b = append(b, cellSep...)
				}
				c := rows[i].Cell(j)
				b = appendCell(b, &c)
			}
		}
		if len(b) != t.size {
			panic(fmt.Sprintf("report: cells of rows %d.. took %d bytes, cellLen said %d", t.from, len(b), t.size))
		}
	})
	copy(buf[n:], closing)
	copy(buf[n+len(closing):], tail)
	return buf
}

// appendCell appends what json.MarshalIndent(c, "    ", "  ") writes,
// without reflection. cellLen is its length and must change with it.
func appendCell(b []byte, c *sched.Cell) []byte {
	b = append(b, "{\n      \"class\": "...)
	b = appendQuoted(b, c.Class)
	b = append(b, ",\n      \"pool\": "...)
	b = appendQuoted(b, c.Pool)
	b = append(b, ",\n      \"fits\": "...)
	b = strconv.AppendBool(b, c.Fits)
	if len(c.Reasons) > 0 {
		b = append(b, ",\n      \"reasons\": ["...)
		for i, r := range c.Reasons {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n        "...)
			b = appendQuoted(b, r)
		}
		b = append(b, "\n      ]"...)
	}
	if c.Type != "" {
		b = append(b, ",\n      \"type\": "...)
		b = appendQuoted(b, c.Type)
	}
	b = append(b, ",\n      \"capacity\": "...)
	b = strconv.AppendInt(b, c.Capacity, 10)
	return append(b, "\n    }"...)
}

func cellLen(c *sched.Cell) int {
	n := len("{\n      \"class\": ") + quotedLen(c.Class) + len(",\n      \"pool\": ") + quotedLen(c.Pool) + len(",\n      \"fits\": ")
	if c.Fits {
		n += len("true")
	} else {
		n += len("false")
	}
	if len(c.Reasons) > 0 {
		n += len(",\n      \"reasons\": [") + len("\n      ]")
		for i, r := range c.Reasons {
			if i > 0 {
				n++
			}
			n += len("\n        ") + quotedLen(r)
		}
	}
	if c.Type != "" {
		n += len(",\n      \"type\": ") + quotedLen(c.Type)
	}
	var digits [20]byte
	return n + len(",\n      \"capacity\": ") + len(strconv.AppendInt(digits[:0], c.Capacity, 10)) + len("\n    }")
}

// appendQuoted appends s as encoding/json does: plain printable ASCII as
// is, anything it would escape through encoding/json itself.
func appendQuoted(b []byte, s string) []byte {
	if !plainASCII(s) {
		q, _ := json.Marshal(s)
		return append(b, q...)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func quotedLen(s string) int {
	if !plainASCII(s) {
		q, _ := json.Marshal(s)
		return len(q)
	}
	return len(s) + 2
}

func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}
