package report

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
)

// maxUnitLines bounds the Markdown's table of units: a big fleet has one
// per tenant and queued class; placement.json lists them all.
const maxUnitLines = 200

// unitsMarkdown is the section on how each Job and queued class is
// admitted, then placed: Kueue's unit and flavor, and what kube-scheduler
// runs at once there.
func unitsMarkdown(b *bytes.Buffer, units []check.Unit) {
	if len(units) == 0 {
		return
	}
	b.WriteString("\n## Admission, then placement\n\n")
	b.WriteString("Kueue admits a queued workload as one unit (a Job's pods, a StatefulSet's replicas, each pod of a Deployment) and pins it to one flavor's pool; kube-scheduler then places the pinned pods there. A class may preempt, within its ClusterQueue, the tenant's classes listed; the others are protected from it.\n\n")
	b.WriteString("| " + strings.Join(unitHead, " | ") + " |\n|" + strings.Repeat("---|", len(unitHead)) + "\n")
	for i, u := range units {
		if i == maxUnitLines {
			fmt.Fprintf(b, "\n%d more in `report/placement.json`.\n", len(units)-i)
			break
		}
		b.WriteString("| " + strings.Join(unitRow(u), " | ") + " |\n")
	}
}

// unitHead is the table of units' columns, unitRow a unit's cells: the
// Markdown and the page write the same.
var unitHead = []string{"class", "tenant", "kind", "pods", "Kueue admits", "in flavor (placed of admitted)", "run at once", "waves", "may preempt"}

func unitRow(u check.Unit) []string {
	kind := u.Kind
	if u.Gang {
		kind += " (gang)"
	}
	admits, tenant := "not queued", "-"
	if u.Tenant != "" {
		admits, tenant = strconv.Itoa(int(u.Admission))+" as one workload", u.Tenant
	}
	if u.Tenant != "" && len(u.PodSets) > 0 {
		// An ML kind: every role's PodSet, admitted together.
		var sets []string
		for _, ps := range u.PodSets {
			to := ps.Flavor
			if to == "" {
				to = "no flavor"
			}
			sets = append(sets, fmt.Sprintf("%s %d to %s", ps.Name, ps.Pods, to))
		}
		admits = strings.Join(sets, ", ") + " as one workload"
	}
	if t := u.Topology; t != nil {
		fits := strconv.FormatInt(t.Worst, 10)
		if t.Best != t.Worst {
			fits += " to " + strconv.FormatInt(t.Best, 10)
		}
		admits += fmt.Sprintf(", by topology (%s): its %d standing nodes fit %s", t.Request, t.Standing, fits)
	}
	pinned := ""
	for k, p := range u.Pinned {
		if k > 0 {
			pinned += ", "
		}
		pinned += fmt.Sprintf("%s (%d of %d)", p.Flavor, p.Placed, p.Admitted)
	}
	if pinned == "" {
		pinned = "-"
	}
	waves := "-"
	if u.Waves > 0 {
		waves = strconv.FormatInt(u.Waves, 10)
	}
	preempts := "-"
	if len(u.Preempts) > 0 {
		preempts = strings.Join(u.Preempts, ", ")
	}
	return []string{u.Class, tenant, kind, strconv.Itoa(int(u.Pods)), admits, pinned, strconv.FormatInt(u.AtOnce, 10), waves, preempts}
}
