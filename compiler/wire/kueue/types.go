// Package kueue holds the Kueue v1beta2 objects gpufleet writes, and the
// flavor-assignment rule Kueue applies to them. The binary does not link
// Kueue (it needs k8s.io v0.36 and controller-runtime), so the types are
// ours: tests validate them against Kueue v0.19.2's CRDs, CEL rules
// included, and ladder/kueue decodes them into Kueue's own types.
package kueue

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// APIVersion is the version Kueue v0.19 stores.
const APIVersion = "kueue.x-k8s.io/v1beta2"

// Labels Kueue reads from a workload.
const (
	LabelQueueName     = "kueue.x-k8s.io/queue-name"
	LabelPriorityClass = "kueue.x-k8s.io/priority-class"
	// LabelMaxExecTime is a workload's maximum execution time in seconds:
	// Kueue v0.19.2 pkg/controller/constants MaxExecTimeSecondsLabel, a
	// label on the job object that jobframework.NewWorkload copies into
	// the Workload's spec.maximumExecutionTimeSeconds
	// (MaximumExecutionTimeSecondsForObject) for every GenericJob kind.
	LabelMaxExecTime = "kueue.x-k8s.io/max-exec-time-seconds"
)

// CRD limits.
const (
	MaxFlavorLabels   = 8
	MaxFlavorTaints   = 8
	MaxFlavorsInGroup = 64
)

type ResourceFlavor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              ResourceFlavorSpec `json:"spec"`
}

type ResourceFlavorSpec struct {
	NodeLabels map[string]string `json:"nodeLabels,omitempty"`
	NodeTaints []corev1.Taint    `json:"nodeTaints,omitempty"`
	// TopologyName makes the flavor a TAS flavor: Kueue admits only
	// topology-aware workloads to it, placed on its nodes by the levels
	// of that Topology.
	TopologyName *string `json:"topologyName,omitempty"`
}

// Topology is Kueue's hierarchy of node labels, the widest level first.
type Topology struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              TopologySpec `json:"spec"`
}

type TopologySpec struct {
	Levels []TopologyLevel `json:"levels"`
}

type TopologyLevel struct {
	NodeLabel string `json:"nodeLabel"`
}

// The pod template annotations by which a PodSet asks Kueue's TAS for a
// placement (apis/kueue/v1beta2/topology_types.go).
const (
	AnnotationRequiredTopology      = "kueue.x-k8s.io/podset-required-topology"
	AnnotationPreferredTopology     = "kueue.x-k8s.io/podset-preferred-topology"
	AnnotationUnconstrainedTopology = "kueue.x-k8s.io/podset-unconstrained-topology"
	AnnotationSliceTopology         = "kueue.x-k8s.io/podset-slice-required-topology"
	AnnotationSliceSize             = "kueue.x-k8s.io/podset-slice-size"
)

type ClusterQueue struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              ClusterQueueSpec `json:"spec"`
}

type ClusterQueueSpec struct {
	CohortName        string                `json:"cohortName,omitempty"`
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector"`
	ResourceGroups    []ResourceGroup       `json:"resourceGroups,omitempty"`
	QueueingStrategy  string                `json:"queueingStrategy"`
	Preemption        *Preemption           `json:"preemption,omitempty"`
	FairSharing       *FairSharing          `json:"fairSharing,omitempty"`
}

type ResourceGroup struct {
	CoveredResources []corev1.ResourceName `json:"coveredResources"`
	Flavors          []FlavorQuotas        `json:"flavors"`
}

type FlavorQuotas struct {
	Name      string          `json:"name"`
	Resources []ResourceQuota `json:"resources"`
}

type ResourceQuota struct {
	Name           corev1.ResourceName `json:"name"`
	NominalQuota   resource.Quantity   `json:"nominalQuota"`
	BorrowingLimit *resource.Quantity  `json:"borrowingLimit,omitempty"`
	LendingLimit   *resource.Quantity  `json:"lendingLimit,omitempty"`
}

// Kueue's preemption policies (v1beta2 PreemptionPolicy).
const (
	PreemptionNever                     = "Never"
	PreemptionLowerPriority             = "LowerPriority"
	PreemptionLowerOrNewerEqualPriority = "LowerOrNewerEqualPriority"
	PreemptionAny                       = "Any"
)

type Preemption struct {
	ReclaimWithinCohort string              `json:"reclaimWithinCohort"`
	WithinClusterQueue  string              `json:"withinClusterQueue"`
	BorrowWithinCohort  *BorrowWithinCohort `json:"borrowWithinCohort,omitempty"`
}

type BorrowWithinCohort struct {
	Policy               string `json:"policy"`
	MaxPriorityThreshold *int32 `json:"maxPriorityThreshold,omitempty"`
}

type FairSharing struct {
	Weight *resource.Quantity `json:"weight,omitempty"`
}

type Cohort struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              CohortSpec `json:"spec"`
}

type CohortSpec struct {
	ParentName  string       `json:"parentName,omitempty"`
	FairSharing *FairSharing `json:"fairSharing,omitempty"`
}

type LocalQueue struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              LocalQueueSpec `json:"spec"`
}

type LocalQueueSpec struct {
	ClusterQueue string `json:"clusterQueue"`
}

// WorkloadPriorityClass has its value at the top level, and no spec.
type WorkloadPriorityClass struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Value             int32  `json:"value"`
	Description       string `json:"description,omitempty"`
}

// ConfigAPIVersion is the version of Kueue v0.19's manager Configuration.
const ConfigAPIVersion = "config.kueue.x-k8s.io/v1beta2"

// Configuration is the part of Kueue's manager Configuration gpufleet
// writes (kueue/dra-config.yaml), to merge into the one Kueue runs with.
type Configuration struct {
	metav1.TypeMeta `json:",inline"`
	Resources       *ConfigResources `json:"resources,omitempty"`
}

// ConfigResources are how Kueue counts what pods ask for.
type ConfigResources struct {
	// DeviceClassMappings count a claim's devices of the classes as the
	// named resource (KueueDRAIntegration, beta and on since v0.18).
	DeviceClassMappings []DeviceClassMapping `json:"deviceClassMappings,omitempty"`
}

// DeviceClassMapping is one resource that DRA devices count as.
type DeviceClassMapping struct {
	Name             corev1.ResourceName `json:"name"`
	DeviceClassNames []string            `json:"deviceClassNames"`
}

// DRAMappings are the deviceClassMappings of a Configuration file (the
// tree's kueue/dra-config.yaml), nil for none.
func DRAMappings(raw []byte) ([]DeviceClassMapping, error) {
	var cfg Configuration
	if err := yaml.UnmarshalStrict(raw, &cfg); err != nil {
		return nil, err
	}
	if cfg.Resources == nil {
		return nil, nil
	}
	return cfg.Resources.DeviceClassMappings, nil
}
