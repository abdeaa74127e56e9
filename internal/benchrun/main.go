// Command benchrun is the whole-process half of 'make bench'. For each
// generated fleet size it writes the spec and the embedded schema to a
// temporary directory, then times gpufleet on the spec in three modes
// (fresh: build into an empty directory; rebuild: build into the tree the
// last build wrote, which changes nothing; check: 'gpufleet check')
// against 'cue export' of the same spec with the same schema: evaluating
// the spec is work gpufleet must do in any case, so cue is the floor. Runs
// are interleaved, so that a noisy machine slows all alike, and each
// process's peak RSS comes from its rusage. It prints one line per size
// and mode,
//
//	size=L mode=fresh gpufleet_s=… cue_floor_s=… ratio=… gpufleet_rss_mb=… cue_rss_mb=…
//
// then, per mode, the growth exponent over the last step of sizes (L to
// XL). First, the live paths (live.go): check --nodes --pods on 5,000
// nodes and 150,000 pods, and drift on 1,000 to 100,000 nodes, each
// against decoding the same files. With -disk, a fresh build is also held to a disk floor: cue export
// plus extracting the same tree into an empty directory with tar.
//
//	go run ./internal/benchrun -gpufleet bin/gpufleet -cue .cache/cue-v0.17.1/cue
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

func main() {
	gpufleet := flag.String("gpufleet", "bin/gpufleet", "the gpufleet binary to time")
	cue := flag.String("cue", ".cache/cue-v0.17.1/cue", "the cue binary (v0.17.1) whose export is the floor")
	sizes := flag.String("sizes", "S,M,L,XL", "generated fleet sizes, comma-separated")
	runs := flag.Int("runs", 5, "runs per command and size; the median is reported")
	seed := flag.Uint64("seed", 1, "fleet generator seed")
	fleets := flag.String("fleets", "fleets", "directory of example fleets to time as well (empty: none)")
	dir := flag.String("dir", "", "where specs and output trees go (default: the system's temporary directory); a tmpfs here leaves out the disk's cost of creating files")
	disk := flag.Bool("disk", false, "also time extracting the tree with tar, for a fresh build's disk floor (cue export plus tar -x)")
	liveToo := flag.Bool("live", true, "also time check --nodes --pods and drift on a cluster's files against decoding them")
	denseToo := flag.Bool("dense", true, "also time check on dense fleets (n pools × n classes, each landing everywhere): at the checker's bound, and refused past it")
	decodeFiles := flag.String("decode", "", "decode these comma-separated kubectl JSON files and exit: the live paths' floor, run as a process of its own")
	genLiveFiles := flag.String("gen-live", "", "write NODES,PODS,N: a cluster's files for the live paths, and exit (run by benchrun itself)")
	flag.Parse()
	if *genLiveFiles != "" {
		if err := genLive(*genLiveFiles); err != nil {
			fmt.Fprintln(os.Stderr, "benchrun:", err)
			os.Exit(1)
		}
		return
	}
	if *decodeFiles != "" {
		if err := decode(strings.Split(*decodeFiles, ",")); err != nil {
			fmt.Fprintln(os.Stderr, "benchrun:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*gpufleet, *cue, *sizes, *fleets, *dir, *runs, *seed, *disk, *liveToo, *denseToo); err != nil {
		fmt.Fprintln(os.Stderr, "benchrun:", err)
		os.Exit(1)
	}
}

func run(gpufleet, cue, sizeList, fleets, dir string, runs int, seed uint64, disk, liveToo, denseToo bool) error {
	if runs < 1 {
		return fmt.Errorf("-runs must be at least 1")
	}
	gpufleet, err := filepath.Abs(gpufleet)
	if err != nil {
		return err
	}
	if cue, err = filepath.Abs(cue); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(dir, "gpufleet-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	fmt.Printf("# whole process, median of %d runs each (wall time and peak RSS), in %s\n", runs, tmp)
	if liveToo {
		// First, while benchrun is small (live.go).
		self, err := os.Executable()
		if err != nil {
			return err
		}
		if err := live(gpufleet, self, tmp, runs); err != nil {
			return err
		}
	}
	if fleets != "" {
		if err := examples(gpufleet, fleets, tmp, runs); err != nil {
			return err
		}
	}
	if denseToo {
		if err := dense(gpufleet, tmp, runs); err != nil {
			return err
		}
	}
	var rows []row
	for _, name := range strings.Split(sizeList, ",") {
		if sizeList == "" {
			break // -sizes "": none
		}
		size, ok := sizeNamed(name)
		if !ok {
			return fmt.Errorf("unknown size %q (want S, M, L or XL)", name)
		}
		rs, err := compare(gpufleet, cue, filepath.Join(tmp, size.Name), size, seed, runs, disk)
		if err != nil {
			return fmt.Errorf("size %s: %w", size.Name, err)
		}
		for _, r := range rs {
			fmt.Println(r)
		}
		rows = append(rows, rs...)
	}
	for _, g := range growthLines(rows) {
		fmt.Println(g)
	}
	return nil
}

func sizeNamed(name string) (fleetgen.Size, bool) {
	for _, s := range []fleetgen.Size{fleetgen.S, fleetgen.M, fleetgen.L, fleetgen.XL} {
		if strings.EqualFold(s.Name, strings.TrimSpace(name)) {
			return s, true
		}
	}
	return fleetgen.Size{}, false
}

// examples times 'gpufleet build' of each example fleet, which must feel
// instant in a pre-commit hook.
func examples(gpufleet, fleets, tmp string, runs int) error {
	dirs, err := filepath.Glob(filepath.Join(fleets, "*"))
	if err != nil {
		return err
	}
	for _, dir := range dirs {
		out := filepath.Join(tmp, "example-out")
		m, err := median(runs, func() (sample, error) {
			if err := os.RemoveAll(out); err != nil {
				return sample{}, err
			}
			return measure(gpufleet, "build", dir, "-o", out)
		})
		if err != nil {
			return fmt.Errorf("fleet %s: %w", dir, err)
		}
		fmt.Printf("fleet=%s gpufleet_s=%.3f gpufleet_rss_mb=%.0f\n", filepath.Base(dir), m.wall.Seconds(), m.rssMB())
	}
	return nil
}
