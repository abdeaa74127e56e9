package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	livefile "github.com/gpufleet/gpufleet/compiler/live"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// The test binary doubles as the measured command: with BENCHRUN_CHILD set
// it allocates and exits with the code given.
func TestMain(m *testing.M) {
	if code := os.Getenv("BENCHRUN_CHILD"); code != "" {
		buf := make([]byte, 64<<20)
		for i := range buf {
			buf[i] = 1 // touch every page, so it is resident
		}
		if code != "0" {
			os.Exit(3)
		}
		os.Exit(int(buf[len(buf)-1]) - 1)
	}
	os.Exit(m.Run())
}

func TestMeasure(t *testing.T) {
	t.Setenv("BENCHRUN_CHILD", "0")
	s, err := measure(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if s.wall <= 0 || s.rssMB() < 64 {
		t.Errorf("got wall %v and peak RSS %.1f MB, want > 0 and >= 64 MB", s.wall, s.rssMB())
	}
	t.Setenv("BENCHRUN_CHILD", "3")
	if _, err := measure(os.Args[0]); err == nil {
		t.Error("a command that failed was measured without error")
	}
}

func TestMedianOf(t *testing.T) {
	got := medianOf([]sample{{3 * time.Second, 10}, {1 * time.Second, 30}, {2 * time.Second, 20}, {9 * time.Second, 5}})
	if got.wall != 2*time.Second || got.rss != 10 {
		t.Errorf("median = %v, %d; want 2s, 10", got.wall, got.rss)
	}
}

func TestExponent(t *testing.T) {
	if k := exponent(1, 100, 10, 100); math.Abs(k-2) > 1e-9 {
		t.Errorf("quadratic growth gave exponent %v", k)
	}
	if k := exponent(0.5, 5, 38, 380); math.Abs(k-1) > 1e-9 {
		t.Errorf("linear growth gave exponent %v", k)
	}
}

func TestGrowthLines(t *testing.T) {
	var rows []row
	for _, m := range modes {
		rows = append(rows,
			row{size: fleetgen.S, mode: m, gpufleet: sample{wall: time.Second}, cue: sample{wall: time.Second}},
			row{size: fleetgen.L, mode: m, gpufleet: sample{wall: 10 * time.Second}, cue: sample{wall: 5 * time.Second}},
			row{size: fleetgen.XL, mode: m, gpufleet: sample{wall: 100 * time.Second}, cue: sample{wall: 50 * time.Second}})
	}
	lines := growthLines(rows)
	if len(lines) != 3 || lines[0] != "growth L->XL mode=fresh entities=1450->14500 gpufleet_exponent=1.00 cue_exponent=1.00" ||
		!strings.HasPrefix(lines[2], "growth L->XL mode=check ") {
		t.Errorf("growth lines:\n%s", strings.Join(lines, "\n"))
	}
}

// A row prints as the issue asks, field for field.
func TestRowLine(t *testing.T) {
	r := row{size: fleetgen.L, mode: rebuild, gpufleet: sample{1500 * time.Millisecond, 300 << 20}, cue: sample{time.Second, 200 << 20}}
	want := "size=L mode=rebuild gpufleet_s=1.500 cue_floor_s=1.000 ratio=1.50 gpufleet_rss_mb=300 cue_rss_mb=200"
	if got := r.String(); got != want {
		t.Errorf("row:\n got %s\nwant %s", got, want)
	}
	// With a disk floor, a second line that a grep for "^size=" skips.
	r.disk = sample{wall: 3 * time.Second}
	if got := r.String(); got != want+"\ndisk size=L mode=rebuild gpufleet_s=1.500 disk_floor_s=3.000 disk_ratio=0.50" {
		t.Errorf("row with a disk floor:\n%s", got)
	}
}

func TestSizeNamed(t *testing.T) {
	if s, ok := sizeNamed(" xl"); !ok || s != fleetgen.XL {
		t.Errorf("sizeNamed(xl) = %v, %v", s, ok)
	}
	if _, ok := sizeNamed("XXL"); ok {
		t.Error("XXL is no size")
	}
}

// The live paths' files are what gpufleet reads without error: kubectl's
// lists, each pod on a node of the nodes file, no node over its pods.
func TestWriteLive(t *testing.T) {
	t.Chdir("../..")
	dir := t.TempDir()
	nodes, pods := filepath.Join(dir, "nodes.json"), filepath.Join(dir, "pods.json")
	if err := genLive(nodes + "," + pods + ",100"); err != nil {
		t.Fatal(err)
	}
	nf, err := os.Open(nodes)
	if err != nil {
		t.Fatal(err)
	}
	defer nf.Close()
	ns, err := livefile.ReadNodes(nodes, nf)
	if err != nil || len(ns) != 100 {
		t.Fatalf("%d nodes, %v", len(ns), err)
	}
	pf, err := os.Open(pods)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	ps, err := livefile.ReadPods(pods, pf, nodes, ns)
	if err != nil || len(ps) == 0 || len(ps) > 100*podsPerNode {
		t.Fatalf("%d pods, %v", len(ps), err)
	}
	on := map[string]int64{}
	for _, p := range ps {
		on[p.Spec.NodeName]++
	}
	for _, n := range ns {
		if max := n.Status.Allocatable.Pods().Value(); on[n.Name] > max {
			t.Errorf("node %s: %d pods, allocatable %d", n.Name, on[n.Name], max)
		}
	}
}
