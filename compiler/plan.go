package compiler

import (
	"fmt"

	"github.com/gpufleet/gpufleet/compiler/nodegroup"
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
func Plan(res *Result, dir string) (*plan.Plan, error) {
	old, err := write.Read(dir, plan.Wanted)
	if err != nil {
		return nil, &TreeError{dir, err}
	}
	b, ok := old[report.JSONPath]
	if !ok {
		return nil, &TreeError{dir, fmt.Errorf("%s is missing (or larger than gpufleet reads): plan reads the fleet's old placement from it", report.JSONPath)}
	}
	was, err := plan.DecodeReport(b)
	if err != nil {
		return nil, &TreeError{dir, fmt.Errorf("%s: %w; rebuild the tree with this gpufleet on the base branch, or compare with 'gpufleet diff'", report.JSONPath, err)}
	}
	groups, err := nodegroup.NodeGroups(tree.Bytes(old))
	if err != nil {
		return nil, &TreeError{dir, err}
	}
	before, err := plan.ReadState(old, groups, was)
	if err != nil {
		return nil, &TreeError{dir, err}
	}
	now := tree.Tree{}
	for p, b := range res.Tree {
		if plan.Wanted(p) {
			now[p] = b
		}
	}
	after, err := plan.ReadState(now, res.Groups, plan.FromReport(res.Report))
	if err != nil {
		return nil, err
	}
	changes, err := write.Compare(dir, res.Tree)
	if err != nil {
		return nil, &TreeError{dir, err}
	}
	files := make([]plan.FileChange, len(changes))
	for i, c := range changes {
		files[i] = plan.FileChange{Path: c.Path, Kind: c.Kind}
	}
	return plan.Compare(before, after, files), nil
}
