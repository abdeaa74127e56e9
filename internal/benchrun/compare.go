package main

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/gpufleet/gpufleet/internal/fleetgen"
	"github.com/gpufleet/gpufleet/schema"
)

// The modes 'gpufleet' is timed in, each against the same cue floor:
// fresh builds into an empty directory, rebuild into the tree the last
// build left (so nothing changes), and check compiles and prints the
// placement report without writing a tree.
const (
	fresh   = "fresh"
	rebuild = "rebuild"
	checked = "check"
)

var modes = []string{fresh, rebuild, checked}

// row is one size and mode's comparison.
type row struct {
	size     fleetgen.Size
	mode     string
	gpufleet sample
	cue      sample
	// disk is cue export plus extracting the same tree into an empty
	// directory with tar, the floor of a fresh build on disk; measured
	// only when asked, and for fresh builds.
	disk sample
}

func (r row) String() string {
	s := fmt.Sprintf("size=%s mode=%s gpufleet_s=%.3f cue_floor_s=%.3f ratio=%.2f gpufleet_rss_mb=%.0f cue_rss_mb=%.0f",
		r.size.Name, r.mode, r.gpufleet.wall.Seconds(), r.cue.wall.Seconds(), r.gpufleet.wall.Seconds()/r.cue.wall.Seconds(),
		r.gpufleet.rssMB(), r.cue.rssMB())
	if r.disk.wall > 0 {
		s += fmt.Sprintf("\ndisk size=%s mode=%s gpufleet_s=%.3f disk_floor_s=%.3f disk_ratio=%.2f",
			r.size.Name, r.mode, r.gpufleet.wall.Seconds(), r.disk.wall.Seconds(), r.gpufleet.wall.Seconds()/r.disk.wall.Seconds())
	}
	return s
}

// entities measures a fleet's size for the growth exponent.
func entities(s fleetgen.Size) int { return s.Pools + s.Classes + s.Tenants }

// compare writes the size's fleet and the schema into dir and times cue
// export and gpufleet in every mode on them, side by side: each round
// runs all of them, starting one step further along each time, so that a
// noisy machine slows them alike. A rebuild builds into the tree the
// round's (or the last round's) fresh build wrote.
func compare(gpufleet, cue, dir string, size fleetgen.Size, seed uint64, runs int, disk bool) ([]row, error) {
	spec, schemaFiles, err := writeInputs(dir, size, seed)
	if err != nil {
		return nil, err
	}
	grown, err := writeGrown(dir, size, seed)
	if err != nil {
		return nil, err
	}
	// Each fresh build and each extraction gets a directory never used
	// before, and nothing is deleted until the end: on ext4, creating
	// files right after deleting thousands scans the inodes just freed
	// (recently_deleted), which once made a fresh build 9 times slower
	// than the same build into a new place. Neither a CI checkout nor tar
	// in real use runs right after such a deletion.
	round := 0
	out := func() string { return filepath.Join(dir, fmt.Sprintf("out-%d", round)) }
	tarball := filepath.Join(dir, "tree.tar")
	extracted := 0
	steps := []struct {
		name string
		run  func() (sample, error)
	}{
		{"cue", func() (sample, error) {
			// -d unifies the data file with #Fleet, as gpufleet does.
			return measure(cue, append(append([]string{"export"}, schemaFiles...), spec, "-d", "#Fleet")...)
		}},
		{fresh, func() (sample, error) {
			round++
			return measure(gpufleet, "build", spec, "-o", out())
		}},
		{rebuild, func() (sample, error) { return measure(gpufleet, "build", spec, "-o", out()) }},
		{checked, func() (sample, error) { return measure(gpufleet, "check", spec) }},
		// Against the tree the last build left, which the spec built.
		{planned, func() (sample, error) { return measure(gpufleet, "plan", grown, "-o", out()) }},
	}
	if disk {
		steps = append(steps, struct {
			name string
			run  func() (sample, error)
		}{"tar", func() (sample, error) {
			if _, err := os.Stat(tarball); err != nil {
				// The round's fresh build ran before: the tree is there.
				if err := exec.Command("tar", "-cf", tarball, "-C", out(), ".").Run(); err != nil {
					return sample{}, fmt.Errorf("tar -c: %w", err)
				}
			}
			extracted++
			empty := filepath.Join(dir, fmt.Sprintf("extracted-%d", extracted))
			if err := os.Mkdir(empty, 0o755); err != nil {
				return sample{}, err
			}
			return measure("tar", "-xf", tarball, "-C", empty)
		}})
	}
	got := map[string][]sample{}
	for i := 0; i < runs; i++ {
		for k := range steps {
			// The first round starts with cue, so a rebuild and tar always
			// follow a fresh build.
			step := steps[(i+k)%len(steps)]
			s, err := step.run()
			if err != nil {
				return nil, err
			}
			got[step.name] = append(got[step.name], s)
		}
	}
	floor := medianOf(got["cue"])
	var rows []row
	for _, m := range modes {
		r := row{size: size, mode: m, gpufleet: medianOf(got[m]), cue: floor}
		if disk && m == fresh {
			t := medianOf(got["tar"])
			r.disk = sample{wall: floor.wall + t.wall}
		}
		rows = append(rows, r)
	}
	md, err := markdownSize(gpufleet, grown, out())
	if err != nil {
		return nil, err
	}
	fmt.Println(planLine(size, medianOf(got[planned]), medianOf(got[checked]), md))
	return rows, nil
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

// growthLines reports, for each mode, the growth exponent over the last
// step of sizes (L to XL in a full run): process start-up flattens the
// small end.
func growthLines(rows []row) []string {
	var lines []string
	for _, m := range modes {
		var of []row
		for _, r := range rows {
			if r.mode == m {
				of = append(of, r)
			}
		}
		if len(of) < 2 {
			continue
		}
		a, b := of[len(of)-2], of[len(of)-1]
		lines = append(lines, fmt.Sprintf("growth %s->%s mode=%s entities=%d->%d gpufleet_exponent=%.2f cue_exponent=%.2f",
			a.size.Name, b.size.Name, m, entities(a.size), entities(b.size),
			exponent(a.gpufleet.wall.Seconds(), b.gpufleet.wall.Seconds(), entities(a.size), entities(b.size)),
			exponent(a.cue.wall.Seconds(), b.cue.wall.Seconds(), entities(a.size), entities(b.size))))
	}
	return lines
}
