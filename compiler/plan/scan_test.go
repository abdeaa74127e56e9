package plan

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/cost"
)

// reference decodes a report with encoding/json alone, every byte of it.
func reference(b []byte) (*Report, error) {
	var d struct {
		SchemaVersion *int     `json:"schemaVersion"`
		Pools         []string `json:"pools"`
		Classes       []string `json:"classes"`
		Placement     []struct {
			Class string   `json:"class"`
			Lands []landOf `json:"lands"`
			// Refused is decoded, and dropped.
			Refused []struct {
				Reasons []string `json:"reasons"`
				Pools   []string `json:"pools"`
			} `json:"refused"`
		} `json:"placement"`
		Cells    []landOf        `json:"cells"`
		Findings []check.Finding `json:"findings"`
		Units    []check.Unit    `json:"units"`
		Cost     *cost.Cost      `json:"cost"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, err
	}
	if d.SchemaVersion == nil || *d.SchemaVersion != 1 && *d.SchemaVersion != 2 {
		return nil, &ErrVersion{}
	}
	r := newReport(d.Pools, d.Classes, d.Units, d.Findings, d.Cost)
	for _, p := range d.Placement {
		for _, l := range p.Lands {
			r.land(p.Class, l.Pool, l.Land)
		}
	}
	for _, c := range d.Cells {
		if c.Fits {
			r.land(c.Class, c.Pool, c.Land)
		}
	}
	return r, nil
}

// The committed reports of the example fleets decode as encoding/json
// decodes them.
func TestDecodeReportGolden(t *testing.T) {
	files, err := filepath.Glob("../../golden/*/report/placement.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden reports: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeReport(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		want, err := reference(b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) || len(got.Lands) == 0 {
			t.Errorf("%s: DecodeReport differs from encoding/json", f)
		}
	}
}

// FuzzDecodeReport: no input makes it panic or hang, and a document
// encoding/json reads whole it reads the same.
func FuzzDecodeReport(f *testing.F) {
	for _, seed := range []string{
		`{"schemaVersion": 2, "pools": ["a"], "classes": ["c"], "placement": [{"class": "c", "lands": [{"pool": "a", "type": "t", "capacity": 3}], "refused": [{"reasons": ["x \"y\" \\"], "pools": ["b"]}]}]}`,
		`{"schemaVersion": 1, "cells": [{"class": "c", "pool": "a", "fits": true, "capacity": 2}, {"class": "c", "pool": "b", "fits": false}]}`,
		`{"schemaVersion": 2, "placement": [{"refused": [[[[[]]]]], "class": "c"}], "findings": [{"severity": "error", "check": "Lands", "message": "m"}]}`,
		`{"schemaVersion": 3}`, `{"a": }`, `[`, `"`, `{"schemaVersion": 2} x`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := DecodeReport(b)
		want, werr := reference(b)
		if werr != nil {
			return // the scanner may accept what it skips unchecked
		}
		if err != nil {
			t.Fatalf("encoding/json reads it, DecodeReport: %v", err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("DecodeReport differs from encoding/json")
		}
	})
}
