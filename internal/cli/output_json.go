package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/diag"
	"github.com/gpufleet/gpufleet/compiler/report"
	"github.com/gpufleet/gpufleet/compiler/write"
)

// formatJSON is for programs: one JSON document on stdout, and nothing on
// stderr that a program would need.
const formatJSON = "json"

type jsonOutput struct {
	stdout io.Writer
}

func newJSONOutput(stdout, stderr io.Writer) output {
	return &jsonOutput{stdout: stdout}
}

// specError keeps stdout parseable: the diagnostics go in the document,
// and stderr stays empty.
func (o *jsonOutput) specError(dl diag.List) error {
	if err := writeJSON(o.stdout, map[string]any{"ok": false, "diagnostics": dl}); err != nil {
		return err
	}
	return &exitError{code: ExitInvalid}
}

// checkReport prints the report document, the same as
// report/placement.json in the built tree.
func (o *jsonOutput) checkReport(res *compiler.Result) error {
	j, err := report.JSONVersion(res.Report, res.ReportSchema())
	if err != nil {
		return err
	}
	fmt.Fprintf(o.stdout, "%s\n", jsonSafe(j))
	return nil
}

func (o *jsonOutput) vetReport(res *compiler.Result) error {
	return writeJSON(o.stdout, map[string]any{"ok": res.Report.Errors() == 0, "summary": summarize(res), "diagnostics": []any{}, "findings": res.Report.Findings})
}

// buildFindings prints nothing: the findings are in report/placement.json.
func (o *jsonOutput) buildFindings(*check.Report) {}

func (o *jsonOutput) built(dir string, sum summary, wr *write.Result) error {
	out := map[string]any{
		"ok": len(wr.Unpruned) == 0, "output": dir, "summary": sum,
		"written": nonNil(wr.Written), "unchanged": nonNil(wr.Unchanged), "pruned": nonNil(wr.Pruned),
	}
	if len(wr.Kept) > 0 {
		out["kept"] = wr.Kept // only a prune that left files says so
	}
	if len(wr.Unpruned) > 0 {
		out["unpruned"] = wr.Unpruned // a prune that failed after the write
	}
	return writeJSON(o.stdout, out)
}

// refused is the built document with nothing written, ok false, and the
// findings that stopped it: a program reads one document either way.
func (o *jsonOutput) refused(dir string, sum summary, r *check.Report) error {
	return writeJSON(o.stdout, map[string]any{
		"ok": false, "output": dir, "summary": sum,
		"written": []string{}, "unchanged": []string{}, "pruned": []string{},
		"findings": r.Findings,
	})
}

// buildFailed is the built document with nothing written, ok false, and
// the error that stopped the build: a program reads one document either
// way, and stderr stays empty, as for an invalid spec.
func (o *jsonOutput) buildFailed(_, dir string, sum summary, err error) error {
	if werr := writeJSON(o.stdout, map[string]any{
		"ok": false, "output": dir, "summary": sum,
		"written": []string{}, "unchanged": []string{}, "pruned": []string{},
		"error": err.Error(),
	}); werr != nil {
		return werr
	}
	return &exitError{code: ExitInvalid}
}

// diffFailed is the diff document with no changes, not up to date, and
// the error that stopped the comparison.
func (o *jsonOutput) diffFailed(_, dir string, err error) error {
	if werr := writeJSON(o.stdout, map[string]any{"upToDate": false, "output": dir, "changes": []write.Change{}, "error": err.Error()}); werr != nil {
		return werr
	}
	return &exitError{code: ExitInvalid}
}

func (o *jsonOutput) diff(dir string, changes []write.Change) error {
	if changes == nil {
		changes = []write.Change{}
	}
	return writeJSON(o.stdout, map[string]any{"upToDate": len(changes) == 0, "output": dir, "changes": changes})
}

// writeJSON writes v as an indented JSON document, safe in a CI log
// (jsonSafe).
func writeJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(jsonSafe(b.Bytes()))
	return err
}

// nonNil makes an empty list [] in JSON, not null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
