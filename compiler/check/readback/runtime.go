package readback

import (
	"strconv"

	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// maxExecSeconds reads a workload's run time as Kueue v0.19.2 does
// (pkg/controller/jobframework/utils.go
// MaximumExecutionTimeSecondsForObject): the label as a base-10 int32,
// none when it is missing, malformed or not positive.
func maxExecSeconds(labels map[string]string) int32 {
	s, ok := labels[kueue.LabelMaxExecTime]
	if !ok {
		return 0
	}
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil || v <= 0 {
		return 0
	}
	return int32(v)
}
