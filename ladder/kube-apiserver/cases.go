package kubeapiserver

import (
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install" // the API server's Pod defaults
	"k8s.io/kubernetes/plugin/pkg/admission/limitranger"

	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// Case is one object the API server is asked to create, and whether the
// tree's policies must admit it.
type Case struct {
	Name     string
	Obj      runtime.Object
	Resource string
	Admit    bool
	// User creates Obj, or updates Old to it.
	User string
	Old  runtime.Object
}

// tenant is the user a tenant's own requests come from.
const tenant = "tenant"

// makers are the users that create a pod or workload its controller owns,
// by the owner's kind: kube-controller-manager's controllers under their
// service accounts (--use-service-account-credentials; k8s.io/kubernetes
// v1.36.5 cmd/kube-controller-manager/app createClientBuilders), and the
// ML kinds' controllers under their default installs' (jobset v0.12.0 and
// lws v0.9.0 config/default, kuberay ray-operator v1.6.2 config/default,
// training-operator v1.9.3 manifests/overlays/standalone, trainer v2.2.1
// manifests/overlays/manager: a TrainJob's JobSet), which the tree
// must name for the policies to let their objects through.
var makers = map[string]string{
	"ReplicaSet":             "system:serviceaccount:kube-system:replicaset-controller",
	"StatefulSet":            "system:serviceaccount:kube-system:statefulset-controller",
	"Job":                    "system:serviceaccount:kube-system:job-controller",
	keys.KindJobSet:          "system:serviceaccount:jobset-system:jobset-controller-manager",
	keys.KindLeaderWorkerSet: "system:serviceaccount:lws-system:lws-controller-manager",
	"RayCluster":             "system:serviceaccount:default:kuberay-operator",
	keys.KindPyTorchJob:      "system:serviceaccount:kubeflow:training-operator",
	keys.KindTrainJob:        "system:serviceaccount:kubeflow-system:kubeflow-trainer-controller-manager",
	keys.KindRayJob:          "system:serviceaccount:default:kuberay-operator",
}

// kueueUser is Kueue's manager as its default install runs it (kueue
// v0.19.2 config/default: namespace kueue-system, namePrefix kueue-), which
// updates the pods it gates.
const kueueUser = "system:serviceaccount:kueue-system:kueue-controller-manager"

// maker is the user that creates o: its controller owner's, or the
// tenant's.
func maker(o runtime.Object) string {
	m, _ := meta.Accessor(o)
	for _, r := range m.GetOwnerReferences() {
		if r.Controller != nil && *r.Controller {
			if u := makers[r.Kind]; u != "" {
				return u
			}
			panic("no maker of " + r.Kind)
		}
	}
	return tenant
}

// roleOwner is the kind that owns an ML kind's pods: a JobSet's (and a
// TrainJob's) Jobs, a LeaderWorkerSet's StatefulSets, KubeRay's
// RayCluster, the training operator's PyTorchJob.
func roleOwner(kind string) string {
	switch kind {
	case keys.KindLeaderWorkerSet:
		return "StatefulSet"
	case keys.KindRayJob, keys.KindRayCluster:
		return "RayCluster"
	case keys.KindPyTorchJob:
		return keys.KindPyTorchJob
	}
	return "Job"
}

const labelClass = "gpufleet.dev/class"
const labelQueue = "kueue.x-k8s.io/queue-name"

// template is a workload's pod template and its resource.
func template(o runtime.Object) (*corev1.PodTemplateSpec, string, string) {
	switch w := o.(type) {
	case *appsv1.Deployment:
		return &w.Spec.Template, "deployments", "ReplicaSet"
	case *appsv1.StatefulSet:
		return &w.Spec.Template, "statefulsets", "StatefulSet"
	case *batchv1.Job:
		return &w.Spec.Template, "jobs", "Job"
	}
	panic(fmt.Sprintf("%T", o))
}

// pod is the pod a workload's controller makes of its template in ns, as
// the API server sees it before validating admission: defaulted
// (SetObjectDefaults_Pod), with the namespace's LimitRanges' defaults
// merged by the LimitRanger plugin's own PodMutateLimitFunc
// (plugin/pkg/admission/limitranger), with the two NoExecute tolerations
// DefaultTolerationSeconds adds (k8s.io/kubernetes
// plugin/pkg/admission/defaulttolerationseconds), and, with no
// priorityClassName, the global default's, as the Priority plugin sets it
// (plugin/pkg/admission/priority).
func (g *gen) pod(tpl *corev1.PodTemplateSpec, ns, owner string) *corev1.Pod {
	p := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: *tpl.ObjectMeta.DeepCopy(),
		Spec:       *tpl.Spec.DeepCopy(),
	}
	p.Name, p.Namespace = "p", ns
	if owner != "" {
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: owner, Name: "w", UID: "u", Controller: ptr(true)}}
	}
	legacyscheme.Scheme.Default(p)
	var in api.Pod
	if err := legacyscheme.Scheme.Convert(p, &in, nil); err != nil {
		panic(err)
	}
	for _, lr := range g.tree.LimitRanges[ns] {
		if err := limitranger.PodMutateLimitFunc(lr, &in); err != nil {
			panic(err)
		}
	}
	if err := legacyscheme.Scheme.Convert(&in, p, nil); err != nil {
		panic(err)
	}
	sec := int64(300)
	for _, key := range []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable} {
		p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &sec})
	}
	if p.Spec.PriorityClassName == "" {
		p.Spec.PriorityClassName = g.globalDefault
	}
	return p
}

