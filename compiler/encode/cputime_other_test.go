//go:build !unix

package encode_test

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
