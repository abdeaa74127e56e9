package fleetgen

import (
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/wire/mlkinds"
)

// mlKinds are the kinds with roles the generator writes.
var mlKinds = []string{keys.KindJobSet, keys.KindLeaderWorkerSet, keys.KindRayJob, keys.KindRayCluster, keys.KindPyTorchJob, keys.KindTrainJob}

// kinds turns some GPU classes into queued ML kinds: the class's pod
// shape becomes its GPU roles', some with a CPU-only role beside them (a
// JobSet's driver, an LWS leader, a Ray head) and some with two GPU roles.
func (g *gen) kinds(f *spec.Fleet) {
	for _, name := range spec.Keys(f.Classes) {
		c := f.Classes[name]
		if c.GPU == nil || f.ClassGPUAPI(c) == spec.GPUAPIDRA || !g.chance(0.5) {
			continue
		}
		gpu := spec.Role{GPU: c.GPU, Resources: c.Resources, Replicas: 1}
		cpu := spec.Role{Resources: spec.Resources{CPU: spec.Quantity(g.pick([]string{"500m", "1", "4"})), Memory: "2Gi"}, Replicas: 1}
		side := cpu
		if g.chance(0.3) {
			side = gpu // a second GPU role
		}
		pods := int32(max(c.Pods(), 1))
		at := func(r spec.Role, name string, replicas int32) spec.Role {
			r.Name, r.Replicas = name, max(replicas, 1)
			return r
		}
		kind := g.pick(mlKinds)
		var roles []spec.Role
		replicas := int32(1)
		switch kind {
		case keys.KindJobSet:
			w := at(gpu, "trainer", pods)
			if per := int32(g.num("1", "1", "2", "4")); pods%per == 0 {
				w.Replicas, w.Parallelism = pods/per, per
			}
			roles = []spec.Role{at(side, "driver", 1), w}
		case keys.KindLeaderWorkerSet:
			replicas = int32(g.num("1", "2"))
			roles = []spec.Role{at(side, spec.RoleLeader, 1), at(gpu, spec.RoleWorker, pods)}
		case keys.KindRayJob, keys.KindRayCluster:
			roles = []spec.Role{at(cpu, spec.RoleHead, 1), at(gpu, "gpu-workers", pods)}
			if g.chance(0.3) {
				roles = append(roles, at(gpu, "more", 1))
			}
		case keys.KindPyTorchJob:
			c.Container = mlkinds.PyTorchContainer
			roles = []spec.Role{at(gpu, spec.RoleWorker, pods)}
			if g.chance(0.7) {
				roles = append([]spec.Role{at(gpu, spec.RoleMaster, 1)}, roles...)
			}
		case keys.KindTrainJob:
			// The trainer's nodes, on the runtime gpufleet writes.
			c.Container = mlkinds.TrainerContainer
			roles = []spec.Role{at(gpu, spec.RoleNode, pods)}
		}
		queued := true
		c.Kind, c.Roles, c.Replicas, c.Queue = kind, roles, replicas, &queued
		c.GPU, c.Resources, c.Gang = nil, spec.Resources{}, nil
		c.Topology, c.Checkpoint, c.BackoffLimit, c.Rollout = nil, nil, nil, nil
		f.Classes[name] = c
	}
}
