package write

import (
	"io/fs"
	"sort"
)

// A found is what scan found at one generated path: the regular file
// there (nil if none), or what blocks it (a link, or anything but a
// directory on the way or a regular file at the end), or an error.
type found struct {
	fi  fs.FileInfo
	b   *blocker
	err error
}

// scan looks up each of paths (sorted) below base without following a
// link, a directory at a time on every CPU, and calls each with what it
// found; h is the directory the path is in when it holds a regular file
// there, so that each can read it by name, and buf is scratch space of
// the goroutine's own. each runs concurrently, i being the path's index.
// Once stop returns true, the directories not yet begun are left out.
func scan(base dirH, paths []string, stop func() bool, each func(i int, h dirH, name string, f found, buf []byte)) {
	type state struct {
		w   *walker
		buf []byte
	}
	newState := func() (state, func()) {
		w := newWalker(base)
		return state{w, compareBuf()}, w.close
	}
	eachGroup(groupDirs(paths, false), false, newState, func(s state, g *dirGroup) {
		if stop != nil && stop() {
			return
		}
		h, b, err := s.w.dir(g.dir)
		for _, i := range g.files {
			p := paths[i]
			_, name := splitDir(p)
			switch {
			case err != nil:
				each(i, nil, name, found{err: err}, s.buf)
			case b != nil:
				each(i, nil, name, found{b: &blocker{path: p, at: b.at, what: b.what}}, s.buf)
			case h == nil:
				each(i, nil, name, found{}, s.buf) // its directory does not exist
			default:
				fi, fb, ferr := lookFile(h, name, p)
				each(i, h, name, found{fi, fb, ferr}, s.buf)
			}
		}
	})
}

// scanAny is scan for paths in any order, as a manifest lists them: k is
// the index in paths.
func scanAny(base dirH, paths []string, each func(k int, h dirH, name string, f found, buf []byte)) {
	order := make([]int, len(paths))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return paths[order[a]] < paths[order[b]] })
	sorted := make([]string, len(paths))
	for i, k := range order {
		sorted[i] = paths[k]
	}
	scan(base, sorted, nil, func(i int, h dirH, name string, f found, buf []byte) { each(order[i], h, name, f, buf) })
}

// probeDirs probes the directory of each of paths (sorted) that exists
// and, with ancestors, every directory on the way, "." included. It
// returns the error of the first directory in sorted order, and the
// lowest path below it.
func probeDirs(base dirH, paths []string, ancestors bool) (string, error) {
	if len(paths) == 0 {
		return "", nil
	}
	gs := groupDirs(paths, ancestors)
	low := newLowest()
	eachGroup(gs, false, walkerOf(base, false), func(w *walker, g *dirGroup) {
		if low.skip(g.n) {
			return
		}
		if h, _, err := w.dir(g.dir); err == nil && h != nil {
			if err := probeDir(h, g.dir); err != nil {
				low.set(g.n, err)
			}
		}
	})
	if low.err != nil {
		return paths[gs[low.at.Load()].lo], low.err
	}
	return "", nil
}
