package eksctl_test

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/wire/eksctl"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

// TestEFADevicePluginPinned holds the checker's copy of eksctl's EFA device
// plugin pod (which taints it tolerates, which nodes it selects) to the
// manifest in the pinned eksctl release, so an eksctl bump that changes
// where the plugin runs fails here rather than in a cluster.
func TestEFADevicePluginPinned(t *testing.T) {
	path, err := upstream.Eksctl.File(eksctl.EFADevicePluginAsset)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ds appsv1.DaemonSet
	if err := yaml.Unmarshal(raw, &ds); err != nil {
		t.Fatal(err)
	}
	spec := ds.Spec.Template.Spec
	if ds.Name != eksctl.EFADevicePluginName {
		t.Errorf("DaemonSet %s, want %s", ds.Name, eksctl.EFADevicePluginName)
	}
	if diff := cmp.Diff(eksctl.EFADevicePluginTolerations, spec.Tolerations); diff != "" {
		t.Errorf("tolerations (-ours +eksctl's):\n%s", diff)
	}
	if spec.Affinity == nil || spec.Affinity.NodeAffinity == nil {
		t.Fatal("eksctl's EFA device plugin has no node affinity")
	}
	if diff := cmp.Diff(eksctl.EFADevicePluginAffinity, spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution); diff != "" {
		t.Errorf("required node affinity (-ours +eksctl's):\n%s", diff)
	}
	var req corev1.ResourceList
	for _, c := range spec.Containers {
		req = c.Resources.Requests
	}
	if len(spec.Containers) != 1 || len(spec.InitContainers) > 0 || !equality.Semantic.DeepEqual(req, eksctl.EFADevicePluginRequests) {
		t.Errorf("eksctl's EFA device plugin pod requests %v in %d containers (%d init), want %v in one", req, len(spec.Containers), len(spec.InitContainers), eksctl.EFADevicePluginRequests)
	}
	if len(spec.NodeSelector) > 0 {
		t.Errorf("eksctl's EFA device plugin now selects nodes by %v too", spec.NodeSelector)
	}
}
