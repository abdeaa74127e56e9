// Package report presents the placement checker's report: as files in the
// tree (report/placement.json, .md and .html) and as text for the terminal.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/cost"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/diag"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// Paths of the report in the output tree.
const (
	JSONPath     = "report/placement.json"
	MarkdownPath = "report/placement.md"
	// HTMLPath is the report as one self-contained web page (html.go),
	// in schema version 2 only; the spec's report.html turns it off.
	HTMLPath = "report/placement.html"
)

// SchemaVersion is the version of the JSON document; it changes only when a
// field is removed or changes meaning. Version 2 is sparse (sparse.go);
// version 1, every class × pool cell, is still written on request for one
// release.
const SchemaVersion = 2

// Versions are the schema versions Write and JSONVersion give.
var Versions = []int{2, 1}

// Document is the JSON form of a report in schemaVersion 1: the report's
// fields, with every class × pool cell.
type Document struct {
	SchemaVersion int             `json:"schemaVersion"`
	Pools         []string        `json:"pools"`
	Classes       []string        `json:"classes"`
	Cells         []sched.Cell    `json:"cells"`
	Findings      []check.Finding `json:"findings"`
	Capacity      []check.Commit  `json:"capacity"`
	Units         []check.Unit    `json:"units,omitempty"`
	Cost          *cost.Cost      `json:"cost,omitempty"`
	Summary       Summary         `json:"summary"`
}

type Summary struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
}

// NewDocument is the report's schemaVersion 1 document, every cell made.
func NewDocument(r *check.Report) Document {
	d := bareDocument(r)
	d.Cells = r.AllCells()
	return d
}

// bareDocument is the document without its cells.
func bareDocument(r *check.Report) Document {
	s := Summary{Errors: r.Errors(), Warnings: len(r.Findings) - r.Errors()}
	return Document{SchemaVersion: 1, Pools: r.Pools, Classes: r.Classes, Findings: r.Findings, Capacity: r.Capacity, Units: r.Units, Cost: r.Cost, Summary: s}
}

// JSON is the report as indented JSON in the current schema version.
func JSON(r *check.Report) ([]byte, error) { return JSONVersion(r, SchemaVersion) }

// JSONVersion is the report as indented JSON in schema version v (1 or 2).
func JSONVersion(r *check.Report, v int) ([]byte, error) {
	switch v {
	case 1:
		return fullJSON(r)
	case 2:
		return sparseJSON(r, placement(r))
	}
	return nil, fmt.Errorf("report: no schema version %d (have %v)", v, Versions)
}

// fullJSON is the schemaVersion 1 document; map keys are sorted, so it is
// stable. A big fleet has millions of cells, so they are made from the
// rows and encoded on every CPU, in chunks, and spliced in where the
// document without them says null; the bytes are those of
// json.MarshalIndent of the whole document.
func fullJSON(r *check.Report) ([]byte, error) {
	n := 0
	for i := range r.Rows {
		n += r.Rows[i].Len()
	}
	if n == 0 {
		return json.MarshalIndent(NewDocument(r), "", "  ")
	}
	doc, err := json.MarshalIndent(bareDocument(r), "", "  ")
	if err != nil {
		return nil, err
	}
	const hole = "\n  \"cells\": null"
	at := bytes.Index(doc, []byte(hole))
	if at < 0 {
		return nil, fmt.Errorf("report: no cells field in %.80s", doc)
	}
	return spliceCells(doc, at, len(hole), r.Rows), nil
}

// WriteOptions are what the report writes beside its JSON and Markdown;
// the zero value writes every file.
type WriteOptions struct {
	// SkipHTML leaves report/placement.html out (the spec's
	// report.html: false).
	SkipHTML bool
}

// Write adds the report files to the tree, in the current schema version.
func Write(tree tree.Tree, r *check.Report) error {
	return WriteVersion(tree, r, SchemaVersion, WriteOptions{})
}

// Paths are the files WriteVersion adds in schema version v.
func Paths(v int, opts WriteOptions) []string {
	if v != 2 || opts.SkipHTML {
		return []string{JSONPath, MarkdownPath}
	}
	return []string{JSONPath, MarkdownPath, HTMLPath}
}

