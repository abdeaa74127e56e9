// Package disruption holds the checks of what interrupts the tree's own
// workloads once they run: a spot interruption, which the cloud gives a
// fixed notice of and which karpenter.sh/do-not-disrupt cannot stop
// (SpotCheckpoint, SpotGracePeriod: the notice is the cloud's,
// cloud.Cloud.SpotNoticeSeconds), and preemption by kube-scheduler for a
// pod of a higher priority (PriorityOrder, on the tree's
// PriorityClasses). They are gpufleet's rules on the pools and priorities
// the tree gives each class; no upstream component judges them here.
package disruption
