package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gpufleet/gpufleet/compiler/write"
)

func newBuildCmd(stdout, stderr io.Writer) *cobra.Command {
	var dir, format string
	var checkOnly, pruneOld bool
	cmd := &cobra.Command{
		Use:   "build SPEC... [-o DIR]",
		Short: "Compile a fleet spec and write the output tree",
		Long: `Build compiles the fleet spec and writes the output tree to DIR.

SPEC is a .cue file, a directory holding one CUE package, or a YAML or JSON
file. Several SPECs are unified into one fleet, so a CUE base can take its
tenants from a YAML file. Every SPEC is unified with the embedded schema
(see 'gpufleet schema').

Nothing is written unless the whole fleet compiles and the placement
checker (see 'gpufleet check') finds no error: files are staged in a
temporary directory and renamed into place. The checker's report is written
to report/placement.json and report/placement.md. Files in DIR that gpufleet does
not generate are left alone, and it follows no symbolic link in DIR.`,
		Example: `  # Compile the example platform fleet into out/platform.
  gpufleet build fleets/platform -o out/platform

  # A CUE base plus tenants kept in YAML, one fleet.
  gpufleet build fleet.cue tenants.yaml -o gitops/fleet

  # Delete files an earlier build generated that the spec no longer does.
  gpufleet build fleets/platform -o out/platform --prune

  # CI: fail if the committed tree is stale.
  gpufleet build fleets/platform -o golden/platform --check

  # Machine-readable summary of what was written.
  gpufleet build fleets/llm-serving -o out/llm --format json`,
		Args: usageArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if dir == "" {
				return usageError(c, "-o needs a directory")
			}
			if checkOnly && pruneOld {
				return usageError(c, "--check writes nothing, so it cannot --prune")
			}
			out, err := treeOutputFor(c, format, stdout, stderr)
			if err != nil {
				return err
			}
			res, err := compile(out, args)
			if err != nil {
				return err
			}
			out.buildFindings(res.Report)
			if res.Report.Errors() > 0 {
				// A tree that places workloads where they cannot run, or
				// where they must not, is never written.
				printFindings(stderr, res.Report)
				fmt.Fprintf(stderr, "gpufleet build: not writing %s: the placement checker found errors (see 'gpufleet explain')\n", dir)
				if err := out.refused(dir, summarize(res), res.Report); err != nil {
					return err
				}
				return &exitError{code: ExitFindings}
			}
			color := useColor(stderr)
			for _, f := range res.Report.Findings {
				fmt.Fprintln(stderr, findingLine(f, color))
			}
			if checkOnly {
				return stale(c, out, dir, res)
			}
			wr, err := write.Tree(dir, res.Tree, write.Options{Prune: pruneOld, Inputs: args})
			if err != nil {
				return &exitError{code: ExitInvalid, err: fmt.Errorf("gpufleet build: %v", err)}
			}
			return out.built(dir, summarize(res), wr)
		},
	}
	cmd.Flags().StringVarP(&dir, "output", "o", "out", "output directory")
	cmd.Flags().BoolVar(&pruneOld, "prune", false, "delete files an earlier build generated that this spec no longer does (only those listed in DIR/"+write.ManifestPath+" and unmodified since)")
	cmd.Flags().BoolVar(&checkOnly, "check", false, "write nothing; exit 1 if DIR differs from the compiled tree (as 'gpufleet diff')")
	cmd.Flags().StringVar(&format, "format", formatText, formatFlagUsage(cmd.Name()))
	return cmd
}
