package render

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/resid"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/internal/par"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/templates"
)

// Workload kinds a class Component patches, with their API groups.
var workloadKinds = []struct{ Group, Version, Kind string }{
	{"apps", "v1", keys.KindDeployment},
	{"apps", "v1", keys.KindStatefulSet},
	{"batch", "v1", keys.KindJob},
}

func (r *renderer) classes() {
	// Each class's objects are built on every CPU, then listed in class
	// order: a big fleet has thousands.
	files := make([][]file, len(r.d.Classes))
	errs := make([]error, len(r.d.Classes))
	par.Each(len(r.d.Classes), func(i int) { files[i], errs[i] = classFiles(&r.d.Classes[i]) })
	for i := range files {
		if errs[i] != nil {
			r.fail(errs[i])
			return
		}
		for _, f := range files[i] {
			r.emit(f.path, f.objs...)
		}
	}
}

// file is a file's path and the objects it is encoded from.
type file struct {
	path string
	objs []any
}

// classFiles are a class's Component (a patch per workload kind and its
// kustomization) and its example.
func classFiles(c *derive.Class) ([]file, error) {
	dir := path.Join(tree.ClassesDir, c.Name)
	comp := types.Kustomization{
		TypeMeta: types.TypeMeta{APIVersion: types.ComponentVersion, Kind: types.ComponentKind},
	}
	var out []file
	kinds := workloadKinds
	if g, ok := roleKinds[c.Spec.Kind]; ok {
		// An ML kind's Component patches its own kind's roles only,
		// with a JSON patch written inline (a file of one would be a
		// YAML list, not an object).
		kinds = nil
		ops, err := yaml.Marshal(rolePatch(c))
		if err != nil {
			return nil, err
		}
		comp.Patches = append(comp.Patches, types.Patch{Patch: string(ops), Target: &types.Selector{
			ResId:         resid.ResId{Gvk: resid.Gvk{Group: g.Group, Kind: c.Spec.Kind}},
			LabelSelector: keys.LabelClass + "=" + c.Name,
		}})
	}
	for _, wk := range kinds {
		name := "patch-" + strings.ToLower(wk.Kind) + ".yaml"
		// kustomize keeps the patch's own kind to find merge keys, so
		// each kind gets its own patch rather than one shared file.
		out = append(out, file{path.Join(dir, name), []any{policyPatch(c, wk.Group+"/"+wk.Version, wk.Kind)}})
		comp.Patches = append(comp.Patches, types.Patch{Path: name, Target: &types.Selector{
			ResId:         resid.ResId{Gvk: resid.Gvk{Group: wk.Group, Kind: wk.Kind}},
			LabelSelector: keys.LabelClass + "=" + c.Name,
		}})
	}
	out = append(out, file{path.Join(dir, "kustomization.yaml"), []any{&comp}})
	ex, err := Example(c)
	if err != nil {
		return nil, err
	}
	return append(out, file{tree.ClassExample(c.Name), append([]any{ex}, companions(c)...)}), nil
}

// policyPatch is the strategic merge patch that stamps the class's pod
// template onto a user's workload. The main container has no image, so it
// merges into the user's container of that name.
func policyPatch(c *derive.Class, apiVersion, kind string) map[string]any {
	tpl := &c.Template
	spec := templateSpec(tpl)
	md := map[string]any{"name": "any"}
	if len(c.WorkloadLabels) > 0 {
		md["labels"] = c.WorkloadLabels
	}
	workload := map[string]any{"template": map[string]any{"metadata": tpl.ObjectMeta, "spec": spec}}
	if kind == keys.KindDeployment && c.Strategy != nil {
		// The class's rolling update, which the checker proves can
		// progress at max size (Rollout).
		workload["strategy"] = c.Strategy
	}
	if kind == keys.KindJob && c.WorkloadLabels != nil {
		workload["suspend"] = true // Kueue unsuspends it on admission
	}
	if kind == keys.KindJob && c.Job != nil {
		workload["backoffLimit"] = c.Job.BackoffLimit
		workload["podFailurePolicy"] = c.Job.PodFailurePolicy
		// The API server accepts a podFailurePolicy only with Never: a
		// container restarted in place would hide its failures from it.
		spec["restartPolicy"] = corev1.RestartPolicyNever
	}
	return map[string]any{
		"apiVersion": apiVersion,
		"kind":       kind,
		"metadata":   md,
		"spec":       workload,
	}
}

