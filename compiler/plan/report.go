package plan

import (
	"fmt"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/cost"
)

// Report is what a plan needs of a placement report: where each class
// lands, its units, cost and findings.
type Report struct {
	Pools    []string
	Classes  []string
	Lands    map[string]map[string]Land // by class, then pool
	Units    map[string]check.Unit      // by class
	Findings []check.Finding
	Cost     *cost.Cost
}

// Land is a class on a pool it lands on: Capacity of its pods at max size.
type Land struct {
	Type     string `json:"type,omitempty"`
	Capacity int64  `json:"capacity"`
}

// FromReport is the report the checker just made.
func FromReport(r *check.Report) *Report {
	out := newReport(r.Pools, r.Classes, r.Units, r.Findings, r.Cost)
	for i := range r.Rows {
		for _, c := range r.Rows[i].Evaluated {
			if c.Fits {
				out.land(c.Class, c.Pool, Land{Type: c.Type, Capacity: c.Capacity})
			}
		}
	}
	return out
}

func newReport(pools, classes []string, units []check.Unit, findings []check.Finding, c *cost.Cost) *Report {
	r := &Report{Pools: pools, Classes: classes, Lands: map[string]map[string]Land{}, Units: map[string]check.Unit{}, Findings: findings, Cost: c}
	for _, u := range units {
		r.Units[u.Class] = u
	}
	return r
}

func (r *Report) land(class, pool string, l Land) {
	if r.Lands[class] == nil {
		r.Lands[class] = map[string]Land{}
	}
	r.Lands[class][pool] = l
}

// ErrVersion is a report no reader here can read.
type ErrVersion struct{ Version int }

func (e *ErrVersion) Error() string {
	if e.Version == 0 {
		return "it has no schemaVersion"
	}
	return fmt.Sprintf("its schemaVersion is %d, and this gpufleet reads 1 and 2", e.Version)
}

// DecodeReport reads report/placement.json as a committed tree holds it:
// schemaVersion 2's placement, or version 1's cells, each class's
// refusals skipped (scanner).
func DecodeReport(b []byte) (*Report, error) {
	var (
		version        *int
		pools, classes []string
		findings       []check.Finding
		units          []check.Unit
		c              *cost.Cost
	)
	var placed, cells []landOf // each key's last value, as encoding/json keeps
	s := &scanner{b: b}
	// Keys match as encoding/json matches them: without case.
	err := s.object(func(key string) error {
		switch {
		case is(key, "schemaVersion"):
			return s.decode(&version)
		case is(key, "pools"):
			return s.decode(&pools)
		case is(key, "classes"):
			return s.decode(&classes)
		case is(key, "findings"):
			return s.decode(&findings)
		case is(key, "units"):
			return s.decode(&units)
		case is(key, "cost"):
			return s.decode(&c)
		case is(key, "placement"):
			placed = nil
			if s.next() == 'n' {
				return s.skip() // null
			}
			return s.array(func() error {
				if s.next() == 'n' {
					return s.skip() // a null entry, which encoding/json leaves be
				}
				var class string
				var ls []landOf
				err := s.object(func(key string) error {
					switch {
					case is(key, "class"):
						return s.decode(&class)
					case is(key, "lands"):
						ls = nil
						return s.decode(&ls)
					}
					return s.skip()
				})
				for _, l := range ls {
					l.Class, l.Fits = class, true
					placed = append(placed, l)
				}
				return err
			})
		case is(key, "cells"):
			cells = nil
			return s.decode(&cells)
		}
		return s.skip()
	})
	if err != nil {
		return nil, err
	}
	if s.next() != 0 {
		return nil, fmt.Errorf("%w: more after the document, at byte %d", errSyntax, s.i)
	}
	v := 0
	if version != nil {
		v = *version
	}
	if v != 1 && v != 2 {
		return nil, &ErrVersion{Version: v}
	}
	r := newReport(pools, classes, units, findings, c)
	for _, l := range append(placed, cells...) {
		if l.Fits {
			r.land(l.Class, l.Pool, l.Land)
		}
	}
	return r, nil
}

func is(key, name string) bool { return strings.EqualFold(key, name) }

// landOf is a landing in version 2 (its class from the entry around it) or
// a cell in version 1.
type landOf struct {
	Class string `json:"class"`
	Pool  string `json:"pool"`
	Fits  bool   `json:"fits"`
	Land
}
