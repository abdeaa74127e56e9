package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/gpufleet/gpufleet/internal/upstream"
)

// Kueue v0.19.2's queue label, and the gate its pod webhook holds a
// queued pod with until Kueue admits its Workload.
const (
	kueueQueueLabel    = "kueue.x-k8s.io/queue-name"
	kueueAdmissionGate = "kueue.x-k8s.io/admission"
)

// gated: Kueue holds the pod until it admits its Workload.
func gated(p *corev1.Pod) bool {
	for _, g := range p.Spec.SchedulingGates {
		if g.Name == kueueAdmissionGate {
			return true
		}
	}
	return false
}

// kueueFrameworks are the integrations the harness runs: Jobs, and the
// StatefulSets and Deployments whose pods Kueue's pod integration admits
// (both require it); and the ML kinds whose Workloads Kueue makes
// (mlAdmitted; a LeaderWorkerSet's pods through the pod integration too),
// their CRDs installed before Kueue starts, as its integrations require.
var kueueFrameworks = []string{"batch/job", "pod", "deployment", "statefulset",
	"jobset.x-k8s.io/jobset", "leaderworkerset.x-k8s.io/leaderworkerset", "ray.io/rayjob", "ray.io/raycluster", "kubeflow.org/pytorchjob", "trainer.kubeflow.org/trainjob"}

// kueueWebhookResources are what those integrations' webhooks act on.
// Kueue's own objects' webhooks are kept too (kueue.x-k8s.io).
var kueueWebhookResources = []string{"jobs", "pods", "deployments", "statefulsets", "jobsets", "leaderworkersets", "rayjobs", "rayclusters", "pytorchjobs", "trainjobs"}

// unmanagedNamespaces are where Kueue manages nothing, as its kustomize
// config excludes them from the integrations' webhooks: the manager's own
// configuration says the same (managedJobsNamespaceSelector).
var unmanagedNamespaces = []string{"kube-system", "kueue-system"}

// kueueWebhookPrefix makes the configurations' names those of a real
// install (config/default's namePrefix).
const kueueWebhookPrefix = "kueue-"

// kueueWebhooks builds Kueue's webhook configurations as a real install
// has them (`kustomize build` of the pinned module's
// config/components/webhook, whose patches add the integrations'
// namespaceSelector), keeping the webhooks of the integrations in use and
// of Kueue's objects, each calling the manager's webhook server on
// 127.0.0.1:port, which serves the certificate caPEM.
func kueueWebhooks(port int, caPEM []byte) (*admissionv1.MutatingWebhookConfiguration, *admissionv1.ValidatingWebhookConfiguration, error) {
	file, err := upstream.Kueue.File(upstream.KueueWebhooks)
	if err != nil {
		return nil, nil, err
	}
	mut, val, err := webhookConfigs(filepath.Dir(file))
	if err != nil {
		return nil, nil, err
	}
	// Each webhook calls the manager on loopback, not its Service; an
	// integration's must spare the namespaces the manager does not manage.
	point := func(cc *admissionv1.WebhookClientConfig, rules []admissionv1.RuleWithOperations, nsSel *metav1.LabelSelector, name string) error {
		if cc.Service == nil || cc.Service.Path == nil {
			return fmt.Errorf("Kueue's webhook %s calls no service path", name)
		}
		url := fmt.Sprintf("https://127.0.0.1:%d%s", port, *cc.Service.Path)
		*cc = admissionv1.WebhookClientConfig{URL: &url, CABundle: caPEM}
		if integration(rules) && !spares(nsSel) {
			return fmt.Errorf("Kueue's webhook %s has namespaceSelector %v, not NotIn %v as managedJobsNamespaceSelector", name, nsSel, unmanagedNamespaces)
		}
		return nil
	}
	mut.ObjectMeta = metav1.ObjectMeta{Name: kueueWebhookPrefix + mut.Name}
	mut.Webhooks = slices.DeleteFunc(mut.Webhooks, func(w admissionv1.MutatingWebhook) bool { return !inUse(w.Rules) })
	for i := range mut.Webhooks {
		w := &mut.Webhooks[i]
		if err := point(&w.ClientConfig, w.Rules, w.NamespaceSelector, w.Name); err != nil {
			return nil, nil, err
		}
	}
	val.ObjectMeta = metav1.ObjectMeta{Name: kueueWebhookPrefix + val.Name}
	val.Webhooks = slices.DeleteFunc(val.Webhooks, func(w admissionv1.ValidatingWebhook) bool { return !inUse(w.Rules) })
	for i := range val.Webhooks {
		w := &val.Webhooks[i]
		if err := point(&w.ClientConfig, w.Rules, w.NamespaceSelector, w.Name); err != nil {
			return nil, nil, err
		}
	}
	return mut, val, nil
}

