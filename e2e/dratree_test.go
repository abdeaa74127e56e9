package e2e

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/wire/dradriver"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

const draFleet = `package fleet

cluster: {provider: "eks", name: "dra", region: "us-west-2", version: "1.36", zones: ["us-west-2a", "us-west-2b"]}
priorities: p: value: 1
pools: {
	"h100": {instanceTypes: ["p5.48xlarge"], size: {min: 0, max: 2}, gpuAPI: "dra"}
	"l40s-spot": {instanceTypes: ["g6e.2xlarge"], capacity: "spot", size: {min: 0, max: 2}, gpuAPI: "dra", dedicatedTo: ["serve"]}
	"a10g": {instanceTypes: ["g5.2xlarge"], size: {min: 0, max: 2}}
	"general": {instanceTypes: ["m7i.xlarge"], size: {min: 1, max: 2}}
}
classes: {
	serve: {priority: "p", capacity: "spot", gpu: {count: 1, products: ["L40S"], api: "dra"}}
	notebook: {priority: "p", gpu: {count: 1, products: ["A10G"]}}
}
tenants: t: {namespaces: ["t"], classes: ["serve", "notebook"]}
`

// The NVIDIA DRA driver's own chart (v0.4.1), rendered by Helm's SDK with
// the values the tree writes: it accepts them (its validation.yaml refuses
// whole GPUs beside the device plugin unless told otherwise), its
// gpu.nvidia.com DeviceClass is the one the checker allocates with, its
// kubelet plugin DaemonSet carries the tree's affinity and tolerations
// (Helm replaces the chart's lists), and it deploys no controller, which
// would need a node of its own.
func TestDRAChartTakesTreeValues(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fleet.cue"), []byte(draFleet), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := compiler.Compile([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	raw, ok := res.Tree[dradriver.ValuesPath]
	if !ok {
		t.Fatalf("the tree has no %s", dradriver.ValuesPath)
	}
	var vals chartutil.Values
	if err := yaml.Unmarshal(raw, &vals); err != nil {
		t.Fatal(err)
	}
	var want dradriver.Values
	if err := yaml.UnmarshalStrict(raw, &want); err != nil {
		t.Fatal(err)
	}
	chartDir, err := upstream.DRADriver.File(upstream.DRADriverChart)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := helmTemplate(ch, vals, dradriver.ReleaseName, dradriver.Namespace, "v1.35.4")
	if err != nil {
		t.Fatalf("the chart refuses the tree's values: %v", err)
	}
	var plugins, deployments int
	for _, o := range objs {
		switch o.GetKind() {
		case "Deployment":
			deployments++
			t.Errorf("the chart deploys %s with the tree's values: its controller would need a node", o.GetName())
		case "DaemonSet":
			plugins++
			var ds appsv1.DaemonSet
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &ds); err != nil {
				t.Fatal(err)
			}
			ps := ds.Spec.Template.Spec
			if !reflect.DeepEqual(ps.Affinity, want.KubeletPlugin.Affinity) {
				t.Errorf("kubelet plugin affinity %+v, the tree's values %+v", ps.Affinity, want.KubeletPlugin.Affinity)
			}
			if !reflect.DeepEqual(ps.Tolerations, want.KubeletPlugin.Tolerations) {
				t.Errorf("kubelet plugin tolerations %+v, the tree's values %+v", ps.Tolerations, want.KubeletPlugin.Tolerations)
			}
		}
	}
	if plugins != 1 {
		t.Errorf("the chart renders %d DaemonSets, want the kubelet plugin's", plugins)
	}
	classes := draDeviceClasses(t)
	for _, dc := range dradriver.DeviceClasses() {
		got, ok := classes[dc.Name]
		if !ok {
			t.Errorf("the chart makes no DeviceClass %s", dc.Name)
			continue
		}
		if !reflect.DeepEqual(got.Spec.Selectors, dc.Spec.Selectors) {
			t.Errorf("DeviceClass %s selects %+v in the chart, %+v in the checker's copy", dc.Name, got.Spec.Selectors, dc.Spec.Selectors)
		}
		// The extended-resource bridge: the chart names nvidia.com/gpu
		// for resource.k8s.io/v1, and the checker maps it so.
		if !reflect.DeepEqual(got.Spec.ExtendedResourceName, dc.Spec.ExtendedResourceName) {
			t.Errorf("DeviceClass %s: extendedResourceName %v in the chart, %v in the checker's copy", dc.Name, ptrString(got.Spec.ExtendedResourceName), ptrString(dc.Spec.ExtendedResourceName))
		}
	}
}

func ptrString(p *string) string {
	if p == nil {
		return "<none>"
	}
	return *p
}
