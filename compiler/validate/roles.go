package validate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/internal/suggest"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/wire/mlkinds"
)

// fixedRoles are the role names a kind's API fixes, in its order: the
// LeaderWorkerSet's leaderTemplate and workerTemplate, the PyTorchJob's
// Master and Worker replica specs, the TrainJob's trainer nodes. A Ray
// cluster's first role is its head; the others name its worker groups.
var fixedRoles = map[string][]string{
	keys.KindLeaderWorkerSet: {spec.RoleLeader, spec.RoleWorker},
	keys.KindPyTorchJob:      {spec.RoleMaster, spec.RoleWorker},
	keys.KindTrainJob:        {spec.RoleNode},
}

// roles checks an ML kind's roles, and that other kinds have none.
func (c *checker) roles(name string, cl spec.Class, products []string) {
	if !cl.HasRoles() {
		if len(cl.Roles) > 0 {
			c.errorf(p("classes", name, "roles"), "roles need one of the kinds %s, not %s: a %s has one pod template", strings.Join(keys.RoleKinds, ", "), cl.Kind, cl.Kind)
		}
		return
	}
	if len(cl.Roles) == 0 {
		c.errorf(p("classes", name, "kind"), "kind %s needs roles: %s", cl.Kind, roleShape(cl.Kind))
		return
	}
	if cl.GPU != nil {
		c.errorf(p("classes", name, "gpu"), "kind %s takes gpu on each of its roles, not on the class: its roles are pod templates of their own", cl.Kind)
	}
	if cl.Resources != (spec.Resources{}) {
		c.errorf(p("classes", name, "resources"), "kind %s takes resources on each of its roles, not on the class", cl.Kind)
	}
	if cl.Kind == keys.KindPyTorchJob && cl.Container != mlkinds.PyTorchContainer {
		// training-operator v1.9.3 pkg/webhooks/pytorch
		// validatePyTorchReplicaSpecs: each replica's template needs it.
		c.errorf(p("classes", name, "container"), "a PyTorchJob's container is %q, not %q: the training operator's webhook refuses a replica without it (\"must have at least one container with name pytorch\")", mlkinds.PyTorchContainer, cl.Container)
	}
	if cl.Kind == keys.KindTrainJob && cl.Container != mlkinds.TrainerContainer {
		// Trainer v2.2.1 pkg/webhooks validateReplicatedJobs refuses a
		// runtime whose trainer job lacks the container constants.Node,
		// and plugins/jobset Builder.Trainer gives the TrainJob's image
		// and resourcesPerNode to that container only.
		c.errorf(p("classes", name, "container"), "a TrainJob's container is %q, not %q: Kubeflow Trainer's runtime webhook refuses a trainer job without it (\"must contain the required container for the ancestor: trainer\")", mlkinds.TrainerContainer, cl.Container)
	}
	if cl.Replicas != 1 && cl.Kind != keys.KindLeaderWorkerSet {
		c.errorf(p("classes", name, "replicas"), "replicas needs kind LeaderWorkerSet (its groups), not %s: a %s's pods are its roles' replicas", cl.Kind, cl.Kind)
	}
	var names []string
	for i, r := range cl.Roles {
		at := p("classes", name, "roles", strconv.Itoa(i))
		names = append(names, r.Name)
		if r.Parallelism != 0 && cl.Kind != keys.KindJobSet {
			c.errorf(under(at, "parallelism"), "parallelism needs kind JobSet, not %s: only a JobSet's roles are Jobs", cl.Kind)
		}
		if r.GPU != nil {
			for j, prod := range r.GPU.Products {
				if !contains(products, prod) {
					c.errorf(under(at, "gpu", "products", strconv.Itoa(j)), "unknown GPU product %q%s (known: %s)", prod, suggest.Hint(prod, products), quoted(products))
				}
			}
			c.gpuKind(*r.GPU, under(at, "gpu")...)
			if c.f.ClassGPUAPI(spec.Class{GPU: r.GPU}) == spec.GPUAPIDRA {
				c.errorf(under(at, "gpu"), "a role's GPUs through DRA claims are not built yet: give the role gpu.api %q", spec.GPUAPIDevicePlugin)
			}
		}
		c.quantity(r.Resources.CPU, under(at, "resources", "cpu")...)
		c.quantity(r.Resources.Memory, under(at, "resources", "memory")...)
	}
	for _, i := range duplicates(names) {
		c.errorf(p("classes", name, "roles", strconv.Itoa(i), "name"), "role name %q is used twice", names[i])
	}
	if cl.PrimaryRole().GPU == nil {
		c.errorf(p("classes", name, "roles"), "no role of class %q has gpu: a class without GPUs needs no GPU fleet policy", name)
	}
	c.roleShape(name, cl)
}