// webhookConfigs is `kustomize build` of the kustomization in dir (a
// module's webhook component), krusty in-process: its one
// MutatingWebhookConfiguration and one ValidatingWebhookConfiguration.
func webhookConfigs(dir string) (*admissionv1.MutatingWebhookConfiguration, *admissionv1.ValidatingWebhookConfiguration, error) {
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, nil, fmt.Errorf("kustomize build of %s: %w", dir, err)
	}
	var mut *admissionv1.MutatingWebhookConfiguration
	var val *admissionv1.ValidatingWebhookConfiguration
	for _, r := range m.Resources() {
		obj, err := r.Map()
		if err != nil {
			return nil, nil, err
		}
		switch r.GetKind() {
		case "MutatingWebhookConfiguration":
			mut = &admissionv1.MutatingWebhookConfiguration{}
			err = runtime.DefaultUnstructuredConverter.FromUnstructured(obj, mut)
		case "ValidatingWebhookConfiguration":
			val = &admissionv1.ValidatingWebhookConfiguration{}
			err = runtime.DefaultUnstructuredConverter.FromUnstructured(obj, val)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if mut == nil || val == nil {
		return nil, nil, fmt.Errorf("kustomize build of %s: no webhook configurations", dir)
	}
	return mut, val, nil
}

// inUse: a webhook of Kueue's own objects or of an integration in use.
func inUse(rules []admissionv1.RuleWithOperations) bool {
	for _, r := range rules {
		if slices.Contains(r.APIGroups, "kueue.x-k8s.io") {
			return true
		}
	}
	return integration(rules)
}

func integration(rules []admissionv1.RuleWithOperations) bool {
	for _, r := range rules {
		for _, res := range r.Resources {
			if slices.Contains(kueueWebhookResources, res) {
				return true
			}
		}
	}
	return false
}

// spares: the selector leaves out exactly unmanagedNamespaces by name.
func spares(sel *metav1.LabelSelector) bool {
	if sel == nil || len(sel.MatchLabels) > 0 || len(sel.MatchExpressions) != 1 {
		return false
	}
	e := sel.MatchExpressions[0]
	return e.Key == corev1.LabelMetadataName && e.Operator == metav1.LabelSelectorOpNotIn && slices.Equal(slices.Sorted(slices.Values(e.Values)), unmanagedNamespaces)
}

// registerWebhooks puts Kueue's webhook configurations in place, pointed
// at the running manager, and waits until kube-apiserver calls them: a
// dry-run pod with a queue name must come back gated.
func (cp *ControlPlane) registerWebhooks(ctx context.Context, port int, caPEM []byte) error {
	mut, val, err := kueueWebhooks(port, caPEM)
	if err != nil {
		return err
	}
	ar := cp.Client.AdmissionregistrationV1()
	if err := cp.unregisterWebhooks(ctx); err != nil {
		return err
	}
	if _, err := ar.MutatingWebhookConfigurations().Create(ctx, mut, metav1.CreateOptions{}); err != nil {
		return err
	}
	if _, err := ar.ValidatingWebhookConfigurations().Create(ctx, val, metav1.CreateOptions{}); err != nil {
		return err
	}
	probe := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "kueue-webhook-probe", Namespace: "default", Labels: map[string]string{kueueQueueLabel: "probe"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10"}}},
	}
	var last error
	err = poll(60*time.Second, 250*time.Millisecond, func() (bool, error) {
		got, err := cp.Client.CoreV1().Pods("default").Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			last = err // the service account, or the webhook, not there yet
			return false, nil
		}
		last = fmt.Errorf("the pod came back ungated: %v", got.Spec.SchedulingGates)
		return gated(got), nil
	})
	if err != nil {
		return fmt.Errorf("Kueue's pod webhook never answered: %w (last: %v)", err, last)
	}
	return nil
}

// unregisterWebhooks removes them, so that no create waits on a manager
// that is gone.
func (cp *ControlPlane) unregisterWebhooks(ctx context.Context) error {
	ar := cp.Client.AdmissionregistrationV1()
	for _, err := range []error{
		ar.MutatingWebhookConfigurations().Delete(ctx, kueueWebhookPrefix+"mutating-webhook-configuration", metav1.DeleteOptions{}),
		ar.ValidatingWebhookConfigurations().Delete(ctx, kueueWebhookPrefix+"validating-webhook-configuration", metav1.DeleteOptions{}),
	} {
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}
