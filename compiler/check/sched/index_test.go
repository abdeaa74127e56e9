package sched

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The index reads the nodes' labels by the keys selectors ask for, not
// all of them: live nodes with 300 labels each made check --nodes 4.5
// times the decode of their file when every label was indexed (issue 51).
// Its answers are the same either way.
func TestIndexKeysOnDemand(t *testing.T) {
	var pools []Pool
	for i := range 4 {
		labels := map[string]string{"gpufleet.dev/pool": fmt.Sprint("p", i)}
		for j := range 300 {
			labels[fmt.Sprint("example.com/label-", j)] = fmt.Sprint(i, "-", j)
		}
		pools = append(pools, Pool{Name: fmt.Sprint("p", i), Nodes: []Node{{Node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("n", i), Labels: labels}}}}})
	}
	x := NewIndex(pools)
	pod := &corev1.Pod{Spec: corev1.PodSpec{NodeSelector: map[string]string{"gpufleet.dev/pool": "p2"}}}
	var got []int
	x.candidates(pod).each(func(j int) { got = append(got, j) })
	if fmt.Sprint(got) != "[2]" {
		t.Errorf("candidates %v, want [2]", got)
	}
	keys := 0
	x.keys.Range(func(any, any) bool { keys++; return true })
	if keys != 1 {
		t.Errorf("the index read %d label keys for a selector on one", keys)
	}
}
