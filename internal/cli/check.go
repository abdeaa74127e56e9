package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/report"
)

func newCheckCmd(stdout, stderr io.Writer) *cobra.Command {
	var format string
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
(schemaVersion 1), the same as report/placement.json in the built tree.`,
		Example: `  gpufleet check fleets/platform
  gpufleet check fleets/research --format json | jq '.findings'`,
		Args: usageArgs,
		RunE: func(c *cobra.Command, args []string) error {
			res, err := compileFor(c, stdout, format, args)
			if err != nil {
				return err
			}
			if format == formatJSON {
				j, err := report.JSON(res.Report)
				if err != nil {
					return err
				}
				fmt.Fprintf(stdout, "%s\n", j)
			} else {
				fmt.Fprintf(stdout, "%s\n\n%s\n", summarize(res), report.Matrix(res.Report, 80))
				printFindings(stdout, res.Report)
			}
			return findingsExit(res.Report)
		},
	}
	cmd.Flags().StringVar(&format, "format", formatText, "output format: text or json")
	return cmd
}

func printFindings(w io.Writer, r *check.Report) {
	errs := r.Errors()
	fmt.Fprintf(w, "%s, %s\n", plural(errs, "error", "errors"), plural(len(r.Findings)-errs, "warning", "warnings"))
	for _, f := range r.Findings {
		fmt.Fprintln(w, f.String())
	}
}

// findingsExit is exit 1 when the checker proved an error.
func findingsExit(r *check.Report) error {
	if r.Errors() > 0 {
		return &exitError{code: ExitFindings}
	}
	return nil
}
