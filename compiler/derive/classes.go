package derive

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/cloud"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
	"github.com/gpufleet/gpufleet/compiler/wire/schedconfig"
)

// SchedulerName is the schedulerName a class's pods carry: its profile's,
// else its own (empty means default-scheduler).
func SchedulerName(c spec.Class) string {
	if c.SchedulerProfile != "" {
		return schedconfig.SchedulerNames[c.SchedulerProfile]
	}
	return c.SchedulerName
}

func deriveClass(name string, c spec.Class, dedicated []string, cl cloud.Cloud) Class {
	var wl map[string]string
	if c.Queued() {
		wl = map[string]string{kueue.LabelQueueName: LocalQueueName, kueue.LabelPriorityClass: c.Priority}
		if s, ok := MaxExecSeconds(c); ok {
			wl[kueue.LabelMaxExecTime] = strconv.FormatInt(s, 10)
		}
	}
	out := Class{
		Name:           name,
		Spec:           c,
		WorkloadLabels: wl,
		Dedicated:      dedicated,
		Job:            jobPolicy(c),
		MaxUnavailable: maxUnavailable(c),
		Strategy:       strategy(c),
		Roles:          roles(name, c, dedicated, cl),
	}
	if r := c.PrimaryRole(); r != nil {
		for _, dr := range out.Roles {
			if dr.Spec.Name == r.Name {
				out.Template = dr.Template
			}
		}
	} else {
		out.Template = podTemplate(name, "", c, dedicated, cl)
	}
	return out
}

// podTemplate is the pod template of the class, or of its role: a role's
// pods carry its name (keys.LabelRole), and its spread and anti-affinity
// count only them.
func podTemplate(name, role string, c spec.Class, dedicated []string, cl cloud.Cloud) corev1.PodTemplateSpec {
	efa, efaTaint := cl.Fabric()
	labels := map[string]string{keys.LabelClass: name}
	if role != "" {
		labels[keys.LabelRole] = role
	}
	ps := corev1.PodSpec{
		PriorityClassName:         c.Priority,
		SchedulerName:             SchedulerName(c),
		NodeSelector:              c.NodeSelector,
		Tolerations:               tolerations(c, dedicated, efaTaint),
		Affinity:                  affinity(labels, c, dedicated),
		TopologySpreadConstraints: spread(labels, c),
		RuntimeClassName:          optString(c.RuntimeClass),
		Overhead:                  resources(c.Overhead),
		Containers:                []corev1.Container{mainContainer(c, efa)},
	}
	if grace := graceSeconds(c, cl); grace != nil {
		ps.TerminationGracePeriodSeconds = grace
	}
	for _, ic := range c.InitContainers {
		ctr := corev1.Container{Name: ic.Name, Image: ic.Image, Resources: corev1.ResourceRequirements{Requests: resources(spec.Resources{CPU: ic.CPU, Memory: ic.Memory})}}
		if ic.RestartPolicy == "Always" {
			always := corev1.ContainerRestartPolicyAlways
			ctr.RestartPolicy = &always
		}
		ps.InitContainers = append(ps.InitContainers, ctr)
	}
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: podAnnotations(c, cl)}, Spec: ps}
}

