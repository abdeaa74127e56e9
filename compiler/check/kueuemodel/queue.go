package kueuemodel

// Queue says which classes a tenant queues through which ClusterQueue.
type Queue struct {
	Tenant       string
	ClusterQueue string
	// Namespace is where the tenant's work is checked: its first; its
	// LimitRange fills in requests the way Kueue does before it counts.
	Namespace string
	// Namespaces are all the tenant's, whose ResourceQuotas must allow
	// what the ClusterQueue admits.
	Namespaces []string
	Classes    []string // queued classes only
}
