package check

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/diag"
)

// Severities.
const (
	Error   = "error"
	Warning = "warning"
)

// Finding is one problem the checker proves.
type Finding struct {
	Severity string   `json:"severity"`
	Check    ID       `json:"check"`
	Class    string   `json:"class,omitempty"`
	Pool     string   `json:"pool,omitempty"`
	Tenant   string   `json:"tenant,omitempty"`
	Message  string   `json:"message"`
	Pos      diag.Pos `json:"pos,omitzero"`
}

func (f Finding) String() string {
	var b strings.Builder
	if p := f.Pos.String(); p != "" {
		b.WriteString(p + ": ")
	}
	fmt.Fprintf(&b, "%s: %s: %s", f.Severity, f.Check, f.Message)
	return b.String()
}

// histogram formats reasons with their counts, sorted, as kube-scheduler's
// FailedScheduling message does: "2 Insufficient cpu, 1 node(s) had ...".
func histogram(counts map[string]int) string {
	reasons := make([]string, 0, len(counts))
	for r := range counts {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = fmt.Sprintf("%d %s", counts[r], r)
	}
	return strings.Join(parts, ", ")
}
