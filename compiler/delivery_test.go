package compiler_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/argocd"
	"github.com/gpufleet/gpufleet/compiler/wire/deviceplugin"
	"github.com/gpufleet/gpufleet/compiler/wire/dradriver"
	"github.com/gpufleet/gpufleet/compiler/wire/flux"
	"github.com/gpufleet/gpufleet/internal/crdtest"
	"github.com/gpufleet/gpufleet/internal/testrender"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

// TestChartDelivery holds the Flux HelmRepository and HelmRelease and the
// Argo CD Application that install the device plugin's and the DRA
// driver's charts to the CRDs (schemas and CEL rules) of
// source-controller, helm-controller and Argo CD, and requires each to
// carry exactly the values of values.yaml, which make e2e renders the real
// chart with.
func TestChartDelivery(t *testing.T) {
	var vs []*crdtest.Validator
	for _, src := range []struct {
		m    upstream.Module
		file string
	}{{upstream.FluxSource, upstream.HelmRepositoryCRD}, {upstream.FluxHelm, upstream.HelmReleaseCRD}, {upstream.ArgoCD, upstream.ApplicationCRD}} {
		v, err := crdtest.Load(src.m, src.file)
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	var checked, installs int
	charts := []struct{ values, flux, argo string }{
		{deviceplugin.ValuesPath, deviceplugin.FluxPath, deviceplugin.ArgoCDPath},
		{dradriver.ValuesPath, dradriver.FluxPath, dradriver.ArgoCDPath},
	}
	seen := map[string]bool{}
	for name, f := range testrender.Examples(t) {
		for _, c := range charts {
			checked += delivered(t, vs, name, f.Tree, c.values, c.flux, c.argo)
			if _, ok := f.Tree[c.values]; ok {
				installs++
				seen[c.values] = true
			}
		}
	}
	if len(seen) != len(charts) || installs < 4 || checked != 3*installs {
		t.Errorf("validated %d objects for %d installs (%d charts), want 3 for each of 4 or more, of every chart", checked, installs, len(seen))
	}
}

// delivered validates the chart's Flux and Argo CD objects in t, if it
// installs the chart, and returns how many it validated.
func delivered(t *testing.T, vs []*crdtest.Validator, name string, tr tree.Tree, valuesPath, fluxPath, argoPath string) (checked int) {
	t.Helper()
	raw, ok := tr[valuesPath]
	if !ok {
		return 0
	}
	var values any
	if err := yaml.Unmarshal(raw, &values); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fluxPath, argoPath} {
		docs := tree.Docs(tr[path])
		if len(docs) == 0 {
			t.Fatalf("%s: %s is missing", name, path)
		}
		for _, doc := range docs {
			var known bool
			for _, v := range vs {
				var meta struct{ APIVersion, Kind string }
				if err := yaml.Unmarshal(doc, &meta); err != nil {
					t.Fatal(err)
				}
				if !v.Knows(meta.APIVersion, meta.Kind) {
					continue
				}
				known = true
				errs, err := v.Validate(doc)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range errs {
					t.Errorf("%s: %s %s: %v", name, path, meta.Kind, e)
				}
				checked++
			}
			if !known {
				t.Errorf("%s: %s: an object no CRD knows:\n%s", name, path, doc)
			}
			var got any
			switch {
			case path == argoPath:
				var app argocd.Application
				if err := yaml.UnmarshalStrict(doc, &app); err != nil {
					t.Fatal(err)
				}
				got = app.Spec.Source.Helm.ValuesObject
			default:
				var hr flux.HelmRelease
				if err := yaml.Unmarshal(doc, &hr); err != nil || hr.Kind != "HelmRelease" {
					continue
				}
				got = hr.Spec.Values
			}
			if !equality.Semantic.DeepEqual(got, values) {
				t.Errorf("%s: %s carries other values than %s:\n%v\n%v", name, path, valuesPath, got, values)
			}
		}
	}
	return checked
}
