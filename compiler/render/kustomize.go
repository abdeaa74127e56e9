package render

import (
	"path"

	"sigs.k8s.io/kustomize/api/types"
)

func (r *renderer) kustomization(dir string, resources []string) {
	k := types.Kustomization{
		TypeMeta:  types.TypeMeta{APIVersion: types.KustomizationVersion, Kind: types.KustomizationKind},
		Resources: resources,
	}
	r.emit(path.Join(dir, "kustomization.yaml"), &k)
}

// root includes everything a cluster applies. Classes are Components that
// users pull into their own workloads' kustomizations, and node groups feed
// eksctl and Terraform, so neither is a resource here.
func (r *renderer) root() {
	resources := []string{"cluster", "kueue"}
	for _, t := range r.d.Tenants {
		resources = append(resources, path.Join("tenants", t.Name))
	}
	r.kustomization("", resources)
}
