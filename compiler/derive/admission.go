package derive

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// The admission policies' parameters (issue 48): annotations on each of a
// tenant's namespaces, which the ValidatingAdmissionPolicies that
// compiler/render/admission.go writes read through namespaceObject, as
// Pod Security Admission reads its namespace labels. They need no
// paramKind, so no object per tenant beside its namespaces, and none of
// kube-apiserver's parameter informers (kubernetes/kubernetes#130887). A
// class's entries are what its Component stamps on the pod template,
// encoded as the policies' CEL encodes a pod's fields, so its own pods
// pass by construction and nothing else does: tolerations, a toleration
// each; nodeSelector, key=value each; required node affinity, a term each
// of key=operator=values expressions. A key with nothing to say is left
// out.
const (
	// AdmissionSep separates list entries, AdmissionTermSep a term's
	// expressions, "=" an entry's fields and "/" a requirement's values.
	// None can occur in a label value, a taint's value, a resource or
	// object name, nor (but "/") in a label or taint key; all are
	// characters YAML writes plainly, so the tree's encoder writes the
	// parameters itself (compiler/encode's styleOf).
	AdmissionSep     = "+"
	AdmissionTermSep = ":"
	// AdmissionDomain is the annotations' domain: a tenant's keys are
	// AdmissionDomain/<key>, a class's <field>.AdmissionDomain/<class
	// key> (AdmissionClassKey), since a class name fills an annotation
	// name's 63 characters on its own.
	AdmissionDomain = "admission.gpufleet.dev"
	// The tenant's keys.
	AdmissionClasses    = "classes"
	AdmissionPriorities = "priorities"
	// Each class's fields, lower case as a key's prefix must be.
	AdmissionPriority     = "priority"
	AdmissionScheduler    = "scheduler"
	AdmissionTolerations  = "tolerations"
	AdmissionNodeSelector = "nodeselector"
	AdmissionAffinity     = "affinity"
	AdmissionResources    = "resources"
	AdmissionClaims       = "claims"
	AdmissionQueue        = "queue"
)

// AdmissionTenantKey is a tenant-wide key's annotation.
func AdmissionTenantKey(key string) string { return AdmissionDomain + "/" + key }

// AdmissionRoleKey is the annotation of a field of an ML kind's role.
func AdmissionRoleKey(field, role, class string) string {
	return field + "." + role + "." + AdmissionDomain + "/" + AdmissionKey(class)
}

// AdmissionClassKey is a class field's annotation.
func AdmissionClassKey(field, class string) string {
	return field + "." + AdmissionDomain + "/" + AdmissionKey(class)
}

// DefaultScheduler is the schedulerName the API server gives a pod that
// names none.
const DefaultScheduler = corev1.DefaultSchedulerName

// Admission is a tenant's admission parameters: the annotations on each
// of its namespaces.
func Admission(d *Fleet, t Tenant) map[string]string {
	data := map[string]string{AdmissionTenantKey(AdmissionClasses): strings.Join(t.Spec.Classes, AdmissionSep)}
	var prios []string
	for _, p := range d.Priorities {
		if p.Default {
			prios = append(prios, p.Name) // the Priority admission plugin's default
		}
	}
	for _, name := range t.Spec.Classes {
		c := d.Class(name)
		if c == nil {
			continue
		}
		prios = append(prios, c.Spec.Priority)
		queue := c.WorkloadLabels[kueue.LabelQueueName]
		classParams(c.Template.Spec, queue, func(field, v string) { data[AdmissionClassKey(field, name)] = v })
		// An ML kind's roles each have their own pod template (a
		// CPU-only head tolerates no GPU taint): a pod labelled with its
		// role keeps to that role's.
		for _, r := range c.Roles {
			classParams(r.Template.Spec, queue, func(field, v string) { data[AdmissionRoleKey(field, r.Spec.Name, name)] = v })
		}
	}
	slices.Sort(prios)
	data[AdmissionTenantKey(AdmissionPriorities)] = strings.Join(slices.Compact(prios), AdmissionSep)
	return data
}

// classParams are the parameters of one pod template of a class: what
// its Component stamps there, each field put unless empty.
func classParams(pod corev1.PodSpec, queue string, put func(field, v string)) {
	set := func(key, v string) {
		if v != "" {
			put(key, v)
		}
	}
	set(AdmissionPriority, pod.PriorityClassName)
	sched := pod.SchedulerName
	if sched == "" {
		sched = DefaultScheduler
	}
	set(AdmissionScheduler, sched)
	var tols []string
	for _, tl := range pod.Tolerations {
		tols = append(tols, EncodeToleration(tl))
	}
	set(AdmissionTolerations, strings.Join(tols, AdmissionSep))
	var sel []string
	for _, k := range sortedKeys(pod.NodeSelector) {
		sel = append(sel, k+"="+pod.NodeSelector[k])
	}
	set(AdmissionNodeSelector, strings.Join(sel, AdmissionSep))
	var terms []string
	if a := pod.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			var exprs []string
			for _, e := range term.MatchExpressions {
				exprs = append(exprs, EncodeRequirement(e))
			}
			terms = append(terms, strings.Join(exprs, AdmissionTermSep))
		}
	}
	set(AdmissionAffinity, strings.Join(terms, AdmissionSep))
	var res []string
	for _, ctr := range append(slices.Clone(pod.InitContainers), pod.Containers...) {
		for _, rl := range []corev1.ResourceList{ctr.Resources.Requests, ctr.Resources.Limits} {
			for r := range rl {
				if Extended(r) && !slices.Contains(res, string(r)) {
					res = append(res, string(r))
				}
			}
		}
	}
	slices.Sort(res)
	set(AdmissionResources, strings.Join(res, AdmissionSep))
	var claims []string
	for _, rc := range pod.ResourceClaims {
		if rc.ResourceClaimTemplateName != nil {
			claims = append(claims, *rc.ResourceClaimTemplateName)
		}
	}
	set(AdmissionClaims, strings.Join(claims, AdmissionSep))
	set(AdmissionQueue, queue)
}

// AdmissionKey is a class's name as its annotations spell it: its digits
// as the capitals A to J (a class name has no capitals, so no two classes
// share a key; an annotation's name may have capitals, its prefix not). Keys then differ first at a letter, never at a
// digit, and the tree's encoder orders them as go-yaml does without
// falling back to it (compiler/encode's orderedMembers): a generated
// fleet's class-41 and class-101 are class-EB and class-BAB.
func AdmissionKey(class string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return 'A' + (r - '0')
		}
		return r
	}, class)
}

// EncodeToleration is a toleration as the policies' CEL writes it:
// key=operator=value=effect, the operator Equal when empty (as the
// scheduler reads it). tolerationSeconds is left out: it only bounds how
// long a NoExecute taint is tolerated.
func EncodeToleration(t corev1.Toleration) string {
	op := string(t.Operator)
	if op == "" {
		op = string(corev1.TolerationOpEqual)
	}
	return t.Key + "=" + op + "=" + t.Value + "=" + string(t.Effect)
}

// EncodeRequirement is a node selector requirement as the policies' CEL
// writes it: key=operator=values, the values "/"-separated in order.
func EncodeRequirement(r corev1.NodeSelectorRequirement) string {
	return r.Key + "=" + string(r.Operator) + "=" + strings.Join(r.Values, "/")
}

// Extended reports whether a resource name is an extended resource (a
// device: nvidia.com/gpu, a MIG slice, EFA), which the policies allow a
// pod only as its class requests it.
func Extended(r corev1.ResourceName) bool {
	return strings.Contains(string(r), "/")
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
