package load

import (
	"github.com/gpufleet/gpufleet/compiler/diag"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// Entries are where the spec declares each pool, class and tenant (and the
// cluster's version): what the
// placement checker's findings point at. They hold no CUE values, which are
// most of a loaded spec's memory (about 45 MB of 77 for a fleet of 1,000
// tenants), so the pipeline keeps them and drops the Source once the fleet
// is derived.
type Entries struct {
	pos map[string]diag.Pos // by section and name, joined with "."
}

// Entries returns the positions of the fleet's pools, classes and tenants.
func (s *Source) Entries() Entries {
	e := Entries{pos: map[string]diag.Pos{}}
	keep := func(section string, names []string) {
		e.pos[section] = s.Pos(section)
		for _, n := range names {
			e.pos[section+"."+n] = s.Pos(section, n)
		}
	}
	if f := s.Fleet; f != nil {
		keep("pools", spec.Keys(f.Pools))
		keep("classes", spec.Keys(f.Classes))
		keep("tenants", spec.Keys(f.Tenants))
		keep("cluster", []string{"version"})
	}
	return e
}

// Pos returns where the spec declares the named entry of section ("pools",
// "classes", "tenants", or "cluster" for its version), or no position.
func (e Entries) Pos(section, name string) diag.Pos { return e.pos[section+"."+name] }

// Section returns where the spec declares a section ("pools", "classes",
// "tenants"), or no position.
func (e Entries) Section(section string) diag.Pos { return e.pos[section] }
