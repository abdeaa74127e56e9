package check

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestDeny(t *testing.T) {
	gpuNode := node(map[string]string{}, nil, "cpu=8,pods=10,nvidia.com/gpu=1")
	gpuNode.Status.Capacity = resources("nvidia.com/gpu=1")
	web := pod(corev1.PodSpec{Containers: []corev1.Container{container("cpu=1")}})
	cl := &Cluster{
		Pools:   []Pool{{Name: "gpu-spot", Spot: true, MaxNodes: 1, Nodes: []Node{{InstanceType: "t", Zone: "a", Node: gpuNode}}}},
		Classes: []Class{{Name: "web", Pod: web, Info: NewPodInfo(web), Pods: 1}},
	}
	cells := map[string]*Row{"web": NewRow([]Cell{Evaluate(&cl.Classes[0], &cl.Pools[0])})}
	in := Intent{OnDemandOnly: map[string]bool{"web": true}, Dedicated: map[string][]string{"gpu-spot": {"train"}}}
	var checks []string
	for _, f := range Deny(cl, cells, in) {
		checks = append(checks, string(f.Check))
	}
	if got := strings.Join(checks, ","); got != "CPUOnGPU,OnDemandOnSpot,Dedicated" {
		t.Fatalf("findings %s, want all three deny-side proofs", got)
	}
	// A MIG node advertises slices and no whole GPU; a GPU node the device
	// plugin misses advertises neither, but carries the product label.
	for name, n := range map[string]*corev1.Node{
		"MIG":       node(map[string]string{}, nil, "cpu=8,pods=10,nvidia.com/mig-1g.10gb=7"),
		"no plugin": node(map[string]string{"gpufleet.dev/gpu-product": "A100"}, nil, "cpu=8,pods=10"),
	} {
		n.Status.Capacity = n.Status.Allocatable.DeepCopy()
		mig := &Cluster{Pools: []Pool{{Name: "p", MaxNodes: 1, Nodes: []Node{{InstanceType: "t", Zone: "a", Node: n}}}}, Classes: cl.Classes}
		f := Deny(mig, map[string]*Row{"web": NewRow([]Cell{Evaluate(&mig.Classes[0], &mig.Pools[0])})}, Intent{})
		if len(f) != 1 || f[0].Check != IDCPUOnGPU {
			t.Errorf("%s pool: findings %v, want CPUOnGPU", name, f)
		}
	}
	// A MIG class on a MIG pool is not CPU-only.
	evalPod := pod(corev1.PodSpec{Containers: []corev1.Container{container("cpu=1,nvidia.com/mig-1g.10gb=1")}})
	migNode := node(map[string]string{}, nil, "cpu=8,pods=10,nvidia.com/mig-1g.10gb=7")
	migNode.Status.Capacity = migNode.Status.Allocatable.DeepCopy()
	migCl := &Cluster{Pools: []Pool{{Name: "p", MaxNodes: 1, Nodes: []Node{{InstanceType: "t", Zone: "a", Node: migNode}}}},
		Classes: []Class{{Name: "eval", Pod: evalPod, Info: NewPodInfo(evalPod), Pods: 1}}}
	if f := Deny(migCl, map[string]*Row{"eval": NewRow([]Cell{Evaluate(&migCl.Classes[0], &migCl.Pools[0])})}, Intent{}); len(f) != 0 {
		t.Errorf("MIG class on a MIG pool: %v", f)
	}
	// The same pool with the GPU taint keeps the CPU class off: no findings.
	gpuNode.Spec.Taints = []corev1.Taint{{Key: "nvidia.com/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}}
	cells["web"] = NewRow([]Cell{Evaluate(&cl.Classes[0], &cl.Pools[0])})
	if f := Deny(cl, cells, in); len(f) != 0 {
		t.Fatalf("tainted pool: %v", f)
	}
}

func TestQuota(t *testing.T) {
	train := pod(corev1.PodSpec{Containers: []corev1.Container{container("cpu=10,nvidia.com/gpu=8")}})
	cl := &Cluster{
		Pools:   []Pool{{Name: "p", MaxNodes: 2, Nodes: []Node{{Node: node(nil, nil, "cpu=96,nvidia.com/gpu=8,pods=100")}}}},
		Classes: []Class{{Name: "train", Pod: train, Info: NewPodInfo(train), Pods: 4, Gang: true}},
	}
	in := Intent{Tenants: []TenantIntent{{
		Name: "t", Classes: []string{"train"},
		Hard:    map[string]int64{"nvidia.com/gpu": 24000, "cpu": 100000},
		Nominal: map[string]int64{"nvidia.com/gpu": 16000},
	}}}
	f, commits := Quota(cl, in)
	if len(f) != 1 || !strings.Contains(f[0].Message, "nvidia.com/gpu needs 32, quota holds 24") || !strings.Contains(f[0].Message, "ExceedsMaxQuota") {
		t.Fatalf("got %v", f)
	}
	// 16 nominal GPUs against 2 nodes × 8.
	if commits[0].Resource != "nvidia.com/gpu" || commits[0].Ratio != 1 {
		t.Errorf("overcommit %+v, want nvidia.com/gpu ratio 1", commits[0])
	}
	in.Tenants[0].Hard["nvidia.com/gpu"] = 32000
	if f, _ := Quota(cl, in); len(f) != 0 {
		t.Fatalf("32 GPUs hold the gang: %v", f)
	}
}

func TestPriorityOrder(t *testing.T) {
	in := Intent{Priorities: map[string]PriorityIntent{
		"train": {Value: 100, Preempts: true, Batch: true},
		"infer": {Value: 10, Preempts: true},
		"dev":   {Value: 1, Preempts: false},
	}}
	f := PriorityOrder(in)
	if len(f) != 1 || f[0].Class != "train" || !strings.Contains(f[0].Message, "infer") {
		t.Fatalf("got %v, want one warning that train outranks infer", f)
	}
}
