// Package flux holds the Flux objects gpufleet writes to deliver a Helm
// chart: a HelmRepository (source.toolkit.fluxcd.io/v1) and a HelmRelease
// (helm.toolkit.fluxcd.io/v2), only the fields gpufleet sets. Tests hold
// them to the CRDs of source-controller v1.7.0 and helm-controller v1.4.0.
package flux

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// HelmRepository is a Helm repository Flux indexes.
type HelmRepository struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              HelmRepositorySpec `json:"spec"`
}

type HelmRepositorySpec struct {
	// Type is "oci" for an OCI registry (url oci://...); empty for an
	// HTTP(S) chart repository with an index.
	Type     string          `json:"type,omitempty"`
	URL      string          `json:"url"`
	Interval metav1.Duration `json:"interval"`
}

// HelmRelease installs a chart from a HelmRepository with inline values.
type HelmRelease struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              HelmReleaseSpec `json:"spec"`
}

type HelmReleaseSpec struct {
	Interval        metav1.Duration `json:"interval"`
	ReleaseName     string          `json:"releaseName"`
	TargetNamespace string          `json:"targetNamespace"`
	Chart           ChartTemplate   `json:"chart"`
	Values          any             `json:"values"`
}

type ChartTemplate struct {
	Spec ChartTemplateSpec `json:"spec"`
}

type ChartTemplateSpec struct {
	Chart     string            `json:"chart"`
	Version   string            `json:"version"`
	SourceRef CrossNamespaceRef `json:"sourceRef"`
}

type CrossNamespaceRef struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}
