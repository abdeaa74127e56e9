package kueuemodel

import (
	"fmt"
	"strconv"
	"strings"
)

// maxDomainLevels bounds a hostile annotation: a Topology has at most 16
// levels (Kueue's CRD).
const maxDomainLevels = 16

// ParseDomains reads keys.AnnotationTopologyDomains, "<label>=<nodes>"
// comma-separated: nil for "".
func ParseDomains(s string) (map[string]int64, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.SplitN(s, ",", maxDomainLevels+1)
	if len(parts) > maxDomainLevels {
		return nil, fmt.Errorf("more than %d levels", maxDomainLevels)
	}
	out := make(map[string]int64, len(parts))
	for _, part := range parts {
		label, n, ok := strings.Cut(part, "=")
		v, err := strconv.ParseInt(n, 10, 32)
		if !ok || label == "" || err != nil || v < 1 {
			return nil, fmt.Errorf("%q is not <level label>=<nodes>, nodes at least 1", part)
		}
		if _, dup := out[label]; dup {
			return nil, fmt.Errorf("level %q is given twice", label)
		}
		out[label] = v
	}
	return out, nil
}
