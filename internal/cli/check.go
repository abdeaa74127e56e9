package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/report"
)

func newCheckCmd(stdout, stderr io.Writer) *cobra.Command {
	var format string
	var schema int
	cmd := &cobra.Command{
		Use:   "check SPEC...",
		Short: "Prove where every class can land, with kube-scheduler's filters",
		Long: `Check compiles the fleet and runs the placement checker on the rendered
objects: nodes synthesised from the node groups at max size, pods from each
class's example workload, and kube-scheduler's NodeAffinity, TaintToleration,
NodeResourcesFit, PodTopologySpread and InterPodAffinity semantics. It also
proves the deny side (no CPU-only class on a GPU pool, no on-demand class on
spot, dedicated pools admit only their classes) and that each tenant's quota
holds one whole workload of every class it may use.

It prints a class × pool matrix and every finding, and exits 1 if any
finding is an error. With --format json it prints the report document
(schemaVersion 2, or 1 with --report-schema 1), the same as
report/placement.json in the built tree.
With --format github it prints one GitHub Actions annotation per finding, so
findings show on the pull request's diff; with --format sarif a SARIF 2.1.0
log for code scanning. Text is coloured only on a terminal, and never when
NO_COLOR is set.`,
		Example: `  gpufleet check fleets/platform
  gpufleet check fleets/research --format json | jq '.findings'

  # In GitHub Actions: annotate the pull request.
  gpufleet check fleet/ --format github

  # For code scanning (github/codeql-action/upload-sarif).
  gpufleet check fleet/ --format sarif > gpufleet.sarif`,
		Args: usageArgs,
		RunE: func(c *cobra.Command, args []string) error {
			out, err := outputFor(c, format, stdout, stderr)
			if err != nil {
				return err
			}
			res, err := compile(out, args, compiler.Options{ReportOnly: true, ReportSchema: schema})
			if err != nil {
				return err
			}
			if err := out.checkReport(res); err != nil {
				return err
			}
			return findingsExit(res.Report)
		},
	}
	cmd.Flags().StringVar(&format, "format", formatText, formatFlagUsage(cmd.Name()))
	reportSchemaFlag(cmd, &schema)
	return cmd
}

// reportSchemaFlag is --report-schema, the version of the placement
// report written to the tree (and printed by check --format json).
func reportSchemaFlag(cmd *cobra.Command, v *int) {
	cmd.Flags().IntVar(v, "report-schema", report.SchemaVersion,
		"placement report schema version: 2 (sparse: per class, the pools it lands on and refusals grouped by reason) or 1 (every class × pool cell; deprecated, for one release)")
}

// findingsExit is exit 1 when the checker proved an error.
func findingsExit(r *check.Report) error {
	if r.Errors() > 0 {
		return &exitError{code: ExitFindings}
	}
	return nil
}
