package compiler

import (
	"fmt"
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

// Baseline is the committed tree a plan compares with: its manifest, and
// its report and node groups decoded, which ReadBaseline reads while the
// spec compiles, on the CPU the compile leaves idle (a third of it, at the
// benchmark's XL size).
type Baseline struct {
	dir  string
	done chan struct{}
	err  error // no tree to read

	committed *write.Committed
	old       tree.Tree // the report and node-group files
	report    *plan.Report
	reportErr error
	groups    []nodes.Group
	groupsErr error
}

// ReadBaseline starts reading the tree committed in dir.
func ReadBaseline(dir string) *Baseline {
	b := &Baseline{dir: dir, done: make(chan struct{})}
	go func() {
		defer close(b.done)
		if b.committed, b.err = write.Open(dir); b.err != nil {
			return
		}
		if b.old, b.err = b.committed.Read(func(p string) int64 {
			switch {
			case p == report.JSONPath:
				return maxReport
			case isGroups(p):
				return write.MaxRead
			}
			return 0
		}); b.err != nil {
			return
		}
		gc := make(chan struct{})
		go func() {
			defer close(gc)
			b.groups, b.groupsErr = nodegroup.NodeGroups(tree.Bytes(b.old))
			if b.groupsErr == nil {
				b.groupsErr = plausibleGroups(b.groups)
			}
		}()
		if raw, ok := b.old[report.JSONPath]; !ok {
			b.reportErr = fmt.Errorf("%s is missing (or larger than gpufleet reads): plan reads the fleet's old placement from it", report.JSONPath)
		} else if b.report, b.reportErr = plan.DecodeReport(raw); b.reportErr != nil {
			b.reportErr = fmt.Errorf("%s: %w; rebuild the tree with this gpufleet on the base branch, or compare with 'gpufleet diff'", report.JSONPath, b.reportErr)
		}
		<-gc
	}()
	return b
}

// Plan compares what res compiled to with the tree committed in dir.
func Plan(res *Result, dir string) (*plan.Plan, error) { return PlanAgainst(res, ReadBaseline(dir)) }

// PlanAgainst compares what res compiled to with the committed tree b,
// which holds the "before": its report, node-group files, quotas and class
// examples, read as the provisioners and the report wrote them.
//
// Which files changed is what 'gpufleet diff' finds (write.Changes, the
// same comparison as write.Compare without the lines): the bytes on disk
// against what the spec compiles to now, so a hand edit or a deleted file
// is a change even where the manifest's sum says otherwise, and plan never
// says "No changes" where diff says stale. An unchanged file says before
// what it says after, which the build's own objects give without decoding
// YAML; of the quotas and examples only the changed files are read. So a
// plan costs about a build, not two.
func PlanAgainst(res *Result, b *Baseline) (*plan.Plan, error) {
	<-b.done
	if b.err != nil {
		return nil, &TreeError{b.dir, b.err}
	}
	changes, err := write.Changes(b.dir, res.Tree)
	if err != nil {
		return nil, &TreeError{b.dir, err}
	}
	files := make([]plan.FileChange, len(changes))
	differs := make(map[string]bool, len(changes))
	for i, ch := range changes {
		files[i] = plan.FileChange{Path: ch.Path, Kind: ch.Kind}
		differs[ch.Path] = true
		if ch.Kind == "blocked" && reads(ch.Path) {
			// Not "missing": something is where plan reads the "before".
			return nil, &TreeError{b.dir, fmt.Errorf("%s: %s; plan reads the fleet's old state from it", ch.Path, ch.Reason)}
		}
	}
	changed := func(p string) bool { return differs[p] }
	groupsMoved := false
	for p := range differs {
		groupsMoved = groupsMoved || isGroups(p)
	}
	a, err := afterState(res)
	if err != nil {
		return nil, err
	}
	r, groups := a.state.Report, res.Groups
	if changed(report.JSONPath) {
		if b.reportErr != nil {
			return nil, &TreeError{b.dir, b.reportErr}
		}
		r = b.report
	}
	if groupsMoved {
		if b.groupsErr != nil {
			return nil, &TreeError{b.dir, b.groupsErr}
		}
		groups = b.groups
	}
	old, err := b.committed.Read(func(p string) int64 {
		if changed(p) && plan.Reads(p) {
			return write.MaxRead
		}
		return 0
	})
	if err != nil {
		return nil, &TreeError{b.dir, err}
	}
	before, err := beforeState(a, old, b.committed.Entries, changed, r, groups)
	if err != nil {
		return nil, &TreeError{b.dir, err}
	}
	return plan.Compare(before, a.state, files), nil
}

// maxReport bounds the committed report a plan reads: the benchmark's XL
// fleet (3,000 pools, 1,500 classes) writes 70 MB.
const maxReport = 512 << 20

// plausibleGroups refuses sizes no build writes, which the committed tree
// (a stranger's pull request may have edited it) could otherwise carry into
// the plan as a change ("max -4 → 4 nodes"): the spec's own bounds, a size
// at least 0 and a standing or desired size within the maximum.
func plausibleGroups(groups []nodes.Group) error {
	for _, g := range groups {
		if g.MaxNodes < 0 || g.Standing < 0 || g.Desired < 0 || g.Standing > g.MaxNodes || g.Desired > g.MaxNodes {
			return fmt.Errorf("pool %s's node group (%s) has sizes no build writes: standing %d, desired %d, max %d", g.Pool, g.Source, g.Standing, g.Desired, g.MaxNodes)
		}
	}
	return nil
}

func isGroups(p string) bool { return strings.HasPrefix(p, "nodegroups/") }

// reads says which committed files a plan reads its "before" from.
func reads(p string) bool {
	return p == report.JSONPath || isGroups(p) || plan.Reads(p)
}

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
		if plan.Reads(p) {
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

// beforeState is what the committed tree says: an unchanged file what it
// says after, a changed one its bytes in old.
func beforeState(after *side, old tree.Tree, was []write.Entry, changed func(string) bool, r *plan.Report, groups []nodes.Group) (*plan.State, error) {
	var paths []string
	for _, e := range was {
		if plan.Reads(e.Path) {
			paths = append(paths, e.Path)
		}
	}
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
