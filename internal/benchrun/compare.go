package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/gpufleet/gpufleet/internal/fleetgen"
	"github.com/gpufleet/gpufleet/schema"
)

// row is one size's comparison.
type row struct {
	size     fleetgen.Size
	gpufleet sample
	cue      sample
}

func (r row) String() string {
	return fmt.Sprintf("size=%s gpufleet_s=%.3f cue_floor_s=%.3f ratio=%.2f gpufleet_rss_mb=%.0f cue_rss_mb=%.0f rss_ratio=%.2f",
		r.size.Name, r.gpufleet.wall.Seconds(), r.cue.wall.Seconds(), r.gpufleet.wall.Seconds()/r.cue.wall.Seconds(),
		r.gpufleet.rssMB(), r.cue.rssMB(), r.gpufleet.rssMB()/r.cue.rssMB())
}

// entities measures a fleet's size for the growth exponent.
func entities(s fleetgen.Size) int { return s.Pools + s.Classes + s.Tenants }

// compare writes the size's fleet and the schema into dir and times both
// commands on them, alternating which goes first.
func compare(gpufleet, cue, dir string, size fleetgen.Size, seed uint64, runs int) (row, error) {
	spec, schemaFiles, err := writeInputs(dir, size, seed)
	if err != nil {
		return row{}, err
	}
	out := filepath.Join(dir, "out")
	build := func() (sample, error) {
		if err := os.RemoveAll(out); err != nil {
			return sample{}, err
		}
		return measure(gpufleet, "build", spec, "-o", out)
	}
	export := func() (sample, error) {
		// -d unifies the data file with #Fleet, as gpufleet does.
		return measure(cue, append(append([]string{"export"}, schemaFiles...), spec, "-d", "#Fleet")...)
	}
	var g, c []sample
	for i := 0; i < runs; i++ {
		first, second := build, export
		if i%2 == 1 {
			first, second = export, build
		}
		a, err := first()
		if err != nil {
			return row{}, err
		}
		b, err := second()
		if err != nil {
			return row{}, err
		}
		if i%2 == 1 {
			a, b = b, a
		}
		g, c = append(g, a), append(c, b)
	}
	return row{size: size, gpufleet: medianOf(g), cue: medianOf(c)}, nil
}

// writeInputs writes the generated spec as JSON and the embedded schema's
// files, returning their paths.
func writeInputs(dir string, size fleetgen.Size, seed uint64) (string, []string, error) {
	if err := os.MkdirAll(filepath.Join(dir, "schema"), 0o755); err != nil {
		return "", nil, err
	}
	spec := filepath.Join(dir, "fleet.json")
	if err := os.WriteFile(spec, fleetgen.JSON(fleetgen.Generate(seed, size, fleetgen.Options{Buildable: true})), 0o644); err != nil {
		return "", nil, err
	}
	var files []string
	for _, f := range schema.Files() {
		p := filepath.Join(dir, "schema", f.Name)
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return "", nil, err
		}
		files = append(files, p)
	}
	return spec, files, nil
}

// exponent is k in time ∝ size^k between two rows.
func exponent(from, to float64, nFrom, nTo int) float64 {
	return math.Log(to/from) / math.Log(float64(nTo)/float64(nFrom))
}

// growthLines reports the growth exponent from the first size to the last
// and, since process start-up flatters the small end, over the last step.
func growthLines(rows []row) []string {
	var lines []string
	pair := func(a, b row) {
		lines = append(lines, fmt.Sprintf("growth %s->%s entities=%d->%d gpufleet_exponent=%.2f cue_exponent=%.2f",
			a.size.Name, b.size.Name, entities(a.size), entities(b.size),
			exponent(a.gpufleet.wall.Seconds(), b.gpufleet.wall.Seconds(), entities(a.size), entities(b.size)),
			exponent(a.cue.wall.Seconds(), b.cue.wall.Seconds(), entities(a.size), entities(b.size))))
	}
	if len(rows) >= 2 {
		pair(rows[0], rows[len(rows)-1])
	}
	if len(rows) >= 3 {
		pair(rows[len(rows)-2], rows[len(rows)-1])
	}
	return lines
}
