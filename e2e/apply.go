package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
)

// fieldManager owns every field the harness applies.
const fieldManager = "gpufleet-e2e"

// Applier server-side applies objects, as `kubectl apply --server-side` does.
type Applier struct {
	dyn    dynamic.Interface
	mapper *restmapper.DeferredDiscoveryRESTMapper
}

func (cp *ControlPlane) Applier() (*Applier, error) {
	dyn, err := dynamic.NewForConfig(cp.Config)
	if err != nil {
		return nil, err
	}
	disc := memory.NewMemCacheClient(cp.Client.Discovery())
	return &Applier{dyn: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(disc)}, nil
}

func (a *Applier) resource(u *unstructured.Unstructured) (dynamic.ResourceInterface, *meta.RESTMapping, error) {
	gvk := u.GroupVersionKind()
	m, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		// A CRD installed since the mapper last looked.
		a.mapper.Reset()
		m, err = a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	if err != nil {
		return nil, nil, err
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return a.dyn.Resource(m.Resource).Namespace(u.GetNamespace()), m, nil
	}
	return a.dyn.Resource(m.Resource), m, nil
}

// Apply server-side applies u with force, as the only manager of its fields.
func (a *Applier) Apply(ctx context.Context, u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	ri, _, err := a.resource(u)
	if err != nil {
		return nil, err
	}
	return ri.Apply(ctx, u.GetName(), u, metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
}

// Delete deletes u and waits, bounded, until it is gone.
func (a *Applier) Delete(ctx context.Context, u *unstructured.Unstructured, timeout time.Duration) error {
	wait, err := a.StartDelete(ctx, u)
	if err != nil {
		return err
	}
	return wait(timeout)
}

// StartDelete deletes u and returns the wait for it to be gone, so that
// several deletions (namespaces above all, each about 6 s in the namespace
// controller) proceed at once.
func (a *Applier) StartDelete(ctx context.Context, u *unstructured.Unstructured) (func(timeout time.Duration) error, error) {
	ri, _, err := a.resource(u)
	if err != nil {
		return nil, err
	}
	zero := int64(0)
	err = ri.Delete(ctx, u.GetName(), metav1.DeleteOptions{GracePeriodSeconds: &zero})
	if apierrors.IsNotFound(err) {
		return func(time.Duration) error { return nil }, nil
	}
	if err != nil {
		return nil, err
	}
	return func(timeout time.Duration) error {
		return poll(timeout, 100*time.Millisecond, func() (bool, error) {
			_, err := ri.Get(ctx, u.GetName(), metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			return false, err
		})
	}, nil
}

// Get reads u back.
func (a *Applier) Get(ctx context.Context, u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	ri, _, err := a.resource(u)
	if err != nil {
		return nil, err
	}
	return ri.Get(ctx, u.GetName(), metav1.GetOptions{})
}

// decodeAll splits a multi-document YAML stream into objects.
func decodeAll(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(string(data)), 4096)
	var out []*unstructured.Unstructured
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, err
		}
		if len(m) == 0 {
			continue
		}
		out = append(out, &unstructured.Unstructured{Object: m})
	}
}

// InstallCRDs applies every CRD in the given files and waits until each is
// Established and served.
func (cp *ControlPlane) InstallCRDs(ctx context.Context, a *Applier, files []string) (int, error) {
	var crds []*unstructured.Unstructured
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return 0, err
		}
		objs, err := decodeAll(b)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", f, err)
		}
		for _, o := range objs {
			if _, err := a.Apply(ctx, o); err != nil {
				return 0, fmt.Errorf("%s: apply %s: %w", filepath.Base(f), o.GetName(), err)
			}
			crds = append(crds, o)
		}
	}
	for _, crd := range crds {
		err := poll(60*time.Second, 100*time.Millisecond, func() (bool, error) {
			got, err := a.Get(ctx, crd)
			if err != nil {
				return false, err
			}
			conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
			for _, c := range conds {
				c, _ := c.(map[string]any)
				if c["type"] == "Established" && c["status"] == "True" {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			return 0, fmt.Errorf("CRD %s not Established: %w", crd.GetName(), err)
		}
	}
	a.mapper.Reset()
	return len(crds), nil
}

// applyOrder puts Namespaces first and CRD-backed objects after the core
// ones, as kubectl's apply order does, then sorts by kind and name so runs
// are comparable.
func applyOrder(objs []*unstructured.Unstructured) {
	rank := func(u *unstructured.Unstructured) int {
		g := u.GroupVersionKind().Group
		builtin := !strings.Contains(g, ".") || strings.HasSuffix(g, ".k8s.io") && !strings.HasSuffix(g, ".x-k8s.io")
		switch {
		case u.GetKind() == "Namespace":
			return 0
		case builtin:
			return 1
		default:
			return 2
		}
	}
	sort.SliceStable(objs, func(i, j int) bool {
		ri, rj := rank(objs[i]), rank(objs[j])
		if ri != rj {
			return ri < rj
		}
		return id(objs[i]) < id(objs[j])
	})
}

// id names an object the way kubectl prints it: kind/namespace/name.
func id(u *unstructured.Unstructured) string {
	gk := schema.GroupKind{Group: u.GroupVersionKind().Group, Kind: u.GetKind()}
	if u.GetNamespace() == "" {
		return gk.String() + "/" + u.GetName()
	}
	return gk.String() + "/" + u.GetNamespace() + "/" + u.GetName()
}
