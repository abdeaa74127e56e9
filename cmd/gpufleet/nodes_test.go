package main

import (
	"encoding/json"
	"os"
	"slices"

	"github.com/rogpeppe/go-internal/testscript"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/drift"
)

// gen-nodes SPEC FILE writes the nodes SPEC's pools launch (drift.Launched,
// from the compiled tree), as 'kubectl get nodes -o json' lists them: a
// cluster with no drift, for the drift and check --nodes scripts.
func genNodes(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: gen-nodes SPEC FILE")
	}
	res, err := compiler.Compile([]string{ts.MkAbs(args[0])})
	ts.Check(err)
	cl, err := res.Cluster()
	ts.Check(err)
	writeNodes(ts, args[1], drift.Launched(cl))
}

// edit-node FILE NODE OP ARGS... changes one node of a nodes file:
//
//	label-del KEY | label-set KEY VALUE | taint-add KEY VALUE EFFECT |
//	taint-del KEY | alloc RESOURCE QUANTITY | add (a node of that name,
//	with no labels)
func editNode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: edit-node FILE NODE OP ARGS...")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	var l corev1.NodeList
	ts.Check(json.Unmarshal(b, &l))
	name, op, rest := args[1], args[2], args[3:]
	if op == "add" {
		l.Items = append(l.Items, corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}, ObjectMeta: metav1.ObjectMeta{Name: name}})
		writeNodes(ts, args[0], l.Items)
		return
	}
	i := slices.IndexFunc(l.Items, func(n corev1.Node) bool { return n.Name == name })
	if i < 0 {
		ts.Fatalf("no node %s", name)
	}
	n := &l.Items[i]
	want := map[string]int{"label-del": 1, "label-set": 2, "taint-add": 3, "taint-del": 1, "alloc": 2, "cordon": 0}
	if c, ok := want[op]; !ok || c != len(rest) {
		ts.Fatalf("edit-node: %s takes %d arguments", op, want[op])
	}
	switch op {
	case "label-del":
		delete(n.Labels, rest[0])
	case "label-set":
		n.Labels[rest[0]] = rest[1]
	case "taint-add":
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: rest[0], Value: rest[1], Effect: corev1.TaintEffect(rest[2])})
	case "taint-del":
		n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == rest[0] })
	case "cordon":
		n.Spec.Unschedulable = true // kubectl cordon, before the taint follows
	case "alloc":
		q, err := resource.ParseQuantity(rest[1])
		ts.Check(err)
		n.Status.Allocatable[corev1.ResourceName(rest[0])] = q
	}
	writeNodes(ts, args[0], l.Items)
}

func writeNodes(ts *testscript.TestScript, file string, nodes []corev1.Node) {
	b, err := json.MarshalIndent(drift.NodeList(nodes), "", "  ")
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(file), append(b, '\n'), 0o644))
}
