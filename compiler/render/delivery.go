package render

import (
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/wire/argocd"
	"github.com/gpufleet/gpufleet/compiler/wire/flux"
)

// chart is a Helm chart the tree installs, as GitOps tools fetch it.
type chart struct {
	name, version, release, namespace string
	// repository is an HTTP(S) chart repository, or an OCI registry's
	// oci://<registry>/<path> holding <path>/<name>.
	repository         string
	fluxPath, argoPath string
}

// deliver writes the chart's install in the forms GitOps tools apply
// directly, with the same values as its values.yaml: a Flux HelmRepository
// and HelmRelease (in the chart's namespace, which the tree creates), and
// an Argo CD Application (in Argo CD's namespace). The root kustomization
// includes neither: a cluster runs one of the two, and the other's CRDs
// would be missing.
func (r *renderer) deliver(c chart, values any) {
	interval := metav1.Duration{Duration: time.Hour}
	oci := strings.HasPrefix(c.repository, "oci://")
	repo := flux.HelmRepositorySpec{URL: c.repository, Interval: interval}
	source := argocd.Source{RepoURL: c.repository, Chart: c.name, TargetRevision: c.version}
	if oci {
		// Flux reads an OCI registry as a HelmRepository of type oci;
		// Argo CD (3.1 and later) an OCI source whose artifact is the
		// chart itself, with no repository to register.
		repo.Type = "oci"
		source.RepoURL, source.Chart, source.Path = c.repository+"/"+c.name, "", "."
	}
	source.Helm = &argocd.Helm{ReleaseName: c.release, ValuesObject: values}
	r.emit(c.fluxPath,
		&flux.HelmRepository{
			TypeMeta:   metav1.TypeMeta{APIVersion: "source.toolkit.fluxcd.io/v1", Kind: "HelmRepository"},
			ObjectMeta: meta(c.name, c.namespace, nil),
			Spec:       repo,
		},
		&flux.HelmRelease{
			TypeMeta:   metav1.TypeMeta{APIVersion: "helm.toolkit.fluxcd.io/v2", Kind: "HelmRelease"},
			ObjectMeta: meta(c.release, c.namespace, nil),
			Spec: flux.HelmReleaseSpec{
				Interval: interval, ReleaseName: c.release, TargetNamespace: c.namespace,
				Chart: flux.ChartTemplate{Spec: flux.ChartTemplateSpec{
					Chart: c.name, Version: c.version,
					SourceRef: flux.CrossNamespaceRef{Kind: "HelmRepository", Name: c.name},
				}},
				Values: values,
			},
		})
	r.emit(c.argoPath, &argocd.Application{
		TypeMeta:   metav1.TypeMeta{APIVersion: "argoproj.io/v1alpha1", Kind: "Application"},
		ObjectMeta: meta(c.release, argocd.Namespace, nil),
		Spec: argocd.ApplicationSpec{
			Project:     "default",
			Source:      source,
			Destination: argocd.Destination{Server: "https://kubernetes.default.svc", Namespace: c.namespace},
			SyncPolicy:  &argocd.SyncPolicy{Automated: &argocd.Automated{Prune: true, SelfHeal: true}},
		},
	})
}
