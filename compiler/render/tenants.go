package render

import (
	"path"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/internal/par"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

const (
	quotaName      = "gpufleet"
	limitRangeName = "gpufleet"
)

func (r *renderer) tenants() {
	// As classes: built on every CPU, listed in tenant order.
	files := make([][]file, len(r.d.Tenants))
	par.Each(len(r.d.Tenants), func(i int) { files[i] = tenantFiles(r.d, r.d.Tenants[i]) })
	for _, fs := range files {
		for _, f := range fs {
			r.emit(f.path, f.objs...)
		}
	}
}

// tenantFiles are a tenant's namespaces, quotas, LimitRanges and their
// kustomization.
func tenantFiles(d *derive.Fleet, t derive.Tenant) []file {
	dir := path.Join("tenants", t.Name)
	labels := map[string]string{keys.LabelTenant: t.Name}
	var nss, quotas, limits, claims []any
	// The admission policies' parameters and binding (render/admission.go).
	nsLabels := map[string]string{keys.LabelTenant: t.Name, keys.LabelAdmission: TenantAdmission(t.Spec.Admission)}
	annotations := derive.Admission(d, t)
	for _, ns := range t.Spec.Namespaces {
		claims = append(claims, claimTemplates(d, t, ns, labels)...)
		m := meta(ns, "", nsLabels)
		m.Annotations = annotations
		nss = append(nss, &corev1.Namespace{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: m,
		})
		quotas = append(quotas, tenantQuotas(t, ns, labels)...)
		limits = append(limits, limitRange(t, ns, labels))
	}
	resources := []string{tree.NamespacesFile}
	out := []file{{path.Join(dir, tree.NamespacesFile), nss}}
	if len(quotas) > 0 {
		resources = append(resources, tree.ResourceQuotasFile)
		out = append(out, file{path.Join(dir, tree.ResourceQuotasFile), quotas})
	}
	if len(claims) > 0 {
		resources = append(resources, tree.ResourceClaimTemplatesFile)
		out = append(out, file{path.Join(dir, tree.ResourceClaimTemplatesFile), claims})
	}
	// localqueues.yaml is written with the Kueue objects.
	resources = append(resources, tree.LimitRangesFile)
	if t.Queued {
		resources = append(resources, "localqueues.yaml")
	}
	out = append(out, file{path.Join(dir, tree.LimitRangesFile), limits})
	return append(out, file{path.Join(dir, "kustomization.yaml"), []any{kustomization(resources)}})
}

func tenantQuotas(t derive.Tenant, ns string, labels map[string]string) []any {
	var out []any
	quota := func(name string, hard corev1.ResourceList, scope *corev1.ScopeSelector) {
		out = append(out, &corev1.ResourceQuota{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ResourceQuota"},
			ObjectMeta: meta(name, ns, labels),
			Spec:       corev1.ResourceQuotaSpec{Hard: hard, ScopeSelector: scope},
		})
	}
	share, split := t.Unqueued[ns]
	switch {
	case split && !t.HasClusterQueue():
		// No Kueue: the namespace's share is all it may use.
		quota(quotaName, share, nil)
	case t.Hard != nil:
		quota(quotaName, t.Hard, nil)
	}
	if split && t.HasClusterQueue() {
		quota(derive.UnqueuedQuotaName, share, &corev1.ScopeSelector{
			MatchExpressions: []corev1.ScopedResourceSelectorRequirement{{
				ScopeName: corev1.ResourceQuotaScopePriorityClass,
				Operator:  corev1.ScopeSelectorOpIn,
				Values:    t.UnqueuedPriorities,
			}},
		})
	}
	for _, pr := range spec.Keys(t.Spec.PriorityQuotas) {
		q := t.Spec.PriorityQuotas[pr]
		quota(quotaName+"-"+pr, derive.QuotaList(&q), &corev1.ScopeSelector{
			MatchExpressions: []corev1.ScopedResourceSelectorRequirement{{
				ScopeName: corev1.ResourceQuotaScopePriorityClass,
				Operator:  corev1.ScopeSelectorOpIn,
				Values:    []string{pr},
			}},
		})
	}
	return out
}

// limitRange gives containers default requests and caps GPUs per pod. A Pod
// maximum makes the API server demand a limit on every container, so
// containers default to zero GPUs: CPU-only pods keep being admitted.
func limitRange(t derive.Tenant, ns string, labels map[string]string) *corev1.LimitRange {
	defaults, requests := derive.LimitDefaults(t.Spec)
	return &corev1.LimitRange{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "LimitRange"},
		ObjectMeta: meta(limitRangeName, ns, labels),
		Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{
			{Type: corev1.LimitTypeContainer, Default: defaults, DefaultRequest: requests},
			{Type: corev1.LimitTypePod, Max: corev1.ResourceList{
				keys.ResourceGPU: *resource.NewQuantity(t.MaxGPUPerPod, resource.DecimalSI),
			}},
		}},
	}
}
