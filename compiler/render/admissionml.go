package render

import (
	"slices"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/wire/mlkinds"
)

// MLPolicy holds the ML kinds' own objects (a JobSet, a RayCluster) to
// their class and queue: Kueue queues the object, and the pods and Jobs
// its controller then makes pass as that controller's, so a queued
// class's JobSet without its queue label would run unqueued. Their pod
// templates sit at each kind's own paths, and the pod policy holds the
// pods to every other rule.
const MLPolicy = "gpufleet-ml-workloads"

// mlResources are the ML kinds' resources, as their CRDs serve them
// (compiler/wire/mlkinds): all, whichever the classes use, since one
// kind's controller makes another (a RayJob's RayCluster, a TrainJob's
// JobSet).
var mlResources = []admissionv1.Rule{
	rule(mlkinds.JobSetAPIVersion, "jobsets"),
	rule(mlkinds.LeaderWorkerSetAPIVersion, "leaderworkersets"),
	rule(mlkinds.RayAPIVersion, "rayclusters", "rayjobs"),
	rule(mlkinds.KubeflowAPIVersion, "pytorchjobs"),
	rule(mlkinds.TrainerAPIVersion, "trainjobs"),
}

// rule matches the resources of an apiVersion (group/version).
func rule(apiVersion string, resources ...string) admissionv1.Rule {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		panic(err)
	}
	return admissionv1.Rule{APIGroups: []string{gv.Group}, APIVersions: []string{gv.Version}, Resources: resources}
}

// usesMLKinds reports whether a class is of an ML kind (has roles).
func (r *renderer) usesMLKinds() bool {
	return slices.ContainsFunc(r.d.Classes, func(c derive.Class) bool { return len(c.Roles) > 0 })
}

// mlPolicy is the ML kinds' policy: the pod policy's first rule (a class
// of the tenant's) and its queue rule, over the object's own labels. The
// object's role label selects nothing: its queue is the class's.
func mlPolicy(controllers []string) *admissionv1.ValidatingAdmissionPolicy {
	p := admissionPolicy(MLPolicy, "object.spec", "object.metadata", false, controllers, mlResources...)
	keep := []string{"params", "tenant", "classes", "rolePrefix", "class", "key", "known", "unknown"}
	p.Spec.Variables = slices.DeleteFunc(p.Spec.Variables, func(v admissionv1.Variable) bool { return !slices.Contains(keep, v.Name) })
	for i := range p.Spec.Variables {
		if p.Spec.Variables[i].Name == "rolePrefix" {
			p.Spec.Variables[i].Expression = `''`
		}
	}
	v := p.Spec.Validations
	p.Spec.Validations = []admissionv1.Validation{v[0], v[len(v)-1]}
	return p
}
