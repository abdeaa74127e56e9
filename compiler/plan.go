package compiler

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/internal/par"
	"github.com/gpufleet/gpufleet/compiler/nodegroup"
	"github.com/gpufleet/gpufleet/compiler/nodes"
	"github.com/gpufleet/gpufleet/compiler/plan"
	"github.com/gpufleet/gpufleet/compiler/report"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/write"
)

// TreeError is a committed tree a plan cannot read: never a wrong plan.
type TreeError struct {
	Dir string
	Err error
}

func (e *TreeError) Error() string { return e.Dir + ": " + e.Err.Error() }
func (e *TreeError) Unwrap() error { return e.Err }

// Plan compares what res compiled to with the tree committed in dir, which
// holds the "before": its report, node-group files, quotas and class
// examples, read as the provisioners and the report wrote them.
//
// Which files changed comes from the two manifests' sums: the committed
// one lists what gpufleet wrote there, and the compiled tree's what it
// would write now. Only the changed files are read from dir; an unchanged
// one says before what it says after, which the build's own objects give
// without decoding YAML. So a plan costs about a build, not two.
func Plan(res *Result, dir string) (*plan.Plan, error) {
	was, err := write.ReadManifest(dir)
	if err != nil {
		return nil, &TreeError{dir, err}
	}
	now, err := write.Sums(res.Tree[write.ManifestPath])
	if err != nil {
		return nil, err
	}
	changed := func(p string) bool { s := was[p]; return s == "" || s != now[p] }
	var files []plan.FileChange
	for _, p := range slices.Sorted(maps.Keys(now)) {
		switch _, ok := was[p]; {
		case !ok:
			files = append(files, plan.FileChange{Path: p, Kind: "missing"})
		case changed(p):
			files = append(files, plan.FileChange{Path: p, Kind: "changed"})
		}
	}
	groupsMoved := false
	for _, p := range slices.Sorted(maps.Keys(was)) {
		if _, ok := now[p]; !ok {
			files = append(files, plan.FileChange{Path: p, Kind: "removed"})
		}
		groupsMoved = groupsMoved || isGroups(p) && changed(p)
	}
	for p := range now {
		groupsMoved = groupsMoved || isGroups(p) && changed(p)
	}

	// What the compiled tree says, while the committed files that differ
	// are read and their report and node groups decoded: each takes about
	// a CPU at a big fleet's size.
	type afterResult struct {
		side *side
		err  error
	}
	ac := make(chan afterResult, 1)
	go func() { a, err := afterState(res); ac <- afterResult{a, err} }()
	old, err := write.Read(dir, func(p string) int64 {
		switch {
		case p == report.JSONPath && changed(p):
			return maxReport
		case isGroups(p) && groupsMoved, changed(p) && (plan.IsQuotas(p) || plan.IsExample(p)):
			return write.MaxRead
		}
		return 0
	})
	if err != nil {
		<-ac
		return nil, &TreeError{dir, err}
	}
	r, groups, err := oldReportAndGroups(res, old, changed(report.JSONPath), groupsMoved)
	a := <-ac
	if err != nil {
		return nil, &TreeError{dir, err}
	}
	if a.err != nil {
		return nil, a.err
	}
	if r == nil {
		r = a.side.state.Report // unchanged
	}
	before, err := beforeState(a.side, old, was, changed, r, groups)
	if err != nil {
		return nil, &TreeError{dir, err}
	}
	return plan.Compare(before, a.side.state, files), nil
}

// maxReport bounds the committed report a plan reads: the benchmark's XL
// fleet (3,000 pools, 1,500 classes) writes 50 MB.
const maxReport = 512 << 20

func isGroups(p string) bool { return strings.HasPrefix(p, "nodegroups/") }

// side is a state and the files it was made from, by path.
type side struct {
	state *plan.State
	files map[string]plan.File
}

// afterState is what the compiled tree says: render's objects where it
// has them, else the bytes.
func afterState(res *Result) (*side, error) {
	var paths []string
	for p := range res.Tree {
		if plan.IsQuotas(p) || plan.IsExample(p) {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	got, errs := make([]plan.File, len(paths)), make([]error, len(paths))
	par.Each(len(paths), func(i int) {
		p := paths[i]
		if f, ok := plan.TypedFile(p, res.Objects[p]); ok {
			got[i] = f
			return
		}
		got[i], errs[i] = plan.ParseFile(p, res.Tree[p])
	})
	files := make(map[string]plan.File, len(paths))
	for i, p := range paths {
		if errs[i] != nil {
			return nil, errs[i]
		}
		files[p] = got[i]
	}
	return &side{plan.NewState(res.Groups, plan.FromReport(res.Report), files), files}, nil
}

// oldReportAndGroups decodes the committed report if it changed (nil if
// not) and reads its node groups back if they did (res's if not), the two
// at once.
func oldReportAndGroups(res *Result, old tree.Tree, reportMoved, groupsMoved bool) (*plan.Report, []nodes.Group, error) {
	groups := res.Groups
	gc := make(chan error, 1)
	go func() {
		var err error
		if groupsMoved {
			groups, err = nodegroup.NodeGroups(tree.Bytes(old))
		}
		gc <- err
	}()
	var r *plan.Report
	var err error
	if reportMoved {
		b, ok := old[report.JSONPath]
		switch {
		case !ok:
			err = fmt.Errorf("%s is missing (or larger than gpufleet reads): plan reads the fleet's old placement from it", report.JSONPath)
		default:
			if r, err = plan.DecodeReport(b); err != nil {
				err = fmt.Errorf("%s: %w; rebuild the tree with this gpufleet on the base branch, or compare with 'gpufleet diff'", report.JSONPath, err)
			}
		}
	}
	if gerr := <-gc; err == nil {
		err = gerr
	}
	return r, groups, err
}

// beforeState is what the committed tree says: an unchanged file what it
// says after, a changed one its bytes in old.
func beforeState(after *side, old tree.Tree, was map[string]string, changed func(string) bool, r *plan.Report, groups []nodes.Group) (*plan.State, error) {
	var paths []string
	for p := range was {
		if plan.IsQuotas(p) || plan.IsExample(p) {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	got, errs := make([]plan.File, len(paths)), make([]error, len(paths))
	par.Each(len(paths), func(i int) {
		p := paths[i]
		if !changed(p) {
			got[i] = after.files[p]
			return
		}
		if b, ok := old[p]; ok {
			got[i], errs[i] = plan.ParseFile(p, b)
		}
	})
	files := make(map[string]plan.File, len(paths))
	for i, p := range paths {
		if errs[i] != nil {
			return nil, errs[i]
		}
		files[p] = got[i]
	}
	return plan.NewState(groups, r, files), nil
}
