package cli

import (
	"fmt"
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
nothing. It reports every problem it finds, each with file:line:col, and
exits 2 if the spec is invalid.`,
		Example: `  gpufleet vet fleets/platform
  gpufleet vet fleet.cue tenants.yaml
  gpufleet vet fleets/research --format json`,
		Args: usageArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkFormat(c, format); err != nil {
				return err
			}
			res, err := compiler.Compile(args)
			if err != nil {
				return specError(stdout, format, err)
			}
			sum := summarize(res)
			if format == formatJSON {
				return writeJSON(stdout, map[string]any{"ok": true, "summary": sum, "diagnostics": []any{}})
			}
			fmt.Fprintf(stdout, "%s\nok\n", sum)
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", formatText, "output format: text or json")
	return cmd
}
