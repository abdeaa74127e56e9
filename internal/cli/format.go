package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
)

const (
	formatText   = "text"
	formatJSON   = "json"
	formatGitHub = "github"
	formatSARIF  = "sarif"
)

// formatsOf lists the formats each compiling command accepts. vet and check
// report findings, so they speak every format; build and diff print trees
// and diffs, so they add only github, which turns spec errors and checker
// findings into annotations on the pull request.
func formatsOf(c *cobra.Command) []string {
	switch c.Name() {
	case "vet", "check":
		return []string{formatText, formatJSON, formatGitHub, formatSARIF}
	case "build", "diff":
		return []string{formatText, formatJSON, formatGitHub}
	}
	return []string{formatText, formatJSON}
}

// formatFlagUsage is the --format flag's help for the command named name.
func formatFlagUsage(name string) string {
	return "output format: " + orList(formatsOf(&cobra.Command{Use: name}))
}

func orList(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

func checkFormat(c *cobra.Command, f string) error {
	want := formatsOf(c)
	if !slices.Contains(want, f) {
		return usageError(c, "unknown --format %q (want %s)", f, orList(want))
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

// writeFindings prints the checker's findings as GitHub annotations or a
// SARIF log on stdout, and the counts on stderr for the log's reader.
func writeFindings(stdout, stderr io.Writer, format string, r *check.Report) error {
	if format == formatSARIF {
		if err := writeSARIF(stdout, sarifFindings(r)); err != nil {
			return err
		}
	} else {
		writeGitHubFindings(stdout, r)
	}
	fmt.Fprintln(stderr, countLine(r))
	return nil
}
