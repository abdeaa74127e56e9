package render_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// TestCompanions: every StatefulSet example names a headless Service the
// example carries, and every serving example of several replicas carries a
// PodDisruptionBudget; each selects exactly the workload's pods.
func TestCompanions(t *testing.T) {
	var services, budgets int
	for name, f := range renderedFleets(t) {
		for _, c := range f.D.Classes {
			docs := tree.Docs(f.Tree[tree.ClassExample(c.Name)])
			var podLabels map[string]string
			var replicas int32
			var serviceName string
			switch c.Spec.Kind {
			case keys.KindDeployment:
				var d appsv1.Deployment
				mustDecode(t, docs[0], &d)
				podLabels, replicas = d.Spec.Template.Labels, *d.Spec.Replicas
			case keys.KindStatefulSet:
				var s appsv1.StatefulSet
				mustDecode(t, docs[0], &s)
				podLabels, replicas, serviceName = s.Spec.Template.Labels, *s.Spec.Replicas, s.Spec.ServiceName
			default:
				if len(docs) != 1 {
					t.Errorf("%s/%s: a Job's example has %d documents, want 1", name, c.Name, len(docs))
				}
				continue
			}
			var gotService, gotBudget bool
			for _, doc := range docs[1:] {
				kind, _ := tree.Kind(doc)
				switch kind {
				case "Service":
					var s corev1.Service
					mustDecode(t, doc, &s)
					gotService = true
					if s.Name != serviceName || s.Spec.ClusterIP != corev1.ClusterIPNone || !labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(podLabels)) {
						t.Errorf("%s/%s: Service %s (clusterIP %q, selector %v) is not the headless Service %q of pods %v", name, c.Name, s.Name, s.Spec.ClusterIP, s.Spec.Selector, serviceName, podLabels)
					}
				case "PodDisruptionBudget":
					var b policyv1.PodDisruptionBudget
					mustDecode(t, doc, &b)
					gotBudget = true
					sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
					if err != nil || !sel.Matches(labels.Set(podLabels)) {
						t.Errorf("%s/%s: budget selector %v does not select pods %v", name, c.Name, b.Spec.Selector, podLabels)
					}
					if mu := b.Spec.MaxUnavailable.IntValue(); mu < 1 || int32(mu) >= replicas {
						t.Errorf("%s/%s: maxUnavailable %d of %d replicas", name, c.Name, mu, replicas)
					}
				default:
					t.Errorf("%s/%s: unexpected %s in the example", name, c.Name, kind)
				}
			}
			if gotService != (serviceName != "") {
				t.Errorf("%s/%s: headless Service %v, serviceName %q", name, c.Name, gotService, serviceName)
			}
			if gotBudget != (replicas > 1) {
				t.Errorf("%s/%s: PodDisruptionBudget %v with %d replicas", name, c.Name, gotBudget, replicas)
			}
			if gotService {
				services++
			}
			if gotBudget {
				budgets++
			}
		}
	}
	if services == 0 || budgets == 0 {
		t.Errorf("examples hold %d headless Services and %d budgets: the test checked nothing", services, budgets)
	}
}

func mustDecode(t *testing.T, doc []byte, v any) {
	t.Helper()
	if err := tree.Decode(doc, v); err != nil {
		t.Fatal(err)
	}
}
