package readback

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check/internal/checktest"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// eksctl's EFA device plugin runs on the EFA instance types it lists, where
// it tolerates every taint; a node it misses offers no EFA interfaces, and
// its pool records why.
func TestEFAPluginReach(t *testing.T) {
	p4d := map[string]string{"node.kubernetes.io/instance-type": "p4d.24xlarge"}
	efaTaint := corev1.Taint{Key: "aws.amazon.com/efa", Value: "true", Effect: corev1.TaintEffectNoSchedule}
	for _, tc := range []struct {
		name   string
		labels map[string]string
		taints []corev1.Taint
		alloc  string
		why    string // why the plugin does not run there; "" where it does
		efa    bool   // EFA interfaces left on the node
	}{
		{"EFA taint tolerated", p4d, []corev1.Taint{efaTaint}, "vpc.amazonaws.com/efa=4", "", true},
		{"GPU taint not tolerated", p4d, []corev1.Taint{efaTaint, {Key: "nvidia.com/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}}, "vpc.amazonaws.com/efa=4",
			"node(s) had untolerated taint {nvidia.com/gpu: true}", false},
		{"spot taint not tolerated", p4d, []corev1.Taint{{Key: "gpufleet.dev/spot", Value: "true", Effect: corev1.TaintEffectNoSchedule}}, "vpc.amazonaws.com/efa=4",
			"node(s) had untolerated taint {gpufleet.dev/spot: true}", false},
		{"a PreferNoSchedule taint does not keep it off", p4d, []corev1.Taint{{Key: "x", Effect: corev1.TaintEffectPreferNoSchedule}}, "vpc.amazonaws.com/efa=4", "", true},
		{"the DaemonSet controller's tolerations count", p4d, []corev1.Taint{{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}}, "vpc.amazonaws.com/efa=4", "", true},
		{"a type eksctl does not list", map[string]string{"node.kubernetes.io/instance-type": "g6.xlarge"}, nil, "vpc.amazonaws.com/efa=1",
			sched.ErrReasonNodeAffinity, false},
		{"EKS Auto Mode nodes are excluded", map[string]string{"node.kubernetes.io/instance-type": "p4d.24xlarge", "eks.amazonaws.com/compute-type": "auto"}, nil, "vpc.amazonaws.com/efa=4",
			sched.ErrReasonNodeAffinity, false},
		{"nodes without EFA are not its concern", map[string]string{"node.kubernetes.io/instance-type": "g6.xlarge"}, []corev1.Taint{{Key: "nvidia.com/gpu", Effect: corev1.TaintEffectNoSchedule}}, "nvidia.com/gpu=1", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := checktest.Node(tc.labels, tc.taints, tc.alloc)
			n.Status.Capacity = n.Status.Allocatable.DeepCopy()
			cl := &sched.Cluster{Pools: []sched.Pool{{Name: "p", Nodes: []sched.Node{{Node: n}}}}}
			withEFAPlugin(cl)
			if got := cl.Pools[0].NoEFAPlugin; got != tc.why {
				t.Errorf("pool: no EFA plugin %q, want %q", got, tc.why)
			}
			_, capacity := n.Status.Capacity["vpc.amazonaws.com/efa"]
			_, alloc := n.Status.Allocatable["vpc.amazonaws.com/efa"]
			if capacity != tc.efa || alloc != tc.efa {
				t.Errorf("EFA left in capacity %v, allocatable %v; want %v", capacity, alloc, tc.efa)
			}
		})
	}
}
