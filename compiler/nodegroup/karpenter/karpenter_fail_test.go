package karpenter_test

import (
	"bytes"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/nodegroup/karpenter"
	"github.com/gpufleet/gpufleet/internal/crdtest"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// TestKarpenterCRDsCanFail breaks valid objects the ways a generator bug
// could, and requires the CRDs' schema or CEL rules to reject each.
func TestKarpenterCRDsCanFail(t *testing.T) {
	core, aws, nodeClass := karpenterValidators(t)
	extra := testfleet.Write(t, karpenterFleet)
	docs := karpenterDocs(renderFleet(t, extra).Tree[karpenter.Path])
	var pool, class []byte
	for _, d := range docs {
		if bytes.Contains(d, []byte("\nkind: NodePool\n")) && pool == nil {
			pool = d
		}
		if bytes.Contains(d, []byte("\nkind: EC2NodeClass\n")) && class == nil {
			class = d
		}
	}
	if pool == nil || class == nil {
		t.Fatal("no NodePool or EC2NodeClass rendered")
	}
	for _, tc := range []struct {
		name string
		doc  []byte
		vs   []*crdtest.Validator
		edit func(spec map[string]any)
		want string
		// accept are validators that must still pass the edited object.
		accept []*crdtest.Validator
	}{
		{"Gt with two values", pool, []*crdtest.Validator{core, aws}, func(s map[string]any) {
			tpl := at(s, "template", "spec")
			tpl["requirements"] = append(tpl["requirements"].([]any), map[string]any{"key": "example.com/gen", "operator": "Gt", "values": []any{"1", "2"}})
		}, "must have a single positive integer value", nil},
		{"karpenter.sh label", pool, []*crdtest.Validator{core, aws}, func(s map[string]any) {
			at(s, "template", "metadata", "labels")["karpenter.sh/team"] = "x"
		}, `label domain "karpenter.sh" is restricted`, nil},
		{"karpenter.k8s.aws label (AWS CRD only)", pool, []*crdtest.Validator{aws}, func(s map[string]any) {
			at(s, "template", "metadata", "labels")["karpenter.k8s.aws/team"] = "x"
		}, `label domain "karpenter.k8s.aws" is restricted`, []*crdtest.Validator{core}},
		{"In without values", pool, []*crdtest.Validator{core, aws}, func(s map[string]any) {
			at(s, "template", "spec")["requirements"] = []any{map[string]any{"key": "example.com/x", "operator": "In", "values": []any{}}}
		}, "requirements with operator 'In' must have a value defined", nil},
		{"weight over 100", pool, []*crdtest.Validator{core}, func(s map[string]any) { s["weight"] = 101 }, "less than or equal to 100", nil},
		{"budget not a count", pool, []*crdtest.Validator{core}, func(s map[string]any) {
			at(s, "disruption")["budgets"] = []any{map[string]any{"nodes": "ten percent"}}
		}, "budgets[0].nodes in body should match", nil},
		{"unknown field", pool, []*crdtest.Validator{core}, func(s map[string]any) { s["limit"] = map[string]any{} }, "unknown field", nil},
		{"role and instanceProfile", class, []*crdtest.Validator{nodeClass}, func(s map[string]any) { s["instanceProfile"] = "p" },
			"must specify exactly one of ['role', 'instanceProfile']", nil},
		{"unsupported alias", class, []*crdtest.Validator{nodeClass}, func(s map[string]any) {
			s["amiSelectorTerms"] = []any{map[string]any{"alias": "ubuntu@latest"}}
		}, "family is not supported", nil},
		{"reservation by id and tags", class, []*crdtest.Validator{nodeClass}, func(s map[string]any) {
			s["capacityReservationSelectorTerms"] = []any{map[string]any{"id": "cr-0a", "tags": map[string]any{"team": "ml"}}}
		}, "'id' is mutually exclusive", nil},
		{"reservation ID misspelled", class, []*crdtest.Validator{nodeClass}, func(s map[string]any) {
			s["capacityReservationSelectorTerms"] = []any{map[string]any{"id": "cap-0a"}}
		}, "should match '^cr-[0-9a-z]+$'", nil},
		{"no subnets", class, []*crdtest.Validator{nodeClass}, func(s map[string]any) { s["subnetSelectorTerms"] = []any{} },
			"subnetSelectorTerms cannot be empty", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var obj map[string]any
			if err := yaml.Unmarshal(tc.doc, &obj); err != nil {
				t.Fatal(err)
			}
			tc.edit(obj["spec"].(map[string]any))
			doc, err := yaml.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range tc.vs {
				errs := crdErrors(t, doc, v)
				if !strings.Contains(strings.Join(errs, "\n"), tc.want) {
					t.Errorf("want an error containing %q, got %q", tc.want, errs)
				}
				t.Log(errs)
			}
			for _, v := range tc.accept {
				if errs := crdErrors(t, doc, v); len(errs) != 0 {
					t.Errorf("rejected by a validator that should accept it: %v", errs)
				}
			}
		})
	}
	// The edits above break valid objects, not already broken ones.
	if errs := crdErrors(t, pool, core, aws); len(errs) != 0 {
		t.Fatalf("unedited NodePool rejected: %v", errs)
	}
	if errs := crdErrors(t, class, nodeClass); len(errs) != 0 {
		t.Fatalf("unedited EC2NodeClass rejected: %v", errs)
	}
}
