package check_test

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

func infoNode(typ string, labels map[string]string) sched.Node {
	return sched.Node{InstanceType: typ, Node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: labels}}}
}

// A pool's head on the page is what its synthesised nodes say: the
// product and GPUs per node from their labels, each type once, and the
// size from the node group.
func TestPoolInfos(t *testing.T) {
	h100 := map[string]string{"gpufleet.dev/gpu-product": "H100", "gpufleet.dev/gpu-count": "8"}
	for _, tc := range []struct {
		name string
		pool sched.Pool
		want check.PoolInfo
	}{{
		name: "GPU pool, one type in two zones",
		pool: sched.Pool{Name: "h100", Standing: 1, MaxNodes: 6, Nodes: []sched.Node{infoNode("p5.48xlarge", h100), infoNode("p5.48xlarge", h100)}},
		want: check.PoolInfo{Pool: "h100", Product: "H100", Types: []check.PoolType{{Type: "p5.48xlarge", GPUs: 8}}, Min: 1, Max: 6},
	}, {
		name: "spot CPU pool of two types",
		pool: sched.Pool{Name: "cpu", Spot: true, MaxNodes: 10, Nodes: []sched.Node{infoNode("m7i.xlarge", nil), infoNode("m6i.xlarge", nil)}},
		want: check.PoolInfo{Pool: "cpu", Spot: true, Types: []check.PoolType{{Type: "m7i.xlarge"}, {Type: "m6i.xlarge"}}, Max: 10},
	}, {
		name: "a live pool: no synthesised node",
		pool: sched.Pool{Name: "live", MaxNodes: 3},
		want: check.PoolInfo{Pool: "live", Types: []check.PoolType{}, Max: 3},
	}} {
		got := check.PoolInfos(&sched.Cluster{Pools: []sched.Pool{tc.pool}})
		if len(got) != 1 || !reflect.DeepEqual(got[0], tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
