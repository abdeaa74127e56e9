//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package write

import "os"

var sameFile = os.SameFile
