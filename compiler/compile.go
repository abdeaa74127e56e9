// Package compiler runs the pipeline, one named stage after another:
//
//	load → validate → derive → verify → render → nodes → check
//	     → queues (derive.Queues, render.Queues) → check Kueue → report
//
// The stages live in subpackages named after them; writing to disk is left
// to the caller so that vet and diff compile without touching it.
package compiler

import (
	"fmt"
	"slices"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/cost"
	"github.com/gpufleet/gpufleet/compiler/check/readback"
	"github.com/gpufleet/gpufleet/compiler/check/registry"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/cloud"
	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/load"
	"github.com/gpufleet/gpufleet/compiler/nodegroup"
	"github.com/gpufleet/gpufleet/compiler/nodes"
	"github.com/gpufleet/gpufleet/compiler/render"
	"github.com/gpufleet/gpufleet/compiler/report"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/validate"
	"github.com/gpufleet/gpufleet/compiler/verify"
	"github.com/gpufleet/gpufleet/compiler/write"
)

// Result is a compiled fleet.
type Result struct {
	// Entries point findings at the spec's pools, classes and tenants.
	Entries load.Entries
	Fleet   *derive.Fleet
	Tree    tree.Tree
	// Objects are the typed objects Tree's YAML files were encoded from,
	// which the checker reads instead of parsing the YAML (tree.Objects).
	Objects tree.Objects
	// Groups are the node groups the provisioners launch, read back from Tree.
	Groups []nodes.Group
	// Report is the placement checker's; error-level findings mean the
	// tree must not be written.
	Report *check.Report
	// Catalog is the instance catalog the fleet was checked with.
	Catalog catalog.Catalog

	// cluster is what the checker placed pods on, which the Kueue checks
	// read once the queues are derived.
	cluster *sched.Cluster
	// src is the loaded spec, until derive has used it.
	src  *load.Source
	opts Options
}

// Options change what Compile puts in the tree.
type Options struct {
	// ReportOnly leaves the report's files and the manifest out of Tree
	// (see Check).
	ReportOnly bool
	// ReportSchema is the schema version of report/placement.json and
	// .md: 0 for report.SchemaVersion, or one of report.Versions.
	ReportSchema int
	// Evaluated, if set, is called once CUE has evaluated the spec, before
	// it is decoded (load.LoadWith).
	Evaluated func()
	// Dropped, if set, is called once derive has dropped the loaded spec.
	// From then on the heap no longer holds CUE's values, most of a big
	// spec's peak memory; the CLI tunes the garbage collector there.
	Dropped func()
}

// Compile loads the specs at paths as one fleet and compiles it. A spec
// error is a diag.List with every problem found.
func Compile(paths []string) (*Result, error) {
	return CompileWith(paths, Options{})
}

// Check is Compile for a command that prints the report and writes no
// tree (check, vet, explain): the report is not encoded into the tree's
// report/placement.json and .md, nor every file summed for the manifest,
// bytes such a command would throw away. Tree holds everything else;
// Files counts what Compile's would.
func Check(paths []string) (*Result, error) {
	return CompileWith(paths, Options{ReportOnly: true})
}

// ReportSchema is the report's schema version, as asked for.
func (r *Result) ReportSchema() int {
	if r.opts.ReportSchema == 0 {
		return report.SchemaVersion
	}
	return r.opts.ReportSchema
}

// reportOptions are the spec's choice of the report's optional files.
func (r *Result) reportOptions() report.WriteOptions {
	return report.WriteOptions{SkipHTML: !r.Fleet.Spec.Report.WritesHTML()}
}

// Files is how many files the compiled tree has (or would have, after
// Check).
func (r *Result) Files() int {
	n := len(r.Tree)
	if r.opts.ReportOnly {
		for _, p := range append(report.Paths(r.ReportSchema(), r.reportOptions()), write.ManifestPath) {
			if _, ok := r.Tree[p]; !ok {
				n++
			}
		}
	}
	return n
}

