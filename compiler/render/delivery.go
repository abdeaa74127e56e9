package render

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/wire/argocd"
	"github.com/gpufleet/gpufleet/compiler/wire/deviceplugin"
	"github.com/gpufleet/gpufleet/compiler/wire/flux"
)

// deliverDevicePlugin writes the chart install in the forms GitOps tools
// apply directly, with the same values as values.yaml: a Flux
// HelmRepository and HelmRelease (in the plugin's namespace, which the
// tree creates), and an Argo CD Application (in Argo CD's namespace). The
// root kustomization includes neither: a cluster runs one of the two, and
// the other's CRDs would be missing.
func (r *renderer) deliverDevicePlugin(values *deviceplugin.Values) {
	interval := metav1.Duration{Duration: time.Hour}
	r.emit(deviceplugin.FluxPath,
		&flux.HelmRepository{
			TypeMeta:   metav1.TypeMeta{APIVersion: "source.toolkit.fluxcd.io/v1", Kind: "HelmRepository"},
			ObjectMeta: meta(deviceplugin.ChartName, deviceplugin.Namespace, nil),
			Spec:       flux.HelmRepositorySpec{URL: deviceplugin.ChartRepository, Interval: interval},
		},
		&flux.HelmRelease{
			TypeMeta:   metav1.TypeMeta{APIVersion: "helm.toolkit.fluxcd.io/v2", Kind: "HelmRelease"},
			ObjectMeta: meta(deviceplugin.ReleaseName, deviceplugin.Namespace, nil),
			Spec: flux.HelmReleaseSpec{
				Interval: interval, ReleaseName: deviceplugin.ReleaseName, TargetNamespace: deviceplugin.Namespace,
				Chart: flux.ChartTemplate{Spec: flux.ChartTemplateSpec{
					Chart: deviceplugin.ChartName, Version: deviceplugin.ChartVersion,
					SourceRef: flux.CrossNamespaceRef{Kind: "HelmRepository", Name: deviceplugin.ChartName},
				}},
				Values: values,
			},
		})
	r.emit(deviceplugin.ArgoCDPath, &argocd.Application{
		TypeMeta:   metav1.TypeMeta{APIVersion: "argoproj.io/v1alpha1", Kind: "Application"},
		ObjectMeta: meta(deviceplugin.ReleaseName, argocd.Namespace, nil),
		Spec: argocd.ApplicationSpec{
			Project: "default",
			Source: argocd.Source{
				RepoURL: deviceplugin.ChartRepository, Chart: deviceplugin.ChartName, TargetRevision: deviceplugin.ChartVersion,
				Helm: &argocd.Helm{ReleaseName: deviceplugin.ReleaseName, ValuesObject: values},
			},
			Destination: argocd.Destination{Server: "https://kubernetes.default.svc", Namespace: deviceplugin.Namespace},
			SyncPolicy:  &argocd.SyncPolicy{Automated: &argocd.Automated{Prune: true, SelfHeal: true}},
		},
	})
}
