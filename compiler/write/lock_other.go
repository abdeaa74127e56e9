//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package write

import (
	"errors"
	"os"
)

// Without flock, two builds into one tree are not kept apart, and no stage
// can be told dead, so none is removed.

func lockTree(out *outDir) (*os.File, error) { return out.root.Open(".") }

func tryLock(*os.File) (bool, error) { return false, errors.ErrUnsupported }
