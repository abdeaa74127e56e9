// Package handoff is what the composed differential's halves hand each
// other (make test-composed): Kueue's half, in ladder/kueue, writes a
// Record per queued unit and flavor; kube-scheduler's, in
// ladder/kube-scheduler, reads them. The two need different k8s.io minors
// and so cannot share a module, as a cluster's Kueue and kube-scheduler
// share only the API server; this one type is what they agree on.
package handoff

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
)

// TopologyGate is the scheduling gate Kueue's TAS puts on a pod until its
// topology ungater assigns it a domain (kueue.TopologySchedulingGate).
const TopologyGate = "kueue.x-k8s.io/topology"

// Record is one queued unit as Kueue admitted it to one flavor:
// the kube-scheduler half places Admitted pods of Template, the pod
// template pinned to the flavor, and holds the checker's Pinned entry to
// what lands. A unit Kueue admits nowhere has one record, Flavor "".
type Record struct {
	Fleet string `json:"fleet"`
	// Spec is the fleet's spec (an example fleet's directory, or a
	// generated spec's JSON file beside the handoff file), absolute; Seed
	// the generator's seed, 0 for an example fleet.
	Spec      string `json:"spec"`
	Seed      int    `json:"seed,omitempty"`
	Tenant    string `json:"tenant"`
	Namespace string `json:"namespace"`
	Class     string `json:"class"`
	Kind      string `json:"kind"`
	// Role is an ML kind's pod set, and Row the checker's row of its pods
	// (the class's own for its first role).
	Role string `json:"role,omitempty"`
	Row  string `json:"row,omitempty"`
	Gang bool   `json:"gang,omitempty"`
	// Pods are the class's replicas, or a Job's parallelism.
	Pods int32 `json:"pods"`
	// KueueFlavor is where Kueue admits the unit's first workload on an
	// empty cluster, "" if nowhere.
	KueueFlavor string `json:"kueueFlavor"`
	// Flavor is this record's, and Pool its gpufleet.dev/pool nodeLabel.
	Flavor string `json:"flavor,omitempty"`
	Pool   string `json:"pool,omitempty"`
	// Admitted is how many of the unit's pods Kueue admits to Flavor: the
	// Job's or StatefulSet's whole PodSet, or a Deployment's replicas
	// admitted there one by one.
	Admitted int32 `json:"admitted"`
	// Template is the pod template pinned to Flavor (pkg/podset
	// FromAssignment and Merge), and WrittenNodeSelector its nodeSelector
	// before; PinError is Merge's refusal, when Kueue cannot start the
	// unit's pods there.
	Template            *corev1.PodTemplateSpec `json:"template,omitempty"`
	WrittenNodeSelector map[string]string       `json:"writtenNodeSelector,omitempty"`
	PinError            string                  `json:"pinError,omitempty"`
	// Ungated is, where Kueue places the unit by topology (a TAS flavor),
	// what its topology ungater adds to each admitted pod's nodeSelector
	// as it lifts the pod's TopologyGate, in pod order (Template carries
	// the gate, as Kueue's podset.Merge puts it there); TASNodes are the
	// flavor's nodes as Kueue's TAS cache held them, whose hostnames and
	// network-layer labels Ungated names.
	Ungated  []map[string]string `json:"ungated,omitempty"`
	TASNodes []corev1.Node       `json:"tasNodes,omitempty"`
	// Checker is the checker's Pinned entry for Flavor, nil if it has none.
	Checker *check.Pinned `json:"checker,omitempty"`
}
