package report

import (
	"bytes"
	"fmt"

	"github.com/gpufleet/gpufleet/compiler/check/cost"
)

// reservedMarkdown is the fleet's reserved capacity: paid for whether used
// or not, each reservation's dollars by the hour and the month, the share
// of it the classes use and strand, and each block's end, as data.
func reservedMarkdown(b *bytes.Buffer, c *cost.Cost) {
	if c == nil || len(c.Reserved) == 0 {
		return
	}
	fmt.Fprintf(b, "\n### Reserved capacity\n\nEach capacity reservation, paid for while active whether instances run in it or not: a Capacity Block at its own price, an ODCR at its type's on-demand rate; a month is %d hours, a block is paid for its term. Used are the instances the workloads of the classes landing on its pool take of it, stranded the rest. Start and end are the spec's, never compared with the clock.\n\n", cost.HoursPerMonth)
	b.WriteString("| pool | reservation | type | instance type | zone | instances | GPUs | used | stranded | start | end | per instance | per hour | per month | block, start to end |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	var unknown []string
	var hourly, monthly float64
	known := true
	for _, r := range c.Reserved {
		typ := "odcr"
		if r.Block {
			typ = "capacity-block"
		}
		term := "-"
		if r.Block {
			term = money(r.Term, true)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %d | %d | %d | %d | %s | %s | %s | %s | %s | %s |\n", r.Pool, r.Reservation, typ, r.InstanceType, r.Zone, r.Instances, r.GPUs, r.Used, r.Stranded, orNone(r.Start), orNone(r.End), money(r.NodeHourly, false), money(r.Hourly, true), money(r.Monthly, true), term)
		if r.Unknown != "" {
			unknown = append(unknown, r.Reservation+": "+r.Unknown)
		}
		if r.Hourly == nil {
			known = false
			continue
		}
		hourly, monthly = hourly+*r.Hourly, monthly+*r.Monthly
	}
	if known {
		fmt.Fprintf(b, "\nReserved capacity: %s per hour, %s per month.\n", money(&hourly, true), money(&monthly, true))
	}
	notes(b, unknown)
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
