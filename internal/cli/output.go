package cli

// An output is how the compiling commands (build, check, diff, drift, vet)
// report in one --format. Commands pick their output once and never ask for
// the format's name again; what differs between formats lives in one file
// per format (output_text.go, output_json.go, ...; drift's in
// output_drift.go).
//
// Adding a format means: a new output_NAME.go that implements output (and
// treeOutput, if build and diff should speak it), plus one line in outputs
// below naming the commands that accept it. --format's help, its validation
// and TestOutputFormats follow from that line.

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/diag"
	"github.com/gpufleet/gpufleet/compiler/drift"
	"github.com/gpufleet/gpufleet/compiler/write"
)

// output is what check and vet need: both report an invalid spec and the
// placement checker's findings.
type output interface {
	// specError reports an invalid spec and returns the error the command
	// fails with (exit 2).
	specError(dl diag.List) error
	// checkReport prints what 'gpufleet check' found.
	checkReport(res *compiler.Result) error
	// vetReport prints what 'gpufleet vet' found.
	vetReport(res *compiler.Result) error
	// driftReport prints how the live nodes differ from the pools.
	driftReport(res *compiler.Result, r *drift.Report) error
}

// treeOutput is what build and diff also need, as they print trees and
// diffs rather than only findings.
type treeOutput interface {
	output
	// buildFindings reports a build's findings on stdout, for formats
	// that have a place for them; the human log on stderr is build's own.
	buildFindings(r *check.Report)
	// built reports the tree build wrote to dir.
	built(dir string, sum summary, wr *write.Result) error
	// refused reports a build that wrote nothing because the placement
	// checker found errors (build logs them on stderr itself).
	refused(dir string, sum summary, r *check.Report) error
	// diff reports how the tree in dir differs from the compiled one, for
	// diff and 'build --check'; changes is empty when it is up to date.
	diff(dir string, changes []write.Change) error
	// buildFailed reports a build that wrote nothing because the output
	// tree refused it (a link, a lock, a bad manifest, -o naming a file),
	// and returns the error build fails with (exit 2); cmd prefixes the
	// error on stderr.
	buildFailed(cmd, dir string, sum summary, err error) error
	// diffFailed is buildFailed for diff and 'build --check', which could
	// not read the tree.
	diffFailed(cmd, dir string, err error) error
}

// The compiling commands, for outputs' lists: all of them, or those that
// print only findings.
var (
	everyCommand    = []string{"build", "check", "diff", "drift", "vet"}
	findingCommands = []string{"check", "drift", "vet"}
)

// outputs lists every format in the order --format's help gives them.
// A format that build or diff accepts must implement treeOutput.
var outputs = []struct {
	name     string
	new      func(stdout, stderr io.Writer) output
	commands []string
}{
	{formatText, newTextOutput, everyCommand},
	{formatJSON, newJSONOutput, everyCommand},
	// Annotations on the pull request: spec errors and build findings too.
	{formatGitHub, newGitHubOutput, everyCommand},
	// A SARIF log has no place for a written tree or a diff.
	{formatSARIF, newSARIFOutput, findingCommands},
}

// formatsOf lists the formats the command named name accepts.
func formatsOf(name string) []string {
	var fs []string
	for _, o := range outputs {
		if slices.Contains(o.commands, name) {
			fs = append(fs, o.name)
		}
	}
	return fs
}

// formatFlagUsage is the --format flag's help for the command named name.
func formatFlagUsage(name string) string {
	return "output format: " + orList(formatsOf(name))
}

func orList(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// outputFor is format's output for c, writing to stdout and stderr, or a
// usage error if c does not accept format.
func outputFor(c *cobra.Command, format string, stdout, stderr io.Writer) (output, error) {
	for _, o := range outputs {
		if o.name == format && slices.Contains(o.commands, c.Name()) {
			return o.new(stdout, stderr), nil
		}
	}
	return nil, usageError(c, "unknown --format %q (want %s)", format, orList(formatsOf(c.Name())))
}

// treeOutputFor is outputFor for build and diff.
func treeOutputFor(c *cobra.Command, format string, stdout, stderr io.Writer) (treeOutput, error) {
	out, err := outputFor(c, format, stdout, stderr)
	if err != nil {
		return nil, err
	}
	t, ok := out.(treeOutput)
	if !ok {
		// A bug: outputs lists the format for c, but it cannot print trees.
		return nil, &exitError{code: ExitInvalid, err: fmt.Errorf("%s: --format %s has no tree output", c.CommandPath(), format)}
	}
	return t, nil
}

// compile is the start every compiling command shares: compile, and
// report an invalid spec through out.
func compile(out output, args []string, opts compiler.Options) (*compiler.Result, error) {
	opts.Evaluated, opts.Dropped = tuneGC()
	res, err := compiler.CompileWith(args, opts)
	return compiled(out, res, err)
}

// compileBeside is compile while read runs, each on a CPU of its own: the
// live commands read a cluster's files, which need no spec, while the spec
// compiles (at 1,000 nodes, drift spent 40 ms of 110 compiling an example
// fleet, one after the other). read's error comes first, as it did when
// the files were read first, and an invalid spec is reported only after.
// The collector keeps its defaults: loadGOGC would let the files' decode,
// whose garbage is most of what it allocates, grow the heap ninefold.
func compileBeside(out output, args []string, opts compiler.Options, read func() error) (*compiler.Result, error) {
	type result struct {
		res *compiler.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := compiler.CompileWith(args, opts)
		done <- result{res, err}
	}()
	if err := read(); err != nil {
		// The compile is left to finish (done is buffered) or to end with
		// the process: an unreadable file is reported at once.
		return nil, err
	}
	r := <-done
	return compiled(out, r.res, r.err)
}

// compiled reports an invalid spec through out.
func compiled(out output, res *compiler.Result, err error) (*compiler.Result, error) {
	if err != nil {
		var dl diag.List
		if !errors.As(err, &dl) {
			return nil, &exitError{code: ExitInvalid, err: fmt.Errorf("gpufleet: %v", err)}
		}
		return nil, out.specError(dl.Capped())
	}
	return res, nil
}

// summary counts what a fleet defines, for people and for programs.
type summary struct {
	Cluster    string `json:"cluster"`
	Pools      int    `json:"pools"`
	Classes    int    `json:"classes"`
	Tenants    int    `json:"tenants"`
	Priorities int    `json:"priorities"`
	Files      int    `json:"files"`
}

func summarize(r *compiler.Result) summary {
	return summary{
		Cluster:    r.Fleet.Spec.Cluster.Name,
		Pools:      len(r.Fleet.Pools),
		Classes:    len(r.Fleet.Classes),
		Tenants:    len(r.Fleet.Tenants),
		Priorities: len(r.Fleet.Priorities),
		Files:      r.Files(),
	}
}

func (s summary) String() string {
	return fmt.Sprintf("fleet %s: %s, %s, %s, %s", s.Cluster,
		plural(s.Pools, "pool", "pools"), plural(s.Classes, "class", "classes"),
		plural(s.Tenants, "tenant", "tenants"), plural(s.Priorities, "priority", "priorities"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
