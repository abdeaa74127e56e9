package spec

import (
	"slices"

	"github.com/gpufleet/gpufleet/compiler/keys"
)

// Role is one pod template of an ML kind: a JobSet's replicated job, a
// LeaderWorkerSet's leader or workers, a Ray head or worker group, a
// PyTorchJob's master or workers, a TrainJob's nodes.
type Role struct {
	Name string `json:"name"`
	// Replicas is a JobSet's Jobs of the role, a worker group's workers,
	// an LWS group's workers, a PyTorchJob's or TrainJob's pods.
	Replicas int32 `json:"replicas"`
	// Parallelism is each of a JobSet role's Jobs' pods; 0 means 1.
	Parallelism int32     `json:"parallelism,omitempty"`
	GPU         *GPU      `json:"gpu,omitempty"`
	Resources   Resources `json:"resources"`
}

// Pods is how many pods the role runs in one workload.
func (r Role) Pods() int32 {
	return r.Replicas * max(r.Parallelism, 1)
}

// Role names fixed by their kind's API.
const (
	RoleLeader = "leader" // LeaderWorkerSet's leaderTemplate
	RoleWorker = "worker" // LeaderWorkerSet's workerTemplate, PyTorchJob's Worker
	RoleHead   = "head"   // RayCluster's headGroupSpec
	RoleMaster = "master" // PyTorchJob's Master
	RoleNode   = "node"   // TrainJob's trainer nodes
)

// HasRoles reports whether the class's kind has roles (keys.RoleKinds).
func (c Class) HasRoles() bool { return slices.Contains(keys.RoleKinds, c.Kind) }

// Batch reports whether the kind runs to completion and Kueue queues it
// by default: a Job and the ML training kinds. A LeaderWorkerSet and a
// RayCluster serve until deleted.
func (c Class) Batch() bool {
	switch c.Kind {
	case keys.KindJob, keys.KindJobSet, keys.KindRayJob, keys.KindPyTorchJob, keys.KindTrainJob:
		return true
	}
	return false
}

// PrimaryRole is the role the class is placed by, for what takes one
// pod shape (pools, quotas' per-pod bounds, the class's row): its first
// role with GPUs, else its first role; nil without roles.
func (c Class) PrimaryRole() *Role {
	for i := range c.Roles {
		if c.Roles[i].GPU != nil {
			return &c.Roles[i]
		}
	}
	if len(c.Roles) > 0 {
		return &c.Roles[0]
	}
	return nil
}

// RolePods is how many of the role's pods the class runs at once: a
// LeaderWorkerSet's in all its groups (replicas), others' in one workload.
func (c Class) RolePods(r Role) int32 {
	if c.Kind == keys.KindLeaderWorkerSet {
		return r.Pods() * c.Replicas
	}
	return r.Pods()
}

// WithPrimaryRole is the class with its primary role's gpu and resources
// as the class's own, which the stages that take one pod shape read.
func (c Class) WithPrimaryRole() Class {
	if r := c.PrimaryRole(); r != nil {
		c.GPU, c.Resources = r.GPU, r.Resources
	}
	return c
}

// RoleRow names the checker's row of a class's role other than its
// primary one, whose row is the class's own.
func RoleRow(class, role string) string { return class + "/" + role }
