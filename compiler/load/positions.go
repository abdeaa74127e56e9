package load

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/token"

	"github.com/gpufleet/gpufleet/compiler/diag"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// leadingPos matches the file:line:col prefix CUE puts on a wrapped error.
var leadingPos = regexp.MustCompile(`^\S+:\d+:\d+: `)

// syntaxWrap is how CUE's loader wraps an error of the parse hook: the
// position already names the file.
var syntaxWrap = regexp.MustCompile(`^cannot get syntax for "[^"]*": `)

// cueDiags turns CUE errors into diagnostics, one per error, each positioned
// in the user's file where CUE knows one.
func (s *Source) cueDiags(err error) diag.List {
	var out diag.List
	schema := lazySchema()
	for _, e := range cueerrors.Errors(err) {
		format, args := e.Msg()
		d := diag.Diagnostic{Msg: fmt.Sprintf(format, args...)}
		if d.Msg == "" {
			d.Msg = e.Error()
		}
		d.Msg = syntaxWrap.ReplaceAllString(d.Msg, "")
		if d.Msg == "import failed" {
			// CUE keeps why in the wrapped error: which package, and
			// that no registry may be reached.
			if rest, ok := strings.CutPrefix(e.Error(), "import failed: "); ok {
				d.Msg += ": " + leadingPos.ReplaceAllString(rest, "")
			}
		}
		path := e.Path()
		if len(path) > 0 && path[0] == "#Fleet" {
			path = path[1:]
		}
		d.Path = strings.Join(path, ".")
		// CUE quotes a label that is not an identifier ("pool-a"): the
		// spec's own name is what its position is found by.
		path = slices.Clone(path)
		for i, p := range path {
			if strings.HasPrefix(p, `"`) {
				if name, err := literal.Unquote(p); err == nil {
					path[i] = name
				}
			}
		}
		d.Msg = hint(d.Msg, path, schema)
		d.Pos = s.pickPos(cueerrors.Positions(e))
		if rest, ok := strings.CutPrefix(d.Msg, "incomplete value "); ok {
			// The field is absent from the spec: point at its parent in
			// the spec rather than at the schema that requires it.
			d.Msg = "missing required field (want " + rest + ")"
			d.Pos = diag.Pos{}
		}
		if d.Pos.File == "" || strings.HasPrefix(d.Pos.File, schemaDir) {
			d.Pos = s.posOrFile(path...)
		}
		out = append(out, d)
	}
	return collapseDisjunctions(out)
}

// collapseDisjunctions merges CUE's "N errors in empty disjunction" and its
// per-alternative conflicts into one message listing the allowed values.
func collapseDisjunctions(in diag.List) diag.List {
	umbrella := map[string]bool{}
	for _, d := range in {
		if strings.Contains(d.Msg, "errors in empty disjunction") {
			umbrella[d.Path] = true
		}
	}
	if len(umbrella) == 0 {
		return in
	}
	type group struct {
		d     diag.Diagnostic
		pairs [][2]string
		other []string // children that are not conflicts, e.g. out of bound
	}
	groups := map[string]*group{}
	var out diag.List
	for _, d := range in {
		if !umbrella[d.Path] {
			out = append(out, d)
			continue
		}
		g := groups[d.Path]
		if g == nil {
			g = &group{d: d}
			groups[d.Path] = g
		}
		if strings.HasPrefix(g.d.Pos.File, schemaDir) || g.d.Pos.Line == 0 {
			g.d.Pos = d.Pos
		}
		if !strings.Contains(d.Msg, "errors in empty disjunction") && !strings.HasPrefix(d.Msg, "conflicting values ") {
			g.other = append(g.other, d.Msg)
		}
		if rest, ok := strings.CutPrefix(d.Msg, "conflicting values "); ok {
			if i := strings.Index(rest, " (mismatched types"); i >= 0 {
				rest = rest[:i]
			}
			if a, b, ok := strings.Cut(rest, " and "); ok {
				g.pairs = append(g.pairs, [2]string{a, b})
			}
		}
	}
	for _, path := range spec.Keys(groups) {
		g := groups[path]
		// The spec's value is the operand every conflict shares.
		if len(g.pairs) > 1 {
			for _, got := range g.pairs[0] {
				var want []string
				for _, p := range g.pairs {
					switch got {
					case p[0]:
						want = append(want, p[1])
					case p[1]:
						want = append(want, p[0])
					}
				}
				if len(want) == len(g.pairs) {
					g.d.Msg = fmt.Sprintf("invalid value %s (want %s)", got, strings.Join(want, " | "))
					break
				}
			}
		}
		if strings.Contains(g.d.Msg, "errors in empty disjunction") && len(g.other) > 0 {
			// No alternative matched; say why the non-default ones failed.
			g.d.Msg = strings.Join(g.other, "; ")
		}
		out = append(out, g.d)
	}
	return out
}

// pickPos prefers the user's own file over the embedded schema: a conflict
// between the schema and the spec is fixed in the spec.
func (s *Source) pickPos(ps []token.Pos) diag.Pos {
	var schemaPos diag.Pos
	for _, p := range ps {
		if !p.IsValid() {
			continue
		}
		dp := s.toPos(p)
		if strings.HasPrefix(p.Filename(), schemaDir) {
			if schemaPos.File == "" {
				schemaPos = dp
			}
			continue
		}
		return dp
	}
	return schemaPos
}

func (s *Source) toPos(p token.Pos) diag.Pos {
	if !p.IsValid() {
		return diag.Pos{}
	}
	pos := p.Position()
	return diag.Pos{File: diag.RelFile(s.wd, pos.Filename), Line: pos.Line, Column: pos.Column}
}

// Pos returns where the spec sets the field at path (map keys, and list
// indexes in decimal), or the nearest enclosing field it can find.
func (s *Source) Pos(path ...string) diag.Pos {
	if len(s.shards) == 0 {
		return diag.Pos{}
	}
	best, depth := diag.Pos{}, -1
	for _, part := range s.shards[ownerOf(path, len(s.shards))].parts {
		v := part
		for i, p := range path {
			v = child(v, p)
			if !v.Exists() {
				break
			}
			// A deeper hit beats a shallower one, from this part or
			// another; of two as deep, the first part's wins.
			if pos := s.toPos(v.Pos()); pos.File != "" && i > depth {
				best, depth = pos, i
				if i == len(path)-1 {
					return best
				}
			}
		}
	}
	return best
}

func child(v cue.Value, p string) cue.Value {
	if v.Kind() == cue.ListKind {
		i, err := strconv.Atoi(p)
		if err != nil {
			return cue.Value{}
		}
		return v.LookupPath(cue.MakePath(cue.Index(i)))
	}
	return v.LookupPath(cue.MakePath(cue.Str(p)))
}

// Diag makes a diagnostic positioned at path.
func (s *Source) Diag(msg string, path ...string) diag.Diagnostic {
	return diag.Diagnostic{Pos: s.posOrFile(path...), Path: strings.Join(path, "."), Msg: msg}
}

// posOrFile falls back to naming the spec file when the spec does not
// mention the path at all.
func (s *Source) posOrFile(path ...string) diag.Pos {
	if p := s.Pos(path...); p.File != "" {
		return p
	}
	if len(s.files) > 0 {
		return diag.Pos{File: s.files[0]}
	}
	return diag.Pos{}
}
