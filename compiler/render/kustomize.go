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
// users pull into their own workloads' kustomizations, so they are not
// resources here.
func (r *renderer) root() {
	resources := []string{"cluster", "kueue"}
	// Karpenter's NodePools and EC2NodeClasses are cluster objects the
	// GitOps controller applies; eksctl's and Terraform's files are not.
	if _, ok := r.tree[KarpenterPath]; ok {
		r.kustomization("nodegroups", []string{path.Base(KarpenterPath)})
		resources = append(resources, "nodegroups")
	}
	for _, t := range r.d.Tenants {
		resources = append(resources, path.Join("tenants", t.Name))
	}
	r.kustomization("", resources)
}
