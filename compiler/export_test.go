package compiler

// The stages of Compile, for the benchmarks.
var (
	DeriveStage = (*Result).derive
	RenderStage = (*Result).render
	CheckStage  = (*Result).check
)
