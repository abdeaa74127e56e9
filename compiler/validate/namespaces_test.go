package validate_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestOwnedNamespacesRefused: a tenant may not take a namespace the tree
// puts gpufleet's own objects in (issue 36, Medium 6). The tree would hold
// two Namespace objects of that name, which kustomize refuses, and the
// tenant's ResourceQuota and LimitRange would govern the agent's pods.
// The namespaces are read from the example fleets' golden trees (every
// object's namespace outside tenants/, each Namespace the tree creates,
// and where a HelmRelease or an Application installs), so a namespace a
// later agent brings is held here too.
func TestOwnedNamespacesRefused(t *testing.T) {
	owned := treeNamespaces(t, filepath.Join("..", "..", "golden"))
	for _, want := range []string{"nvidia-device-plugin", "argocd", "kube-system"} {
		if !slices.Contains(owned, want) {
			t.Errorf("the golden trees put nothing in %s: the test reads them wrong", want)
		}
	}
	for _, ns := range owned {
		err := check(t, `namespaces: ["t"] => namespaces: ["`+ns+`"]`)
		if err == nil {
			t.Errorf("tenant namespace %q, which the tree uses, is accepted", ns)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "fleet.cue:6:") || !strings.Contains(msg, "tenants.t.namespaces.0: namespace \""+ns+"\" is ") {
			t.Errorf("tenant namespace %q: error not at its position: %v", ns, err)
		}
	}
	err := check(t, `namespaces: ["t"] => namespaces: ["nvidia-device-plugin"]`)
	if want := `namespace "nvidia-device-plugin" is gpufleet's: the tree creates it for the NVIDIA device plugin`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
}

// treeNamespaces lists the namespaces the trees under dir use outside
// their tenants' directories.
func treeNamespaces(t *testing.T, dir string) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") || strings.Contains(filepath.ToSlash(p), "/tenants/") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, doc := range bytes.Split(data, []byte("\n---\n")) {
			var o struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Name      string `json:"name"`
					Namespace string `json:"namespace"`
				} `json:"metadata"`
				Spec struct {
					TargetNamespace string `json:"targetNamespace"`
					Destination     struct {
						Namespace string `json:"namespace"`
					} `json:"destination"`
				} `json:"spec"`
			}
			if yaml.Unmarshal(doc, &o) != nil {
				continue // not an object (values for helm, say)
			}
			for _, ns := range []string{o.Metadata.Namespace, o.Spec.TargetNamespace, o.Spec.Destination.Namespace} {
				if ns != "" {
					seen[ns] = true
				}
			}
			if o.Kind == "Namespace" {
				seen[o.Metadata.Name] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for ns := range seen {
		out = append(out, ns)
	}
	slices.Sort(out)
	return out
}