// WriteVersion adds the report files to the tree in schema version v: the
// JSON and the Markdown, and in version 2 the HTML page unless opts skip
// it. Positions are left out: they name the spec as this run was given
// it, and the tree must not depend on where the spec lives.
func WriteVersion(tree tree.Tree, r *check.Report, v int, opts WriteOptions) error {
	portable := *r
	portable.Findings = make([]check.Finding, len(r.Findings))
	for i, f := range r.Findings {
		f.Pos = diag.Pos{}
		portable.Findings[i] = f
	}
	if v != 2 {
		j, err := JSONVersion(&portable, v)
		if err != nil {
			return err
		}
		tree[JSONPath] = append(j, '\n')
		tree[MarkdownPath] = fullMarkdown(&portable)
		return nil
	}
	// The placement is grouped once for the JSON and the Markdown, and
	// the files are made at the same time: each has a part that runs on
	// one CPU. The page, made beside them, reads a bounded part of the
	// report's rows.
	page := make(chan []byte, 1)
	if !opts.SkipHTML {
		go func() { page <- HTML(&portable) }()
	}
	rows := placement(&portable)
	md := make(chan []byte, 1)
	go func() { md <- sparseMarkdown(&portable, rows) }()
	j, err := sparseJSON(&portable, rows)
	m := <-md
	if !opts.SkipHTML {
		tree[HTMLPath] = <-page
	}
	if err != nil {
		return err
	}
	tree[JSONPath], tree[MarkdownPath] = append(j, '\n'), m
	return nil
}

// Markdown is the report for people reading the GitOps repository.
func Markdown(r *check.Report) []byte { return sparseMarkdown(r, placement(r)) }

// fullMarkdown is the schemaVersion 1 Markdown: the whole matrix.
func fullMarkdown(r *check.Report) []byte {
	var b bytes.Buffer
	b.WriteString("<!-- Generated by gpufleet. DO NOT EDIT. -->\n# Placement report\n\n")
	b.WriteString("Which class can land on which pool, proved with kube-scheduler's filters on nodes synthesised from the node groups at max size.\n\n")
	b.WriteString("| class | " + strings.Join(r.Pools, " | ") + " |\n")
	b.WriteString("|---" + strings.Repeat("|---", len(r.Pools)) + "|\n")
	// A big fleet's matrix has millions of cells: made from the rows and
	// written piece by piece into a buffer sized up front.
	b.Grow(len(r.Classes) * len(r.Pools) * 64)
	for i, c := range r.Classes {
		b.WriteString("| ")
		b.WriteString(c)
		for j := range r.Pools {
			cell := r.Rows[i].Cell(j)
			if cell.Fits {
				b.WriteString(" | yes (")
				b.WriteString(strconv.FormatInt(cell.Capacity, 10))
				b.WriteByte(')')
				continue
			}
			b.WriteString(" | no: ")
			for i, why := range cell.Reasons {
				if i > 0 {
					b.WriteString("; ")
				}
				b.WriteString(why)
			}
		}
		b.WriteString(" |\n")
	}
	b.WriteString("\n`yes (N)`: the class lands, and the pool holds N of its pods at max size.\n\n")
	tail(&b, r)
	return b.Bytes()
}

// tail is the Markdown's findings and capacity.
func tail(b *bytes.Buffer, r *check.Report) {
	b.WriteString("## Findings\n\n")
	if len(r.Findings) == 0 {
		b.WriteString("None.\n")
	}
	for _, f := range r.Findings {
		fmt.Fprintf(b, "- **%s** %s: %s\n", f.Severity, f.Check, f.Message)
	}
	unitsMarkdown(b, r.Units)
	b.WriteString("\n## Quota against capacity\n\n| resource | nominal quota | fleet at max size | ratio |\n|---|---|---|---|\n")
	for _, c := range r.Capacity {
		fmt.Fprintf(b, "| %s | %s | %s | %.2f |\n", c.Resource, c.Quota, c.Capacity, c.Ratio)
	}
	costMarkdown(b, r.Cost)
}
