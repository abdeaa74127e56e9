package report

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/internal/par"
)

// A big fleet's report is a gigabyte, nearly all cells. They are encoded on
// every CPU straight into one buffer of the exact size, with room for
// Write's final newline: building them apart and copying them in (or
// growing a buffer by doubling) cost more than encoding them, in page
// faults and in collecting the copies.

const (
	chunk   = 4096 // cells per task
	cellSep = ",\n    "
)

// spliceCells returns doc with cells in place of the hole at doc[at:],
// written as json.MarshalIndent(doc, "", "  ") would write them.
func spliceCells(doc []byte, at, hole int, cells []check.Cell) []byte {
	const open, closing = "\n  \"cells\": [\n    ", "\n  ]"
	tasks := (len(cells) + chunk - 1) / chunk
	size := make([]int, tasks)
	par.Each(tasks, func(k int) {
		for i := k * chunk; i < min((k+1)*chunk, len(cells)); i++ {
			size[k] += cellLen(&cells[i]) + len(cellSep)
		}
		size[k] -= len(cellSep)
	})
	offset := make([]int, tasks)
	n := at + len(open)
	for k := range tasks {
		if k > 0 {
			n += len(cellSep)
		}
		offset[k] = n
		n += size[k]
	}
	tail := doc[at+hole:]
	buf := make([]byte, n+len(closing)+len(tail), n+len(closing)+len(tail)+1)
	copy(buf, doc[:at])
	copy(buf[at:], open)
	par.Each(tasks, func(k int) {
		if k > 0 {
			copy(buf[offset[k]-len(cellSep):], cellSep)
		}
		b := buf[offset[k] : offset[k] : offset[k]+size[k]]
		for i := k * chunk; i < min((k+1)*chunk, len(cells)); i++ {
			if i > k*chunk {
				b = append(b, cellSep...)
			}
			b = appendCell(b, &cells[i])
		}
		if len(b) != size[k] {
			panic(fmt.Sprintf("report: cells %d.. took %d bytes, cellLen said %d", k*chunk, len(b), size[k]))
		}
	})
	copy(buf[n:], closing)
	copy(buf[n+len(closing):], tail)
	return buf
}

// appendCell appends what json.MarshalIndent(c, "    ", "  ") writes,
// without reflection. cellLen is its length and must change with it.
func appendCell(b []byte, c *check.Cell) []byte {
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

func cellLen(c *check.Cell) int {
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
