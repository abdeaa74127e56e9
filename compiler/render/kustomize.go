package render

import (
	"path"

	"sigs.k8s.io/kustomize/api/types"
)

func (r *renderer) kustomization(dir string, resources []string) {
	r.emit(path.Join(dir, "kustomization.yaml"), kustomization(resources))
}

func kustomization(resources []string) *types.Kustomization {
	return &types.Kustomization{
		TypeMeta:  types.TypeMeta{APIVersion: types.KustomizationVersion, Kind: types.KustomizationKind},
		Resources: resources,
	}
}

// root includes everything a cluster applies: the provisioners' applied files
// (Karpenter's NodePools are cluster objects; eksctl's and Terraform's files
// are not). Classes are Components that users pull into their own
// workloads' kustomizations, so they are not resources here.
func (r *renderer) root(applied []string) {
	resources := []string{"cluster", "kueue"}
	if len(applied) > 0 {
		var files []string
		for _, f := range applied {
			files = append(files, path.Base(f))
		}
		r.kustomization("nodegroups", files)
		resources = append(resources, "nodegroups")
	}
	for _, t := range r.d.Tenants {
		resources = append(resources, path.Join("tenants", t.Name))
	}
	r.kustomization("", resources)
}
