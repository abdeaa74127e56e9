package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/write"
)

func newDiffCmd(stdout, stderr io.Writer) *cobra.Command {
	var dir, format string
	var schema int
	cmd := &cobra.Command{
		Use:   "diff SPEC... -o DIR",
		Short: "Show how the committed tree differs from what the spec compiles to",
		Long: `Diff compiles the fleet in memory and compares every generated file with
the tree in DIR, printing a unified diff (from DIR to the compiled output).
It writes nothing. It exits 1 when the tree is stale: this is the CI step
that fails a pull request whose spec and tree disagree. 'build --check' is
the same.

Files in DIR that gpufleet does not generate are ignored. A symbolic link
(or anything but a regular file) where a generated file goes is reported as
blocked and never followed, so what it points to is never printed.`,
		Example: `  # In CI: fail if gitops/fleet was not rebuilt after a spec change.
  gpufleet diff fleet/ -o gitops/fleet

  gpufleet diff fleets/platform -o golden/platform --format json`,
		Args: usageArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if dir == "" {
				return usageError(c, "-o needs a directory")
			}
			out, err := treeOutputFor(c, format, stdout, stderr)
			if err != nil {
				return err
			}
			res, err := compile(out, args, compiler.Options{ReportSchema: schema})
			if err != nil {
				return err
			}
			err = stale(c, out, dir, res)
			if res.Report.Errors() == 0 {
				return err
			}
			// build writes nothing while the checker finds errors, so
			// "stale" alone would send the user to a build that refuses.
			out.buildFindings(res.Report)
			printFindings(stderr, res.Report)
			fmt.Fprintf(stderr, "gpufleet diff: the placement checker found errors, so 'gpufleet build' will not write %s: fix the spec (see 'gpufleet explain')\n", dir)
			var ee *exitError
			if err == nil || errors.As(err, &ee) && ee.code == ExitFindings {
				return &exitError{code: ExitFindings}
			}
			return err
		},
	}
	cmd.Flags().StringVarP(&dir, "output", "o", "out", "the committed output tree to compare with")
	cmd.Flags().StringVar(&format, "format", formatText, formatFlagUsage(cmd.Name()))
	reportSchemaFlag(cmd, &schema)
	return cmd
}

// stale reports how the tree in dir differs from the compiled one, and
// exits 1 if it does.
func stale(c *cobra.Command, out treeOutput, dir string, res *compiler.Result) error {
	changes, err := write.Compare(dir, res.Tree)
	if err != nil {
		return out.diffFailed(c.CommandPath(), dir, err)
	}
	if err := out.diff(dir, changes); err != nil {
		return err
	}
	if len(changes) == 0 {
		return nil
	}
	kinds := map[string]int{}
	for _, ch := range changes {
		kinds[ch.Kind]++
	}
	msg := fmt.Sprintf("%s is stale: %d changed, %d missing", dir, kinds["changed"], kinds["missing"])
	if n := kinds["removed"]; n > 0 {
		msg += fmt.Sprintf(", %d no longer generated", n)
	}
	if n := kinds["blocked"]; n > 0 {
		// build refuses these until the link or the special file is gone.
		msg += fmt.Sprintf(", %d blocked (remove what is in the way)", n)
	}
	fix := "run 'gpufleet build' and commit"
	if kinds["removed"] > 0 {
		// Only a prune deletes them and drops them from the manifest.
		fix = "run 'gpufleet build --prune' and commit"
	}
	return &exitError{code: ExitFindings, err: errors.New(msg + "; " + fix)}
}
