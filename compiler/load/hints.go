package load

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"

	"github.com/gpufleet/gpufleet/compiler/internal/suggest"
)

// hint adds, to a CUE error, the fix in the spec's terms: the field a
// misspelled one was meant to be, or quotes around a number where the
// schema wants a string (a version of 1.36 unquoted is the float 1.36).
// path is the error's, in the spec, with names unquoted; schema gives
// #Fleet, compiled once for all of a spec's errors.
func hint(msg string, path []string, schema func() (cue.Value, error)) string {
	if msg == "field not allowed" && len(path) > 0 {
		name := path[len(path)-1]
		if fields := schemaFields(schema, path[:len(path)-1]); len(fields) > 0 {
			if h := suggest.Hint(name, fields); h != "" {
				return msg + h
			}
			if len(fields) <= 30 {
				return msg + " (allowed here: " + strings.Join(fields, ", ") + ")"
			}
		}
		return msg
	}
	if m := numberForString.FindStringSubmatch(msg); m != nil {
		return msg + ": write it as a string, in quotes: " + strconv.Quote(m[1])
	}
	return msg
}

// lazySchema is #Fleet, compiled on first use, in a context of its own.
func lazySchema() func() (cue.Value, error) {
	return sync.OnceValues(func() (cue.Value, error) { return schemaValue(cuecontext.New()) })
}

// numberForString is CUE's conflict between a number in the spec and a
// string constraint in the schema.
var numberForString = regexp.MustCompile(`^conflicting values ([-+]?[0-9][0-9.eE+-]*) and .*\(mismatched types (?:float|int|number) and string\)$`)

// schemaFields are the fields #Fleet allows at path (a spec's map names and
// list indexes follow the schema's patterns), in the schema's order.
func schemaFields(schema func() (cue.Value, error), path []string) []string {
	v, err := schema()
	if err != nil {
		return nil
	}
	for _, name := range path {
		next := v.LookupPath(cue.MakePath(cue.Str(name)))
		if !next.Exists() {
			next = v.LookupPath(cue.MakePath(cue.Str(name).Optional()))
		}
		if !next.Exists() {
			if _, err := strconv.Atoi(name); err == nil {
				next = v.LookupPath(cue.MakePath(cue.AnyIndex))
			} else {
				next = v.LookupPath(cue.MakePath(cue.AnyString))
			}
		}
		if !next.Exists() {
			return nil
		}
		v = next
	}
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return nil
	}
	var fields []string
	for it.Next() {
		fields = append(fields, it.Selector().Unquoted())
	}
	return fields
}
