// Package keys names what every stage and the target APIs agree on: the
// label, taint and resource keys gpufleet sets or reads, and the workload
// kinds a class can be. One place, so a key is never spelled twice.
package keys

import (
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Label and taint keys gpufleet owns. Pools may not set them by hand.
const (
	Domain = "gpufleet.dev/"

	LabelPool       = Domain + "pool"
	LabelGPUProduct = Domain + "gpu-product"
	LabelGPUCount   = Domain + "gpu-count"
	LabelGPUMemory  = Domain + "gpu-memory-gib"
	LabelCapacity   = Domain + "capacity-type"
	LabelDedicated  = Domain + "dedicated"
	LabelClass      = Domain + "class"
	LabelTenant     = Domain + "tenant"
	// LabelAdmission, on a tenant's namespaces, is its spec's admission
	// (Deny, Warn or Audit): the admission policies' bindings select
	// namespaces by it, one binding per policy and action.
	LabelAdmission = Domain + "admission"
	// LabelGPUAPI is "dra" on the nodes of pools whose GPUs the NVIDIA DRA
	// driver publishes (gpuAPI: "dra"), absent elsewhere: the driver's
	// kubelet plugin selects it and the device plugin shuns it.
	LabelGPUAPI    = Domain + "gpu-api"
	TaintSpot      = Domain + "spot"
	TaintDedicated = Domain + "dedicated"
	// AnnotationMaxNodes is a Karpenter pool's max size. Karpenter bounds a
	// pool by resources, not nodes; the checker needs the node count.
	AnnotationMaxNodes = Domain + "max-nodes"
	// AnnotationReserved, on a reserved pool's NodePool and as a tag of
	// its managed node group, records what each of its capacity
	// reservations holds (nodes.FormatReservations): the tools' files name
	// a reservation, not its type, zone, count or window.
	AnnotationReserved = Domain + "reserved"
	// AnnotationGang on a Job says its pods must all run at once: the
	// spec's gang. A Job without it runs its completions in waves.
	AnnotationGang = Domain + "gang"
	// AnnotationTopologyDomains on a TAS pool's ResourceFlavor declares how
	// many nodes a domain of a level holds ("<level label>=<nodes>",
	// comma-separated, by label): Kueue ignores it, the checker reads it.
	AnnotationTopologyDomains = Domain + "topology-domains"

	// AnnotationDoNotDisrupt on a running pod keeps Karpenter from
	// voluntarily disrupting its node.
	AnnotationDoNotDisrupt = "karpenter.sh/do-not-disrupt"

	LabelManagedBy = "app.kubernetes.io/managed-by"
	ManagedByValue = "gpufleet"
)

// Reserved reports whether a label or taint key belongs to gpufleet.
func Reserved(key string) bool {
	return len(key) >= len(Domain) && key[:len(Domain)] == Domain || key == TaintGPU
}

// NVIDIA's keys: the device plugin's resource and taint; the label whose
// value picks the device plugin's config entry (gpufleet sets it from a
// pool's sharing), and the mig-parted layout the MIG manager partitions the
// GPUs by (from its mig); and the label the device plugin chart's MPS
// control daemon selects (GFD sets it where it runs; gpufleet runs no GFD,
// so MPS pools carry it). Pools may not set any of them by hand.
const (
	ResourceGPU             = "nvidia.com/gpu"
	TaintGPU                = "nvidia.com/gpu"
	LabelDevicePluginConfig = "nvidia.com/device-plugin.config"
	LabelMIGConfig          = "nvidia.com/mig.config"
	LabelMPSCapable         = "nvidia.com/mps.capable"
)

// Well-known node labels the kubelet and cloud provider set, whatever the
// cloud; a cloud's own keys are compiler/cloud's.
const (
	LabelHostname     = "kubernetes.io/hostname"
	LabelZone         = "topology.kubernetes.io/zone"
	LabelInstanceType = "node.kubernetes.io/instance-type"
	LabelOS           = "kubernetes.io/os"
	// Labels controllers put on the pods they create: a ReplicaSet's
	// template hash, a Job's UID.
	LabelPodTemplateHash  = "pod-template-hash"
	LabelJobControllerUID = "batch.kubernetes.io/controller-uid"
)

// Workload kinds a class's example can be.
const (
	KindDeployment  = "Deployment"
	KindStatefulSet = "StatefulSet"
	KindJob         = "Job"
	// The ML kinds, whose pods come in roles (spec.Role).
	KindJobSet          = "JobSet"
	KindLeaderWorkerSet = "LeaderWorkerSet"
	KindRayJob          = "RayJob"
	KindRayCluster      = "RayCluster"
	KindPyTorchJob      = "PyTorchJob"
	KindTrainJob        = "TrainJob"
)

// RoleKinds are the kinds whose pods come in roles, each role a pod
// template of its own.
var RoleKinds = []string{KindJobSet, KindLeaderWorkerSet, KindRayJob, KindRayCluster, KindPyTorchJob, KindTrainJob}

// LabelRole is the role a pod of an ML kind plays (spec.Role's name).
const LabelRole = "gpufleet.dev/role"

// ObjectMeta is the metadata every generated object carries: its name and
// namespace, the managed-by label, and extra labels.
func ObjectMeta(name, namespace string, extra map[string]string) metav1.ObjectMeta {
	labels := map[string]string{LabelManagedBy: ManagedByValue}
	for k, v := range extra {
		labels[k] = v
	}
	return metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels}
}

// AdmissionActions are the validationActions of the bindings that select
// a tenant's namespaces by LabelAdmission: Deny by default; Warn also
// audits, so a rollout's refusals are in the audit log as well as the
// client's output.
func AdmissionActions(admission string) []admissionv1.ValidationAction {
	switch admission {
	case "Warn":
		return []admissionv1.ValidationAction{admissionv1.Warn, admissionv1.Audit}
	case "Audit":
		return []admissionv1.ValidationAction{admissionv1.Audit}
	}
	return []admissionv1.ValidationAction{admissionv1.Deny}
}
