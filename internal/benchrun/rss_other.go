//go:build !unix

package main

import "os"

// maxRSS is unknown where rusage is not available.
func maxRSS(*os.ProcessState) int64 { return 0 }
