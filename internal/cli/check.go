package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/report"
)

func newCheckCmd(stdout, stderr io.Writer) *cobra.Command {
	var format, nodesFile, podsFile string
	var schema int
	cmd := &cobra.Command{
		Use:   "check SPEC... [--nodes NODES.json [--pods PODS.json]]",
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
NO_COLOR is set.

With --nodes (the JSON of 'kubectl get nodes -o json', or - for stdin) the
pools are the cluster's nodes instead, each counted once, mapped to pools
as 'gpufleet drift' maps them; with --pods ('kubectl get pods -A -o json')
too, what the pods bound to a node request is taken off its allocatable.
The same filters give the same reasons; a pool with no nodes hosts
nothing ("no nodes available to schedule pods"). The Kueue checks judge
the ClusterQueues against the pools at max size, so they run only without
--nodes, but for KueueTopology and KueueTopologyBound: Kueue's
topology-aware scheduling places on the nodes that exist, and their
labels give its domains exactly.`,
		Example: `  gpufleet check fleets/platform
  gpufleet check fleets/research --format json | jq '.findings'

  # In GitHub Actions: annotate the pull request.
  gpufleet check fleet/ --format github

  # For code scanning (github/codeql-action/upload-sarif).
  gpufleet check fleet/ --format sarif > gpufleet.sarif

  # Against the running cluster: its nodes and what already runs there.
  kubectl get nodes -o json > nodes.json
  kubectl get pods -A -o json > pods.json
  gpufleet check fleet/ --nodes nodes.json --pods pods.json`,
		Args: usageArgs,
		RunE: func(c *cobra.Command, args []string) error {
			out, err := outputFor(c, format, stdout, stderr)
			if err != nil {
				return err
			}
			if podsFile != "" && nodesFile == "" {
				return usageError(c, "--pods needs --nodes")
			}
			if podsFile == "-" && nodesFile == "-" {
				return usageError(c, "--nodes and --pods cannot both be stdin")
			}
			opts := compiler.Options{ReportOnly: true, ReportSchema: schema}
			var nodes []corev1.Node
			var pods []corev1.Pod
			var res *compiler.Result
			if nodesFile == "" {
				res, err = compile(out, args, opts)
			} else {
				res, err = compileBeside(out, args, opts, func() (err error) {
					if nodes, err = readNodes(c, nodesFile); err != nil || podsFile == "" {
						return err
					}
					pods, err = readPods(c, podsFile, nodesFile, nodes)
					return err
				})
			}
			if err != nil {
				return err
			}
			if nodesFile != "" {
				if res.Report, err = res.CheckLive(nodes, pods); err != nil {
					return &exitError{code: ExitInvalid, err: fmt.Errorf("gpufleet: %v", err)}
				}
			}
			if err := out.checkReport(res); err != nil {
				return err
			}
			return findingsExit(res.Report)
		},
	}
	cmd.Flags().StringVar(&format, "format", formatText, formatFlagUsage(cmd.Name()))
	cmd.Flags().StringVar(&nodesFile, "nodes", "", "check against the cluster's nodes: the JSON of 'kubectl get nodes -o json', or - for stdin")
	cmd.Flags().StringVar(&podsFile, "pods", "", "with --nodes, what already runs on them: the JSON of 'kubectl get pods -A -o json', or - for stdin")
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