type gen struct {
	tree          *Tree
	globalDefault string
}

func ptr[T any](v T) *T { return &v }

func tolerate(taints []corev1.Taint) []corev1.Toleration {
	var out []corev1.Toleration
	for _, t := range taints {
		out = append(out, corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOpEqual, Value: t.Value, Effect: t.Effect})
	}
	return out
}

// Cases are, for every tenant, each class's example workload and its pod
// in each of the tenant's namespaces, all to be admitted, and the hostile
// pods and workloads the issue lists, all to be refused, with controls.
func Cases(d *derive.Fleet, tr *Tree) []Case {
	g := &gen{tree: tr}
	for _, p := range d.Priorities {
		if p.Default {
			g.globalDefault = p.Name
		}
	}
	globalDefault := g.globalDefault
	uses := func(kind string) bool {
		return slices.ContainsFunc(d.Classes, func(c derive.Class) bool { return c.Spec.Kind == kind })
	}
	var out []Case
	add := func(name string, o runtime.Object, res string, admit bool) {
		out = append(out, Case{Name: name, Obj: o, Resource: res, Admit: admit, User: maker(o)})
	}
	// as is a case another user than the object's maker sends: a tenant
	// forging a controller's ownerReference, Kueue updating a pod.
	as := func(user string, old runtime.Object, name string, o runtime.Object, res string, admit bool) {
		out = append(out, Case{Name: name, Obj: o, Resource: res, Admit: admit, User: user, Old: old})
	}
	for _, t := range d.Tenants {
		ns := t.Spec.Namespaces[0]
		prios := []string{globalDefault}
		for _, c := range t.Spec.Classes {
			prios = append(prios, d.Class(c).Spec.Priority)
		}
		bare := &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "busybox"}}}}
		add(t.Name+": a CPU pod of no class", g.pod(bare, ns, ""), "pods", true)
		for _, c := range t.Spec.Classes {
			ex := tr.Examples[c]
			cls := d.Class(c)
			// An ML kind's roles' pods, which its controller (or the Jobs
			// or StatefulSets it makes) creates; the workload policy does
			// not match the kind.
			ml := len(cls.Roles) > 0
			for _, n := range t.Spec.Namespaces {
				if ml {
					for _, r := range cls.Roles {
						add(fmt.Sprintf("%s: class %s's %s pod in %s", t.Name, c, r.Spec.Name, n), g.pod(&r.Template, n, roleOwner(cls.Spec.Kind)), "pods", true)
						if w, res := child(cls.Spec.Kind, r.Template, n, true); w != nil {
							add(fmt.Sprintf("%s: class %s's %s %s its %s makes in %s", t.Name, c, r.Spec.Name, res, cls.Spec.Kind, n), w, res, true)
							if cls.WorkloadLabels[labelQueue] != "" {
								w, _ := child(cls.Spec.Kind, r.Template, n, false)
								add(fmt.Sprintf("%s: queued class %s's %s %s with no owner and no queue in %s", t.Name, c, r.Spec.Name, res, n), w, res, false)
							}
						}
					}
					mlCases(t.Name, c, n, ex, cls.WorkloadLabels[labelQueue] != "", uses, as)
					continue
				}
				w := ex.DeepCopyObject()
				w.(metav1.Object).SetNamespace(n)
				tpl, res, owner := template(w)
				add(fmt.Sprintf("%s: class %s's example %s in %s", t.Name, c, res, n), w, res, true)
				add(fmt.Sprintf("%s: class %s's pod in %s", t.Name, c, n), g.pod(tpl, n, owner), "pods", true)
			}
			tpl, res, owner := &cls.Template, "", roleOwner(cls.Spec.Kind)
			if !ml {
				tpl, res, owner = template(ex)
			}
			own := func(mut func(p *corev1.Pod)) *corev1.Pod {
				p := g.pod(tpl, ns, owner)
				mut(p)
				return p
			}
			tols := map[string]bool{}
			for _, tl := range cls.Template.Spec.Tolerations {
				tols[derive.EncodeToleration(tl)] = true
			}
			for _, pl := range d.Pools {
				missing := slices.ContainsFunc(tolerate(pl.Taints), func(tl corev1.Toleration) bool { return !tols[derive.EncodeToleration(tl)] })
				if len(pl.Taints) > 0 && missing {
					add(fmt.Sprintf("%s: class %s tolerating pool %s", t.Name, c, pl.Name), own(func(p *corev1.Pod) {
						p.Spec.Tolerations = append(p.Spec.Tolerations, tolerate(pl.Taints)...)
					}), "pods", false)
				}
				if a := cls.Template.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
					add(fmt.Sprintf("%s: class %s selecting pool %s without its affinity", t.Name, c, pl.Name), own(func(p *corev1.Pod) {
						p.Spec.Affinity = nil
						p.Spec.NodeSelector = pl.Labels
					}), "pods", false)
				}
			}
			for _, pr := range d.Priorities {
				if pr.Name != cls.Spec.Priority {
					add(fmt.Sprintf("%s: class %s at priority %s", t.Name, c, pr.Name), own(func(p *corev1.Pod) { p.Spec.PriorityClassName = pr.Name }), "pods", false)
				}
			}
			if ml {
				add(fmt.Sprintf("%s: class %s's pod naming a role it lacks", t.Name, c), own(func(p *corev1.Pod) { p.Labels[keys.LabelRole] = "not-a-role" }), "pods", false)
				for _, r := range cls.Roles {
					if r.Spec.GPU == nil {
						add(fmt.Sprintf("%s: class %s's CPU role %s tolerating its GPU roles' taints", t.Name, c, r.Spec.Name), own(func(p *corev1.Pod) { p.Labels[keys.LabelRole] = r.Spec.Name }), "pods", false)
					}
				}
			}
			add(fmt.Sprintf("%s: class %s by another scheduler", t.Name, c), own(func(p *corev1.Pod) { p.Spec.SchedulerName = "not-" + p.Spec.SchedulerName }), "pods", false)
			add(fmt.Sprintf("%s: class %s tolerating everything", t.Name, c), own(func(p *corev1.Pod) {
				p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Operator: corev1.TolerationOpExists})
			}), "pods", false)
			if cls.Spec.GPU == nil {
				add(fmt.Sprintf("%s: CPU class %s requesting a GPU", t.Name, c), own(func(p *corev1.Pod) {
					p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}
				}), "pods", false)
				add(fmt.Sprintf("%s: CPU class %s tolerating nvidia.com/gpu", t.Name, c), own(func(p *corev1.Pod) {
					p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
				}), "pods", false)
			}
			if q := cls.WorkloadLabels[labelQueue]; q != "" {
				if !ml {
					w := ex.DeepCopyObject()
					w.(metav1.Object).SetNamespace(ns)
					labels := w.(metav1.Object).GetLabels()
					delete(labels, labelQueue)
					add(fmt.Sprintf("%s: queued class %s's %s without its queue", t.Name, c, res), w, res, false)
				}
				add(fmt.Sprintf("%s: queued class %s's bare pod without its queue", t.Name, c), own(func(p *corev1.Pod) { p.OwnerReferences = nil }), "pods", false)
				forgedCases(t.Name, c, cls, ns, own, q, as)
				add(fmt.Sprintf("%s: queued class %s's bare pod in its queue", t.Name, c), own(func(p *corev1.Pod) {
					p.OwnerReferences = nil
					p.Labels[labelQueue] = q
				}), "pods", true)
			}
		}
		add(t.Name+": a pod of a class it does not have", g.pod(&corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{labelClass: "not-" + t.Name}}, Spec: bare.Spec,
		}, ns, ""), "pods", false)
		add(t.Name+": a pod of no class requesting a GPU", g.pod(&corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "main", Image: "busybox", Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}},
		}}}}, ns, ""), "pods", false)
		for _, pl := range d.Pools {
			if len(pl.Taints) == 0 {
				continue
			}
			p := g.pod(bare, ns, "")
			p.Spec.Tolerations = append(p.Spec.Tolerations, tolerate(pl.Taints)...)
			p.Spec.NodeSelector = pl.Labels
			add(fmt.Sprintf("%s: a CPU pod of no class tolerating pool %s", t.Name, pl.Name), p, "pods", false)
			dep := &appsv1.Deployment{
				TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
				ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: ns},
				Spec:       appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: p.Spec}},
			}
			add(fmt.Sprintf("%s: a Deployment of no class tolerating pool %s", t.Name, pl.Name), dep, "deployments", false)
		}
		for _, pr := range d.Priorities {
			p := g.pod(bare, ns, "")
			p.Spec.PriorityClassName = pr.Name
			add(fmt.Sprintf("%s: a pod of no class at priority %s", t.Name, pr.Name), p, "pods", slices.Contains(prios, pr.Name))
		}
	}
	unownedCases(d, tr, g, func(name string, p *corev1.Pod, admit bool) { add(name, p, "pods", admit) })
	return out
}

// child is the workload an ML kind's controller makes of a role's
// template, as the API server sees it (a JobSet's Jobs, a
// LeaderWorkerSet's StatefulSets), owned by it or, for a hostile case,
// by nothing; nil for kinds whose controller makes pods.
func child(kind string, tpl corev1.PodTemplateSpec, ns string, owned bool) (runtime.Object, string) {
	meta := metav1.ObjectMeta{Name: "w", Namespace: ns}
	if owned {
		meta.OwnerReferences = []metav1.OwnerReference{{APIVersion: "x/v1", Kind: kind, Name: "w", UID: "u", Controller: ptr(true)}}
	}
	switch kind {
	case keys.KindJobSet:
		return &batchv1.Job{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"}, ObjectMeta: meta, Spec: batchv1.JobSpec{Template: tpl}}, "jobs"
	case keys.KindLeaderWorkerSet:
		return &appsv1.StatefulSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"}, ObjectMeta: meta, Spec: appsv1.StatefulSetSpec{Template: tpl}}, "statefulsets"
	}
	return nil, ""
}
