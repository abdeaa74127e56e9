package write

import (
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gpufleet/gpufleet/compiler/internal/par"
)

// A dirGroup is one directory of a sorted list of tree paths: the unit of
// work that runs on a CPU of its own, with the directory opened once.
type dirGroup struct {
	dir   string // slash path, "." at the top
	depth int    // components in dir, 0 at the top
	files []int  // the indices of the paths directly in dir
	lo    int    // the lowest index of a path below dir
	n     int    // the group's index in sorted order
}

// groupDirs groups paths (sorted) by directory, in sorted order; with
// all, "." and the directories with no file of their own but a
// subdirectory are groups too.
func groupDirs(paths []string, all bool) []dirGroup {
	at := map[string]int{}
	var gs []dirGroup
	add := func(d string) int {
		if k, ok := at[d]; ok {
			return k
		}
		lo := 0
		if d != "." {
			lo = sort.SearchStrings(paths, d+"/")
		}
		at[d] = len(gs)
		gs = append(gs, dirGroup{dir: d, depth: depth(d), lo: lo})
		return len(gs) - 1
	}
	if all {
		add(".")
	}
	for i, p := range paths {
		d, _ := splitDir(p)
		k := add(d)
		gs[k].files = append(gs[k].files, i)
		if all {
			for d != "." {
				d, _ = splitDir(d)
				add(d)
			}
		}
	}
	sort.Slice(gs, func(i, j int) bool { return gs[i].dir < gs[j].dir })
	for i := range gs {
		gs[i].n = i
	}
	return gs
}

func depth(d string) int {
	if d == "." {
		return 0
	}
	return strings.Count(d, "/") + 1
}

// checkPaths refuses a tree path that could name anything but a file
// below the tree: every directory is opened by its components, and ".."
// or an empty one would lead elsewhere.
func checkPaths(paths []string) error {
	for _, p := range paths {
		if !fs.ValidPath(p) || p == "." {
			return fmt.Errorf("cannot write %q: not a path gpufleet generates", p)
		}
	}
	return nil
}

// lowest keeps, of the errors found on every CPU, the one at the lowest
// index, so that what a failed build reports does not depend on
// scheduling. Work at a higher index than an error found may be skipped:
// it cannot change which error is lowest.
type lowest struct {
	mu  sync.Mutex
	at  atomic.Int64
	err error
}

func newLowest() *lowest {
	l := &lowest{}
	l.at.Store(1<<62 - 1)
	return l
}

func (l *lowest) set(i int, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if int64(i) < l.at.Load() {
		l.at.Store(int64(i))
		l.err = err
	}
}

// skip reports whether work at index i can no longer matter.
func (l *lowest) skip(i int) bool { return int64(i) > l.at.Load() }

// eachGroup runs f on every group, on every CPU, each goroutine with
// state of its own from newState, which also returns how to release it
// (par has no hook for the end of a goroutine). With byDepth, the groups
// of one depth all finish before the next depth starts, so a directory's
// parent is made before it.
func eachGroup[S any](gs []dirGroup, byDepth bool, newState func() (S, func()), f func(s S, g *dirGroup)) {
	run := func(gs []dirGroup) {
		var mu sync.Mutex
		var done []func()
		par.EachWith(len(gs), func() S {
			s, release := newState()
			mu.Lock()
			done = append(done, release)
			mu.Unlock()
			return s
		}, func(i int, s S) { f(s, &gs[i]) })
		for _, release := range done {
			release()
		}
	}
	if !byDepth {
		run(gs)
		return
	}
	byD := map[int][]dirGroup{}
	maxD := 0
	for _, g := range gs {
		byD[g.depth] = append(byD[g.depth], g)
		maxD = max(maxD, g.depth)
	}
	for d := 0; d <= maxD; d++ {
		run(byD[d])
	}
}

// walkerOf is eachGroup's newState for one walker from base.
func walkerOf(base dirH, mkdir bool) func() (*walker, func()) {
	return func() (*walker, func()) {
		w := newWalker(base)
		w.mkdir = mkdir
		return w, w.close
	}
}