// templateSpec is the pod template's spec as a patch sets it: its
// containers without images, so that they merge into the user's, and
// the placement fields the class leaves empty cleared (null), so a stale
// toleration or affinity on the user's workload cannot take it where the
// checker did not look.
func templateSpec(t *corev1.PodTemplateSpec) map[string]any {
	tpl := t.DeepCopy()
	for i := range tpl.Spec.Containers {
		tpl.Spec.Containers[i].Image = ""
	}
	spec := map[string]any{}
	b, _ := json.Marshal(tpl.Spec)
	_ = json.Unmarshal(b, &spec)
	for _, f := range []string{"tolerations", "affinity", "topologySpreadConstraints", "schedulerName"} {
		if _, ok := spec[f]; !ok {
			spec[f] = nil
		}
	}
	return spec
}

// Example builds the class's ready-to-copy workload from its kind's
// skeleton in templates/.
func Example(c *derive.Class) (any, error) {
	labels := map[string]string{keys.LabelClass: c.Name, "app.kubernetes.io/name": c.Name}
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{keys.LabelClass: c.Name}}
	podTemplate := func(skeleton corev1.PodTemplateSpec) corev1.PodTemplateSpec {
		tpl := *c.Template.DeepCopy()
		tpl.Spec.RestartPolicy = skeleton.Spec.RestartPolicy
		return tpl
	}
	for k, v := range c.WorkloadLabels {
		labels[k] = v
	}
	objMeta := func(m metav1.ObjectMeta) metav1.ObjectMeta {
		m.Name = c.Name
		m.Labels = labels
		return m
	}
	if c.Spec.HasRoles() {
		return roleExample(c, objMeta(metav1.ObjectMeta{}))
	}
	skel, err := templates.ForKind(c.Spec.Kind)
	if err != nil {
		return nil, err
	}
	replicas := c.Spec.Replicas
	switch c.Spec.Kind {
	case keys.KindDeployment:
		var d appsv1.Deployment
		if err := yaml.UnmarshalStrict(skel, &d); err != nil {
			return nil, fmt.Errorf("templates/deployment.yaml: %w", err)
		}
		d.ObjectMeta = objMeta(d.ObjectMeta)
		d.Spec.Replicas = &replicas
		d.Spec.Selector = selector
		if c.Strategy != nil {
			d.Spec.Strategy = *c.Strategy
		}
		d.Spec.Template = podTemplate(d.Spec.Template)
		return &d, nil
	case keys.KindStatefulSet:
		var s appsv1.StatefulSet
		if err := yaml.UnmarshalStrict(skel, &s); err != nil {
			return nil, fmt.Errorf("templates/statefulset.yaml: %w", err)
		}
		s.ObjectMeta = objMeta(s.ObjectMeta)
		s.Spec.Replicas = &replicas
		s.Spec.ServiceName = c.Name
		s.Spec.Selector = selector
		s.Spec.Template = podTemplate(s.Spec.Template)
		return &s, nil
	case keys.KindJob:
		var j batchv1.Job
		if err := yaml.UnmarshalStrict(skel, &j); err != nil {
			return nil, fmt.Errorf("templates/job.yaml: %w", err)
		}
		j.ObjectMeta = objMeta(j.ObjectMeta)
		if c.Spec.Gang != nil {
			// For people and for the checker, which reads the tree: these
			// pods must all run at once.
			j.Annotations = map[string]string{keys.AnnotationGang: "true"}
		}
		pods := c.Spec.Pods()
		j.Spec.Parallelism = &pods
		j.Spec.Completions = &pods
		if c.WorkloadLabels != nil {
			suspend := true // created suspended: Kueue starts it once admitted
			j.Spec.Suspend = &suspend
		}
		if c.Job != nil {
			j.Spec.BackoffLimit = &c.Job.BackoffLimit
			j.Spec.PodFailurePolicy = c.Job.PodFailurePolicy
		}
		j.Spec.Template = podTemplate(j.Spec.Template)
		return &j, nil
	}
	return nil, fmt.Errorf("class %s: unsupported kind %q", c.Name, c.Spec.Kind)
}
