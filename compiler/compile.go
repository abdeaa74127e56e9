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
	cat := catalog.New(src.Fleet.InstanceTypes)
	if err := validate.Fleet(src, cat); err != nil {
		return nil, err
	}
	d := derive.Derive(src.Fleet, cat)
	if err := verify.Fleet(src, d); err != nil {
		return nil, err
	}
	tree, err := render.Render(d)
	if err != nil {
		return nil, err
	}
	rep, err := check.Run(tree, cat, Intent(d))
	if err != nil {
		return nil, err
	}
	// A ClusterQueue offers a pool as a flavor only where one of the
	// tenant's classes is proved to land.
	d.DeriveQueues(func(class, pool string) bool { return rep.Cell(class, pool).Fits })
	if err := render.Kueue(tree, d); err != nil {
		return nil, err
	}
	if err := check.Kueue(tree, rep, KueueIntent(d)); err != nil {
		return nil, err
	}
	severities(src.Fleet, rep)
	position(src, rep)
	if err := report.Write(tree, rep); err != nil {
		return nil, err
	}
	write.AddManifest(tree)
	return &Result{Source: src, Fleet: d, Tree: tree, Report: rep, Catalog: cat}, nil
}
