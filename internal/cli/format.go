package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gpufleet/gpufleet/compiler"
)

const (
	formatText = "text"
	formatJSON = "json"
)

func checkFormat(c *cobra.Command, f string) error {
	if f != formatText && f != formatJSON {
		return usageError(c, "unknown --format %q (want text or json)", f)
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// summary counts what a fleet defines, for people and for programs.
type summary struct {
	Cluster    string `json:"cluster"`
	Pools      int    `json:"pools"`
	Classes    int    `json:"classes"`
	Tenants    int    `json:"tenants"`
	Priorities int    `json:"priorities"`
	Files      int    `json:"files"`
}

func summarize(r *compiler.Result) summary {
	return summary{
		Cluster:    r.Fleet.Spec.Cluster.Name,
		Pools:      len(r.Fleet.Pools),
		Classes:    len(r.Fleet.Classes),
		Tenants:    len(r.Fleet.Tenants),
		Priorities: len(r.Fleet.Priorities),
		Files:      len(r.Tree),
	}
}

func (s summary) String() string {
	return fmt.Sprintf("fleet %s: %s, %s, %s, %s", s.Cluster,
		plural(s.Pools, "pool", "pools"), plural(s.Classes, "class", "classes"),
		plural(s.Tenants, "tenant", "tenants"), plural(s.Priorities, "priority", "priorities"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// compileFor is the start every compiling command shares: check the
// format, compile, and report an invalid spec in that format.
func compileFor(c *cobra.Command, stdout io.Writer, format string, args []string) (*compiler.Result, error) {
	if err := checkFormat(c, format); err != nil {
		return nil, err
	}
	res, err := compiler.Compile(args)
	if err != nil {
		return nil, specError(stdout, format, err)
	}
	return res, nil
}
