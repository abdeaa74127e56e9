package check

import (
	"fmt"
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
