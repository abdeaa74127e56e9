package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

func newExplainCmd(stdout, stderr io.Writer) *cobra.Command {
	var pool string
	cmd := &cobra.Command{
		Use:   "explain SPEC... CLASS [--pool POOL]",
		Short: "Show every filter's verdict for a class, and what it compared",
		Long: `Explain shows, for one class, each pool's verdict per instance type and
zone, every filter's reasons in kube-scheduler's wording, and the values
each filter compared (node labels against the pod's selectors, taints
against tolerations, requests against allocatable). For a queued class,
it then follows each tenant's workload from admission into placement:
the pods Kueue admits as one unit, the flavors it may pin them to, and
how many of them kube-scheduler places there; for a Job, how many pods
run at once and in how many waves.`,
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
			if c.Flags().Changed("pool") && pool == "" {
				return usageError(c, "--pool wants a pool's name (pools: %v)", r.Pools)
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
			for _, u := range r.Units {
				if u.Class == class {
					explainUnit(stdout, u, pool)
				}
			}
			// With --pool, the findings on other pools are not this cell's.
			for _, f := range r.Findings {
				if f.Class == class && (pool == "" || f.Pool == "" || f.Pool == pool) {
					fmt.Fprintln(stdout, logLine(f.String()))
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

// explainUnit follows one tenant's workload of the class from admission
// into placement (check.Unit); with pool, only that flavor's line.
func explainUnit(w io.Writer, u check.Unit, pool string) {
	waves := ""
	if u.Waves > 0 {
		waves = fmt.Sprintf(", in %d wave%s", u.Waves, map[bool]string{true: "s"}[u.Waves > 1])
	}
	if u.Tenant == "" {
		fmt.Fprintf(w, "not queued: the Job controller runs %d of its %d pods at once%s\n", u.AtOnce, u.Pods, waves)
		return
	}
	switch {
	case u.Kind == keys.KindDeployment:
		fmt.Fprintf(w, "tenant %s: Kueue admits its %d replicas one by one, each to the first flavor with quota\n", u.Tenant, u.Pods)
	case u.Flavor == "":
		fmt.Fprintf(w, "tenant %s: Kueue admits no workload of %d pods (see the findings)\n", u.Tenant, u.Admission)
	default:
		fmt.Fprintf(w, "tenant %s: Kueue admits %d pods as one workload, to flavor %s on an empty cluster\n", u.Tenant, u.Admission, u.Flavor)
	}
	for _, p := range u.Pinned {
		if pool != "" && p.Flavor != pool {
			continue
		}
		why := ""
		if len(p.Reasons) > 0 && p.Placed < int64(p.Admitted) {
			why = ": " + strings.Join(p.Reasons, ", ")
		}
		if u.Kind == keys.KindDeployment {
			fmt.Fprintf(w, "  %d admitted to flavor %s: kube-scheduler places %d of them there%s\n", p.Admitted, p.Flavor, p.Placed, why)
		} else {
			fmt.Fprintf(w, "  pinned to flavor %s: kube-scheduler places %d of %d there%s\n", p.Flavor, p.Placed, p.Admitted, why)
		}
	}
	fmt.Fprintf(w, "  %d of its %d pods run at once%s\n", u.AtOnce, u.Pods, waves)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
