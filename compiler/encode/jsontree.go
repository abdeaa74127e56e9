package encode

// A document's JSON as a flat list of nodes in document order, pruned as
// yamlValue prunes, for the fast emitter (fastemit.go): building maps and
// interfaces for every value, then pruning them, was most of what encoding
// cost and most of its garbage. Nodes point into the JSON bytes. The
// parser declines (reports false) where it is not certain to mean what
// parseJSON means: escapes and non-ASCII in strings, malformed or too deep
// JSON. The caller then takes the old path, which gives the same bytes or
// the same error.

type kind uint8

const (
	kObject kind = iota
	kArray
	kString
	kNumber
	kTrue
	kFalse
	kNull
	// kKey is an object's member; its value's nodes follow it.
	kKey
	// kDropped is a member prune drops; its value's nodes are gone.
	kDropped
)

type node struct {
	kind kind
	// digit is whether a key's text has a digit, which makes go-yaml's
	// key order harder (orderedMembers).
	digit bool
	// a and b delimit a string's or key's text (without quotes) or a
	// number's text in the JSON.
	a, b int32
	// next is the index past the node and what it holds: a key's value, an
	// object's members, an array's elements.
	next int32
	// n counts an object's kept members or an array's elements.
	n int32
}

type treeParser struct {
	j     []byte
	i     int
	nodes []node
}

// parseTree parses j into nodes (reusing their storage), prunes as
// yamlValue does, and reports false where it declines.
func parseTree(j []byte, nodes []node) ([]node, bool) {
	if len(j) > 1<<30 {
		return nodes, false // offsets are int32
	}
	p := treeParser{j: j, nodes: nodes[:0]}
	p.space()
	ok := p.value(0, true)
	if p.space(); p.i != len(p.j) {
		ok = false
	}
	return p.nodes, ok
}

func (p *treeParser) space() {
	for p.i < len(p.j) {
		switch p.j[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *treeParser) push(n node) int {
	p.nodes = append(p.nodes, n)
	return len(p.nodes) - 1
}

// value parses one value; top is the document itself, whose status is
// dropped whatever it holds.
func (p *treeParser) value(depth int, top bool) bool {
	if depth > maxDepth || p.i >= len(p.j) {
		return false
	}
	switch c := p.j[p.i]; {
	case c == '{':
		return p.object(depth, top)
	case c == '[':
		return p.array(depth)
	case c == '"':
		a, b, _, ok := p.str()
		p.push(node{kind: kString, a: a, b: b, next: int32(len(p.nodes) + 1)})
		return ok
	case c == '-' || isDigit(c):
		a := p.i
		ok := p.number()
		p.push(node{kind: kNumber, a: int32(a), b: int32(p.i), next: int32(len(p.nodes) + 1)})
		return ok
	}
	for _, lit := range [...]struct {
		text string
		k    kind
	}{{"true", kTrue}, {"false", kFalse}, {"null", kNull}} {
		if len(p.j)-p.i >= len(lit.text) && string(p.j[p.i:p.i+len(lit.text)]) == lit.text {
			p.i += len(lit.text)
			p.push(node{kind: lit.k, next: int32(len(p.nodes) + 1)})
			return true
		}
	}
	return false
}

func (p *treeParser) object(depth int, top bool) bool {
	p.i++ // {
	o := p.push(node{kind: kObject})
	p.space()
	if p.i < len(p.j) && p.j[p.i] == '}' {
		p.i++
		p.nodes[o].next = int32(len(p.nodes))
		return true
	}
	for {
		p.space()
		if p.i >= len(p.j) || p.j[p.i] != '"' {
			return false
		}
		a, b, digit, ok := p.str()
		if !ok {
			return false
		}
		p.space()
		if p.i >= len(p.j) || p.j[p.i] != ':' {
			return false
		}
		p.i++
		p.space()
		k := p.push(node{kind: kKey, a: a, b: b, digit: digit})
		if !p.value(depth+1, false) {
			return false
		}
		if key := p.j[a:b]; top && string(key) == "status" || dropsEmpty(key) && p.empty(k+1) {
			p.nodes = p.nodes[:k+1]
			p.nodes[k].kind = kDropped
		} else {
			p.nodes[o].n++
		}
		p.nodes[k].next = int32(len(p.nodes))
		p.space()
		if p.i >= len(p.j) {
			return false
		}
		switch p.j[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			p.nodes[o].next = int32(len(p.nodes))
			return true
		default:
			return false
		}
	}
}

// empty is prune's isEmpty of the value at node v, already pruned.
func (p *treeParser) empty(v int) bool {
	n := p.nodes[v]
	return n.kind == kNull || n.kind == kObject && n.n == 0
}

// dropsEmpty is emptyDropped[k], with no string made of k.
func dropsEmpty(k []byte) bool {
	switch string(k) {
	case "status", "creationTimestamp", "resources", "strategy", "updateStrategy", "spec", "metadata":
		return true
	}
	return false
}

func (p *treeParser) array(depth int) bool {
	p.i++ // [
	s := p.push(node{kind: kArray})
	p.space()
	if p.i < len(p.j) && p.j[p.i] == ']' {
		p.i++
		p.nodes[s].next = int32(len(p.nodes))
		return true
	}
	for {
		p.space()
		if !p.value(depth+1, false) {
			return false
		}
		p.nodes[s].n++
		p.space()
		if p.i >= len(p.j) {
			return false
		}
		switch p.j[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			p.nodes[s].next = int32(len(p.nodes))
			return true
		default:
			return false
		}
	}
}

// str reads a string that needs no decoding: no escape, no byte past
// ASCII. The emitter would fall back for any other string anyway.
func (p *treeParser) str() (a, b int32, digit, ok bool) {
	p.i++ // "
	start := p.i
	for p.i < len(p.j) {
		switch c := p.j[p.i]; {
		case c == '"':
			p.i++
			return int32(start), int32(p.i - 1), digit, true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return 0, 0, false, false
		case isDigit(c):
			digit = true
		}
		p.i++
	}
	return 0, 0, false, false
}

// number checks a JSON number's syntax as parseJSON does.
func (p *treeParser) number() bool {
	if p.j[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.j) && isDigit(p.j[p.i]) {
			p.i++
			n++
		}
		return n
	}
	switch {
	case p.i < len(p.j) && p.j[p.i] == '0':
		p.i++
	case digits() == 0:
		return false
	}
	if p.i < len(p.j) && p.j[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return false
		}
	}
	if p.i < len(p.j) && (p.j[p.i] == 'e' || p.j[p.i] == 'E') {
		p.i++
		if p.i < len(p.j) && (p.j[p.i] == '+' || p.j[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return false
		}
	}
	return true
}
