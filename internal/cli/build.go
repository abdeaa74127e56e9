package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/write"
)

func newBuildCmd(stdout, stderr io.Writer) *cobra.Command {
	var dir, format string
	var checkOnly, pruneOld bool
	var schema int
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
not generate are left alone, and it follows no symbolic link in DIR.

A build stopped by SIGINT or SIGTERM leaves DIR as it was or fully written,
never a mix, and exits 130 or 143. While a build writes DIR, another build
into it fails at once (exit 2).`,
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
			intr := catchInterrupts()
			defer intr.stop()
			res, err := compileUnless(intr, out, args, compiler.Options{ReportSchema: schema})
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
				if err := stale(c, out, dir, res); !intr.caught() {
					return err
				}
				return intr.exit("nothing written")
			}
			wr, err := write.Tree(dir, res.Tree, write.Options{Prune: pruneOld, Inputs: args, Stop: intr.done,
				Notice: func(msg string) { fmt.Fprintln(stderr, logLine("gpufleet build: "+msg)) }})
			return written(c, out, dir, summarize(res), wr, err, intr)
		},
	}
	cmd.Flags().StringVarP(&dir, "output", "o", "out", "output directory")
	cmd.Flags().BoolVar(&pruneOld, "prune", false, "delete files an earlier build generated that this spec no longer does (only those listed in DIR/"+write.ManifestPath+" and unmodified since)")
	reportSchemaFlag(cmd, &schema)
	cmd.Flags().BoolVar(&checkOnly, "check", false, "write nothing; exit 1 if DIR differs from the compiled tree (as 'gpufleet diff')")
	cmd.Flags().StringVar(&format, "format", formatText, formatFlagUsage(cmd.Name()))
	return cmd
}

// compileUnless compiles, unless a signal comes first: then it returns at
// once, as nothing is written yet (the compile goes on until gpufleet
// exits, and is dropped).
func compileUnless(intr *interrupts, out output, args []string, opts compiler.Options) (*compiler.Result, error) {
	type compiled struct {
		res *compiler.Result
		err error
	}
	c := make(chan compiled, 1)
	go func() {
		res, err := compile(out, args, opts)
		c <- compiled{res, err}
	}()
	select {
	case r := <-c:
		return r.res, r.err
	case <-intr.done:
		return nil, intr.exit("nothing written")
	}
}

// written reports what write.Tree did, and exits as it and any signal
// say.
func written(c *cobra.Command, out treeOutput, dir string, sum summary, wr *write.Result, err error, intr *interrupts) error {
	var pe *write.PruneError
	switch {
	case errors.Is(err, write.ErrInterrupted):
		return intr.exit("%s is unchanged", dir)
	case errors.As(err, &pe):
		// The tree was written: say what, then that the prune failed.
		if err := out.built(dir, sum, wr); err != nil {
			return err
		}
		return &exitError{code: ExitInvalid, err: fmt.Errorf("gpufleet build: %v", err)}
	case err != nil:
		return out.buildFailed(c.CommandPath(), dir, sum, err)
	}
	if err := out.built(dir, sum, wr); err != nil {
		return err
	}
	if intr.caught() {
		// It came once the renames had begun: they finished first.
		return intr.exit("%s was written in full first", dir)
	}
	return nil
}
