package resourcequota

import (
	"fmt"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

const IDRolloutQuota check.ID = "RolloutQuota"

// A rolling update with maxUnavailable 0 creates its surge pods beside
// every old one (k8s.io/kubernetes pkg/controller/deployment/rolling.go,
// reconcileNewReplicaSet), so the namespace's ResourceQuota must hold
// replicas + maxSurge pods. When it holds only the replicas, the API
// server's quota admission refuses the first new pod and the ReplicaSet
// controller reports FailedCreate ("exceeded quota"): nothing Pending, and
// the rollout ends in ProgressDeadlineExceeded. e2e holds the real
// controllers to this (rollout.go).
const reasonRolloutQuota = "a rollout of class %s cannot progress: maxUnavailable 0 keeps its %d old pods, and quota admission refuses the first of maxSurge %d new pods against tenant %s's %s (exceeded quota: %s), so the ReplicaSet controller reports FailedCreate and the rollout ends in ProgressDeadlineExceeded; set rollout.maxUnavailable to 1 or more, or raise the quota by %d pods' requests"

// RolloutQuota checks that each tenant's quotas hold a Deployment class's
// replicas plus its surge pods when maxUnavailable is 0. A queued
// Deployment's surge pod waits on Kueue first (KueueDeployment).
func RolloutQuota(cl *sched.Cluster, _ []sched.Row, in check.Intent) []check.Finding {
	var out []check.Finding
	for _, t := range in.Tenants {
		for _, name := range t.Classes {
			c := cl.Class(name)
			if c == nil || c.Kind != keys.KindDeployment || c.Queued || c.MaxUnavailable > 0 || c.MaxSurge == 0 {
				continue
			}
			// Where the replicas alone exceed a quota, QuotaFit says so.
			if short, _ := tenantShort(c, t, in, int64(c.Pods), "quota"); len(short) > 0 {
				continue
			}
			short, whose := tenantShort(c, t, in, int64(c.Pods+c.MaxSurge), "quota")
			if len(short) == 0 {
				continue
			}
			out = append(out, check.Finding{Severity: check.Error, Check: IDRolloutQuota, Class: name, Tenant: t.Name,
				Message: fmt.Sprintf(reasonRolloutQuota, name, c.Pods, c.MaxSurge, t.Name, whose, strings.Join(short, "; "), c.MaxSurge)})
		}
	}
	return out
}
