// Package crdtest validates objects against upstream CRDs the way
// kube-apiserver does: the structural schema (types, enums, patterns,
// limits), unknown fields, and the CEL rules (x-kubernetes-validations).
// It is for tests only; the gpufleet binary never links it.
package crdtest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/internal/upstream"
)

type version struct {
	structural *structuralschema.Structural
	schema     validation.SchemaCreateValidator
	cel        *cel.Validator
}

// Validator holds the CRD versions it has loaded.
type Validator struct {
	versions map[schema.GroupVersionKind]*version
}

// Load reads the CRDs an upstream release publishes at each pattern
// (relative to its module). A pattern that matches nothing is an error: a
// test must never pass because its schemas are missing.
func Load(m upstream.Module, patterns ...string) (*Validator, error) {
	v := &Validator{versions: map[schema.GroupVersionKind]*version{}}
	for _, p := range patterns {
		files, err := m.Glob(p)
		if err != nil {
			return nil, fmt.Errorf("crdtest: %w", err)
		}
		for _, f := range files {
			if err := v.load(f); err != nil {
				return nil, fmt.Errorf("crdtest: %s: %w", f, err)
			}
		}
	}
	return v, nil
}

func (v *Validator) load(file string) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		return err
	}
	for _, ver := range crd.Spec.Versions {
		if ver.Schema == nil || ver.Schema.OpenAPIV3Schema == nil {
			continue
		}
		var internal apiextensions.JSONSchemaProps
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(ver.Schema.OpenAPIV3Schema, &internal, nil); err != nil {
			return err
		}
		st, err := structuralschema.NewStructural(&internal)
		if err != nil {
			return err
		}
		sv, _, err := validation.NewSchemaValidator(&internal)
		if err != nil {
			return err
		}
		gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: ver.Name, Kind: crd.Spec.Names.Kind}
		v.versions[gvk] = &version{structural: st, schema: sv, cel: cel.NewValidator(st, true, celconfig.PerCallLimit)}
	}
	return nil
}

// Knows reports whether the validator has the CRD for apiVersion and kind.
func (v *Validator) Knows(apiVersion, kind string) bool {
	_, ok := v.versions[schema.FromAPIVersionAndKind(apiVersion, kind)]
	return ok
}

// object decodes one object and finds its CRD version.
func (v *Validator) object(doc []byte) (map[string]any, *version, error) {
	var obj map[string]any
	if err := yaml.Unmarshal(doc, &obj); err != nil {
		return nil, nil, err
	}
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	ver, ok := v.versions[schema.FromAPIVersionAndKind(apiVersion, kind)]
	if !ok {
		return nil, nil, fmt.Errorf("crdtest: no CRD for %s %s", apiVersion, kind)
	}
	return obj, ver, nil
}

// Validate checks one object, given as its YAML or JSON.
func (v *Validator) Validate(doc []byte) (field.ErrorList, error) {
	obj, ver, err := v.object(doc)
	if err != nil {
		return nil, err
	}
	errs := validation.ValidateCustomResource(nil, obj, ver.schema)
	// The API server prunes unknown fields silently; a generator that
	// writes one has a bug, so it is an error here.
	var pruned map[string]any
	if err := yaml.Unmarshal(doc, &pruned); err != nil {
		return nil, err
	}
	opts := structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true}
	for _, p := range pruning.PruneWithOptions(pruned, ver.structural, true, opts) {
		if !strings.HasPrefix(p, "metadata.") {
			errs = append(errs, field.Invalid(field.NewPath(p), nil, "unknown field"))
		}
	}
	celErrs, _ := ver.cel.Validate(context.Background(), nil, ver.structural, obj, nil, celconfig.RuntimeCELCostBudget)
	return append(errs, celErrs...), nil
}

// Default applies the CRD's defaults to one object, given as its YAML or
// JSON, and returns it as JSON: what kube-apiserver stores on create, so a
// test decodes the object a controller would really read.
func (v *Validator) Default(doc []byte) ([]byte, error) {
	obj, ver, err := v.object(doc)
	if err != nil {
		return nil, err
	}
	defaulting.Default(obj, ver.structural)
	return json.Marshal(obj)
}
