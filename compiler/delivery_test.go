package compiler_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/argocd"
	"github.com/gpufleet/gpufleet/compiler/wire/deviceplugin"
	"github.com/gpufleet/gpufleet/compiler/wire/flux"
	"github.com/gpufleet/gpufleet/internal/crdtest"
	"github.com/gpufleet/gpufleet/internal/testrender"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

// TestDevicePluginDelivery holds the Flux HelmRepository and HelmRelease
// and the Argo CD Application that install the device plugin chart to the
// CRDs (schemas and CEL rules) of source-controller, helm-controller and
// Argo CD, and requires each to carry exactly the values of values.yaml,
// which make e2e renders the real chart with.
func TestDevicePluginDelivery(t *testing.T) {
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
	var checked, fleets int
	for name, f := range testrender.Examples(t) {
		raw, ok := f.Tree[deviceplugin.ValuesPath]
		if !ok {
			continue
		}
		fleets++
		var values any
		if err := yaml.Unmarshal(raw, &values); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{deviceplugin.FluxPath, deviceplugin.ArgoCDPath} {
			docs := tree.Docs(f.Tree[path])
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
				case path == deviceplugin.ArgoCDPath:
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
					t.Errorf("%s: %s carries other values than %s:\n%v\n%v", name, path, deviceplugin.ValuesPath, got, values)
				}
			}
		}
	}
	if fleets < 3 || checked != 3*fleets {
		t.Errorf("validated %d objects in %d fleets, want 3 in each of 3 or more", checked, fleets)
	}
}
