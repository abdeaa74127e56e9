package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/drift"
	"github.com/gpufleet/gpufleet/compiler/live"
)

func newDriftCmd(stdout, stderr io.Writer) *cobra.Command {
	var format, nodesFile string
	cmd := &cobra.Command{
		Use:   "drift SPEC... --nodes NODES.json",
		Short: "Compare a running cluster's nodes with the fleet's pools",
		Long: `Drift compiles the fleet and compares the cluster's nodes (the JSON of
'kubectl get nodes -o json', or - for stdin) with the nodes its pools
launch. Each node belongs to the pool its gpufleet.dev/pool label names,
else its eksctl or EKS node group's, else its Karpenter NodePool's
(gpufleet names each after the pool). Per pool it reports:

  MissingLabel, ExtraLabel   a label the pool sets is missing or differs;
                             a gpufleet label the pool does not set
  MissingTaint, ExtraTaint   a taint the pool sets is missing; a taint it
                             does not set (Kubernetes', Karpenter's and
                             cluster-autoscaler's own are left out)
  InstanceType               not one of the pool's instance types
  NoDevicePlugin             a GPU node advertising no nvidia.com/gpu
  GPUs                       GPUs (replicas, MIG slices) other than the
                             catalog predicts
  Memory                     allocatable memory more than 5% from the
                             catalog's
  NoPool                     a node no label maps to a pool

It exits 1 on any drift, 0 on none, and 2 on bad usage, an invalid spec,
or a nodes file that is not such a list (at its file:line:col). --format
json prints one document, github annotations on the pools' spec entries,
sarif a SARIF 2.1.0 log (see docs/formats.md). Run it on a schedule to
catch a cluster drifting from its spec.`,
		Example: `  kubectl get nodes -o json > nodes.json
  gpufleet drift fleets/platform --nodes nodes.json

  # From stdin, as a scheduled CI job annotating the spec.
  kubectl get nodes -o json | gpufleet drift fleet/ --nodes - --format github

  gpufleet drift fleet/ --nodes nodes.json --format json | jq '.findings'`,
		Args: usageArgs,
		RunE: func(c *cobra.Command, args []string) error {
			out, err := outputFor(c, format, stdout, stderr)
			if err != nil {
				return err
			}
			if nodesFile == "" {
				return usageError(c, "missing --nodes (the JSON of 'kubectl get nodes -o json', or - for stdin)")
			}
			var nodes []corev1.Node
			res, err := compileBeside(out, args, compiler.Options{ReportOnly: true}, func() (err error) {
				nodes, err = readNodes(c, nodesFile)
				return err
			})
			if err != nil {
				return err
			}
			rep, err := res.Drift(nodes)
			if err != nil {
				return &exitError{code: ExitInvalid, err: fmt.Errorf("gpufleet: %v", err)}
			}
			if err := out.driftReport(res, rep); err != nil {
				return err
			}
			return driftExit(rep)
		},
	}
	cmd.Flags().StringVar(&format, "format", formatText, formatFlagUsage(cmd.Name()))
	cmd.Flags().StringVar(&nodesFile, "nodes", "", "the cluster's nodes: the JSON of 'kubectl get nodes -o json', or - for stdin")
	return cmd
}

// driftExit is exit 1 when a node drifted.
func driftExit(r *drift.Report) error {
	if len(r.Findings) > 0 {
		return &exitError{code: ExitFindings}
	}
	return nil
}

// readNodes reads a nodes file, or stdin for "-"; an unreadable or
// invalid one is exit 2.
func readNodes(c *cobra.Command, name string) ([]corev1.Node, error) {
	var nodes []corev1.Node
	err := readLive(c, name, func(r io.Reader) (err error) {
		nodes, err = live.ReadNodes(name, r)
		return err
	})
	return nodes, err
}

// readPods is readNodes for pods, which are bound to nodes, read from
// nodesFile.
func readPods(c *cobra.Command, name, nodesFile string, nodes []corev1.Node) ([]corev1.Pod, error) {
	var pods []corev1.Pod
	err := readLive(c, name, func(r io.Reader) (err error) {
		pods, err = live.ReadPods(name, r, nodesFile, nodes)
		return err
	})
	return pods, err
}

func readLive(c *cobra.Command, name string, read func(io.Reader) error) error {
	r := c.InOrStdin()
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return &exitError{code: ExitInvalid, err: fmt.Errorf("gpufleet: %v", err)}
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return &exitError{code: ExitInvalid, err: fmt.Errorf("gpufleet: %s: a directory, not a file", name)}
		} else if err == nil && fi.Mode().IsRegular() {
			// Refused by its size, before reading 256 MiB of it.
			if err := live.TooLarge(name, fi.Size()); err != nil {
				return &exitError{code: ExitInvalid, err: fmt.Errorf("gpufleet: %v", err)}
			}
		}
		r = f
	}
	if err := read(r); err != nil {
		return &exitError{code: ExitInvalid, err: fmt.Errorf("gpufleet: %v", err)}
	}
	return nil
}
