package kueuediff

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/utils/ptr"
	jobsetapi "sigs.k8s.io/jobset/api/jobset/v1alpha2"
	"sigs.k8s.io/kueue/pkg/controller/jobframework"
	"sigs.k8s.io/kueue/pkg/controller/jobs/job"
	"sigs.k8s.io/kueue/pkg/controller/jobs/jobset"
	"sigs.k8s.io/kueue/pkg/controller/jobs/kubeflow/jobs/pytorchjob"
	"sigs.k8s.io/kueue/pkg/controller/jobs/kubeflow/kubeflowjob"
	"sigs.k8s.io/kueue/pkg/controller/jobs/rayjob"
	"sigs.k8s.io/yaml"

	kftraining "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
	wirekueue "github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// maxExecFleets are fleets whose batch classes set a run time: the
// example with a Capacity Block, and fleets/research with run times on
// its Jobs and its JobSet, PyTorchJob and RayJob (testdata/runtime.cue).
var maxExecFleets = [][]string{
	{"../../fleets/reserved"},
	{"../../fleets/research/fleet.cue", "testdata/runtime.cue"},
	{reservedFleets[0]},
}

// TestMaxExecTime builds each queued batch class's example workload into
// a Workload with Kueue v0.19.2's own code, as its Job reconciler does
// (jobframework.NewWorkload, which ConstructWorkload calls for every
// GenericJob kind: the Job, JobSet, RayJob and PyTorchJob integrations),
// after its webhook's create validation (jobframework.ValidateJobOnCreate:
// validateCreateForMaxExecTime). The Workload's
// spec.maximumExecutionTimeSeconds must be the class's maxRunTime in
// seconds, and nil where it sets none. Two deliberate bugs are caught: the
// label written as an annotation, and in minutes.
func TestMaxExecTime(t *testing.T) {
	ctx := context.Background()
	var agree, set int
	caught := map[string]int{}
	for _, paths := range maxExecFleets {
		res, err := compiler.Compile(paths)
		if err != nil {
			t.Fatalf("%v: %v", paths, err)
		}
		for _, c := range res.Fleet.Classes {
			if !c.Spec.Batch() || !c.Spec.Queued() {
				continue
			}
			docs := tree.Docs(res.Tree[tree.ClassExample(c.Name)])
			want, ok := derive.MaxExecSeconds(c.Spec)
			var wantP *int32
			if ok {
				wantP = ptr.To(int32(want))
				set++
			}
			for _, bug := range []string{"", "annotation", "minutes"} {
				gj, err := genericJob(c.Spec.Kind, docs[0], "team")
				if err != nil {
					t.Fatalf("%v: class %s: %v", paths, c.Name, err)
				}
				if bug != "" && !maxExecBug(gj, bug) {
					continue
				}
				got, err := kueueMaxExec(ctx, gj)
				if err != nil {
					if bug != "" {
						caught[bug]++
						continue
					}
					t.Fatalf("%v: class %s: %v", paths, c.Name, err)
				}
				same := (got == nil) == (wantP == nil) && (got == nil || *got == *wantP)
				switch {
				case bug == "" && same:
					agree++
				case bug == "":
					t.Errorf("%v: class %s (%s): Kueue's Workload has maximumExecutionTimeSeconds %v, the class's maxRunTime %q is %v", paths, c.Name, c.Spec.Kind, execString(got), c.Spec.MaxRunTime, execString(wantP))
				case !same:
					caught[bug]++
				}
			}
		}
	}
	t.Logf("%d queued batch classes' Workloads agree with the tree (%d with a run time); bugs caught: label as annotation %d, in minutes %d", agree, set, caught["annotation"], caught["minutes"])
	if set == 0 || caught["annotation"] != set || caught["minutes"] != set {
		t.Errorf("each bug must be caught in every one of the %d classes with a run time: %v", set, caught)
	}
}

func execString(p *int32) string {
	if p == nil {
		return "none"
	}
	return strconv.Itoa(int(*p))
}

// kueueMaxExec is the maximum execution time Kueue gives the workload of
// gj, once its webhook lets it be created.
func kueueMaxExec(ctx context.Context, gj jobframework.GenericJob) (*int32, error) {
	if errs := jobframework.ValidateJobOnCreate(gj); len(errs) > 0 {
		return nil, fmt.Errorf("Kueue's webhook refuses it: %v", errs.ToAggregate())
	}
	podSets, err := gj.PodSets(ctx, nil)
	if err != nil {
		return nil, err
	}
	wl := jobframework.NewWorkload("wl", gj.Object(), podSets, nil, nil)
	return wl.Spec.MaximumExecutionTimeSeconds, nil
}

// maxExecBug injects a bug into the workload's run time label: moved to
// its annotations, or counted in minutes. False where there is none.
func maxExecBug(gj jobframework.GenericJob, bug string) bool {
	obj := gj.Object()
	labels := obj.GetLabels()
	v, ok := labels[wirekueue.LabelMaxExecTime]
	if !ok {
		return false
	}
	switch bug {
	case "annotation":
		delete(labels, wirekueue.LabelMaxExecTime)
		a := obj.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		a[wirekueue.LabelMaxExecTime] = v
		obj.SetAnnotations(a)
	case "minutes":
		s, _ := strconv.Atoi(v)
		labels[wirekueue.LabelMaxExecTime] = strconv.Itoa(s / 60)
	}
	obj.SetLabels(labels)
	return true
}

// genericJob is a batch class's example as its Kueue integration's
// GenericJob, in namespace, defaulted by its CRD as the API server stores
// it.
func genericJob(kind string, doc []byte, namespace string) (jobframework.GenericJob, error) {
	crds, err := mlCRDs()
	if err != nil {
		return nil, err
	}
	for _, v := range crds {
		var meta struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			return nil, err
		}
		if v.Knows(meta.APIVersion, meta.Kind) {
			if doc, err = v.Default(doc); err != nil {
				return nil, err
			}
		}
	}
	switch kind {
	case keys.KindJob:
		j, err := decodeIn[batchv1.Job](doc, namespace)
		return (*job.Job)(j), err
	case keys.KindJobSet:
		js, err := decodeIn[jobsetapi.JobSet](doc, namespace)
		return (*jobset.JobSet)(js), err
	case keys.KindRayJob:
		rj, err := decodeIn[rayv1.RayJob](doc, namespace)
		return (*rayjob.RayJob)(rj), err
	case keys.KindPyTorchJob:
		pj, err := decodeIn[kftraining.PyTorchJob](doc, namespace)
		return &kubeflowjob.KubeflowJob{KFJobControl: (*pytorchjob.JobControl)(pj)}, err
	}
	return nil, fmt.Errorf("no Kueue integration here for a batch %s", kind)
}