// roleShape checks the roles the kind's API has: one LWS leader and its
// workers, one Ray head and at least one worker group, a PyTorchJob's
// master and workers, a TrainJob's nodes.
func (c *checker) roleShape(name string, cl spec.Class) {
	at := func(i int, more ...string) []string {
		return under(p("classes", name, "roles", strconv.Itoa(i)), more...)
	}
	has := func(role string) int {
		return slices.IndexFunc(cl.Roles, func(r spec.Role) bool { return r.Name == role })
	}
	if fixed, ok := fixedRoles[cl.Kind]; ok {
		for i, r := range cl.Roles {
			if !slices.Contains(fixed, r.Name) {
				c.errorf(at(i, "name"), "a %s has no role %q%s (its roles: %s)", cl.Kind, r.Name, suggest.Hint(r.Name, fixed), roleShape(cl.Kind))
			}
		}
		for _, role := range fixed {
			if has(role) < 0 && role != spec.RoleMaster {
				c.errorf(p("classes", name, "roles"), "a %s needs role %q: %s", cl.Kind, role, roleShape(cl.Kind))
			}
		}
	}
	switch cl.Kind {
	case keys.KindLeaderWorkerSet, keys.KindPyTorchJob:
		for i, r := range cl.Roles {
			if (r.Name == spec.RoleLeader || r.Name == spec.RoleMaster) && r.Replicas != 1 {
				c.errorf(at(i, "replicas"), "a %s has one %s, not %d", cl.Kind, r.Name, r.Replicas)
			}
		}
	case keys.KindRayJob, keys.KindRayCluster:
		for i, r := range cl.Roles {
			switch {
			case i == 0 && r.Name != spec.RoleHead:
				c.errorf(at(i, "name"), "a Ray cluster's first role is its %q, not %q: %s", spec.RoleHead, r.Name, roleShape(cl.Kind))
			case i > 0 && r.Name == spec.RoleHead:
				c.errorf(at(i, "name"), "a Ray cluster has one head: role %q names a worker group", r.Name)
			case i == 0 && r.Replicas != 1:
				c.errorf(at(i, "replicas"), "a Ray cluster has one head, not %d", r.Replicas)
			}
		}
		if len(cl.Roles) < 2 {
			c.errorf(p("classes", name, "roles"), "a %s needs a worker group beside its head: %s", cl.Kind, roleShape(cl.Kind))
		}
	}
}

// roleShape says which roles a kind takes.
func roleShape(kind string) string {
	switch kind {
	case keys.KindLeaderWorkerSet:
		return fmt.Sprintf("%q (one pod per group) and %q (the group's other pods)", spec.RoleLeader, spec.RoleWorker)
	case keys.KindRayJob, keys.KindRayCluster:
		return fmt.Sprintf("%q (one pod) first, then one role per worker group", spec.RoleHead)
	case keys.KindPyTorchJob:
		return fmt.Sprintf("%q (optional, one pod) and %q", spec.RoleMaster, spec.RoleWorker)
	case keys.KindTrainJob:
		return fmt.Sprintf("%q (the trainer's nodes, a pod each: its replicas are numNodes)", spec.RoleNode)
	}
	return "one role per replicated job"
}
