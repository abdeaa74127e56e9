// Package resourcequota holds the checks that restate the API server's
// ResourceQuota admission for the tree's own workloads: a tenant's
// namespaces' quotas, unscoped and scoped to a class's PriorityClass,
// hold one whole workload of each of its classes (QuotaFit), and a
// Deployment's surge pods beside its replicas when its rollout keeps
// every old pod (RolloutQuota). A pod the quota refuses is never made:
// the Job or ReplicaSet controller reports FailedCreate ("exceeded
// quota"), which make e2e holds the checks to. What Kueue makes of the
// same quotas is compiler/check/queueing's.
package resourcequota
