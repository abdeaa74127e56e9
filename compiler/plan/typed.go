package plan

import (
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// TypedFile is ParseFile from the objects render encoded the file at p
// from, which a build holds (tree.Objects): decoding a big fleet's YAML
// again would cost a plan a third of a check. ok is false for an object
// it does not know, which its bytes then answer.
func TypedFile(p string, objs []any) (f File, ok bool) {
	switch {
	case IsExample(p):
		if len(objs) == 0 {
			return File{}, false
		}
		spec, ex, ok := podSpecOf(objs[0])
		if !ok {
			return File{}, false
		}
		for _, o := range objs[1:] {
			if b, ok := tree.As[policyv1.PodDisruptionBudget](o); ok {
				ex.Budget = &b
			}
		}
		return ExampleFile(ClassOf(p), spec.SchedulerName, spec.PriorityClassName, ex), true
	case IsAdmission(p):
		return typedEnforcement(objs)
	case p == tree.KueueQueuesPath:
		for _, o := range objs {
			cq, ok := tree.As[kueue.ClusterQueue](o)
			if !ok {
				return File{}, false
			}
			for _, g := range cq.Spec.ResourceGroups {
				for _, fq := range g.Flavors {
					for _, r := range fq.Resources {
						f.Quotas = append(f.Quotas, TenantQuota{TenantOf(cq.Labels), Quota{Scope: FlavorScope(cq.Name, fq.Name), Resource: string(r.Name), Value: r.NominalQuota}})
					}
				}
			}
		}
		return f, true
	case IsNamespaces(p):
		for _, o := range objs {
			ns, ok := tree.As[corev1.Namespace](o)
			if !ok {
				return File{}, false
			}
			f.Namespaces = append(f.Namespaces, TenantNamespace{TenantOf(ns.Labels), ns.Name})
			if e := namespaceEnforcement(ns.Labels); e != "" {
				f.Enforcement = append(f.Enforcement, TenantEnforcement{TenantOf(ns.Labels), e})
			}
		}
		return f, true
	case p == tree.PriorityClassesPath:
		for _, o := range objs {
			pc, ok := tree.As[schedulingv1.PriorityClass](o)
			if !ok {
				return File{}, false
			}
			f.PriorityClasses = append(f.PriorityClasses, NewPriorityClass(pc.Name, pc.Value, pc.PreemptionPolicy))
		}
		return f, true
	case IsClaimTemplates(p):
		f.ClaimTemplates = map[string]string{}
		for _, o := range objs {
			t, ok := tree.As[resourcev1.ResourceClaimTemplate](o)
			if !ok || claimTemplate(f.ClaimTemplates, &t) != nil {
				return File{}, false
			}
		}
		return f, true
	case IsQuotas(p):
		for _, o := range objs {
			q, ok := tree.As[corev1.ResourceQuota](o)
			if !ok {
				return File{}, false
			}
			scope := ResourceQuotaScope(q.Namespace, q.Name)
			for _, r := range slices.Sorted(maps.Keys(q.Spec.Hard)) {
				f.Quotas = append(f.Quotas, TenantQuota{TenantOf(q.Labels), Quota{Scope: scope, Resource: string(r), Value: q.Spec.Hard[r]}})
			}
		}
		return f, true
	}
	return File{}, false
}

// podSpecOf is the pod spec of a class's example workload, and what a
// drain does to it.
func podSpecOf(o any) (corev1.PodSpec, Example, bool) {
	if j, ok := tree.As[batchv1.Job](o); ok {
		return j.Spec.Template.Spec, Example{Kind: keys.KindJob, Pods: podsOf(keys.KindJob, nil, j.Spec.Parallelism), Gang: j.Annotations[keys.AnnotationGang] != ""}, true
	}
	if d, ok := tree.As[appsv1.Deployment](o); ok {
		return d.Spec.Template.Spec, Example{Kind: keys.KindDeployment, Pods: podsOf("", d.Spec.Replicas, nil)}, true
	}
	if s, ok := tree.As[appsv1.StatefulSet](o); ok {
		return s.Spec.Template.Spec, Example{Kind: keys.KindStatefulSet, Pods: podsOf("", s.Spec.Replicas, nil)}, true
	}
	if p, ok := tree.As[corev1.Pod](o); ok {
		return p.Spec, Example{Kind: "Pod", Pods: 1}, true
	}
	return corev1.PodSpec{}, Example{}, false
}
