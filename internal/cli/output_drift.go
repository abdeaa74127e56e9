package cli

import (
	"fmt"
	"io"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/drift"
)

// How each format prints 'gpufleet drift': text here, the others beside
// their check output's own helpers.

// driftReport prints the fleet, each pool's nodes and findings, and every
// finding, for people.
func (o *textOutput) driftReport(res *compiler.Result, r *drift.Report) error {
	fmt.Fprintf(o.stdout, "%s\n%s\n\n", summarize(res), nodesLine(r))
	type row struct {
		name            string
		nodes, findings int
	}
	rows := []row{{"pool", 0, 0}}
	for _, p := range r.Pools {
		rows = append(rows, row{logLine(p.Name), len(p.Nodes), p.Findings})
	}
	if len(r.Unmatched) > 0 {
		rows = append(rows, row{"(no pool)", len(r.Unmatched), len(r.Unmatched)})
	}
	w := 0
	for _, r := range rows {
		w = max(w, len(r.name))
	}
	fmt.Fprintf(o.stdout, "%-*s  nodes  drift\n", w, "pool")
	for _, r := range rows[1:] {
		fmt.Fprintf(o.stdout, "%-*s  %5d  %5d\n", w, r.name, r.nodes, r.findings)
	}
	fmt.Fprintln(o.stdout)
	printDrift(o.stdout, r)
	return nil
}

// nodesLine counts the nodes compared.
func nodesLine(r *drift.Report) string {
	s := plural(r.Nodes(), "node", "nodes")
	if len(r.Unmatched) > 0 {
		s += fmt.Sprintf(", %d of no pool", len(r.Unmatched))
	}
	return s
}

// printDrift prints the count, then the findings up to maxShown, as spec
// diagnostics are: a cluster whose every node drifted would bury the
// first, and a CI log with it. JSON and SARIF list them all.
func printDrift(w io.Writer, r *drift.Report) {
	fmt.Fprintln(w, driftCountLine(r))
	for i, f := range r.Findings {
		if i == maxShown {
			fmt.Fprintf(w, "gpufleet: %d more drift findings not shown; --format json lists them all\n", len(r.Findings)-maxShown)
			break
		}
		s := ""
		if p := f.Pos.String(); p != "" {
			s = logLine(p) + ": "
		}
		fmt.Fprintf(w, "%s%s: %s\n", s, f.Kind, logLine(f.Message))
	}
}

// driftCountLine is "no drift" or "N findings".
func driftCountLine(r *drift.Report) string {
	if len(r.Findings) == 0 {
		return "no drift"
	}
	return plural(len(r.Findings), "drift finding", "drift findings")
}

// driftDocument is drift's JSON document (docs/formats.md).
type driftDocument struct {
	SchemaVersion int             `json:"schemaVersion"`
	Summary       summary         `json:"summary"`
	Nodes         int             `json:"nodes"`
	Pools         []drift.Pool    `json:"pools"`
	Unmatched     []string        `json:"unmatched"`
	Findings      []drift.Finding `json:"findings"`
}

func (o *jsonOutput) driftReport(res *compiler.Result, r *drift.Report) error {
	return writeJSON(o.stdout, driftDocument{SchemaVersion: 1, Summary: summarize(res), Nodes: r.Nodes(),
		Pools: r.Pools, Unmatched: r.Unmatched, Findings: r.Findings})
}

// driftReport annotates each pool's spec entry and leaves the count on
// stderr.
func (o *githubOutput) driftReport(_ *compiler.Result, r *drift.Report) error {
	for _, f := range r.Findings {
		ghPrint(o.stdout, ghCommand("error", f.Pos, "gpufleet drift "+string(f.Kind), f.Message))
	}
	fmt.Fprintln(o.stderr, driftCountLine(r))
	return nil
}

func (o *sarifOutput) driftReport(_ *compiler.Result, r *drift.Report) error {
	items := make([]sarifItem, 0, len(r.Findings))
	for _, f := range r.Findings {
		items = append(items, sarifItem{rule: string(f.Kind), level: "error", msg: f.Message, pos: f.Pos, desc: drift.Describe(f.Kind)})
	}
	if err := writeSARIF(o.stdout, buildSARIF(items)); err != nil {
		return err
	}
	fmt.Fprintln(o.stderr, driftCountLine(r))
	return nil
}
