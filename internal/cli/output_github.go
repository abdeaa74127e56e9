package cli

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/diag"
	"github.com/gpufleet/gpufleet/compiler/write"
)

// formatGitHub prints GitHub Actions annotations on stdout, so spec errors
// and findings show on the pull request's diff. The text stays on stderr
// for the log's reader, and build and diff print their text output.
const formatGitHub = "github"

type githubOutput struct {
	textOutput // built, and diff's text
}

func newGitHubOutput(stdout, stderr io.Writer) output {
	return &githubOutput{textOutput{stdout: stdout, stderr: stderr}}
}

// specError annotates stdout; Run still prints the errors on stderr.
func (o *githubOutput) specError(dl diag.List) error {
	writeGitHubDiags(o.stdout, dl)
	return dl
}

func (o *githubOutput) checkReport(res *compiler.Result) error { return o.findings(res.Report) }
func (o *githubOutput) vetReport(res *compiler.Result) error   { return o.findings(res.Report) }
func (o *githubOutput) buildFindings(r *check.Report)          { writeGitHubFindings(o.stdout, r) }

// findings annotates stdout and leaves the counts on stderr.
func (o *githubOutput) findings(r *check.Report) error {
	writeGitHubFindings(o.stdout, r)
	fmt.Fprintln(o.stderr, countLine(r))
	return nil
}

// GitHub Actions workflow commands
// (https://docs.github.com/actions/reference/workflow-commands-for-github-actions):
// a line "::error file=F,line=L,col=C,title=T::MESSAGE" on a step's output
// becomes an annotation on that line of the pull request's diff.

// ghEscapeData escapes a workflow command's message: a raw %, CR or LF
// would end or corrupt the command, and a terminal control (ESC, BEL, C1)
// would act on the terminal of whoever reads the log there.
func ghEscapeData(s string) string {
	s = strings.ReplaceAll(termText(s), "%", "%25")
	s = strings.ReplaceAll(s, "\r", "%0D")
	return strings.ReplaceAll(s, "\n", "%0A")
}

// ghEscapeProperty escapes a property value, where ':' and ',' also
// delimit.
func ghEscapeProperty(s string) string {
	s = ghEscapeData(s)
	s = strings.ReplaceAll(s, ":", "%3A")
	return strings.ReplaceAll(s, ",", "%2C")
}

// ghCommand formats one annotation; level is "error", "warning" or
// "notice". A position with no file gives an annotation without one; a
// position with no line gives one on the file.
func ghCommand(level string, pos diag.Pos, title, msg string) string {
	var props []string
	if pos.File != "" {
		props = append(props, "file="+ghEscapeProperty(sarifURI(pos.File)))
		if pos.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", pos.Line))
			if pos.Column > 0 {
				props = append(props, fmt.Sprintf("col=%d", pos.Column))
			}
		}
	}
	if title != "" {
		props = append(props, "title="+ghEscapeProperty(title))
	}
	cmd := "::" + level
	if len(props) > 0 {
		cmd += " " + strings.Join(props, ",")
	}
	return cmd + "::" + ghEscapeData(msg)
}

// ghMeant, when a test sets it, is told each workflow command gpufleet
// prints on purpose (its annotations, and the fence around a diff), so the
// test can hold everything else in the output to the runner's model
// (internal/runnerlog).
var ghMeant func(line string)

// ghPrint prints one workflow command gpufleet means, on its own line.
func ghPrint(w io.Writer, line string) {
	if ghMeant != nil {
		ghMeant(line)
	}
	fmt.Fprintln(w, line)
}

func ghLevel(severity string) string {
	if severity == check.Error {
		return "error"
	}
	return "warning"
}

// writeGitHubFindings prints one annotation per checker finding.
func writeGitHubFindings(w io.Writer, r *check.Report) {
	for _, f := range r.Findings {
		ghPrint(w, ghCommand(ghLevel(f.Severity), f.Pos, "gpufleet "+string(f.Check), f.Message))
	}
}

// writeGitHubDiags prints one error annotation per spec error.
func writeGitHubDiags(w io.Writer, dl diag.List) {
	for _, d := range dl {
		msg := d.Msg
		if d.Path != "" {
			msg = d.Path + ": " + msg
		}
		ghPrint(w, ghCommand("error", d.Pos, "gpufleet spec", msg))
	}
}

// diff fences the diffs with ::stop-commands:: and a token nobody can
// guess, as a diff prints the committed tree's lines, and a line there may
// read as a workflow command (a CR starts a new one for the runner).
func (o *githubOutput) diff(dir string, changes []write.Change) error {
	if len(changes) == 0 {
		return o.textOutput.diff(dir, changes)
	}
	var b [16]byte
	rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	ghPrint(o.stdout, "::stop-commands::"+token)
	err := o.textOutput.diff(dir, changes)
	ghPrint(o.stdout, "::"+token+"::")
	return err
}
