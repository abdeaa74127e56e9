package plan

import (
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/diag"
)

// findingsChange is the findings after that were not before (errors
// first) and those before that are gone. A finding is the same one when
// its check, severity, subjects and message are: positions are not in a
// committed report. New findings keep theirs, for annotations.
func findingsChange(before, after []check.Finding) (FindingsChange, []check.Finding) {
	key := func(f check.Finding) check.Finding { f.Pos = diag.Pos{}; return f }
	was := map[check.Finding]bool{}
	for _, f := range before {
		was[key(f)] = true
	}
	is := map[check.Finding]bool{}
	c := FindingsChange{New: []check.Finding{}, Resolved: []check.Finding{}}
	var errs, warns []check.Finding
	for _, f := range after {
		is[key(f)] = true
		if was[key(f)] {
			continue
		}
		if f.Severity == "error" {
			errs = append(errs, f)
		} else {
			warns = append(warns, f)
		}
	}
	for _, f := range before {
		if !is[key(f)] {
			c.Resolved = append(c.Resolved, f)
		}
	}
	c.New = append(append(c.New, errs...), warns...)
	return c, errs
}
