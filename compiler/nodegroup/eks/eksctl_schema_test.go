package eks_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/nodegroup/eks"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

// eksctlSchema compiles the ClusterConfig JSON Schema that the pinned eksctl
// release publishes. It is required: this test never skips.
func eksctlSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	path, err := upstream.Eksctl.File(upstream.EksctlSchema)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("eksctl-clusterconfig.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("eksctl-clusterconfig.schema.json")
	if err != nil {
		t.Fatalf("compiling eksctl's schema: %v", err)
	}
	return s
}

// validateEksctl checks a ClusterConfig document against eksctl's schema,
// plus the taint effect casing: the schema types effect as any string, and
// eksctl rejects anything but Kubernetes casing in Go code, at create time.
func validateEksctl(s *jsonschema.Schema, doc any) error {
	if err := s.Validate(doc); err != nil {
		return err
	}
	ngs, _ := doc.(map[string]any)["managedNodeGroups"].([]any)
	for i, ng := range ngs {
		taints, _ := ng.(map[string]any)["taints"].([]any)
		for j, t := range taints {
			switch e := t.(map[string]any)["effect"]; e {
			case "NoSchedule", "PreferNoSchedule", "NoExecute":
			default:
				return fmt.Errorf("managedNodeGroups[%d].taints[%d].effect: %v is not NoSchedule, PreferNoSchedule or NoExecute", i, j, e)
			}
		}
	}
	return nil
}

// eksctlDoc decodes a rendered eksctl.yaml into the schema library's values.
func eksctlDoc(t *testing.T, tr tree.Tree) any {
	t.Helper()
	raw, ok := tr[eks.EksctlPath]
	if !ok {
		t.Fatalf("%s missing from the tree", eks.EksctlPath)
	}
	j, err := yaml.YAMLToJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestEksctlSchema(t *testing.T) {
	s := eksctlSchema(t)
	for name, f := range renderedFleets(t) {
		t.Run(name, func(t *testing.T) {
			if err := validateEksctl(s, eksctlDoc(t, f.Tree)); err != nil {
				t.Fatalf("%s fails eksctl's schema:\n%v", eks.EksctlPath, err)
			}
		})
	}
}

// TestEksctlSchemaRejects proves the validation can fail: each case breaks
// one field of a valid document and must be rejected, naming that field.
func TestEksctlSchemaRejects(t *testing.T) {
	s := eksctlSchema(t)
	tr := renderedFleets(t)["platform"].Tree
	for _, tc := range []struct {
		name, want string
		mutate     func(ng map[string]any)
	}{
		{"taint effect in EKS API casing", "effect", func(ng map[string]any) {
			ng["taints"].([]any)[0].(map[string]any)["effect"] = "NO_SCHEDULE"
		}},
		{"amiFamily outside eksctl's enum", "amiFamily", func(ng map[string]any) { ng["amiFamily"] = "AmazonLinux2024" }},
		{"minSize as a string", "minSize", func(ng map[string]any) { ng["minSize"] = "0" }},
		{"tag value not a string", "tags", func(ng map[string]any) {
			ng["tags"].(map[string]any)["k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu"] = json.Number("8")
		}},
		{"unknown field", "efaEnable", func(ng map[string]any) { ng["efaEnable"] = true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := eksctlDoc(t, tr) // a fresh copy per case
			if err := validateEksctl(s, doc); err != nil {
				t.Fatalf("unmutated document rejected: %v", err)
			}
			tc.mutate(doc.(map[string]any)["managedNodeGroups"].([]any)[0].(map[string]any))
			err := validateEksctl(s, doc)
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("rejected, but the error does not name %q:\n%v", tc.want, err)
			}
			t.Logf("rejected: %v", err)
		})
	}
}
