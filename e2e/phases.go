package e2e

import (
	"fmt"
	"strings"
	"time"
)

// phases times a fleet's run step by step, so that a CI log says where
// e2e's minutes go (docs/performance.md, "CI time").
type phases struct {
	last  time.Time
	steps []string
}

func newPhases() *phases { return &phases{last: time.Now()} }

// mark ends the step named name.
func (p *phases) mark(name string) {
	now := time.Now()
	p.steps = append(p.steps, fmt.Sprintf("%s %.1fs", name, now.Sub(p.last).Seconds()))
	p.last = now
}

func (p *phases) String() string { return strings.Join(p.steps, ", ") }
