package cli

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/diag"
)

// SARIF 2.1.0 (https://docs.oasis-open.org/sarif/sarif/v2.1.0/), the
// static-analysis format GitHub code scanning and most CI systems ingest.
// Only the properties gpufleet fills are declared; field order is fixed and
// rules and results are sorted, so the same spec gives the same bytes.
// The log goes to stdout, the text to stderr for the log's reader.

// formatSARIF is for code scanning; check and vet only, as a SARIF log has
// no place for a written tree or a diff.
const formatSARIF = "sarif"

type sarifOutput struct {
	stdout, stderr io.Writer
}

func newSARIFOutput(stdout, stderr io.Writer) output {
	return &sarifOutput{stdout: stdout, stderr: stderr}
}

// specError writes a log of the spec errors; Run still prints them on
// stderr.
func (o *sarifOutput) specError(dl diag.List) error {
	if err := writeSARIF(o.stdout, sarifDiags(dl)); err != nil {
		return err
	}
	return dl
}

func (o *sarifOutput) checkReport(res *compiler.Result) error { return o.findings(res.Report) }
func (o *sarifOutput) vetReport(res *compiler.Result) error   { return o.findings(res.Report) }

// findings writes the log and leaves the counts on stderr.
func (o *sarifOutput) findings(r *check.Report) error {
	if err := writeSARIF(o.stdout, sarifFindings(r)); err != nil {
		return err
	}
	fmt.Fprintln(o.stderr, countLine(r))
	return nil
}

const (
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion = "2.1.0"
	sarifSpec    = "spec" // the rule of spec errors
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string       `json:"id"`
	Name             string       `json:"name"`
	ShortDescription sarifMessage `json:"shortDescription"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

// sarifURI is a file name as a URI: relative and with forward slashes when
// it lies below the working directory (the repository root in CI), else an
// absolute file URI; percent-encoded either way (a space, '#', '?' or '%'
// in a committed file's name would otherwise end or change the URI), and
// a relative one whose first segment holds a ':' led by "./", so that it
// is not read as a scheme (RFC 3986, 4.2).
func sarifURI(file string) string {
	if filepath.IsAbs(file) {
		if wd, err := os.Getwd(); err == nil {
			file = diag.RelFile(wd, file)
		}
	}
	u := filepath.ToSlash(file)
	if filepath.IsAbs(file) {
		if !strings.HasPrefix(u, "/") {
			u = "/" + u // a Windows drive
		}
		return (&url.URL{Scheme: "file", Path: u}).String()
	}
	return (&url.URL{Path: u}).String()
}

func sarifLocations(p diag.Pos) []sarifLocation {
	if p.File == "" {
		return nil
	}
	uri := sarifURI(p.File)
	loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: uri}}}
	if !strings.HasPrefix(uri, "file://") {
		loc.PhysicalLocation.ArtifactLocation.URIBaseID = "%SRCROOT%"
	}
	if p.Line > 0 {
		loc.PhysicalLocation.Region = &sarifRegion{StartLine: p.Line, StartColumn: p.Column}
	}
	return []sarifLocation{loc}
}

// sarifItem is one result before rules are indexed.
type sarifItem struct {
	rule, level, msg string
	pos              diag.Pos
	// desc describes the rule, if not a placement check's.
	desc string
}

// buildSARIF makes the log of one run from spec errors or checker findings.
func buildSARIF(items []sarifItem) sarifLog {
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if c := a.pos.Compare(b.pos); c != 0 {
			return c < 0
		}
		if a.rule != b.rule {
			return a.rule < b.rule
		}
		return a.msg < b.msg
	})
	var ids []string
	descs := map[string]string{}
	for _, it := range items {
		ids = append(ids, it.rule)
		if it.desc != "" {
			descs[it.rule] = it.desc
		}
	}
	sort.Strings(ids)
	ids = slices.Compact(ids)
	index := map[string]int{}
	rules := make([]sarifRule, len(ids))
	for i, id := range ids {
		index[id] = i
		desc := "gpufleet placement check " + id
		if id == sarifSpec {
			desc = "The fleet spec is invalid"
		} else if d, ok := descs[id]; ok {
			desc = d
		}
		rules[i] = sarifRule{ID: id, Name: id, ShortDescription: sarifMessage{Text: desc}}
	}
	results := make([]sarifResult, len(items))
	for i, it := range items {
		results[i] = sarifResult{
			RuleID: it.rule, RuleIndex: index[it.rule], Level: it.level,
			Message: sarifMessage{Text: it.msg}, Locations: sarifLocations(it.pos),
		}
	}
	return sarifLog{
		Schema: sarifSchema, Version: sarifVersion,
		Runs: []sarifRun{{
			Tool: sarifTool{Driver: sarifDriver{
				Name: "gpufleet", InformationURI: "https://github.com/gpufleet/gpufleet", Rules: rules,
			}},
			Results: results,
		}},
	}
}

func sarifFindings(r *check.Report) sarifLog {
	items := make([]sarifItem, 0, len(r.Findings))
	for _, f := range r.Findings {
		items = append(items, sarifItem{rule: string(f.Check), level: ghLevel(f.Severity), msg: f.Message, pos: f.Pos})
	}
	return buildSARIF(items)
}

func sarifDiags(dl diag.List) sarifLog {
	items := make([]sarifItem, 0, len(dl))
	for _, d := range dl {
		msg := d.Msg
		if d.Path != "" {
			msg = d.Path + ": " + msg
		}
		items = append(items, sarifItem{rule: sarifSpec, level: "error", msg: msg, pos: d.Pos})
	}
	return buildSARIF(items)
}

func writeSARIF(w io.Writer, l sarifLog) error {
	return writeJSON(w, l)
}
