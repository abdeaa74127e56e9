// Package queueing holds the checks that restate Kueue (v0.19.2), which
// queues a tenant's classes and admits them: its flavor assigner
// (KueueFlavor, KueueQuota, KueueCovered, KueueBorrow), its validation and
// CRDs (KueueOrder, KueueLimits), its DRA accounting (KueueDRA), its
// topology-aware scheduling (KueueTopology, KueueTopologyBound), what
// kube-scheduler then places of the units it admits and pins to a flavor
// (KueueGang, KueueDeployment), and what it does not read, the
// namespaces' ResourceQuotas (KueueResourceQuota, KueuePriorityQuota).
// They read each queue's check.Admission, the Kueue model
// (compiler/check/kueuemodel) and, for KueueLimits, the whole tree's.
// make test-kueue holds them to Kueue's own code, and make test-composed
// to Kueue and kube-scheduler in sequence.
package queueing
