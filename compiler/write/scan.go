package write

import (
	"io/fs"
)

// A found is what scan found at one generated path, as inspector.look
// would have: the regular file there (nil if none), or what blocks it, or
// an error.
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

// probeAll probes every directory on the way to paths that exists (the
// others the renames will make), "." included, and returns the error of
// the first in sorted order.
func probeAll(base dirH, paths []string) error {
	gs := groupDirs(paths, true)
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
	return low.err
}
