// Package verify checks the derived objects with apimachinery's own
// validation before anything is rendered: a label, taint, selector or
// resource that the API server would reject is reported against the spec
// entry it came from, not discovered at apply time.
package verify

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/diag"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/load"
)

// Fleet validates every pool's labels and taints and every class's pod
// template.
func Fleet(src *load.Source, d *derive.Fleet) error {
	var out diag.List
	report := func(errs field.ErrorList, path ...string) {
		for _, e := range errs {
			out = append(out, src.Diag(fmt.Sprintf("derived object is invalid: %v", e), path...))
		}
	}
	for _, p := range d.Pools {
		report(metav1validation.ValidateLabels(p.NodeLabels(), field.NewPath("metadata", "labels")), "pools", p.Name)
		report(Taints(p.Taints, field.NewPath("spec", "taints")), "pools", p.Name)
	}
	for _, c := range d.Classes {
		report(PodTemplate(&c.Template, field.NewPath("spec", "template")), "classes", c.Name)
	}
	return out.Err()
}

// Taints applies the API server's key, value and effect rules.
func Taints(ts []corev1.Taint, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range ts {
		errs = append(errs, qualified(t.Key, p.Index(i).Child("key"))...)
		for _, msg := range validation.IsValidLabelValue(t.Value) {
			errs = append(errs, field.Invalid(p.Index(i).Child("value"), t.Value, msg))
		}
		switch t.Effect {
		case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			errs = append(errs, field.NotSupported(p.Index(i).Child("effect"), t.Effect, []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}))
		}
	}
	return errs
}

// PodTemplate checks the scheduling fields gpufleet writes, with the rules
// apimachinery exposes, and that GPU requests equal limits.
func PodTemplate(t *corev1.PodTemplateSpec, p *field.Path) field.ErrorList {
	errs := metav1validation.ValidateLabels(t.Labels, p.Child("metadata", "labels"))
	sp := p.Child("spec")
	errs = append(errs, metav1validation.ValidateLabels(t.Spec.NodeSelector, sp.Child("nodeSelector"))...)
	if a := t.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		if r := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
			for i, term := range r.NodeSelectorTerms {
				errs = append(errs, requirements(term.MatchExpressions, sp.Child("affinity", "nodeAffinity", "required").Index(i))...)
			}
		}
		for i, pref := range a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			errs = append(errs, requirements(pref.Preference.MatchExpressions, sp.Child("affinity", "nodeAffinity", "preferred").Index(i))...)
		}
	}
	opts := metav1validation.LabelSelectorValidationOptions{}
	for i, tsc := range t.Spec.TopologySpreadConstraints {
		tp := sp.Child("topologySpreadConstraints").Index(i)
		errs = append(errs, metav1validation.ValidateLabelSelector(tsc.LabelSelector, opts, tp)...)
		for j, k := range tsc.MatchLabelKeys {
			errs = append(errs, qualified(k, tp.Child("matchLabelKeys").Index(j))...)
		}
	}
	if a := t.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
		ap := sp.Child("affinity", "podAntiAffinity")
		terms := a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		for _, w := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
		for i, term := range terms {
			errs = append(errs, metav1validation.ValidateLabelSelector(term.LabelSelector, opts, ap.Index(i))...)
			for j, k := range term.MatchLabelKeys {
				errs = append(errs, qualified(k, ap.Index(i).Child("matchLabelKeys").Index(j))...)
			}
		}
	}
	for i, tol := range t.Spec.Tolerations {
		if tol.Key != "" {
			errs = append(errs, qualified(tol.Key, sp.Child("tolerations").Index(i).Child("key"))...)
		}
	}
	for i, c := range append(append([]corev1.Container{}, t.Spec.InitContainers...), t.Spec.Containers...) {
		cp := sp.Child("containers").Index(i)
		for _, msg := range validation.IsDNS1123Label(c.Name) {
			errs = append(errs, field.Invalid(cp.Child("name"), c.Name, msg))
		}
		req, lim := c.Resources.Requests[keys.ResourceGPU], c.Resources.Limits[keys.ResourceGPU]
		if req.Cmp(lim) != 0 {
			errs = append(errs, field.Invalid(cp.Child("resources"), req.String(), "GPU request must equal limit "+lim.String()))
		}
	}
	return errs
}

func requirements(rs []corev1.NodeSelectorRequirement, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for j, r := range rs {
		rp := p.Child("matchExpressions").Index(j)
		errs = append(errs, qualified(r.Key, rp.Child("key"))...)
		if r.Operator == corev1.NodeSelectorOpIn || r.Operator == corev1.NodeSelectorOpNotIn {
			for k, v := range r.Values {
				for _, msg := range validation.IsValidLabelValue(v) {
					errs = append(errs, field.Invalid(rp.Child("values").Index(k), v, msg))
				}
			}
		}
	}
	return errs
}

func qualified(name string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(name) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	return errs
}
