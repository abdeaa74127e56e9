// Package kueuediff runs Kueue v0.19.2's own scheduler cache, snapshot and
// flavor assigner over the Kueue objects gpufleet writes, so that the
// checker's Kueue verdicts are judged by Kueue itself.
package kueuediff

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	schdcache "sigs.k8s.io/kueue/pkg/cache/scheduler"
	"sigs.k8s.io/kueue/pkg/controller/core/indexer"
	"sigs.k8s.io/kueue/pkg/controller/jobs/job"
	"sigs.k8s.io/kueue/pkg/resources"
	"sigs.k8s.io/kueue/pkg/scheduler/flavorassigner"
	"sigs.k8s.io/kueue/pkg/scheduler/preemption"
	preemptexpectations "sigs.k8s.io/kueue/pkg/scheduler/preemption/expectations"
	utiltesting "sigs.k8s.io/kueue/pkg/util/testing"
	"sigs.k8s.io/kueue/pkg/workload"

	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/internal/crdtest"
)

// Kueue is Kueue's scheduler state for one tree, on an empty cluster.
type Kueue struct {
	client    client.Client
	snapshot  *schdcache.Snapshot
	preemptor *preemption.Preemptor
}

// Load builds Kueue's scheduler cache from the tree's ResourceFlavors,
// Cohorts and ClusterQueues, each defaulted by its CRD as kube-apiserver
// stores it, and takes the snapshot Kueue's scheduler takes every cycle.
func Load(ctx context.Context, crds *crdtest.Validator, tr tree.Tree) (*Kueue, error) {
	// The tenants' LimitRanges, which Kueue applies to a Workload's pods
	// (workload.AdjustResources) before it counts their requests.
	var limits []client.Object
	for _, p := range tr.Paths() {
		if path.Base(p) != "limitranges.yaml" {
			continue
		}
		for _, doc := range tree.Docs(tr[p]) {
			lr := &corev1.LimitRange{}
			if err := tree.Decode(doc, lr); err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			limits = append(limits, lr)
		}
	}
	cl := utiltesting.NewClientBuilder().
		WithIndex(&corev1.LimitRange{}, indexer.LimitRangeHasContainerOrPodType, indexer.IndexLimitRangeHasContainerOrPodType).
		WithObjects(limits...).Build()
	cache := schdcache.New(cl)
	var flavors []kueue.ResourceFlavor
	if err := decode(crds, tr[tree.KueueFlavorsPath], &flavors); err != nil {
		return nil, err
	}
	for i := range flavors {
		cache.AddOrUpdateResourceFlavor(klog.Background(), &flavors[i])
	}
	var cohorts []kueue.Cohort
	if err := decode(crds, tr[tree.KueueCohortsPath], &cohorts); err != nil {
		return nil, err
	}
	for i := range cohorts {
		if err := cache.AddOrUpdateCohort(&cohorts[i]); err != nil {
			return nil, fmt.Errorf("Cohort %s: %w", cohorts[i].Name, err)
		}
	}
	var cqs []kueue.ClusterQueue
	if err := decode(crds, tr[tree.KueueQueuesPath], &cqs); err != nil {
		return nil, err
	}
	for i := range cqs {
		if err := cache.AddClusterQueue(ctx, &cqs[i]); err != nil {
			return nil, fmt.Errorf("ClusterQueue %s: %w", cqs[i].Name, err)
		}
	}
	snap, err := cache.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	p := preemption.New(cl, workload.Ordering{}, &utiltesting.EventRecorder{}, nil, false,
		clocktesting.NewFakeClock(time.Unix(0, 0)), nil, preemptexpectations.New(), nil)
	return &Kueue{client: cl, snapshot: snap, preemptor: p}, nil
}

// Assignment is what Kueue's flavor assigner decided for one workload.
type Assignment struct {
	Mode    string                         // Fit, Preempt or NoFit
	Flavors map[corev1.ResourceName]string // per requested resource
	Message string
}

// Assign submits a Job to ClusterQueue cq as Kueue's Job integration sees
// it (its PodSets) and runs the flavor assigner the scheduler runs.
func (k *Kueue) Assign(ctx context.Context, cq string, j *batchv1.Job) (Assignment, error) {
	podSets, err := (*job.Job)(j).PodSets(ctx, k.client)
	if err != nil {
		return Assignment{}, err
	}
	wl := &kueue.Workload{
		ObjectMeta: metav1.ObjectMeta{Name: "job-" + j.Name, Namespace: j.Namespace},
		Spec:       kueue.WorkloadSpec{PodSets: podSets, QueueName: "gpufleet"},
	}
	workload.AdjustResources(ctx, k.client, wl)
	info := workload.NewInfo(wl)
	info.ClusterQueue = kueue.ClusterQueueReference(cq)
	snapCQ := k.snapshot.ClusterQueue(info.ClusterQueue)
	if snapCQ == nil {
		return Assignment{}, fmt.Errorf("ClusterQueue %s not in Kueue's snapshot", cq)
	}
	fa := flavorassigner.New(info, snapCQ, k.snapshot.ResourceFlavors, false,
		preemption.NewOracle(k.preemptor, k.snapshot), nil, "", resources.NewResourceFormatter(), 0)
	a := fa.Assign(ctx, nil)
	out := Assignment{Mode: a.RepresentativeMode().String(), Message: a.Message(), Flavors: map[corev1.ResourceName]string{}}
	for _, ps := range a.PodSets {
		for r, f := range ps.Flavors {
			out.Flavors[r] = string(f.Name)
		}
	}
	return out, nil
}

// decode reads a YAML stream of the tree, defaults each object with its
// CRD and decodes it strictly into Kueue's own types.
func decode[T any](crds *crdtest.Validator, raw []byte, out *[]T) error {
	for _, doc := range tree.Docs(raw) {
		js, err := crds.Default(doc)
		if err != nil {
			return err
		}
		var v T
		dec := json.NewDecoder(bytes.NewReader(js))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("%s: %w", doc, err)
		}
		*out = append(*out, v)
	}
	return nil
}
