package queueing

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/internal/checktest"
	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// A quota scoped to a queued class's priority, below what its ClusterQueue
// may admit, is warned of; Kueue does not see it.
func TestKueuePriorityQuota(t *testing.T) {
	checkQuotas(t, KueuePriorityQuota, IDKueuePriorityQuota, []quotaCase{
		{"priority quota of a queued class warns", []string{checktest.ClusterQueue("a", "", `nominalQuota: "8"`)},
			[]string{rq("ns1", "gpufleet", `requests.nvidia.com/gpu: "8"`, ""), rq("ns1", "gpufleet-batch", `requests.nvidia.com/gpu: "4"`, "batch")},
			[]string{"warning: ClusterQueue a may admit up to 8 nvidia.com/gpu of class train (priority batch), but ResourceQuota gpufleet-batch in namespace ns1 allows 4 requests.nvidia.com/gpu at that priority"}},
		{"priority quota of another priority", []string{checktest.ClusterQueue("a", "", `nominalQuota: "8"`)},
			[]string{rq("ns1", "gpufleet-dev", `requests.nvidia.com/gpu: "1"`, "dev")}, nil},
		{"an unscoped quota is KueueResourceQuota's", []string{checktest.ClusterQueue("a", "", `nominalQuota: "8"`)},
			[]string{rq("ns1", "gpufleet", `requests.nvidia.com/gpu: "6"`, "")}, nil},
		{"a short unscoped quota first hides the namespace's scoped ones", []string{checktest.ClusterQueue("a", "", `nominalQuota: "8"`)},
			[]string{rq("ns1", "gpufleet", `requests.nvidia.com/gpu: "6"`, ""), rq("ns1", "gpufleet-batch", `requests.nvidia.com/gpu: "4"`, "batch")}, nil},
	})
}

// A class that asks for none of what the scoped quota is short of never
// meets it: a CPU class under a GPU cap is not warned of.
func TestKueuePriorityQuotaOnlyWhatTheClassAsks(t *testing.T) {
	tr := tree.Tree{tree.KueueFlavorsPath: []byte(checktest.KueueFlavor), tree.KueueQueuesPath: []byte(checktest.ClusterQueue("a", "", `nominalQuota: "8"`)),
		"tenants/a/" + tree.ResourceQuotasFile: []byte(rq("ns1", "gpufleet-batch", `requests.nvidia.com/gpu: "4"`, "batch"))}
	m, err := kueuemodel.New(tree.Bytes(tr))
	if err != nil {
		t.Fatal(err)
	}
	q := kueuemodel.Queue{Tenant: "a", ClusterQueue: "a", Namespaces: []string{"ns1"}, Classes: []string{"web", "train"}}
	web := &sched.Class{Name: "web", Pod: &corev1.Pod{Spec: corev1.PodSpec{PriorityClassName: "batch"}}}
	train := &sched.Class{Name: "train", Pod: &corev1.Pod{Spec: corev1.PodSpec{PriorityClassName: "batch"}}}
	found := KueuePriorityQuota(&check.Admission{Queue: q, CQ: m.Queues["a"], Model: m, Classes: []check.Queued{
		{Class: web, Request: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
		{Class: train, Request: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}},
	}})
	if len(found) != 1 || found[0].Class != "train" {
		t.Errorf("findings %+v, want one, of class train", found)
	}
}
