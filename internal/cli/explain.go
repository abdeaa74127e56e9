package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

func newExplainCmd(stdout, stderr io.Writer) *cobra.Command {
	var pool string
	cmd := &cobra.Command{
		Use:   "explain SPEC... CLASS [--pool POOL]",
		Short: "Show every filter's verdict for a class, and what it compared",
		Long: `Explain shows, for one class, each pool's verdict per instance type and
zone, every filter's reasons in kube-scheduler's wording, and the values
each filter compared (node labels against the pod's selectors, taints
against tolerations, requests against allocatable).`,
		Example: `  gpufleet explain fleets/platform training
  gpufleet explain fleets/platform inference --pool t4-infer`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usageError(c, "want SPEC... CLASS")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			specs, class := args[:len(args)-1], args[len(args)-1]
			res, err := compile(newTextOutput(stdout, stderr), specs, compiler.Options{ReportOnly: true})
			if err != nil {
				return err
			}
			r := res.Report
			if !contains(r.Classes, class) {
				return usageError(c, "no class %q in the fleet (classes: %v)", class, r.Classes)
			}
			if pool != "" && !contains(r.Pools, pool) {
				return usageError(c, "no pool %q in the fleet (pools: %v)", pool, r.Pools)
			}
			cl, err := res.Cluster()
			if err != nil {
				return err
			}
			cls := cl.Class(class)
			for i := range cl.Pools {
				if pool != "" && cl.Pools[i].Name != pool {
					continue
				}
				cell := sched.Explain(cls, &cl.Pools[i])
				explainCell(stdout, &cell)
			}
			// With --pool, the findings on other pools are not this cell's.
			for _, f := range r.Findings {
				if f.Class == class && (pool == "" || f.Pool == "" || f.Pool == pool) {
					fmt.Fprintln(stdout, f.String())
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&pool, "pool", "", "explain only this pool")
	return cmd
}

func explainCell(w io.Writer, cell *sched.Cell) {
	verdict := "cannot land"
	if cell.Fits {
		verdict = fmt.Sprintf("can land (%d pods at max size)", cell.Capacity)
	}
	fmt.Fprintf(w, "pool %s: %s\n", cell.Pool, verdict)
	for _, n := range cell.Nodes {
		fmt.Fprintf(w, "  %s in %s:", n.InstanceType, n.Zone)
		if n.Fits {
			fmt.Fprintf(w, " fits, %d per node\n", n.PodsPerNode)
		} else {
			fmt.Fprintln(w, " does not fit")
		}
		for _, f := range n.Filters {
			mark := "ok"
			if !f.OK() {
				mark = strings.Join(f.Reasons, ", ")
			}
			fmt.Fprintf(w, "    %-17s %s: %s\n", f.Name, mark, f.Compared)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
