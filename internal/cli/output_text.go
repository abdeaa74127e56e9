package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/diag"
	"github.com/gpufleet/gpufleet/compiler/report"
	"github.com/gpufleet/gpufleet/compiler/write"
)

// formatText is for people: the default, and the log every other format
// keeps on stderr.
const formatText = "text"

type textOutput struct {
	stdout, stderr io.Writer
}

func newTextOutput(stdout, stderr io.Writer) output {
	return &textOutput{stdout: stdout, stderr: stderr}
}

// specError leaves the spec errors to Run, which prints them on stderr.
func (o *textOutput) specError(dl diag.List) error { return dl }

func (o *textOutput) checkReport(res *compiler.Result) error {
	fmt.Fprintf(o.stdout, "%s\n\n%s\n", summarize(res), report.Matrix(res.Report, 80))
	printFindings(o.stdout, res.Report)
	return nil
}

func (o *textOutput) vetReport(res *compiler.Result) error {
	fmt.Fprintf(o.stdout, "%s\n", summarize(res))
	if len(res.Report.Findings) > 0 {
		fmt.Fprintln(o.stdout)
		printFindings(o.stdout, res.Report)
	} else {
		fmt.Fprintln(o.stdout, "ok")
	}
	return nil
}

// buildFindings prints nothing: build logs the findings on stderr.
func (o *textOutput) buildFindings(*check.Report) {}

// refused prints nothing on stdout: build's log on stderr says it all.
func (o *textOutput) refused(string, summary, *check.Report) error { return nil }

// buildFailed and diffFailed leave the error to Run, which prints it on
// stderr.
func (o *textOutput) buildFailed(cmd, _ string, _ summary, err error) error {
	return &exitError{code: ExitInvalid, err: fmt.Errorf("%s: %v", cmd, err)}
}

func (o *textOutput) diffFailed(cmd, _ string, err error) error {
	return &exitError{code: ExitInvalid, err: fmt.Errorf("%s: %v", cmd, err)}
}

func (o *textOutput) built(dir string, sum summary, wr *write.Result) error {
	fmt.Fprintf(o.stdout, "%s\nwrote %s to %s (%d unchanged)\n", sum, plural(len(wr.Written), "file", "files"), dir, len(wr.Unchanged))
	// The manifest, and so these paths, are the committed tree's.
	for _, p := range wr.Pruned {
		fmt.Fprintf(o.stdout, "pruned %s\n", logLine(p))
	}
	for _, k := range wr.Kept {
		fmt.Fprintf(o.stdout, "left %s: %s\n", logLine(k.Path), k.Reason)
	}
	for _, k := range wr.Unpruned {
		fmt.Fprintf(o.stdout, "could not prune %s: %s\n", logLine(k.Path), k.Reason)
	}
	return nil
}

// diff prints the unified diffs on stdout, so they can be piped to a
// patch or a pager, and says so on stderr when there are none.
func (o *textOutput) diff(dir string, changes []write.Change) error {
	for _, ch := range changes {
		if ch.Kind == "blocked" {
			fmt.Fprintf(o.stdout, "%s: %s\n", logLine(ch.Path), ch.Reason)
			continue
		}
		// The committed tree's lines and paths: each made safe for a CI
		// log (logline.go).
		for _, l := range strings.SplitAfter(ch.Diff, "\n") {
			if l != "" {
				line, nl := strings.CutSuffix(l, "\n")
				fmt.Fprint(o.stdout, diffLine(line))
				if nl {
					fmt.Fprintln(o.stdout)
				}
			}
		}
	}
	if len(changes) == 0 {
		fmt.Fprintf(o.stderr, "%s is up to date\n", dir)
	}
	return nil
}

func printFindings(w io.Writer, r *check.Report) {
	color := useColor(w)
	fmt.Fprintln(w, countLine(r))
	for _, f := range r.Findings {
		fmt.Fprintln(w, findingLine(f, color))
	}
}

// countLine is "N errors, M warnings".
func countLine(r *check.Report) string {
	errs := r.Errors()
	return fmt.Sprintf("%s, %s", plural(errs, "error", "errors"), plural(len(r.Findings)-errs, "warning", "warnings"))
}
