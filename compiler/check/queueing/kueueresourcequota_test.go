package queueing

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/internal/checktest"
	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

func rq(ns, name, hard, scope string) string {
	s := "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: " + name + ", namespace: " + ns + "}\nspec:\n  hard: {" + hard + "}\n"
	if scope != "" {
		s += "  scopeSelector: {matchExpressions: [{operator: In, scopeName: PriorityClass, values: [" + scope + "]}]}\n"
	}
	return s
}

// quotaCase is a tenant "a" with namespaces ns1 and ns2 queueing class
// train (priority batch) through ClusterQueue a, and the findings of the
// check, as "<severity>: <message fragment>", in order.
type quotaCase struct {
	name   string
	queues []string
	quotas []string
	want   []string
}

// checkQuotas runs a Kueue check on each case's ClusterQueues and the
// namespaces' ResourceQuotas.
func checkQuotas(t *testing.T, run func(*check.Admission) []check.Finding, id check.ID, cases []quotaCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := tree.Tree{tree.KueueFlavorsPath: []byte(checktest.KueueFlavor), tree.KueueQueuesPath: []byte(strings.Join(tc.queues, "---\n")),
				"tenants/a/" + tree.ResourceQuotasFile: []byte(strings.Join(tc.quotas, "---\n"))}
			m, err := kueuemodel.New(tree.Bytes(tr))
			if err != nil {
				t.Fatal(err)
			}
			train := &sched.Class{Name: "train", Pod: &corev1.Pod{Spec: corev1.PodSpec{PriorityClassName: "batch"}}}
			q := kueuemodel.Queue{Tenant: "a", ClusterQueue: "a", Namespaces: []string{"ns1", "ns2"}, Classes: []string{"train"}}
			gpu := corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}
			found := run(&check.Admission{Queue: q, CQ: m.Queues["a"], Model: m, Classes: []check.Queued{{Class: train, Request: gpu}}})
			if len(found) != min(len(tc.want), 1) {
				t.Fatalf("findings %+v, want %q", found, tc.want)
			}
			for _, f := range found {
				if f.Check != id {
					t.Errorf("finding of check %s, want %s", f.Check, id)
				}
				got := f.Severity + ": " + strings.TrimPrefix(f.Message, "tenant a: ")
				for _, w := range tc.want {
					if !strings.Contains(got, w) {
						t.Errorf("got %q\nwant it to contain %q", got, w)
					}
				}
			}
		})
	}
}

// A namespace's ResourceQuota must allow all that its tenant's
// ClusterQueue may admit: nominal quota plus what it may borrow.
func TestKueueResourceQuota(t *testing.T) {
	checkQuotas(t, KueueResourceQuota, IDKueueResourceQuota, []quotaCase{
		{"quota equals nominal", []string{checktest.ClusterQueue("a", "", `nominalQuota: "8"`)},
			[]string{rq("ns1", "gpufleet", `requests.nvidia.com/gpu: "8"`, "")}, nil},
		{"quota below nominal", []string{checktest.ClusterQueue("a", "", `nominalQuota: "8"`)},
			[]string{rq("ns1", "gpufleet", `requests.nvidia.com/gpu: "6"`, "")},
			[]string{"error: ClusterQueue a may admit up to 8 nvidia.com/gpu (nominal quota plus what it may borrow, over all its flavors), but ResourceQuota gpufleet in namespace ns1 allows 6 requests.nvidia.com/gpu"}},
		{"second namespace checked too", []string{checktest.ClusterQueue("a", "", `nominalQuota: "8"`)},
			[]string{rq("ns1", "gpufleet", `requests.nvidia.com/gpu: "8"`, ""), rq("ns2", "gpufleet", `requests.nvidia.com/gpu: "7"`, "")},
			[]string{"error: ClusterQueue a may admit up to 8 nvidia.com/gpu", "namespace ns2 allows 7"}},
		{"one error for all namespaces", []string{checktest.ClusterQueue("a", "", `nominalQuota: "8"`)},
			[]string{rq("ns1", "gpufleet", `requests.nvidia.com/gpu: "6"`, ""), rq("ns2", "gpufleet", `requests.nvidia.com/gpu: "6"`, "")},
			[]string{"namespace ns1 allows 6", "queue's quota (and in 1 more of its namespaces)"}},
		{"borrowing counts", []string{checktest.ClusterQueue("a", "c", `nominalQuota: "8", borrowingLimit: "4"`), checktest.ClusterQueue("b", "c", `nominalQuota: "8"`)},
			[]string{rq("ns1", "gpufleet", `requests.nvidia.com/gpu: "10"`, "")},
			[]string{"error: ClusterQueue a may admit up to 12 nvidia.com/gpu"}},
		{"borrowing within the quota", []string{checktest.ClusterQueue("a", "c", `nominalQuota: "8", borrowingLimit: "4"`), checktest.ClusterQueue("b", "c", `nominalQuota: "8"`)},
			[]string{rq("ns1", "gpufleet", `requests.nvidia.com/gpu: "12"`, "")}, nil},
		{"no borrowingLimit borrows what the cohort lends", []string{checktest.ClusterQueue("a", "c", `nominalQuota: "8"`), checktest.ClusterQueue("b", "c", `nominalQuota: "8", lendingLimit: "2"`)},
			[]string{rq("ns1", "gpufleet", `requests.nvidia.com/gpu: "8"`, "")},
			[]string{"error: ClusterQueue a may admit up to 10 nvidia.com/gpu"}},
		{"an unlimited resource", []string{checktest.ClusterQueue("a", "", `nominalQuota: "8"`)},
			[]string{rq("ns1", "gpufleet", `requests.cpu: "1"`, "")}, nil},
		{"a quota scoped to its priority is KueuePriorityQuota's", []string{checktest.ClusterQueue("a", "", `nominalQuota: "8"`)},
			[]string{rq("ns1", "gpufleet-batch", `requests.nvidia.com/gpu: "4"`, "batch")}, nil},
	})
}
