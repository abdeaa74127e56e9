package scheduling

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/internal/checktest"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// The tree's scheduler must fit some pool: with every pool tainted and no
// toleration, it fits none, in kube-scheduler's words.
func TestSystemLands(t *testing.T) {
	gpuTaint := []corev1.Taint{{Key: keys.TaintGPU, Value: "true", Effect: corev1.TaintEffectNoSchedule}}
	node := func(taints []corev1.Taint) sched.Node {
		return sched.Node{InstanceType: "t", Zone: "a", Node: checktest.Node(map[string]string{corev1.LabelOSStable: "linux"}, taints, "cpu=4,memory=16Gi,pods=110")}
	}
	tolerates := []corev1.Toleration{{Key: keys.TaintGPU, Operator: corev1.TolerationOpEqual, Value: "true", Effect: corev1.TaintEffectNoSchedule}}
	for _, tc := range []struct {
		name        string
		taints      [][]corev1.Taint
		tolerations []corev1.Toleration
		want        string
	}{
		{"an untainted pool", [][]corev1.Taint{gpuTaint, nil}, nil, ""},
		{"every pool tainted", [][]corev1.Taint{gpuTaint, gpuTaint}, nil,
			"the tree's own Deployment gpufleet-system/gpufleet-scheduler fits no node: 0/2 pools can host it: 2 node(s) had untolerated taint(s); no pod of a class with a schedulerProfile is ever scheduled: mark a pool whose nodes may run it system: true"},
		{"a system pool's taints tolerated", [][]corev1.Taint{gpuTaint, gpuTaint}, tolerates, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := &sched.Cluster{}
			for i, ts := range tc.taints {
				cl.Pools = append(cl.Pools, sched.Pool{Name: string(rune('a' + i)), MaxNodes: 1, Nodes: []sched.Node{node(ts)}})
			}
			p := checktest.Pod(corev1.PodSpec{NodeSelector: map[string]string{corev1.LabelOSStable: "linux"}, Tolerations: tc.tolerations,
				Containers: []corev1.Container{checktest.Container("cpu=100m,memory=128Mi")}})
			cl.System = []sched.Class{{Name: "gpufleet-system/gpufleet-scheduler", Pod: p, Info: sched.NewPodInfo(p), Pods: 1}}
			var got []string
			for _, f := range SystemLands(cl, nil, check.Intent{}) {
				got = append(got, f.Message)
			}
			if strings.Join(got, "\n") != tc.want {
				t.Errorf("findings %q, want %q", got, tc.want)
			}
		})
	}
}
