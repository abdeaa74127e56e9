package spec

import (
	"fmt"
	"regexp"
	"time"
)

// runTimePattern is a class's maxRunTime: hours, minutes and seconds.
var runTimePattern = regexp.MustCompile(`^([0-9]+(h|m|s))+$`)

// RunTime parses a class's maxRunTime ("6h", "1h30m").
func RunTime(s string) (time.Duration, error) {
	if !runTimePattern.MatchString(s) {
		return 0, fmt.Errorf("%q is not hours, minutes and seconds", s)
	}
	return time.ParseDuration(s)
}
