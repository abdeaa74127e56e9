package plan

import (
	"bytes"
	"encoding/json"
	"fmt"

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

// doc is report/placement.json in either schema version: version 2's
// placement, version 1's cells.
type doc struct {
	SchemaVersion *int     `json:"schemaVersion"`
	Pools         []string `json:"pools"`
	Classes       []string `json:"classes"`
	Placement     []struct {
		Class string `json:"class"`
		Lands []struct {
			Pool string `json:"pool"`
			Land
		} `json:"lands"`
	} `json:"placement"`
	Cells []struct {
		Class string `json:"class"`
		Pool  string `json:"pool"`
		Fits  bool   `json:"fits"`
		Land
	} `json:"cells"`
	Findings []check.Finding `json:"findings"`
	Units    []check.Unit    `json:"units"`
	Cost     *cost.Cost      `json:"cost"`
}

// ErrVersion is a report no reader here can read.
type ErrVersion struct{ Version int }

func (e *ErrVersion) Error() string {
	if e.Version == 0 {
		return "it has no schemaVersion"
	}
	return fmt.Sprintf("its schemaVersion is %d, and this gpufleet reads 1 and 2", e.Version)
}

// DecodeReport reads report/placement.json as a committed tree holds it.
func DecodeReport(b []byte) (*Report, error) {
	var d doc
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&d); err != nil {
		return nil, err
	}
	v := 0
	if d.SchemaVersion != nil {
		v = *d.SchemaVersion
	}
	if v != 1 && v != 2 {
		return nil, &ErrVersion{Version: v}
	}
	r := newReport(d.Pools, d.Classes, d.Units, d.Findings, d.Cost)
	for _, p := range d.Placement {
		for _, l := range p.Lands {
			r.land(p.Class, l.Pool, l.Land)
		}
	}
	for _, c := range d.Cells {
		if c.Fits {
			r.land(c.Class, c.Pool, c.Land)
		}
	}
	return r, nil
}
