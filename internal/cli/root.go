// Package cli is the gpufleet command line. Commands are built by
// constructors that take their writers, so tests run them in-process.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/gpufleet/gpufleet/compiler/diag"
)

// Exit codes.
const (
	ExitOK       = 0
	ExitFindings = 1 // the spec is valid but a check found problems
	ExitInvalid  = 2 // bad usage or an invalid spec

	// A build a signal stopped: 128 plus the signal's number, as shells
	// report it (see interrupt.go).
	ExitInterrupted = 130 // SIGINT
	ExitTerminated  = 143 // SIGTERM
)

// Main runs gpufleet with the process's arguments and returns its exit code.
func Main() int {
	return Run(os.Args[1:], os.Stdout, os.Stderr)
}

// Run runs gpufleet with args and returns its exit code.
func Run(args []string, stdout, stderr io.Writer) int {
	// A compile tunes the process's garbage collector (gc.go).
	defer keepGC()()
	cmd := NewRootCmd(stdout, stderr)
	cmd.SetArgs(args)
	err := cmd.Execute()
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		// One line each, whatever a name in the message holds.
		if ee.err != nil {
			fmt.Fprintln(stderr, logLine(ee.err.Error()))
		}
		if ee.hint != "" {
			fmt.Fprintln(stderr, ee.hint)
		}
		return ee.code
	}
	var dl diag.List
	if errors.As(err, &dl) {
		printDiags(stderr, dl)
		return ExitInvalid
	}
	// Anything cobra reports itself (unknown flag or command, wrong args).
	fmt.Fprintf(stderr, "%s\nRun 'gpufleet --help' for usage.\n", logLine("gpufleet: "+err.Error()))
	return ExitInvalid
}

// NewRootCmd builds the gpufleet command tree.
func NewRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "gpufleet",
		Short: "Compile a GPU fleet spec into a GitOps tree for Kubernetes",
		Long: `gpufleet compiles one declarative fleet spec (CUE, YAML or JSON) into the
objects a Kubernetes GPU fleet needs: PriorityClasses, tenant namespaces with
ResourceQuotas and LimitRanges, a kustomize Component per workload class, and
node-group configs for eksctl, all with consistent labels, taints, tolerations
and affinities.

Start with 'gpufleet init' for a starter fleet. Shell completion for bash,
zsh, fish and powershell: see 'gpufleet completion --help', for example
'source <(gpufleet completion bash)'.

Exit codes: 0 ok, 1 a check found problems, 2 bad usage or an invalid spec,
130 or 143 a build stopped by SIGINT or SIGTERM.`,
		Example: `  gpufleet init fleet
  gpufleet build fleets/platform -o out/platform
  gpufleet check fleets/platform
  gpufleet drift fleets/platform --nodes nodes.json
  gpufleet explain fleets/platform training
  gpufleet vet fleets/platform
  gpufleet schema > fleet-schema.cue`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError(c, "%v", err)
	})
	root.AddCommand(newBuildCmd(stdout, stderr), newCheckCmd(stdout, stderr), newDriftCmd(stdout, stderr), newExplainCmd(stdout, stderr),
		newDiffCmd(stdout, stderr), newPlanCmd(stdout, stderr), newVetCmd(stdout, stderr), newSchemaCmd(stdout), newVersionCmd(stdout), newInitCmd(stdout, stderr),
		newRenderClassCmd(stdout, stderr), newPricesCmd(stdout))
	// cobra's completion command prints its help and exits 0 for a shell
	// it does not know; a script that pipes it into source would then
	// load nothing without a word. Its shells are its subcommands, so
	// any argument that reaches it is unknown.
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		c.Args = func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError(c, "unknown shell %q (want bash, zsh, fish or powershell)", args[0])
			}
			return nil
		}
		c.RunE = func(c *cobra.Command, _ []string) error {
			return usageError(c, "want a shell: bash, zsh, fish or powershell")
		}
	}
	return root
}

// exitError carries an exit code; err, if set, is printed to stderr on one
// line, then hint, if set, on the next.
type exitError struct {
	code int
	err  error
	hint string
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

// maxShown bounds the diagnostics printed: past a hundred, more lines only
// bury the first, which is usually the cause.
const maxShown = 100

func printDiags(w io.Writer, dl diag.List) {
	for i, d := range dl {
		if i == maxShown {
			fmt.Fprintf(w, "gpufleet: %d more errors not shown\n", len(dl)-maxShown)
			break
		}
		fmt.Fprintln(w, logLine(d.String()))
	}
	noun := "error"
	if len(dl) != 1 {
		noun = "errors"
	}
	fmt.Fprintf(w, "gpufleet: invalid spec: %d %s\n", len(dl), noun)
}

// usageError is exit 2 with the command's name and a pointer to its help.
func usageError(c *cobra.Command, format string, args ...any) error {
	return &exitError{code: ExitInvalid, err: fmt.Errorf("%s: %s", c.CommandPath(), fmt.Sprintf(format, args...)),
		hint: fmt.Sprintf("Run '%s --help' for usage.", c.CommandPath())}
}

// usageArgs requires at least one SPEC, with a message that says so.
func usageArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return usageError(c, "missing SPEC")
	}
	return nil
}

// noArgs rejects arguments as arguments, not as unknown subcommands.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageError(c, "takes no arguments, got %q", args[0])
	}
	return nil
}