// CompileWith is Compile with options.
func CompileWith(paths []string, opts Options) (*Result, error) {
	if v := opts.ReportSchema; v != 0 && !slices.Contains(report.Versions, v) {
		return nil, fmt.Errorf("no report schema version %d (have %v)", v, report.Versions)
	}
	src, err := load.LoadWith(paths, opts.Evaluated)
	if err != nil {
		return nil, err
	}
	r := &Result{src: src, opts: opts}
	// Each stage is a method so that the benchmarks time them one by one.
	for _, stage := range []func() error{r.derive, r.render, r.check, r.queues, r.report} {
		if err := stage(); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Cluster is what the checker placed pods on: the provisioners' nodes and the
// class examples.
func (r *Result) Cluster() (*sched.Cluster, error) { return r.readBack(Intent(r.Fleet)) }

// readBack is Cluster with the intent the check stage already has.
func (r *Result) readBack(in check.Intent) (*sched.Cluster, error) {
	cl, err := readback.FromTree(r.Typed(), r.Groups, r.Catalog)
	if err != nil {
		return nil, err
	}
	return cl, readback.WithLimitRanges(cl, r.Typed(), in.Namespaces())
}

// Typed is the tree with its objects, as the checker reads it.
func (r *Result) Typed() tree.Typed { return tree.Typed{Tree: r.Tree, Objects: r.Objects} }

// derive validates the decoded spec against itself and the cloud its
// cluster.provider names, and decides the policy. Then it drops
// the loaded spec: rendering and checking need no CUE, and a big spec's CUE
// values are most of the memory held while the tree is built.
func (r *Result) derive() error {
	src := r.src
	cl, err := cloud.For(src.Fleet.Cluster.Provider)
	if err != nil {
		return err
	}
	r.Catalog = cl.Catalog(src.Fleet.InstanceTypes)
	if err := validate.Fleet(src, cl, r.Catalog); err != nil {
		return err
	}
	r.Fleet = derive.Derive(src.Fleet, cl, r.Catalog)
	if err := verify.Fleet(src, r.Fleet); err != nil {
		return err
	}
	r.Entries, r.src = src.Entries(), nil
	if r.opts.Dropped != nil {
		r.opts.Dropped()
	}
	return nil
}

// render writes everything that does not need the checker's verdicts.
func (r *Result) render() (err error) {
	t, err := render.Render(r.Fleet)
	r.Tree, r.Objects = t.Tree, t.Objects
	return err
}

// check reads the provisioners' node groups back from the tree and runs the
// placement checker on them and the class examples.
func (r *Result) check() (err error) {
	if r.Groups, err = nodegroup.NodeGroups(r.Typed()); err != nil {
		return err
	}
	in := Intent(r.Fleet)
	if r.cluster, err = r.readBack(in); err != nil {
		return err
	}
	if err := boundEvaluated(r.cluster, r.Entries, MaxEvaluated); err != nil {
		return err
	}
	r.Report = check.RunCluster(r.cluster, in, registry.Checks)
	if err := boundPinned(r.Report, KueueIntent(r.Fleet), r.Entries, MaxPinned); err != nil {
		return err
	}
	r.Report.Cost = cost.Costs(r.cluster, r.Report.Rows, costTenants(in), Prices(r.Fleet))
	return nil
}

// queues decides and renders the ClusterQueues, which offer a pool as a
// flavor only where one of the tenant's classes is proved to land, and
// checks them in Kueue's terms.
func (r *Result) queues() error {
	rep := r.Report
	queues := derive.Queues(r.Fleet, rep.LandsOn)
	// The checker reads the ClusterQueues' objects while their file is
	// encoded.
	return render.Queues(r.Typed(), r.Fleet, queues, func() error {
		return check.Kueue(r.Typed(), r.cluster, rep, KueueIntent(r.Fleet), registry.Checks)
	})
}

// report applies the spec's severities and positions to the findings and
// adds the report and the manifest to the tree (unless the result is
// Check's).
func (r *Result) report() error {
	severities(r.Fleet.Spec, r.Report)
	position(r.Entries, r.Report)
	if r.opts.ReportOnly {
		return nil
	}
	if err := report.WriteVersion(r.Tree, r.Report, r.ReportSchema(), r.reportOptions()); err != nil {
		return err
	}
	write.AddManifest(r.Tree)
	return nil
}
