package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/gpufleet/gpufleet/compiler"
)

func newVetCmd(stdout, stderr io.Writer) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "vet SPEC...",
		Short: "Validate a fleet spec and its derived objects; write nothing",
		Long: `Vet runs the whole compiler (load, validate, derive, render) and writes
nothing, then the placement checker. It reports every problem it finds,
each with file:line:col; it exits 2 if the spec is invalid and 1 if the
checker found an error. --format github prints GitHub Actions annotations,
--format sarif a SARIF 2.1.0 log (see docs/formats.md).`,
		Example: `  gpufleet vet fleets/platform
  gpufleet vet fleet.cue tenants.yaml
  gpufleet vet fleets/research --format json
  gpufleet vet fleet/ --format github`,
		Args: usageArgs,
		RunE: func(c *cobra.Command, args []string) error {
			out, err := outputFor(c, format, stdout, stderr)
			if err != nil {
				return err
			}
			res, err := compile(out, args, compiler.Options{ReportOnly: true})
			if err != nil {
				return err
			}
			if err := out.vetReport(res); err != nil {
				return err
			}
			return findingsExit(res.Report)
		},
	}
	cmd.Flags().StringVar(&format, "format", formatText, formatFlagUsage(cmd.Name()))
	return cmd
}
