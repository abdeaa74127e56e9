// Package compiler runs the pipeline: load, validate, derive, verify, render,
// check, then Kueue queues (which need the checker's verdicts) and their
// check. The stages live in subpackages named after them; writing to disk is
// left to the caller so that vet and diff compile without touching it.
package compiler

import (
	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/load"
	"github.com/gpufleet/gpufleet/compiler/render"
	"github.com/gpufleet/gpufleet/compiler/report"
	"github.com/gpufleet/gpufleet/compiler/validate"
	"github.com/gpufleet/gpufleet/compiler/verify"
	"github.com/gpufleet/gpufleet/compiler/write"
)

// Result is a compiled fleet.
type Result struct {
	Source *load.Source
	Fleet  *derive.Fleet
	Tree   render.Tree
	// Report is the placement checker's; error-level findings mean the
	// tree must not be written.
	Report *check.Report
	// Catalog is the instance catalog the fleet was checked with.
	Catalog catalog.Catalog
}

// Compile loads the specs at paths as one fleet and compiles it. A spec
// error is a diag.List with every problem found.
func Compile(paths []string) (*Result, error) {
	src, err := load.Load(paths)
	if err != nil {
		return nil, err
	}
	r := &Result{Source: src}
	// Each stage is a method so that the benchmarks time them one by one.
	for _, stage := range []func() error{r.derive, r.render, r.check} {
		if err := stage(); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// derive validates the decoded spec and decides the policy.
func (r *Result) derive() error {
	r.Catalog = catalog.New(r.Source.Fleet.InstanceTypes)
	if err := validate.Fleet(r.Source, r.Catalog); err != nil {
		return err
	}
	r.Fleet = derive.Derive(r.Source.Fleet, r.Catalog)
	if err := verify.Fleet(r.Source, r.Fleet); err != nil {
		return err
	}
	// Rendering and checking need no CUE, and a big spec's CUE values are
	// most of the memory held while the tree is built.
	r.Source.Release()
	return nil
}

func (r *Result) render() (err error) {
	r.Tree, err = render.Render(r.Fleet)
	return err
}

// check runs the placement checker on the rendered tree, then derives,
// renders and checks the Kueue queues, which need its verdicts, and adds
// the report to the tree.
func (r *Result) check() error {
	rep, err := check.Run(r.Tree, r.Catalog, Intent(r.Fleet))
	if err != nil {
		return err
	}
	// A ClusterQueue offers a pool as a flavor only where one of the
	// tenant's classes is proved to land.
	r.Fleet.DeriveQueues(func(class, pool string) bool { return rep.Cell(class, pool).Fits })
	if err := render.Kueue(r.Tree, r.Fleet); err != nil {
		return err
	}
	if err := check.Kueue(r.Tree, rep, KueueIntent(r.Fleet)); err != nil {
		return err
	}
	severities(r.Source.Fleet, rep)
	position(r.Source, rep)
	if err := report.Write(r.Tree, rep); err != nil {
		return err
	}
	write.AddManifest(r.Tree)
	r.Report = rep
	return nil
}
