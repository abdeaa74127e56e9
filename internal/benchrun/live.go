package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/drift"
)

// The live paths: 'gpufleet check --nodes --pods' and 'gpufleet drift' on
// a cluster's files, against decoding the same files with encoding/json
// into a NodeList and a PodList (benchrun -decode, a process of its own),
// which any reader of them must do: the floor. Nodes are the ones an
// example fleet's pools launch (drift.Launched), copied under new names;
// each node runs podsPerNode small pods.
const (
	liveFleet   = "fleets/platform"
	podsPerNode = 30
	checkNodes  = 5000
)

// driftNodes are the node counts drift is timed at, for its growth.
var driftNodes = []int{1000, 5000, 10000, 100000}

// live times the live paths and prints a line each, then drift's growth.
// The files are written by a process of its own (benchrun -gen-live): on
// Linux a child's peak RSS starts from its parent's high-water mark at the
// exec, so benchrun must stay small for the children's to be theirs.
func live(gpufleet, self, tmp string, runs int) error {
	dir := filepath.Join(tmp, "live")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	nodes, pods := filepath.Join(dir, "nodes.json"), filepath.Join(dir, "pods.json")
	out, err := exec.Command(self, "-gen-live", fmt.Sprintf("%s,%s,%d", nodes, pods, checkNodes)).Output()
	if err != nil {
		return fmt.Errorf("benchrun -gen-live: %w", err)
	}
	podCount, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		return err
	}
	g, d, err := side(runs, []string{gpufleet, "check", liveFleet, "--nodes", nodes, "--pods", pods}, []string{self, "-decode", nodes + "," + pods})
	if err != nil {
		return err
	}
	fmt.Println(liveLine("check", checkNodes, podCount, g, d))
	var first, last [2]sample
	for i, n := range driftNodes {
		if err := exec.Command(self, "-gen-live", fmt.Sprintf("%s,,%d", nodes, n)).Run(); err != nil {
			return fmt.Errorf("benchrun -gen-live: %w", err)
		}
		g, d, err := side(runs, []string{gpufleet, "drift", liveFleet, "--nodes", nodes}, []string{self, "-decode", nodes})
		if err != nil {
			return err
		}
		fmt.Println(liveLine("drift", n, 0, g, d))
		if i == 0 {
			first = [2]sample{g, d}
		}
		last = [2]sample{g, d}
	}
	a, b := driftNodes[0], driftNodes[len(driftNodes)-1]
	fmt.Printf("growth live mode=drift nodes=%d->%d gpufleet_exponent=%.2f decode_exponent=%.2f gpufleet_rss_exponent=%.2f\n", a, b,
		exponent(first[0].wall.Seconds(), last[0].wall.Seconds(), a, b),
		exponent(first[1].wall.Seconds(), last[1].wall.Seconds(), a, b),
		exponent(float64(first[0].rss), float64(last[0].rss), a, b))
	return nil
}

// genLive is benchrun -gen-live NODES,PODS,N: it writes N nodes, copies of
// those the example fleet's pools launch, and (unless PODS is empty) pods
// bound to them, and prints the pods' count.
func genLive(arg string) error {
	parts := strings.Split(arg, ",")
	if len(parts) != 3 {
		return fmt.Errorf("-gen-live %q: want NODES,PODS,N", arg)
	}
	n, err := strconv.Atoi(parts[2])
	if err != nil {
		return err
	}
	res, err := compiler.Compile([]string{liveFleet})
	if err != nil {
		return err
	}
	cl, err := res.Cluster()
	if err != nil {
		return err
	}
	templates := drift.Launched(cl)
	if len(templates) == 0 {
		return fmt.Errorf("%s launches no nodes", liveFleet)
	}
	count, err := writeLive(templates, n, parts[0], parts[1])
	if err != nil {
		return err
	}
	fmt.Println(count)
	return nil
}

func liveLine(mode string, nodes, pods int, g, d sample) string {
	return fmt.Sprintf("live mode=%s nodes=%d pods=%d gpufleet_s=%.3f decode_floor_s=%.3f ratio=%.2f gpufleet_rss_mb=%.0f decode_rss_mb=%.0f rss_ratio=%.2f",
		mode, nodes, pods, g.wall.Seconds(), d.wall.Seconds(), g.wall.Seconds()/d.wall.Seconds(), g.rssMB(), d.rssMB(), float64(g.rss)/float64(d.rss))
}

// side times two commands alternately, runs times each, and returns each
// one's median.
func side(runs int, a, b []string) (sample, sample, error) {
	var as, bs []sample
	for i := 0; i < runs; i++ {
		s, err := measure(a[0], a[1:]...)
		if err != nil {
			return sample{}, sample{}, err
		}
		as = append(as, s)
		if s, err = measure(b[0], b[1:]...); err != nil {
			return sample{}, sample{}, err
		}
		bs = append(bs, s)
	}
	return medianOf(as), medianOf(bs), nil
}

// writeLive writes n nodes, copies of templates, as 'kubectl get nodes -o
// json' prints them, and (unless podsFile is "") up to podsPerNode pods
// bound to each; it returns the pods' count.
func writeLive(templates []corev1.Node, n int, nodesFile, podsFile string) (int, error) {
	nl := corev1.NodeList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}}
	for i := 0; i < n; i++ {
		node := *templates[i%len(templates)].DeepCopy()
		node.Name = fmt.Sprintf("%s-%d", node.Name, i)
		nl.Items = append(nl.Items, node)
	}
	if err := writeJSON(nodesFile, nl); err != nil || podsFile == "" {
		return 0, err
	}
	pl := corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}}
	req := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("16Mi")}
	for _, node := range nl.Items {
		// Room left for a class's pods: a small node holds fewer.
		room := podsPerNode
		if max, ok := node.Status.Allocatable[corev1.ResourcePods]; ok {
			room = min(room, int(max.Value())-6)
		}
		for j := 0; j < room; j++ {
			pl.Items = append(pl.Items, corev1.Pod{
				TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-p%d", node.Name, j), Namespace: "bench"},
				Spec: corev1.PodSpec{NodeName: node.Name, Containers: []corev1.Container{{
					Name: "app", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{Requests: req},
				}}},
				Status: corev1.PodStatus{Phase: corev1.PodRunning},
			})
		}
	}
	return len(pl.Items), writeJSON(podsFile, pl)
}

func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// decode is the floor's process: it decodes each file as a NodeList or
// PodList with encoding/json, as any reader of kubectl's output must.
func decode(files []string) error {
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var v any = &corev1.NodeList{}
		if filepath.Base(f) == "pods.json" {
			v = &corev1.PodList{}
		}
		if err := json.Unmarshal(data, v); err != nil {
			return err
		}
	}
	return nil
}
