package e2e

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/gpufleet/gpufleet/compiler/keys"
)

// mlPodsEmulated: the kinds whose operator e2e does not run (KubeRay's
// ray-operator, Kubeflow's training-operator): once Kueue admitted one,
// the harness makes its pods from the object's own pod templates, as
// Kueue left them on admission (each PodSet's node selector injected and
// the object unsuspended by its integration), one per replica, owned by
// the object as its operator's are. The operator's own additions (its
// containers' commands, ports, services) are not made; what Kueue and
// kube-scheduler do with the pods is what is judged.
func mlPodsEmulated(kind string) bool {
	return mlOperators[kind] != ""
}

// mlOperators are the operators' service accounts as their default
// installs run them (ray-operator v1.6.2 config/default: namespace
// default, ServiceAccount kuberay-operator; training-operator v1.9.3
// manifests/overlays/standalone: namespace kubeflow, ServiceAccount
// training-operator): the harness sends their pods as them, since the
// tree's admission policies take a controller ownerReference only from
// the controllers.
var mlOperators = map[string]string{
	keys.KindRayJob:     "system:serviceaccount:default:kuberay-operator",
	keys.KindRayCluster: "system:serviceaccount:default:kuberay-operator",
	keys.KindPyTorchJob: "system:serviceaccount:kubeflow:training-operator",
}

// mlTemplate is one role's pod template in an object of such a kind, the
// PodSet Kueue's integration names after it, and its replicas.
type mlTemplate struct {
	podSet   string
	replicas int64
	template map[string]any
}

// mlTemplates reads the roles' pod templates where each kind keeps them
// (ray-operator v1.6.2's RayClusterSpec: headGroupSpec, workerGroupSpecs;
// training-operator v1.9.3's pytorchReplicaSpecs), named as Kueue v0.19.2's
// integrations name their PodSets (pkg/controller/jobs/raycluster,
// rayjob: "head" and each group's name; kubeflow: the replica type in
// lower case).
func mlTemplates(kind string, obj map[string]any) ([]mlTemplate, error) {
	var out []mlTemplate
	if kind == keys.KindPyTorchJob {
		specs, _, err := unstructured.NestedMap(obj, "spec", "pytorchReplicaSpecs")
		if err != nil {
			return nil, err
		}
		for _, typ := range slices.Sorted(maps.Keys(specs)) {
			spec, _ := specs[typ].(map[string]any)
			n, ok, _ := unstructured.NestedInt64(spec, "replicas")
			if !ok {
				n = 1
			}
			tmpl, _, _ := unstructured.NestedMap(spec, "template")
			out = append(out, mlTemplate{podSet: strings.ToLower(typ), replicas: n, template: tmpl})
		}
		return out, nil
	}
	base := []string{"spec"}
	if kind == keys.KindRayJob {
		base = append(base, "rayClusterSpec")
	}
	head, _, err := unstructured.NestedMap(obj, append(slices.Clone(base), "headGroupSpec", "template")...)
	if err != nil {
		return nil, err
	}
	out = append(out, mlTemplate{podSet: "head", replicas: 1, template: head})
	groups, _, err := unstructured.NestedSlice(obj, append(slices.Clone(base), "workerGroupSpecs")...)
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		g, _ := g.(map[string]any)
		name, _, _ := unstructured.NestedString(g, "groupName")
		n, ok, _ := unstructured.NestedInt64(g, "replicas")
		if !ok {
			n = 1
		}
		tmpl, _, _ := unstructured.NestedMap(g, "template")
		out = append(out, mlTemplate{podSet: name, replicas: n, template: tmpl})
	}
	return out, nil
}

// mlSuspended reads the kind's suspend field.
func mlSuspended(kind string, obj map[string]any) bool {
	path := []string{"spec", "suspend"}
	if kind == keys.KindPyTorchJob {
		path = []string{"spec", "runPolicy", "suspend"}
	}
	s, _, _ := unstructured.NestedBool(obj, path...)
	return s
}

// mlEmulatePods waits until Kueue's integration has unsuspended the
// admitted object, then creates its pods from its templates, labelled
// with runLabel (what mlSelector selects them by) beside the template's
// own labels (gpufleet's role label among them, mlPodSet's).
func (fr *fleetRun) mlEmulatePods(dyn dynamic.Interface, s *submission) error {
	res := dyn.Resource(mlResources[s.kind]).Namespace(s.ns)
	var got *unstructured.Unstructured
	err := poll(30*time.Second, 200*time.Millisecond, func() (bool, error) {
		var err error
		got, err = res.Get(fr.ctx, s.name, metav1.GetOptions{})
		return err == nil && !mlSuspended(s.kind, got.Object), err
	})
	if err != nil {
		return fmt.Errorf("Kueue admitted %s %s/%s but its integration never unsuspended it: %w", s.kind, s.ns, s.name, err)
	}
	tmpls, err := mlTemplates(s.kind, got.Object)
	if err != nil {
		return err
	}
	op := rest.CopyConfig(fr.cp.Config)
	op.Impersonate = rest.ImpersonationConfig{UserName: mlOperators[s.kind], Groups: []string{"system:masters"}}
	client, err := kubernetes.NewForConfig(op)
	if err != nil {
		return err
	}
	yes := true
	owner := metav1.OwnerReference{APIVersion: got.GetAPIVersion(), Kind: got.GetKind(), Name: got.GetName(), UID: got.GetUID(), Controller: &yes}
	for _, t := range tmpls {
		var pt corev1.PodTemplateSpec
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(t.template, &pt); err != nil {
			return fmt.Errorf("%s %s's pod template %s: %w", s.kind, s.name, t.podSet, err)
		}
		for i := range t.replicas {
			p := &corev1.Pod{ObjectMeta: *pt.ObjectMeta.DeepCopy(), Spec: *pt.Spec.DeepCopy()}
			p.Name = fmt.Sprintf("%s-%s-%d", s.name, strings.ToLower(t.podSet), i)
			p.Namespace = s.ns
			p.Labels = withOwn(p.Labels, s.name)
			p.OwnerReferences = []metav1.OwnerReference{owner}
			if _, err := client.CoreV1().Pods(s.ns).Create(fr.ctx, p, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("pod %s of %s %s: %w", p.Name, s.kind, s.name, err)
			}
		}
	}
	return nil
}
