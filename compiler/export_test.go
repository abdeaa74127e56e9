package compiler

import "github.com/gpufleet/gpufleet/compiler/load"

// The stages of Compile, for the benchmarks. Compile drops the loaded spec
// after derive, so DeriveStage takes one.
var (
	RenderStage = (*Result).render
	CheckStage  = (*Result).check
	QueueStage  = (*Result).queues
	ReportStage = (*Result).report
)

func DeriveStage(r *Result, src *load.Source) error {
	r.src = src
	return r.derive()
}

// HoldsSpec says whether r still holds the loaded spec.
func HoldsSpec(r *Result) bool { return r.src != nil }
