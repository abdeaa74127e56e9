package kueuediff

import (
	"context"
	"fmt"
	"sync"

	"github.com/go-logr/logr"
	kftrainer "github.com/kubeflow/trainer/v2/pkg/apis/trainer/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	jobsetapi "sigs.k8s.io/jobset/api/jobset/v1alpha2"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/pkg/controller/jobs/trainjob"
	utiltesting "sigs.k8s.io/kueue/pkg/util/testing"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/internal/crdtest"
)

// trainerRuntimes guards Kubeflow Trainer's runtime registry, a package
// global (pkg/runtime/core New sets it, Runtimes reads it) holding the
// client the runtimes read: one TrainJob's PodSets are built at a time.
var trainerRuntimes sync.Mutex

// trainJobPodSets are the PodSets Kueue v0.19.2's trainjob integration
// builds of a TrainJob on the tree's ClusterTrainingRuntimes: its
// reconciler's setup (NewReconciler, which initialises Trainer v2.2.1's
// runtimes, kftrainerruntimecore.New) on a controller-runtime fake client
// holding the runtimes, then TrainJob.PodSets, which builds the child
// JobSet with Trainer's own runtime framework and jobset builder
// (getChildJobSet), takes the jobset integration's PodSets and defaults
// them by a dry-run create of a Workload. Each object is first defaulted
// with its CRD, as kube-apiserver stores it.
func trainJobPodSets(ctx context.Context, crds []*crdtest.Validator, doc, runtimes []byte, namespace string) ([]kueue.PodSet, error) {
	doc, err := defaulted(crds, doc)
	if err != nil {
		return nil, err
	}
	tj, err := decodeIn[kftrainer.TrainJob](doc, namespace)
	if err != nil {
		return nil, err
	}
	var objs []client.Object
	for _, d := range tree.Docs(runtimes) {
		if d, err = defaulted(crds, d); err != nil {
			return nil, err
		}
		rt := &kftrainer.ClusterTrainingRuntime{}
		if err := tree.Decode(d, rt); err != nil {
			return nil, fmt.Errorf("%s: %w", tree.TrainingRuntimesPath, err)
		}
		objs = append(objs, rt)
	}
	quiet.Do(func() { ctrllog.SetLogger(logr.Discard()) })
	trainerRuntimes.Lock()
	defer trainerRuntimes.Unlock()
	b := utiltesting.NewClientBuilder(kftrainer.AddToScheme, jobsetapi.AddToScheme)
	indexer := utiltesting.AsIndexer(b)
	cl := b.WithObjects(objs...).Build()
	if _, err := trainjob.NewReconciler(ctx, cl, indexer, &utiltesting.EventRecorder{}); err != nil {
		return nil, err
	}
	return (*trainjob.TrainJob)(tj).PodSets(ctx, cl)
}

// defaulted is the document as its CRD defaults it, if one of crds knows
// its kind.
func defaulted(crds []*crdtest.Validator, doc []byte) ([]byte, error) {
	var meta struct{ APIVersion, Kind string }
	if err := yaml.Unmarshal(doc, &meta); err != nil {
		return nil, err
	}
	for _, v := range crds {
		if v.Knows(meta.APIVersion, meta.Kind) {
			return v.Default(doc)
		}
	}
	return doc, nil
}
