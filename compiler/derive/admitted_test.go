package derive_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"

	corev1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
)

// TestAdmittedRequestIsKueues holds the request derive splits quota by to
// what the checker's Kueue model counts from the rendered tree: the class's
// pod with its tenant namespace's LimitRange applied (kueuemodel.Request,
// itself held to Kueue's workload.AdjustResources by make test-kueue). So
// derive's copy of the LimitRange's defaults cannot drift from render's.
func TestAdmittedRequestIsKueues(t *testing.T) {
	paths, err := filepath.Glob("../../fleets/*")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example fleets: %v", err)
	}
	dir := t.TempDir()
	for seed := uint64(1); seed <= 12; seed++ {
		opts := []fleetgen.Options{{Full: true}, {Buildable: true}, {Queues: true}}[seed%3]
		p := filepath.Join(dir, fmt.Sprintf("gen-%d.json", seed))
		if err := os.WriteFile(p, fleetgen.JSON(fleetgen.Generate(seed, fleetgen.S, opts)), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	var compared, defaulted int
	for _, p := range paths {
		res, err := compiler.Compile([]string{p})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		model, err := kueuemodel.New(tree.Bytes(res.Tree))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		cl, err := res.Cluster()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, tn := range res.Fleet.Tenants {
			ns := tn.Spec.Namespaces[0]
			for _, name := range tn.Spec.Classes {
				c, pod := res.Fleet.Class(name), cl.Class(name)
				if c == nil || pod == nil {
					continue
				}
				got := derive.AdmittedRequest(tn.Spec, c.Template.Spec)
				want := kueuemodel.Request(pod.Pod, model.LimitRanges[ns])
				compared++
				if !equality.Semantic.DeepEqual(got, want) {
					t.Errorf("%s: tenant %s, class %s: derive counts %s, the checker %s", filepath.Base(p), tn.Name, name, show(got), show(want))
				}
				rendered := resourcehelper.PodRequests(&corev1.Pod{Spec: c.Template.Spec}, resourcehelper.PodResourcesOptions{})
				for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
					if g, w := got[r], rendered[r]; g.Cmp(w) != 0 {
						defaulted++
						break
					}
				}
			}
		}
	}
	t.Logf("tenant × class requests compared: %d; a LimitRange default raised the CPU or memory of %d", compared, defaulted)
	if defaulted == 0 {
		t.Error("no LimitRange default raised a request: the test no longer exercises them")
	}
}

func show(rl corev1.ResourceList) string {
	var parts []string
	for k, v := range rl {
		parts = append(parts, string(k)+"="+v.String())
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}
