package cli

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/load"
	"github.com/gpufleet/gpufleet/compiler/plan"
)

// plan's formats: text, json and github as the other commands', and
// Markdown for a pull-request comment.
const formatMarkdown = "markdown"

var planFormats = []string{formatText, formatMarkdown, formatJSON, formatGitHub}

func newPlanCmd(stdout, stderr io.Writer) *cobra.Command {
	var dir, format, nodesFile, podsFile string
	var exitCode, failDisruptive bool
	cmd := &cobra.Command{
		Use:   "plan SPEC... -o DIR",
		Short: "Say what a spec change does to the fleet, against the committed tree",
		Long: `Plan compiles the fleet in memory and compares it with the tree committed in
DIR, like 'terraform plan'. Every change is classified, with a count line:
+ create, ~ update, -/+ replace (a managed node group EKS cannot update in
place, a Karpenter pool whose nodes drift), - destroy (on prune: a pool, a
class's Component, a tenant's namespaces with all in them), ! refused by the
API server (a PriorityClass's value or preemptionPolicy). It says which
pools' node groups grow, shrink, appear or go; which classes gain or lose
pools, pods at max size, or pods that run at once, and whose workloads
restart; which tenants' quotas move; what the fleet, each class and each
tenant's quota cost per hour and per month before and after; which findings
are new and which are resolved; and how many generated files change in each
directory, as 'gpufleet diff' finds them ('gpufleet diff' shows their
lines). The "before" is read from the tree
itself (its report/placement.json, node-group files, quotas and class
examples): plan needs no old spec and compiles once. In a pull request,
point -o at the base branch's tree. It writes nothing.

Formats: text for a terminal; markdown for a pull-request comment, most
consequential first and under GitHub's comment limit; json (schemaVersion
1, documented in docs/formats.md); github, which appends the Markdown to
$GITHUB_STEP_SUMMARY when set and annotates new errors.

With --nodes (the JSON of 'kubectl get nodes -o json') it names the live
nodes each replaced or destroyed pool drains, by the pool labels the tree
puts on nodes; with --pods too ('kubectl get pods -A -o json'), the pods
bound to them and those in the namespaces a prune deletes, with their class
label, and each tenant namespace quota the change sets below what its live
pods use, as the API server's quota evaluator counts it. Both files are read
as 'gpufleet check' reads them (bounded, errors at file:line:col).

Exit codes: 0, even when something changed; 1 when the compiled spec has
error findings, with --exit-code when anything changed, or with
--fail-disruptive when the change destroys, replaces or is refused (a
workflow runs it unless the pull request has a label saying so); 2 for bad usage,
an invalid spec, or a tree it cannot read (for example one whose report an
older gpufleet wrote in a schema this one does not read).`,
		Example: `  # In a pull request: the spec against the base branch's tree.
  git worktree add /tmp/base origin/main
  gpufleet plan fleet/ -o /tmp/base/gitops/fleet

  gpufleet plan fleets/platform -o golden/platform --format markdown > plan.md
  gpufleet plan fleets/platform -o golden/platform --format json --exit-code

  # The live nodes and pods the change hits, and quotas cut below use.
  kubectl get nodes -o json > nodes.json
  kubectl get pods -A -o json > pods.json
  gpufleet plan fleet/ -o /tmp/base/gitops/fleet --nodes nodes.json --pods pods.json

  # In CI, unless the pull request is labelled to allow it.
  gpufleet plan fleet/ -o /tmp/base/gitops/fleet --fail-disruptive`,
		Args: usageArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if dir == "" {
				return usageError(c, "-o needs a directory")
			}
			var errOut output
			switch format {
			case formatText, formatMarkdown:
				errOut = newTextOutput(stdout, stderr)
			case formatJSON:
				errOut = newJSONOutput(stdout, stderr)
			case formatGitHub:
				errOut = newGitHubOutput(stdout, stderr)
			default:
				return usageError(c, "unknown --format %q (want %s)", format, orList(planFormats))
			}
			if podsFile != "" && nodesFile == "" {
				return usageError(c, "--pods needs --nodes")
			}
			if podsFile == "-" && nodesFile == "-" {
				return usageError(c, "--nodes and --pods cannot both be stdin")
			}
			// The committed tree is read while the spec compiles, and so
			// are the live files.
			base := compiler.ReadBaseline(dir)
			var nodes []corev1.Node
			var pods []corev1.Pod
			var res *compiler.Result
			var err error
			if nodesFile == "" {
				res, err = compile(errOut, args, compiler.Options{})
			} else {
				res, err = compileBeside(errOut, args, compiler.Options{}, func() (err error) {
					if nodes, err = readNodes(c, nodesFile); err != nil || podsFile == "" {
						return err
					}
					pods, err = readPods(c, podsFile, nodesFile, nodes)
					if err == nil && pods == nil {
						pods = []corev1.Pod{}
					}
					return err
				})
			}
			if err != nil {
				return err
			}
			p, err := compiler.PlanAgainst(res, base)
			if err != nil {
				err = fmt.Errorf("%s: %w", c.CommandPath(), err)
				if format == formatJSON {
					// A program reads stdout: an error object, not nothing.
					if werr := writeJSON(stdout, planError{plan.SchemaVersion, dir, err.Error()}); werr != nil {
						return werr
					}
				}
				return &exitError{code: ExitInvalid, err: err}
			}
			if nodesFile != "" {
				p.WithLive(nodes, pods)
			}
			hint := fmt.Sprintf("'gpufleet diff %s -o %s' shows their lines.", joinArgs(args), dir)
			if err := printPlan(stdout, stderr, format, p, res.Entries, hint); err != nil {
				return err
			}
			cl := res.Fleet.Spec.Cluster
			if err := printEksctl(stdout, format, eksctlCommands(p, cl.Name, cl.Region, dir), fmt.Sprintf("gpufleet build %s -o %s", joinArgs(args), joinArgs([]string{dir}))); err != nil {
				return err
			}
			switch {
			case res.Report.Errors() > 0:
				fmt.Fprintf(stderr, "gpufleet plan: the placement checker found %s (see 'gpufleet explain')\n", plural(res.Report.Errors(), "error", "errors"))
				return &exitError{code: ExitFindings}
			case exitCode && p.Changed:
				return &exitError{code: ExitFindings}
			case failDisruptive && p.Disruptive():
				s := p.Summary
				return &exitError{code: ExitFindings, err: fmt.Errorf("%s: the change replaces %d, destroys %d and has %d refused by the API server (--fail-disruptive): see the plan, and label the pull request if it is meant", c.CommandPath(), s.Replace, s.Destroy, s.Refused)}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&dir, "output", "o", "out", "the committed output tree to compare with")
	cmd.Flags().StringVar(&format, "format", formatText, "output format: "+orList(planFormats))
	cmd.Flags().StringVar(&nodesFile, "nodes", "", "name the live nodes the change drains: the JSON of 'kubectl get nodes -o json', or - for stdin")
	cmd.Flags().StringVar(&podsFile, "pods", "", "with --nodes, name the live pods it evicts or deletes and the quotas it cuts below use: the JSON of 'kubectl get pods -A -o json', or - for stdin")
	cmd.Flags().BoolVar(&exitCode, "exit-code", false, "exit 1 when anything changed")
	cmd.Flags().BoolVar(&failDisruptive, "fail-disruptive", false, "exit 1 when the change replaces, destroys or is refused")
	return cmd
}

// printPlan prints the plan escaped as every command's output is
// (logline.go): its names and messages may come from the committed tree,
// which a pull request chooses, so none may issue a workflow command.
func printPlan(stdout, stderr io.Writer, format string, p *plan.Plan, entries load.Entries, hint string) error {
	switch format {
	case formatMarkdown:
		_, err := stdout.Write(planMarkdown(p, hint))
		return err
	case formatJSON:
		b, err := json.MarshalIndent(p, "", "  ")
		if err != nil {
			return err
		}
		_, err = stdout.Write(append(jsonSafe(b), '\n'))
		return err
	case formatGitHub:
		return githubPlan(stdout, p, entries, hint)
	}
	_, err := stdout.Write(p.Text(hint, logLine))
	return err
}

// planMarkdown is the plan's Markdown escaped as a log line, for stdout
// and the step summary alike: a terminal or a log shows both, so neither
// may carry a committed name's ESC or BEL (an OSC 52 clipboard write).
func planMarkdown(p *plan.Plan, hint string) []byte { return p.Markdown(hint, logLine) }

// githubPlan annotates the new errors, appends the Markdown to the step
// summary, and prints the text escaped and fenced from the runner's
// command parser: it quotes names and messages from the spec and the
// committed tree.
func githubPlan(stdout io.Writer, p *plan.Plan, entries load.Entries, hint string) error {
	for _, f := range p.NewErrors() {
		ghPrint(stdout, ghCommand("error", f.Pos, "gpufleet "+string(f.Check), f.Message))
	}
	// Each disruption on the spec's entry it is about; one the spec no
	// longer declares (a pool removed) on its section.
	for _, d := range p.Disruptions() {
		pos := entries.Pos(d.Section, d.Name)
		if pos.File == "" && d.Section != "" {
			pos = entries.Section(d.Section)
		}
		ghPrint(stdout, ghCommand("warning", pos, "gpufleet plan: "+d.Action, d.Text))
	}
	if path := os.Getenv("GITHUB_STEP_SUMMARY"); path != "" {
		if err := appendFile(path, planMarkdown(p, hint)); err != nil {
			return &exitError{code: ExitInvalid, err: fmt.Errorf("gpufleet plan: $GITHUB_STEP_SUMMARY: %w", err)}
		}
	}
	var b [16]byte
	rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	ghPrint(stdout, "::stop-commands::"+token)
	_, err := stdout.Write(p.Text(hint, logLine))
	ghPrint(stdout, "::"+token+"::")
	return err
}

func appendFile(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	return errors.Join(err, f.Close())
}

// joinArgs is args as a shell reads them back, for a command to copy.
func joinArgs(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~") {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// planError is plan's JSON when it cannot plan: the committed tree could
// not be read. Error is the message stderr has too.
type planError struct {
	SchemaVersion int    `json:"schemaVersion"`
	Output        string `json:"output"`
	Error         string `json:"error"`
}
