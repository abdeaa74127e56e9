package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/spec"
)

// TestKWOKInstanceTypes holds the instance-types file to the catalog:
// each broken generator below (a deliberate bug) is caught.
func TestKWOKInstanceTypes(t *testing.T) {
	cat := aws.Catalog(nil)
	spot := 9.5
	prices := catalog.NewPrices(aws.Cloud{}.Prices(), "us-east-1", &spec.Prices{InstanceTypes: map[string]spec.InstancePrice{"p4de.24xlarge": {Spot: &spot}}})
	pools := []*infraPool{
		{name: "h100", karpenter: true, types: []string{"p5.48xlarge"}, zones: []string{"us-east-1a", "us-east-1b"}},
		{name: "a100-spot", karpenter: true, spot: true, types: []string{"p4d.24xlarge", "p4de.24xlarge"}, zones: []string{"us-east-1a"}},
		{name: "managed", types: []string{"m7i.4xlarge"}, zones: []string{"us-east-1a"}},
	}
	raw, err := kwokInstanceTypes(pools, cat, prices)
	if err != nil {
		t.Fatal(err)
	}
	var got []kwokInstanceType
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	byName := map[string]kwokInstanceType{}
	for _, it := range got {
		byName[it.Name] = it
	}
	if _, ok := byName["m7i.4xlarge"]; ok {
		t.Error("a managed node group's type is offered to Karpenter")
	}
	h := byName["p5.48xlarge"]
	if len(h.Offerings) != 2 {
		t.Fatalf("p5.48xlarge: %d offerings, want one per zone: %+v", len(h.Offerings), h.Offerings)
	}
	od, _ := prices.Hourly("p5.48xlarge", false)
	for _, o := range h.Offerings {
		if o.Price != od.USD || !o.Available || o.Requirements[0].Values[0] != "on-demand" {
			t.Errorf("p5.48xlarge offering %+v: want on-demand at %v", o, od.USD)
		}
	}
	gpus := h.Resources[catalog.ResourceGPU]
	if gpus.Value() != cat["p5.48xlarge"].GPU.Count {
		t.Errorf("p5.48xlarge: nvidia.com/gpu %s, want the catalog's %d", gpus.String(), cat["p5.48xlarge"].GPU.Count)
	}
	// Karpenter's allocatable (resources less the kwok overhead) is the
	// catalog's.
	cpu := h.Resources[corev1.ResourceCPU]
	cpu.Sub(resource.MustParse(kwokOverheadCPU))
	if want := cat["p5.48xlarge"].Allocatable()[corev1.ResourceCPU]; cpu.Cmp(want) != 0 {
		t.Errorf("p5.48xlarge: cpu less the kwok overhead %s, want the catalog's allocatable %s", cpu.String(), want.String())
	}
	if efa := h.Resources[aws.ResourceEFA]; efa.Value() != cat["p5.48xlarge"].EFA {
		t.Errorf("p5.48xlarge: EFA %s, want %d", efa.String(), cat["p5.48xlarge"].EFA)
	}
	// The spec's spot price where it gives one, the on-demand one where not.
	for name, want := range map[string]float64{"p4de.24xlarge": spot} {
		if o := byName[name].Offerings; len(o) != 1 || o[0].Price != want || o[0].Requirements[0].Values[0] != "spot" {
			t.Errorf("%s: offerings %+v, want one spot at %v", name, o, want)
		}
	}
	if od, err := prices.Hourly("p4d.24xlarge", false); err == nil {
		if o := byName["p4d.24xlarge"].Offerings; len(o) != 1 || o[0].Price != od.USD {
			t.Errorf("p4d.24xlarge: offerings %+v, want spot at the on-demand %v", o, od.USD)
		}
	}
	// A type with no price is never offered (Karpenter makes such an
	// offering unavailable), but by the mutant's bug.
	blocks := []*infraPool{{name: "blocks", karpenter: true, types: []string{"p5e.48xlarge"}, listed: []string{"p5e.48xlarge"}, zones: []string{"us-east-1a"}}}
	for _, bug := range []bool{false, true} {
		kwokOfferUnpriced = bug
		raw, err := kwokInstanceTypes(blocks, cat, prices)
		kwokOfferUnpriced = false
		if err != nil {
			t.Fatal(err)
		}
		if offered := strings.Contains(string(raw), "p5e.48xlarge"); offered != bug {
			t.Errorf("with kwokOfferUnpriced %v, p5e.48xlarge (no price in us-east-1) offered: %v", bug, offered)
		}
	}
	// The keys the kwok provider reads (kwok/cloudprovider/helpers.go).
	for _, key := range []string{`"name"`, `"offerings"`, `"Price"`, `"Available"`, `"Requirements"`, `"resources"`, `"architecture"`, `"operatingSystems"`} {
		if !strings.Contains(string(raw), key) {
			t.Errorf("the file has no %s", key)
		}
	}
}

// TestKWOKNodePool: the e2e copy swaps the node class and turns
// disruption off, nothing else.
func TestKWOKNodePool(t *testing.T) {
	in := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": map[string]any{"name": "p"},
		"spec": map[string]any{"disruption": map[string]any{"consolidateAfter": "5m", "consolidationPolicy": "WhenEmpty"},
			"template": map[string]any{"spec": map[string]any{"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "c"},
				"requirements": []any{map[string]any{"key": "karpenter.sh/capacity-type", "operator": "In", "values": []any{"spot"}}}}}}}}
	out, err := kwokNodePool(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path []string
		want string
	}{
		{[]string{"spec", "template", "spec", "nodeClassRef", "kind"}, "KWOKNodeClass"},
		{[]string{"spec", "template", "spec", "nodeClassRef", "group"}, kwokGroup},
		{[]string{"spec", "template", "spec", "nodeClassRef", "name"}, kwokNodeClassName},
		{[]string{"spec", "disruption", "consolidateAfter"}, "Never"},
		{[]string{"spec", "disruption", "consolidationPolicy"}, "WhenEmpty"},
		{[]string{"spec", "template", "spec", "expireAfter"}, "Never"},
	} {
		if got, _, _ := unstructured.NestedString(out.Object, c.path...); got != c.want {
			t.Errorf("%v: %q, want %q", c.path, got, c.want)
		}
	}
	if b, _, _ := unstructured.NestedSlice(out.Object, "spec", "disruption", "budgets"); len(b) != 1 || b[0].(map[string]any)["nodes"] != "0" {
		t.Errorf("budgets %v, want nodes: 0", b)
	}
	if r, _, _ := unstructured.NestedSlice(out.Object, "spec", "template", "spec", "requirements"); len(r) != 1 {
		t.Errorf("requirements %v changed", r)
	}
	if k, _, _ := unstructured.NestedString(in.Object, "spec", "template", "spec", "nodeClassRef", "kind"); k != "EC2NodeClass" {
		t.Error("the tree's NodePool was changed in place")
	}
}
