package compiler_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check/readback"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/drift"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/wire/dradriver"
)

// On the nodes the pools launch, one of each type and zone, check --nodes
// gives every cell the verdict and reasons check gives it at max size.
func TestCheckLiveSameVerdicts(t *testing.T) {
	for _, dir := range exampleFleets(t) {
		res, err := compiler.Compile([]string{dir})
		if err != nil {
			t.Fatal(err)
		}
		cl, err := res.Cluster()
		if err != nil {
			t.Fatal(err)
		}
		launched := drift.Launched(cl)
		rep, err := res.CheckLive(launched, draPluginPods(launched))
		if err != nil {
			t.Fatal(err)
		}
		got, atMax := rep.AllCells(), res.Report.AllCells()
		if len(got) != len(atMax) {
			t.Fatalf("%s: %d cells, want %d", dir, len(got), len(atMax))
		}
		for i, c := range got {
			want := atMax[i]
			if c.Class != want.Class || c.Pool != want.Pool || c.Fits != want.Fits || !slices.Equal(c.Reasons, want.Reasons) {
				t.Errorf("%s: live %+v, at max size %+v", dir, c, want)
			}
		}
	}
}

// Pods bound to a node take what they request off it; a pool with no
// live nodes hosts nothing, in kube-scheduler's words.
func TestCheckLivePods(t *testing.T) {
	res, err := compiler.Compile([]string{"../fleets/platform"})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := res.Cluster()
	if err != nil {
		t.Fatal(err)
	}
	all := drift.Launched(cl)
	// The first class that fits somewhere, on that pool's nodes only,
	// each filled by a pod requesting all it has.
	cells := res.Report.AllCells()
	cell := cells[slices.IndexFunc(cells, func(c sched.Cell) bool { return c.Fits })]
	var live []corev1.Node
	var pods []corev1.Pod
	for _, n := range all {
		if n.Labels[keys.LabelPool] != cell.Pool {
			continue
		}
		live = append(live, n)
		req := corev1.ResourceList{}
		for r, q := range n.Status.Allocatable {
			if r != corev1.ResourcePods {
				req[r] = q
			}
		}
		pods = append(pods, corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "hog-" + n.Name, Namespace: "x"},
			Spec:       corev1.PodSpec{NodeName: n.Name, Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: req}}}},
		})
	}
	free, err := res.CheckLive(live, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := free.Cell(cell.Class, cell.Pool); !c.Fits {
		t.Fatalf("%s on %s's own nodes: %+v", cell.Class, cell.Pool, c)
	}
	for _, p := range free.Pools {
		if p != cell.Pool {
			if c := free.Cell(cell.Class, p); c.Fits || !slices.Equal(c.Reasons, []string{sched.ErrReasonNoNodes}) {
				t.Errorf("pool %s has no nodes: %+v", p, c)
			}
		}
	}
	full, err := res.CheckLive(live, pods)
	if err != nil {
		t.Fatal(err)
	}
	c := full.Cell(cell.Class, cell.Pool)
	if c.Fits || len(c.Reasons) == 0 {
		t.Fatalf("%s fits on full nodes: %+v", cell.Class, c)
	}
	for _, r := range c.Reasons {
		if len(r) < 12 || r[:12] != "Insufficient" {
			t.Errorf("reason %q, want Insufficient ...", r)
		}
	}
	// Finished pods hold nothing.
	for i := range pods {
		pods[i].Status.Phase = corev1.PodSucceeded
	}
	if done, _ := res.CheckLive(live, pods); !done.Cell(cell.Class, cell.Pool).Fits {
		t.Errorf("succeeded pods still hold their requests")
	}
}

// draPluginPods are the DRA driver's kubelet plugin pods on the DRA nodes,
// as kubectl get pods lists them: live DRA nodes publish devices only
// where one runs.
func draPluginPods(nodes []corev1.Node) []corev1.Pod {
	var out []corev1.Pod
	yes := true
	for _, n := range nodes {
		if n.Labels[keys.LabelGPUAPI] != spec.GPUAPIDRA {
			continue
		}
		out = append(out, corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: readback.DRAKubeletPlugin + "-" + n.Name, Namespace: dradriver.Namespace,
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: readback.DRAKubeletPlugin, Controller: &yes}}},
			Spec:   corev1.PodSpec{NodeName: n.Name},
			Status: corev1.PodStatus{Phase: corev1.PodRunning},
		})
	}
	return out
}
