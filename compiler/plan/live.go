package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/nodes"
)

// Live is what the plan read of the running cluster ('kubectl get nodes -o
// json', 'kubectl get pods -A -o json'): how many nodes and pods, and
// whether pods were given at all (without them no pod or quota is named).
type Live struct {
	Nodes    int  `json:"nodes"`
	Pods     int  `json:"pods"`
	WithPods bool `json:"withPods"`
}

// LivePod is a running pod a change hits, and the class its label names.
type LivePod struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Class     string `json:"class,omitempty"`
}

// QuotaCut is a tenant's namespace ResourceQuota the change sets below
// what the namespace's live pods already use, as the API server's quota
// evaluator counts it: the pods keep running, and the API server admits
// no new pod there that asks for more of the resource until use falls
// below the quota.
type QuotaCut struct {
	Tenant    string `json:"tenant"`
	Namespace string `json:"namespace"`
	Resource  string `json:"resource"`
	Before    string `json:"before"`
	After     string `json:"after"`
	InUse     string `json:"inUse"`
}

// WithLive names the live nodes and pods each replaced or destroyed pool
// drains (a node is a pool's by the labels the tree puts on nodes,
// nodes.PoolOf, against the pools before the change), the pods in each
// namespace a prune deletes, those a destroyed or restarted class's label
// names, and each tenant quota cut below what its live pods use. pods is
// nil when only nodes were given.
func (p *Plan) WithLive(ns []corev1.Node, pods []corev1.Pod) {
	p.Live = &Live{Nodes: len(ns), Pods: len(pods), WithPods: pods != nil}
	pools := nodes.PoolsOf(p.before.Groups)
	poolOf := map[string]string{} // node → pool
	nodesOf := map[string][]string{}
	for _, n := range ns {
		if pool, _ := pools.Of(n.Labels); pool != "" {
			poolOf[n.Name] = pool
			nodesOf[pool] = append(nodesOf[pool], n.Name)
		}
	}
	onPool := map[string][]LivePod{}
	inNamespace := map[string][]LivePod{}
	ofClass := map[string][]LivePod{}
	for _, pod := range pods {
		lp := LivePod{Namespace: pod.Namespace, Name: pod.Name, Class: pod.Labels[keys.LabelClass]}
		if pool := poolOf[pod.Spec.NodeName]; pool != "" {
			onPool[pool] = append(onPool[pool], lp)
		}
		inNamespace[pod.Namespace] = append(inNamespace[pod.Namespace], lp)
		if lp.Class != "" {
			ofClass[lp.Class] = append(ofClass[lp.Class], lp)
		}
	}
	for i := range p.Classes {
		if c := &p.Classes[i]; c.Action == Destroy || c.Restart {
			c.LivePods = sortedPods(ofClass[c.Class])
		}
	}
	for i := range p.NodeGroups {
		g := &p.NodeGroups[i]
		if g.Action != Replace && g.Action != Destroy {
			continue
		}
		g.LiveNodes = slices.Sorted(slices.Values(nodesOf[g.Pool]))
		g.LivePods = sortedPods(onPool[g.Pool])
	}
	for i := range p.Tenants {
		t := &p.Tenants[i]
		gone := t.NamespacesRemoved
		if t.Change == Removed {
			gone = p.before.Namespaces[t.Tenant]
		}
		for _, n := range gone {
			t.LivePods = append(t.LivePods, inNamespace[n]...)
		}
		t.LivePods = sortedPods(t.LivePods)
	}
	if pods != nil {
		p.QuotaCuts = quotaCuts(p.before, p.after, pods)
	}
}

