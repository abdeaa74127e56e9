package kueuediff

import (
	"context"
	"fmt"
	"sync"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kftraining "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	jobsetapi "sigs.k8s.io/jobset/api/jobset/v1alpha2"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueconstants "sigs.k8s.io/kueue/pkg/controller/constants"
	"sigs.k8s.io/kueue/pkg/controller/jobs/jobset"
	"sigs.k8s.io/kueue/pkg/controller/jobs/kubeflow/jobs/pytorchjob"
	"sigs.k8s.io/kueue/pkg/controller/jobs/kubeflow/kubeflowjob"
	"sigs.k8s.io/kueue/pkg/controller/jobs/leaderworkerset"
	"sigs.k8s.io/kueue/pkg/controller/jobs/raycluster"
	"sigs.k8s.io/kueue/pkg/controller/jobs/rayjob"
	utiltesting "sigs.k8s.io/kueue/pkg/util/testing"
	leaderworkersetv1 "sigs.k8s.io/lws/api/leaderworkerset/v1"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/internal/crdtest"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

// MLCRDs are the CRDs of the ML kinds a class may be, from their pinned
// modules: the rung defaults each example with its CRD, as kube-apiserver
// stores it, before Kueue's integration reads it.
func MLCRDs() ([]*crdtest.Validator, error) {
	var out []*crdtest.Validator
	for _, f := range upstream.MLKindCRDs {
		v, err := crdtest.Load(f.Module, f.Path)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

var (
	mlCRDs = sync.OnceValues(MLCRDs)
	quiet  sync.Once
)

// roledPodSets are the PodSets of one workload of an ML kind's example,
// as Kueue v0.19.2's integration for the kind builds them from the object
// decoded into the kind's own Go type: jobset's and the kubeflow
// PyTorchJob's GenericJob PodSets, raycluster's and rayjob's (a RayJob in
// HTTPMode has no submitter PodSet), and for a LeaderWorkerSet the
// Workload its reconciler creates for one group, on a fake client.
func roledPodSets(ctx context.Context, crds []*crdtest.Validator, kind string, doc []byte, namespace string) ([]kueue.PodSet, error) {
	doc, err := defaulted(crds, doc)
	if err != nil {
		return nil, err
	}
	switch kind {
	case keys.KindJobSet:
		js, err := decodeIn[jobsetapi.JobSet](doc, namespace)
		if err != nil {
			return nil, err
		}
		return (*jobset.JobSet)(js).PodSets(ctx, nil)
	case keys.KindRayCluster:
		rc, err := decodeIn[rayv1.RayCluster](doc, namespace)
		if err != nil {
			return nil, err
		}
		return (*raycluster.RayCluster)(rc).PodSets(ctx, nil)
	case keys.KindRayJob:
		rj, err := decodeIn[rayv1.RayJob](doc, namespace)
		if err != nil {
			return nil, err
		}
		return (*rayjob.RayJob)(rj).PodSets(ctx, nil)
	case keys.KindPyTorchJob:
		pj, err := decodeIn[kftraining.PyTorchJob](doc, namespace)
		if err != nil {
			return nil, err
		}
		return (&kubeflowjob.KubeflowJob{KFJobControl: (*pytorchjob.JobControl)(pj)}).PodSets(ctx, nil)
	case keys.KindLeaderWorkerSet:
		lws, err := decodeIn[leaderworkersetv1.LeaderWorkerSet](doc, namespace)
		if err != nil {
			return nil, err
		}
		lws.UID = types.UID("lws-" + lws.Name)
		return lwsPodSets(ctx, lws)
	}
	return nil, fmt.Errorf("no Kueue integration for kind %q here", kind)
}

// decodeIn decodes the object strictly into its kind's own type, in
// namespace.
func decodeIn[T any, P interface {
	*T
	client.Object
}](doc []byte, namespace string) (*T, error) {
	obj := P(new(T))
	if err := tree.Decode(doc, obj); err != nil {
		return nil, err
	}
	obj.SetNamespace(namespace)
	return obj, nil
}

// lwsPodSets runs Kueue's LeaderWorkerSet reconciler on a fake client
// holding the LWS, and reads back the PodSets of the Workload it creates
// for the first group (every group's are the same).
func lwsPodSets(ctx context.Context, lws *leaderworkersetv1.LeaderWorkerSet) ([]kueue.PodSet, error) {
	// The reconciler logs through controller-runtime, which otherwise
	// warns, with a stack, that no logger was set.
	quiet.Do(func() { ctrllog.SetLogger(logr.Discard()) })
	objs := []client.Object{lws}
	// The reconciler reads the workload's WorkloadPriorityClass (its
	// value sets the Workload's priority, not its PodSets).
	if name := lws.Labels[kueueconstants.WorkloadPriorityClassLabel]; name != "" {
		objs = append(objs, &kueue.WorkloadPriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}})
	}
	cl := utiltesting.NewClientBuilder(leaderworkersetv1.AddToScheme).WithObjects(objs...).Build()
	r, err := leaderworkerset.NewReconciler(ctx, cl, nil, &utiltesting.EventRecorder{})
	if err != nil {
		return nil, err
	}
	if _, err := r.Reconcile(ctx, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: lws.Namespace, Name: lws.Name}}); err != nil {
		return nil, err
	}
	var wls kueue.WorkloadList
	if err := cl.List(ctx, &wls); err != nil {
		return nil, err
	}
	if len(wls.Items) == 0 {
		return nil, fmt.Errorf("Kueue's LeaderWorkerSet reconciler created no Workload")
	}
	return wls.Items[0].Spec.PodSets, nil
}
