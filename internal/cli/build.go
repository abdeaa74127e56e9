package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gpufleet/gpufleet/compiler/diag"
	"github.com/gpufleet/gpufleet/compiler/write"
)

func newBuildCmd(stdout, stderr io.Writer) *cobra.Command {
	var out, format string
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
not generate are left alone.`,
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
			if out == "" {
				return usageError(c, "-o needs a directory")
			}
			if checkOnly && pruneOld {
				return usageError(c, "--check writes nothing, so it cannot --prune")
			}
			res, err := compileFor(c, stdout, format, args)
			if err != nil {
				return err
			}
			if res.Report.Errors() > 0 {
				// A tree that places workloads where they cannot run, or
				// where they must not, is never written.
				if format == formatGitHub {
					writeGitHubFindings(stdout, res.Report)
				}
				printFindings(stderr, res.Report)
				fmt.Fprintf(stderr, "gpufleet build: not writing %s: the placement checker found errors (see 'gpufleet explain')\n", out)
				return &exitError{code: ExitFindings}
			}
			if format == formatGitHub {
				writeGitHubFindings(stdout, res.Report)
			}
			color := useColor(stderr)
			for _, f := range res.Report.Findings {
				fmt.Fprintln(stderr, findingLine(f, color))
			}
			if checkOnly {
				return stale(c, stdout, stderr, format, out, res)
			}
			wr, err := write.Tree(out, res.Tree, write.Options{Prune: pruneOld})
			if err != nil {
				return &exitError{code: ExitInvalid, err: fmt.Errorf("gpufleet build: %v", err)}
			}
			sum := summarize(res)
			if format == formatJSON {
				return writeJSON(stdout, map[string]any{
					"ok": true, "output": out, "summary": sum,
					"written": nonNil(wr.Written), "unchanged": nonNil(wr.Unchanged), "pruned": nonNil(wr.Pruned),
				})
			}
			fmt.Fprintf(stdout, "%s\nwrote %s to %s (%d unchanged)\n", sum, plural(len(wr.Written), "file", "files"), out, len(wr.Unchanged))
			for _, p := range wr.Pruned {
				fmt.Fprintf(stdout, "pruned %s\n", p)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "out", "output directory")
	cmd.Flags().BoolVar(&pruneOld, "prune", false, "delete files an earlier build generated that this spec no longer does (only those listed in DIR/"+write.ManifestPath+")")
	cmd.Flags().BoolVar(&checkOnly, "check", false, "write nothing; exit 1 if DIR differs from the compiled tree (as 'gpufleet diff')")
	cmd.Flags().StringVar(&format, "format", formatText, formatFlagUsage(cmd.Name()))
	return cmd
}

// specError reports an invalid spec: as text on stderr, or as JSON on
// stdout for programs, exiting 2 either way. With github or sarif, the
// annotations or the SARIF log go to stdout and the text to stderr.
func specError(stdout io.Writer, format string, err error) error {
	var dl diag.List
	if !errors.As(err, &dl) {
		return &exitError{code: ExitInvalid, err: fmt.Errorf("gpufleet: %v", err)}
	}
	switch format {
	case formatJSON:
		if err := writeJSON(stdout, map[string]any{"ok": false, "diagnostics": dl}); err != nil {
			return err
		}
		return &exitError{code: ExitInvalid}
	case formatGitHub:
		// Annotations on stdout; the same errors stay readable in the log.
		writeGitHubDiags(stdout, dl)
		return dl
	case formatSARIF:
		if err := writeSARIF(stdout, sarifDiags(dl)); err != nil {
			return err
		}
		return dl
	}
	return dl
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
