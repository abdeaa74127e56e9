package kubesched

import (
	"os"
	"path/filepath"
	"testing"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/kubernetes/pkg/apis/resource"
	resv1 "k8s.io/kubernetes/pkg/apis/resource/v1"
	"k8s.io/kubernetes/pkg/apis/resource/validation"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/plan"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// apiRefusesClaim is the API server's answer to an update of a
// ResourceClaimTemplate: both defaulted as stored, converted, and
// validated by ValidateResourceClaimTemplateUpdate.
func apiRefusesClaim(t *testing.T, old, new *resourcev1.ResourceClaimTemplate) bool {
	t.Helper()
	internal := func(in *resourcev1.ResourceClaimTemplate) *resource.ResourceClaimTemplate {
		in = in.DeepCopy()
		in.ResourceVersion = "1"
		resv1.SetObjectDefaults_ResourceClaimTemplate(in)
		var out resource.ResourceClaimTemplate
		if err := resv1.Convert_v1_ResourceClaimTemplate_To_resource_ResourceClaimTemplate(in, &out, nil); err != nil {
			t.Fatal(err)
		}
		return &out
	}
	return len(validation.ValidateResourceClaimTemplateUpdate(internal(new), internal(old))) > 0
}

// planRefusesClaim is plan's answer, through the file reader plan uses
// on a committed tree: the two templates' specs differ as it reads them.
func planRefusesClaim(t *testing.T, old, new *resourcev1.ResourceClaimTemplate) bool {
	t.Helper()
	read := func(o *resourcev1.ResourceClaimTemplate) string {
		b, err := yaml.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		f, err := plan.ParseFile("tenants/x/"+tree.ResourceClaimTemplatesFile, b)
		if err != nil {
			t.Fatal(err)
		}
		return f.ClaimTemplates[o.Namespace+"/"+o.Name]
	}
	return read(old) != read(new)
}

// claimEdits are the example fleets' ResourceClaimTemplates, each edited
// in one way: what a spec change makes of one (a count, a product, the
// device class), a field left to its default, and metadata only.
func claimEdits(t *testing.T) [][2]*resourcev1.ResourceClaimTemplate {
	t.Helper()
	files, err := filepath.Glob("../../golden/*/tenants/*/" + tree.ResourceClaimTemplatesFile)
	if err != nil || len(files) == 0 {
		t.Fatalf("no committed ResourceClaimTemplates: %v", err)
	}
	edits := []func(*resourcev1.ResourceClaimTemplate){
		func(*resourcev1.ResourceClaimTemplate) {},
		func(c *resourcev1.ResourceClaimTemplate) { c.Spec.Spec.Devices.Requests[0].Exactly.Count++ },
		func(c *resourcev1.ResourceClaimTemplate) {
			c.Spec.Spec.Devices.Requests[0].Exactly.DeviceClassName += "-other"
		},
		func(c *resourcev1.ResourceClaimTemplate) { c.Spec.Spec.Devices.Requests[0].Exactly.AllocationMode = "" },
		func(c *resourcev1.ResourceClaimTemplate) {
			if e := c.Spec.Spec.Devices.Requests[0].Exactly; e.Count == 1 {
				e.Count = 0
			}
		},
		func(c *resourcev1.ResourceClaimTemplate) {
			e := c.Spec.Spec.Devices.Requests[0].Exactly
			e.Selectors = append(e.Selectors, resourcev1.DeviceSelector{CEL: &resourcev1.CELDeviceSelector{Expression: "true"}})
		},
		func(c *resourcev1.ResourceClaimTemplate) {
			e := c.Spec.Spec.Devices.Requests[0].Exactly
			e.Tolerations = append(e.Tolerations, resourcev1.DeviceToleration{Key: "k", Value: "v", Effect: resourcev1.DeviceTaintEffectNoSchedule})
		},
		func(c *resourcev1.ResourceClaimTemplate) { c.Labels = map[string]string{"x": "y"} },
	}
	var out [][2]*resourcev1.ResourceClaimTemplate
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range tree.Docs(b) {
			var c resourcev1.ResourceClaimTemplate
			if err := tree.Unmarshal(d, &c); err != nil {
				t.Fatal(err)
			}
			if len(c.Spec.Spec.Devices.Requests) == 0 || c.Spec.Spec.Devices.Requests[0].Exactly == nil {
				continue
			}
			for _, edit := range edits {
				a := c.DeepCopy()
				edit(a)
				out = append(out, [2]*resourcev1.ResourceClaimTemplate{&c, a})
			}
			// The toleration as the API server defaults it, against one
			// written without an operator.
			w := c.DeepCopy()
			w.Spec.Spec.Devices.Requests[0].Exactly.Tolerations = []resourcev1.DeviceToleration{{Key: "k", Value: "v", Effect: resourcev1.DeviceTaintEffectNoSchedule}}
			eq := w.DeepCopy()
			eq.Spec.Spec.Devices.Requests[0].Exactly.Tolerations[0].Operator = resourcev1.DeviceTolerationOpEqual
			out = append(out, [2]*resourcev1.ResourceClaimTemplate{w, eq})
		}
	}
	return out
}

// plan calls refused exactly the ResourceClaimTemplate updates the API
// server refuses (its spec is immutable), fields left to their defaults
// included; a plan that compared the YAML as written, not defaulted, is
// caught.
func TestPlanRefusedClaimTemplates(t *testing.T) {
	edits := claimEdits(t)
	bad, refused, raw := 0, 0, 0
	for _, e := range edits {
		want, got := apiRefusesClaim(t, e[0], e[1]), planRefusesClaim(t, e[0], e[1])
		if want {
			refused++
		}
		if got != want {
			bad++
			t.Errorf("ResourceClaimTemplate %s/%s: plan says refused %v, the API server %v", e[0].Namespace, e[0].Name, got, want)
		}
		// The deliberate bug: the specs compared as written.
		a, _ := yaml.Marshal(e[0].Spec)
		b, _ := yaml.Marshal(e[1].Spec)
		if (string(a) != string(b)) != want {
			raw++
		}
	}
	if refused == 0 || refused == len(edits) {
		t.Fatalf("%d of %d edits refused: the edits test nothing", refused, len(edits))
	}
	if raw == 0 {
		t.Errorf("comparing the specs as written went unnoticed")
	}
	t.Logf("%d ResourceClaimTemplate edits, %d refused, plan disagrees on %d; comparing undefaulted specs would on %d", len(edits), refused, bad, raw)
}
