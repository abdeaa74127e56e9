package check

// Intent is what the spec meant, which the rendered objects alone cannot
// say: the deny-side and quota proofs check the objects against it.
type Intent struct {
	// OnDemandOnly lists classes that must never run on spot.
	OnDemandOnly map[string]bool
	// Dedicated maps a dedicated pool to the classes it admits.
	Dedicated map[string][]string
	Tenants   []TenantIntent
	// Priorities maps each class to its priority value and whether it may
	// preempt.
	Priorities map[string]PriorityIntent
	// Version is the cluster's Kubernetes minor version.
	Version string
	// SpotNoticeSeconds is how long the cloud warns before it reclaims a
	// spot instance, and AutoscalerGPULabel the label by which
	// cluster-autoscaler expects a node's GPUs (cloud.Cloud).
	SpotNoticeSeconds  int64
	AutoscalerGPULabel string
}

// Namespaces maps each class to the namespaces its tenants run it in.
func (in Intent) Namespaces() map[string][]string {
	out := map[string][]string{}
	for _, tn := range in.Tenants {
		for _, c := range tn.Classes {
			out[c] = append(out[c], tn.Namespaces...)
		}
	}
	return out
}

type TenantIntent struct {
	Name    string
	Classes []string
	// Namespaces are where the tenant runs its classes, whose LimitRanges
	// fill in what a container does not request.
	Namespaces []string
	// Hard is the tenant's ResourceQuota (nominal plus borrowing) and
	// Nominal its nominal quota alone, by resource name (nvidia.com/gpu,
	// cpu, memory, pods).
	Hard, Nominal map[string]int64 // milli-units
	// PriorityHard are the PriorityClass-scoped quotas by priority: each
	// namespace's pods of that priority must fit them too.
	PriorityHard map[string]map[string]int64
	// Share is the smallest namespace's share of the quota its unqueued
	// classes get, a ResourceQuota scoped to SharePriorities, when the
	// tenant has several namespaces (nil otherwise): its pods of those
	// priorities must fit it wherever they run.
	Share           map[string]int64
	SharePriorities []string
}

type PriorityIntent struct {
	Name     string // the PriorityClass
	Value    int32
	Preempts bool
	Batch    bool // a Job class
}