// tolerations uses Exists wherever the taint's value is not the point, so a
// changed value can never silently strand a class; a dedicated pool's value
// is the point, so that one is Equal.
func tolerations(c spec.Class, dedicated []string, efaTaint string) []corev1.Toleration {
	var ts []corev1.Toleration
	if c.GPU != nil {
		ts = append(ts, corev1.Toleration{Key: keys.TaintGPU, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	}
	if c.EFA > 0 {
		ts = append(ts, corev1.Toleration{Key: efaTaint, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	}
	if c.Capacity != spec.OnDemand {
		ts = append(ts, corev1.Toleration{Key: keys.TaintSpot, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	}
	for _, pool := range dedicated {
		ts = append(ts, corev1.Toleration{Key: keys.TaintDedicated, Operator: corev1.TolerationOpEqual, Value: pool, Effect: corev1.TaintEffectNoSchedule})
	}
	for _, t := range c.Tolerations {
		ts = append(ts, corev1.Toleration{
			Key: t.Key, Operator: corev1.TolerationOperator(t.Operator), Value: t.Value,
			Effect: corev1.TaintEffect(t.Effect), TolerationSeconds: t.TolerationSeconds,
		})
	}
	return ts
}

func affinity(own map[string]string, c spec.Class, dedicated []string) *corev1.Affinity {
	var a corev1.Affinity
	if na := nodeAffinity(c, dedicated); na != nil {
		a.NodeAffinity = na
	}
	if c.AntiAffinity != "" {
		term := corev1.PodAffinityTerm{
			LabelSelector:  &metav1.LabelSelector{MatchLabels: own},
			TopologyKey:    keys.LabelHostname,
			MatchLabelKeys: matchLabelKeys(c),
		}
		anti := &corev1.PodAntiAffinity{}
		if c.AntiAffinity == spec.Required {
			anti.RequiredDuringSchedulingIgnoredDuringExecution = []corev1.PodAffinityTerm{term}
		} else {
			anti.PreferredDuringSchedulingIgnoredDuringExecution = []corev1.WeightedPodAffinityTerm{{Weight: 100, PodAffinityTerm: term}}
		}
		a.PodAntiAffinity = anti
	}
	if a.NodeAffinity == nil && a.PodAntiAffinity == nil {
		return nil
	}
	return &a
}

// nodeAffinity ANDs the derived requirements into every user term: terms
// are ORed, so (derived AND t1) OR (derived AND t2) keeps the derived policy
// in force whichever term matches.
func nodeAffinity(c spec.Class, dedicated []string) *corev1.NodeAffinity {
	var derived []corev1.NodeSelectorRequirement
	if c.GPU != nil && len(c.GPU.Products) > 0 {
		derived = append(derived, req(keys.LabelGPUProduct, corev1.NodeSelectorOpIn, c.GPU.Products...))
	}
	if c.GPU != nil && c.GPU.MinMemoryGiB > 0 {
		derived = append(derived, req(keys.LabelGPUMemory, corev1.NodeSelectorOpGt, strconv.FormatInt(c.GPU.MinMemoryGiB-1, 10)))
	}
	derived = append(derived, gpuKind(c)...)
	switch c.Capacity {
	case spec.OnDemand, spec.Spot:
		derived = append(derived, req(keys.LabelCapacity, corev1.NodeSelectorOpIn, c.Capacity))
	}
	var terms []corev1.NodeSelectorTerm
	for _, t := range c.Affinity.Required {
		exprs := append([]corev1.NodeSelectorRequirement{}, derived...)
		terms = append(terms, corev1.NodeSelectorTerm{MatchExpressions: append(exprs, requirements(t.MatchExpressions)...)})
	}
	if len(terms) == 0 && len(derived) > 0 {
		terms = []corev1.NodeSelectorTerm{{MatchExpressions: derived}}
	}

	var preferred []corev1.PreferredSchedulingTerm
	if c.Capacity == spec.PreferSpot {
		preferred = append(preferred, corev1.PreferredSchedulingTerm{Weight: 100, Preference: corev1.NodeSelectorTerm{
			MatchExpressions: []corev1.NodeSelectorRequirement{req(keys.LabelCapacity, corev1.NodeSelectorOpIn, spec.Spot)}}})
	}
	if len(dedicated) > 0 {
		preferred = append(preferred, corev1.PreferredSchedulingTerm{Weight: 50, Preference: corev1.NodeSelectorTerm{
			MatchExpressions: []corev1.NodeSelectorRequirement{req(keys.LabelPool, corev1.NodeSelectorOpIn, dedicated...)}}})
	}
	for _, p := range c.Affinity.Preferred {
		preferred = append(preferred, corev1.PreferredSchedulingTerm{Weight: p.Weight, Preference: corev1.NodeSelectorTerm{
			MatchExpressions: requirements(p.Term.MatchExpressions)}})
	}
	if len(terms) == 0 && len(preferred) == 0 {
		return nil
	}
	na := &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: preferred}
	if len(terms) > 0 {
		na.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: terms}
	}
	return na
}

// gpuKind keeps whole-GPU, shared and MIG requests apart, since the
// resource name alone does not: a time-sliced node advertises replicas as
// nvidia.com/gpu too. Whole-GPU classes shun both labels in every fleet, so
// a pool that later turns on sharing can never take them; the MIG one by
// NotIn, since the GPU Operator may label unpartitioned nodes all-disabled.
func gpuKind(c spec.Class) []corev1.NodeSelectorRequirement {
	switch {
	case c.GPU == nil:
		return nil
	case c.GPU.MIG != "":
		return []corev1.NodeSelectorRequirement{req(keys.LabelMIGConfig, corev1.NodeSelectorOpIn, catalog.LayoutsWithProfile(c.GPU.MIG)...)}
	case c.GPU.Shared:
		return []corev1.NodeSelectorRequirement{req(keys.LabelDevicePluginConfig, corev1.NodeSelectorOpExists)}
	}
	return []corev1.NodeSelectorRequirement{
		req(keys.LabelDevicePluginConfig, corev1.NodeSelectorOpDoesNotExist),
		req(keys.LabelMIGConfig, corev1.NodeSelectorOpNotIn, catalog.AllMIGLayouts()...),
	}
}

// GPUResource is what a class's pods request: GPUs, or MIG slices.
func GPUResource(g *spec.GPU) corev1.ResourceName {
	if g != nil && g.MIG != "" {
		return catalog.MIGResource(g.MIG)
	}
	return keys.ResourceGPU
}

func req(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: append([]string(nil), values...)}
}

func requirements(rs []spec.Requirement) []corev1.NodeSelectorRequirement {
	out := make([]corev1.NodeSelectorRequirement, len(rs))
	for i, r := range rs {
		out[i] = req(r.Key, corev1.NodeSelectorOperator(r.Operator), r.Values...)
	}
	return out
}

func spread(own map[string]string, c spec.Class) []corev1.TopologySpreadConstraint {
	if c.Spread == nil {
		return nil
	}
	var out []corev1.TopologySpreadConstraint
	add := func(mode, key string) {
		if mode == "" {
			return
		}
		var minDomains *int32
		// minDomains is only valid with DoNotSchedule.
		if key == keys.LabelZone && mode == spec.Required {
			minDomains = c.Spread.MinZones
		}
		when := corev1.DoNotSchedule
		if mode == spec.Preferred {
			when = corev1.ScheduleAnyway
		}
		out = append(out, corev1.TopologySpreadConstraint{
			MaxSkew:           c.Spread.MaxSkew,
			MinDomains:        minDomains,
			TopologyKey:       key,
			WhenUnsatisfiable: when,
			LabelSelector:     &metav1.LabelSelector{MatchLabels: own},
			MatchLabelKeys:    matchLabelKeys(c),
		})
	}
	add(c.Spread.Zones, keys.LabelZone)
	add(c.Spread.Hosts, keys.LabelHostname)
	return out
}

// mainContainer carries the class's resources. GPU (and MIG) requests equal limits:
// Kubernetes requires it for extended resources and copies limits into
// requests only for Pods, not for the templates written here.
func mainContainer(c spec.Class, efa corev1.ResourceName) corev1.Container {
	rr := corev1.ResourceRequirements{Requests: resources(c.Resources)}
	if c.Resources.Memory != "" {
		rr.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(string(c.Resources.Memory))}
	}
	if c.GPU != nil {
		n := *resource.NewQuantity(c.GPU.Count, resource.DecimalSI)
		if rr.Requests == nil {
			rr.Requests = corev1.ResourceList{}
		}
		if rr.Limits == nil {
			rr.Limits = corev1.ResourceList{}
		}
		rr.Requests[GPUResource(c.GPU)] = n
		rr.Limits[GPUResource(c.GPU)] = n
	}
	if c.EFA > 0 {
		n := *resource.NewQuantity(c.EFA, resource.DecimalSI)
		if rr.Requests == nil {
			rr.Requests = corev1.ResourceList{}
		}
		if rr.Limits == nil {
			rr.Limits = corev1.ResourceList{}
		}
		rr.Requests[efa] = n
		rr.Limits[efa] = n
	}
	return corev1.Container{Name: c.Container, Image: c.Image, Resources: rr}
}

func resources(r spec.Resources) corev1.ResourceList {
	if r.CPU == "" && r.Memory == "" {
		return nil
	}
	rl := corev1.ResourceList{}
	if r.CPU != "" {
		rl[corev1.ResourceCPU] = resource.MustParse(string(r.CPU))
	}
	if r.Memory != "" {
		rl[corev1.ResourceMemory] = resource.MustParse(string(r.Memory))
	}
	return rl
}

func graceSeconds(c spec.Class, cl cloud.Cloud) *int64 {
	if c.CheckpointSecs != nil {
		return c.CheckpointSecs
	}
	if c.Batch() && c.Capacity != spec.OnDemand {
		s := cl.SpotNoticeSeconds()
		return &s
	}
	return nil
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