func sortedPods(ps []LivePod) []LivePod {
	slices.SortFunc(ps, func(a, b LivePod) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	return ps
}

// quotaCuts compares each tenant namespace's own ResourceQuota (the
// unscoped one, which every pod in the namespace is charged to) after the
// change with what its pods use, where the change lowered it.
func quotaCuts(before, after *State, pods []corev1.Pod) []QuotaCut {
	use := map[string]corev1.ResourceList{}
	for i := range pods {
		u := PodUsage(&pods[i])
		if u == nil {
			continue
		}
		if use[pods[i].Namespace] == nil {
			use[pods[i].Namespace] = corev1.ResourceList{}
		}
		for r, q := range u {
			sum := use[pods[i].Namespace][r]
			sum.Add(q)
			use[pods[i].Namespace][r] = sum
		}
	}
	var out []QuotaCut
	for _, t := range slices.Sorted(maps.Keys(after.Namespaces)) {
		for _, ns := range after.Namespaces[t] {
			scope := ResourceQuotaScope(ns, quotaName)
			was := hardOf(before.Quotas[t], scope)
			for _, q := range after.Quotas[t] {
				if q.Scope != scope {
					continue
				}
				inUse, ok := use[ns][corev1.ResourceName(q.Resource)]
				b, had := was[q.Resource]
				if !ok || inUse.Cmp(q.Value) <= 0 || had && b.Cmp(q.Value) <= 0 {
					continue
				}
				c := QuotaCut{Tenant: t, Namespace: ns, Resource: q.Resource, After: q.Value.String(), InUse: inUse.String()}
				if had {
					c.Before = b.String()
				}
				out = append(out, c)
			}
		}
	}
	return out
}

func hardOf(qs []Quota, scope string) map[string]resource.Quantity {
	out := map[string]resource.Quantity{}
	for _, q := range qs {
		if q.Scope == scope {
			out[q.Resource] = q.Value
		}
	}
	return out
}

// PodUsage is what a pod is charged against a ResourceQuota, as the API
// server's pod evaluator computes it (k8s.io/kubernetes
// pkg/quota/v1/evaluator/core/pods.go, PodUsageFunc and
// podComputeUsageHelper, v1.36.5): nothing for a pod that has ended
// (QuotaV1Pod), else pods 1, cpu and memory requests under both their
// names, their limits, ephemeral storage, hugepages, and an extended
// resource's requests as requests.<name>. A pod stuck terminating past its
// grace period, which the evaluator stops charging by the clock, is
// charged here: a recorded file has no clock to compare with.
func PodUsage(pod *corev1.Pod) corev1.ResourceList {
	if pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
		return nil
	}
	requests := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	limits := resourcehelper.PodLimits(pod, resourcehelper.PodResourcesOptions{})
	out := corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}
	for _, r := range []struct{ name, req, lim corev1.ResourceName }{
		{corev1.ResourceCPU, corev1.ResourceRequestsCPU, corev1.ResourceLimitsCPU},
		{corev1.ResourceMemory, corev1.ResourceRequestsMemory, corev1.ResourceLimitsMemory},
		{corev1.ResourceEphemeralStorage, corev1.ResourceRequestsEphemeralStorage, corev1.ResourceLimitsEphemeralStorage},
	} {
		if q, ok := requests[r.name]; ok {
			out[r.name], out[r.req] = q, q
		}
		if q, ok := limits[r.name]; ok {
			out[r.lim] = q
		}
	}
	for name, q := range requests {
		switch {
		case strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix):
			out[name] = q
			out[corev1.DefaultResourceRequestsPrefix+name] = q
		case extended(name):
			out[corev1.DefaultResourceRequestsPrefix+name] = q
		}
	}
	return out
}

// extended is a resource the evaluator charges as requests.<name>
// (schedutil.IsDRAExtendedResourceName: v1helper.IsExtendedResourceName,
// or a DRA device class's name): not native (it has a domain, and not
// kubernetes.io's), not requests.-prefixed, and a qualified name with the
// prefix.
func extended(name corev1.ResourceName) bool {
	s := string(name)
	if strings.HasPrefix(s, resourcev1.ResourceDeviceClassPrefix) {
		return true
	}
	if !strings.Contains(s, "/") || strings.Contains(s, corev1.ResourceDefaultNamespacePrefix) || strings.HasPrefix(s, corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(corev1.DefaultResourceRequestsPrefix+s)) == 0
}

// named lists up to maxNamed names, saying how many more.
func named(names []string) string {
	const maxNamed = 20
	if len(names) <= maxNamed {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:maxNamed], ", ") + fmt.Sprintf(" and %d more", len(names)-maxNamed)
}

func (lp LivePod) String() string {
	if lp.Class == "" {
		return lp.Namespace + "/" + lp.Name
	}
	return lp.Namespace + "/" + lp.Name + " (class " + lp.Class + ")"
}

func podNames(ps []LivePod) []string {
	out := make([]string, len(ps))
	for i, lp := range ps {
		out[i] = lp.String()
	}
	return out
}

// liveItems are the live nodes and pods the change hits, and the quota
// cuts, as the plan says them.
func (p *Plan) liveItems() []string {
	if p.Live == nil {
		return nil
	}
	var out []string
	for _, g := range p.NodeGroups {
		if len(g.LiveNodes) > 0 {
			out = append(out, fmt.Sprintf("pool %s drains %d live %s: %s", g.Pool, len(g.LiveNodes), plural(len(g.LiveNodes), "node", "nodes"), named(g.LiveNodes)))
		}
		if len(g.LivePods) > 0 {
			out = append(out, fmt.Sprintf("pool %s evicts %d live %s: %s", g.Pool, len(g.LivePods), plural(len(g.LivePods), "pod", "pods"), named(podNames(g.LivePods))))
		}
	}
	for _, c := range p.Classes {
		if len(c.LivePods) == 0 {
			continue
		}
		what := "of workloads that include its Component, which a prune deletes"
		if c.Restart {
			what = "roll with its workloads"
		}
		out = append(out, fmt.Sprintf("class %s: %d live %s %s: %s", c.Class, len(c.LivePods), plural(len(c.LivePods), "pod", "pods"), what, named(podNames(c.LivePods))))
	}
	for _, t := range p.Tenants {
		if len(t.LivePods) > 0 {
			out = append(out, fmt.Sprintf("tenant %s: a prune deletes %d live %s: %s", t.Tenant, len(t.LivePods), plural(len(t.LivePods), "pod", "pods"), named(podNames(t.LivePods))))
		}
	}
	for _, c := range p.QuotaCuts {
		before := c.Before
		if before == "" {
			before = "none"
		}
		out = append(out, fmt.Sprintf("tenant %s, namespace %s: quota %s %s → %s, below the %s its live pods use: they keep running, and the API server admits no new pod asking for it until use falls below", c.Tenant, c.Namespace, c.Resource, before, c.After, c.InUse))
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
