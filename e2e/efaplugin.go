package e2e

import (
	"fmt"
	"os"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/wire/eksctl"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

// efaPluginObjects is eksctl's EFA device plugin manifest from the pinned
// eksctl release, as eksctl applies it with a node group that enables EFA
// (its SetTolerations adds nothing; SetImage fills in the regional image,
// which placement does not read).
func efaPluginObjects() ([]*unstructured.Unstructured, error) {
	path, err := upstream.Eksctl.File(eksctl.EFADevicePluginAsset)
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	objs, err := decodeAll(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", eksctl.EFADevicePluginAsset, err)
	}
	return objs, nil
}

// anyEFA reports whether a node group of the fleet enables EFA.
func (fr *fleetRun) anyEFA() bool {
	for _, p := range fr.infra {
		if p.efa {
			return true
		}
	}
	return false
}

// efaNode reports whether the node has EFA interfaces: its group enables
// EFA and its instance type has them.
func (fr *fleetRun) efaNode(n *corev1.Node) bool {
	p := fr.infraPool(fr.nodes.poolOf[n.Name])
	in, ok := fr.res.Catalog[fr.nodes.typeOf[p.name]]
	return p.efa && ok && in.EFA > 0
}

// efaPluginAgrees compares where the real DaemonSet controller and
// scheduler put eksctl's EFA plugin with the checker's word, on nodes with
// EFA interfaces; elsewhere the plugin finds none and advertises nothing.
func (fr *fleetRun) efaPluginAgrees(n *corev1.Node, pool *sched.Pool, placed []string) string {
	if !fr.efaNode(n) {
		return ""
	}
	got, want := slices.Contains(placed, eksctl.EFADevicePluginName), pool.NoEFAPlugin == ""
	if got != want {
		return fmt.Sprintf("node %s of EFA pool %s: the checker says eksctl's EFA device plugin runs there: %v (%s); the DaemonSet controller and scheduler: %v", n.Name, pool.Name, want, pool.NoEFAPlugin, got)
	}
	return ""
}

// efaPools are the pools every EFA node of which runs eksctl's EFA plugin:
// the pools whose nodes advertise vpc.amazonaws.com/efa.
func efaPools(fr *fleetRun, placed map[string][]string) map[string]bool {
	out := map[string]bool{}
	for _, p := range fr.infra {
		out[p.name] = p.efa
	}
	for _, n := range fr.nodes.nodes {
		if fr.efaNode(n) && !slices.Contains(placed[n.Name], eksctl.EFADevicePluginName) {
			out[fr.nodes.poolOf[n.Name]] = false
		}
	}
	return out
}
