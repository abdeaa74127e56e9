package kubeapiserver

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gpufleet/gpufleet/compiler/keys"
)

// mlResources are the ML kinds' resources, as their CRDs serve them.
var mlResources = map[string]string{
	keys.KindJobSet:          "jobsets",
	keys.KindLeaderWorkerSet: "leaderworkersets",
	keys.KindRayJob:          "rayjobs",
	keys.KindRayCluster:      "rayclusters",
	keys.KindPyTorchJob:      "pytorchjobs",
	keys.KindTrainJob:        "trainjobs",
}

// mlCases are an ML class's own object (a JobSet, a RayCluster): its
// example in the namespace, admitted; and for a queued class the example
// without its queue label, with a role label naming no role, and behind a
// forged owner (sent by the tenant), each refused; and, when the fleet
// uses the kind whose controller makes this one, the same object sent by
// that controller, admitted.
func mlCases(tn, c, ns string, ex runtime.Object, queued bool, uses func(kind string) bool,
	as func(user string, old runtime.Object, name string, o runtime.Object, res string, admit bool)) {
	kind := ex.GetObjectKind().GroupVersionKind().Kind
	res := mlResources[kind]
	obj := func(mut func(u *unstructured.Unstructured)) *unstructured.Unstructured {
		u := ex.(*unstructured.Unstructured).DeepCopy()
		u.SetNamespace(ns)
		mut(u)
		return u
	}
	as(tenant, nil, fmt.Sprintf("%s: class %s's example %s in %s", tn, c, kind, ns), obj(func(*unstructured.Unstructured) {}), res, true)
	if !queued {
		return
	}
	unqueued := func(u *unstructured.Unstructured) {
		l := u.GetLabels()
		delete(l, labelQueue)
		u.SetLabels(l)
	}
	as(tenant, nil, fmt.Sprintf("%s: queued class %s's %s without its queue in %s", tn, c, kind, ns), obj(unqueued), res, false)
	as(tenant, nil, fmt.Sprintf("%s: queued class %s's %s without its queue, with a role label, in %s", tn, c, kind, ns), obj(func(u *unstructured.Unstructured) {
		unqueued(u)
		l := u.GetLabels()
		l[keys.LabelRole] = "not-a-role"
		u.SetLabels(l)
	}), res, false)
	owner := parents[kind]
	if owner == "" {
		owner = keys.KindTrainJob
	}
	forged := obj(func(u *unstructured.Unstructured) {
		unqueued(u)
		u.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "x/v1", Kind: owner, Name: "w", UID: "u", Controller: new(true)}})
	})
	as(tenant, nil, fmt.Sprintf("%s: queued class %s's %s without its queue behind a forged %s owner in %s", tn, c, kind, owner, ns), forged, res, false)
	if uses(owner) {
		as(maker(forged), nil, fmt.Sprintf("%s: queued class %s's %s its %s's controller makes in %s", tn, c, kind, owner, ns), forged, res, true)
	}
}

// parents are the kinds whose controller makes an ML kind's object: a
// RayJob's RayCluster (KubeRay), a TrainJob's JobSet (Trainer).
var parents = map[string]string{
	keys.KindRayCluster: keys.KindRayJob,
	keys.KindJobSet:     keys.KindTrainJob,
}
