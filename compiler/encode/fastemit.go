package encode

import (
	"bytes"
	"encoding/json"
	"slices"
)

// treeEmitter writes a document parsed by parseTree as emitYAML writes the
// value yamlValue makes of the same JSON, and declines (reports false)
// wherever emitYAML does and wherever it cannot be sure to match: sorting
// member spans and writing scalars straight from the JSON leaves no map or
// interface behind. TestFastMatchesOld and FuzzFastYAML hold it to the old
// path.
type treeEmitter struct {
	// emitter holds the bytes written; its scalar writes numbers other than
	// small integers, which typed objects rarely have.
	emitter
	j     []byte
	nodes []node
	// ms is a stack of the members of the mappings being written.
	ms []member
	// styles memoises numberStyle for this goroutine, without locks or
	// making a string to look one up.
	styles map[string]style
}

// maxStyles bounds styles, as maxNumberish bounds numberish.
const maxStyles = 1 << 12

// document appends j's document to e.b, or leaves e.b as it was and
// reports false.
func (e *treeEmitter) document(j []byte) bool {
	e.j, e.ms = j, e.ms[:0]
	start := len(e.b)
	var ok bool
	if e.nodes, ok = parseTree(j, e.nodes); !ok || e.nodes[0].kind != kObject {
		return false
	}
	if e.nodes[0].n == 0 {
		e.b = append(e.b, "{}\n"...)
		return true
	}
	if !e.mapping(0, 0, false) {
		e.b = e.b[:start]
		return false
	}
	return true
}

// mapping is emitter.mapping for the object at node o.
func (e *treeEmitter) mapping(o int32, indent int, inItem bool) bool {
	base := len(e.ms)
	dropped, digits := false, false
	for k := o + 1; k < e.nodes[o].next; k = e.nodes[k].next {
		n := e.nodes[k]
		if n.kind == kDropped {
			dropped = true
			continue
		}
		if key := e.j[n.a:n.b]; len(key) > 128 || bytes.IndexByte(key, ' ') >= 0 {
			return false
		}
		digits = digits || n.digit
		e.ms = append(e.ms, member{n.a, n.b, k})
	}
	ms := e.ms[base:]
	// The old path keeps the last of equal keys, before pruning.
	if digits && !orderedMembers(e.j, ms) || dropped && e.duplicateDropped(o) {
		return false
	}
	slices.SortFunc(ms, func(x, y member) int {
		a, b := e.j[x.a:x.b], e.j[y.a:y.b]
		switch {
		case bytes.Equal(a, b):
			return 0
		case keyLessASCII(a, b):
			return -1
		}
		return 1
	})
	for i := 1; i < len(ms); i++ {
		if bytes.Equal(e.j[ms[i-1].a:ms[i-1].b], e.j[ms[i].a:ms[i].b]) {
			return false
		}
	}
	// Deeper mappings push onto e.ms, which may move: index it afresh.
	for i := range len(ms) {
		m := e.ms[base+i]
		if i > 0 || !inItem {
			e.indent(indent)
		}
		start := len(e.b)
		if !e.str(e.j[m.a:m.b], 0) {
			return false
		}
		e.b = append(e.b, ':')
		if !e.value(m.key+1, indent, indent+len(e.b)-start) {
			return false
		}
	}
	e.ms = e.ms[:base]
	return true
}

// duplicateDropped reports whether a member of object o that prune drops
// shares its key with another member.
func (e *treeEmitter) duplicateDropped(o int32) bool {
	for d := o + 1; d < e.nodes[o].next; d = e.nodes[d].next {
		if e.nodes[d].kind != kDropped {
			continue
		}
		dk := e.j[e.nodes[d].a:e.nodes[d].b]
		for k := o + 1; k < e.nodes[o].next; k = e.nodes[k].next {
			if k != d && bytes.Equal(dk, e.j[e.nodes[k].a:e.nodes[k].b]) {
				return true
			}
		}
	}
	return false
}

// value is emitter.value for the value at node v.
func (e *treeEmitter) value(v int32, indent, col int) bool {
	switch n := e.nodes[v]; n.kind {
	case kObject:
		if n.n == 0 {
			e.b = append(e.b, " {}\n"...)
			return true
		}
		e.b = append(e.b, '\n')
		return e.mapping(v, indent+2, false)
	case kArray:
		if n.n == 0 {
			e.b = append(e.b, " []\n"...)
			return true
		}
		e.b = append(e.b, '\n')
		return e.sequence(v, indent)
	}
	e.b = append(e.b, ' ')
	if !e.scalar(v, col+1) {
		return false
	}
	e.b = append(e.b, '\n')
	return true
}

// sequence is emitter.sequence for the array at node s.
func (e *treeEmitter) sequence(s int32, indent int) bool {
	for x := s + 1; x < e.nodes[s].next; x = e.nodes[x].next {
		e.indent(indent)
		e.b = append(e.b, "- "...)
		switch n := e.nodes[x]; n.kind {
		case kObject:
			if n.n == 0 {
				e.b = append(e.b, "{}\n"...)
				continue
			}
			if !e.mapping(x, indent+2, true) {
				return false
			}
		case kArray:
			return false
		default:
			if !e.scalar(x, indent+2) {
				return false
			}
			e.b = append(e.b, '\n')
		}
	}
	return true
}

// scalar is emitter.scalar for the scalar at node x.
func (e *treeEmitter) scalar(x int32, col int) bool {
	n := e.nodes[x]
	switch n.kind {
	case kNull:
		e.b = append(e.b, "null"...)
	case kTrue:
		e.b = append(e.b, "true"...)
	case kFalse:
		e.b = append(e.b, "false"...)
	case kString:
		return e.str(e.j[n.a:n.b], col)
	case kNumber:
		t := e.j[n.a:n.b]
		if !smallInt(t) {
			// As parseJSON types it.
			return e.emitter.scalar(yamlNumbers(json.Number(t)), col)
		}
		e.b = append(e.b, t...)
	default:
		return false
	}
	return true
}

// smallInt reports whether JSON number t is an integer that fits an int64
// and reads as it is written (not -0).
func smallInt(t []byte) bool {
	d := t
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
		if len(d) > 0 && d[0] == '0' {
			return false
		}
	}
	if len(d) == 0 || len(d) > 18 {
		return false
	}
	for _, c := range d {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

// str is emitter.scalar for a string, s being its bytes in the JSON.
func (e *treeEmitter) str(s []byte, col int) bool {
	st := lexStyle(s)
	if st == numeric {
		var ok bool
		if st, ok = e.styles[string(s)]; !ok {
			k := string(s)
			st = numberStyle(k)
			if len(e.styles) < maxStyles {
				e.styles[k] = st
			}
		}
	}
	switch st {
	case plain:
		// Past the line width, go-yaml folds at a space.
		if col+len(s) > bestWidth && bytes.IndexByte(s, ' ') >= 0 {
			return false
		}
		e.b = append(e.b, s...)
	case doubleQuoted:
		e.b = append(e.b, '"')
		e.b = append(e.b, s...)
		e.b = append(e.b, '"')
	default:
		return false
	}
	return true
}
