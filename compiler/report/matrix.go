package report

import (
	"fmt"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
)

// Matrix draws class × pool for a terminal of the given width. Pools are
// numbered columns with a legend, in blocks that fit the width, so any
// fleet reads in 80 columns.
func Matrix(r *check.Report, width int) string {
	nameW := len("class")
	for _, c := range r.Classes {
		nameW = max(nameW, len(c))
	}
	nameW = min(nameW, 32)
	const colW = 4
	perBlock := max(1, (width-nameW-1)/colW)
	var b strings.Builder
	for start := 0; start < len(r.Pools); start += perBlock {
		end := min(start+perBlock, len(r.Pools))
		fmt.Fprintf(&b, "%-*s", nameW, "class")
		for i := start; i < end; i++ {
			fmt.Fprintf(&b, "%*d", colW, i+1)
		}
		b.WriteString("\n")
		// A big fleet's matrix has millions of cells: each is looked up
		// in its class's row and written as it is, a column wide.
		b.Grow(len(r.Classes) * (nameW + 1 + colW*(end-start)))
		for i, c := range r.Classes {
			fmt.Fprintf(&b, "%-*s", nameW, truncate(c, nameW))
			for j := start; j < end; j++ {
				if i < len(r.Rows) && r.Rows[i].Fits(j) {
					b.WriteString(" yes") // "%*s", colW
				} else {
					b.WriteString("   .")
				}
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	line := "pools:"
	for i, p := range r.Pools {
		item := fmt.Sprintf(" %d=%s", i+1, p)
		if len(line)+len(item) > width {
			b.WriteString(line + "\n")
			line = "      "
		}
		line += item
	}
	b.WriteString(line + "\n")
	return b.String()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "~"
}
