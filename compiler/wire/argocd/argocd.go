// Package argocd holds the Argo CD Application gpufleet writes to deliver a
// Helm chart (argoproj.io/v1alpha1), only the fields gpufleet sets. Tests
// hold it to the Application CRD of Argo CD v3.2.0.
package argocd

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Namespace is where Argo CD looks for Applications by default.
const Namespace = "argocd"

// Application installs a chart from a Helm repository with inline values.
type Application struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              ApplicationSpec `json:"spec"`
}

type ApplicationSpec struct {
	Project     string      `json:"project"`
	Source      Source      `json:"source"`
	Destination Destination `json:"destination"`
	SyncPolicy  *SyncPolicy `json:"syncPolicy,omitempty"`
}

// Source is a Helm repository's chart (RepoURL and Chart), or an OCI
// artifact (RepoURL oci://<registry>/<repository>/<chart>, Path "."), which
// Argo CD 3.1 and later inflate with Helm when it is a chart.
type Source struct {
	RepoURL        string `json:"repoURL"`
	Chart          string `json:"chart,omitempty"`
	Path           string `json:"path,omitempty"`
	TargetRevision string `json:"targetRevision"`
	Helm           *Helm  `json:"helm,omitempty"`
}

type Helm struct {
	ReleaseName  string `json:"releaseName"`
	ValuesObject any    `json:"valuesObject"`
}

type Destination struct {
	Server    string `json:"server"`
	Namespace string `json:"namespace"`
}

type SyncPolicy struct {
	Automated   *Automated `json:"automated,omitempty"`
	SyncOptions []string   `json:"syncOptions,omitempty"`
}

type Automated struct {
	Prune    bool `json:"prune"`
	SelfHeal bool `json:"selfHeal"`
}
