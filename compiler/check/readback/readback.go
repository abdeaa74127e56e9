// Package readback reads the rendered tree back as the cluster the
// scheduler would see, at full size (FromTree) or running (FromLive):
// nodes synthesised from the provisioners' node groups, with only the
// devices their device plugins advertise and less what the DaemonSets on
// every node take, and pods from the class examples, as LimitRanger
// leaves them (WithLimitRanges).
package readback

import (
	"fmt"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/internal/par"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/nodes"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/deviceplugin"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// FromTree builds the cluster the scheduler would see at full size: the
// nodes of the provisioners' node groups (which compiler/nodegroup reads back
// from their files in the tree) and the pods of the class examples in the
// tree, so what is checked is exactly what is written.
func FromTree(t tree.Typed, groups []nodes.Group, cat catalog.Catalog) (*sched.Cluster, error) {
	sharing, err := deviceplugin.SharingProfiles(t.Tree[tree.DevicePluginConfigPath])
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	c := &sched.Cluster{}
	for _, g := range groups {
		p, err := poolFrom(g, cat, sharing)
		if err != nil {
			return nil, err
		}
		c.Pools = append(c.Pools, p)
	}
	// Fleets with GPUs carry the device plugin's values; GPUs count only
	// where its daemon pod runs.
	dp, err := DevicePluginPod(t.Tree)
	if err != nil {
		return nil, err
	}
	dra, err := DRAPluginPod(t.Tree)
	if err != nil {
		return nil, err
	}
	if dp != nil || anyGPUs(c) {
		withDevicePlugin(c, dp)
	}
	withDRAPlugin(c, dra, cat)
	withEFAPlugin(c)
	every, err := EveryNode(t.Tree)
	if err != nil {
		return nil, err
	}
	withDaemonSets(c, every, dp, dra)
	templates, err := claimTemplates(t)
	if err != nil {
		return nil, err
	}
	classes, err := deviceClasses(t)
	if err != nil {
		return nil, err
	}
	bridging := bridgeClasses(dra != nil, classes)
	names, examples := t.Examples()
	rows := make([][]sched.Class, len(examples))
	err = forEach(len(examples), func(i int) (err error) {
		rows[i], err = classRows(names[i], t, examples[i])
		for k := range rows[i] {
			if err == nil {
				rows[i][k].Info.Claims, err = podClaims(rows[i][k].Pod, templates, classes)
			}
			if err == nil {
				rows[i][k].Info.Bridge = bridgeClaims(rows[i][k].Pod, rows[i][k].Info, bridging)
			}
		}
		if err != nil {
			return fmt.Errorf("check: %s: %w", examples[i], err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.Classes = make([]sched.Class, 0, len(examples))
	for _, r := range rows {
		c.Classes = append(c.Classes, r...)
	}
	if c.System, err = systemFrom(t); err != nil {
		return nil, fmt.Errorf("check: %s: %w", tree.SchedulerPath, err)
	}
	sort.Slice(c.Pools, func(i, j int) bool { return c.Pools[i].Name < c.Pools[j].Name })
	return c, nil
}

// poolFrom synthesises the group's nodes. Their GPU resources are what the
// device plugin advertises under the node's labels: replicas from the
// device plugin ConfigMap entry the label names, MIG slices from the layout.
func poolFrom(ng nodes.Group, cat catalog.Catalog, sharing map[string]deviceplugin.Profile) (sched.Pool, error) {
	p := sched.Pool{Name: ng.Pool, Spot: ng.Spot, Zones: ng.Zones, MaxNodes: ng.MaxNodes, Standing: ng.Standing, FromZero: ng.FromZero, HostDevicePlugin: ng.HostDevicePlugin, MixedTypes: mixedTypes(ng, cat), ZoneBlind: ng.ZoneBlind, Unpriced: unpriced(ng)}
	nodeLabels := ng.NodeLabels()
	replicas, layout := int64(1), nodeLabels[keys.LabelMIGConfig]
	if profile, ok := nodeLabels[keys.LabelDevicePluginConfig]; ok {
		s, ok := sharing[profile]
		if !ok {
			return p, fmt.Errorf("check: node group %s: label %s names %q, which %s lacks", ng.Pool, keys.LabelDevicePluginConfig, profile, tree.DevicePluginConfigPath)
		}
		replicas, p.MPS = s.Replicas, s.MPS
	}
	p.KarpenterNodes, p.NoKarpenterDRA = ng.KarpenterNodes, ng.NoKarpenterDRA
	p.Reserved, p.FallsBack = ng.Reserved, ng.FallsBack
	if replicas > 1 {
		p.Replicas = replicas
	}
	for _, it := range ng.Launched() {
		if p.Unpriced.Has(it) {
			continue
		}
		in, ok := cat[it]
		if !ok {
			return p, fmt.Errorf("check: node group %s: unknown instance type %q", ng.Pool, it)
		}
		if _, ok := catalog.MIGLayout(in.GPU, layout); layout != "" && !ok {
			return p, fmt.Errorf("check: node group %s: instance type %s has no MIG layout %q", ng.Pool, it, layout)
		}
		if in.GPU != nil && p.Replicas > 1 {
			p.LaunchGPUs = max(p.LaunchGPUs, in.GPU.Count)
		}
		for _, zone := range ng.Zones {
			if p.NodesInZone(zone) == 0 {
				continue // fewer nodes than zones: this zone gets none
			}
			name := fmt.Sprintf("%s-%s-%s", ng.Pool, it, zone)
			labels := map[string]string{
				keys.LabelHostname:     name,
				keys.LabelZone:         zone,
				keys.LabelInstanceType: it,
				keys.LabelOS:           "linux",
			}
			for k, v := range nodeLabels {
				labels[k] = v
			}
			capacity, alloc := in.Shared(in.Capacity(), replicas, layout), in.Shared(in.Allocatable(), replicas, layout)
			if ng.EFA && in.EFA > 0 {
				efa := *resource.NewQuantity(in.EFA, resource.DecimalSI)
				capacity[aws.ResourceEFA], alloc[aws.ResourceEFA] = efa, efa
			}
			p.Nodes = append(p.Nodes, sched.Node{InstanceType: it, Zone: zone, Node: &corev1.Node{
				ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
				Spec:       corev1.NodeSpec{Taints: ng.Taints},
				Status:     corev1.NodeStatus{Capacity: capacity, Allocatable: alloc},
			}})
		}
	}
	return p, nil
}

// classFrom reads the class's workload from its example, the file's first
// document; a headless Service or a PodDisruptionBudget may follow it.
// Render's own object is read where the tree kept it, its pod template
// copied, since checks may change a class's pod.
func classFrom(name string, t tree.Typed, p string) (sched.Class, any, error) {
	c := sched.Class{Name: name, Pods: 1}
	objs, docs := t.Documents(p)
	var workload any
	switch {
	case len(objs) > 0:
		workload = objs[0]
	case len(docs) > 0:
		var err error
		if workload, err = decodeWorkload(docs[0]); err != nil {
			return c, nil, err
		}
	default:
		return c, nil, fmt.Errorf("no workload")
	}
	workload, err := withRuntime(t, workload)
	if err != nil {
		return c, nil, err
	}
	var tpl *corev1.PodTemplateSpec
	var meta *metav1.ObjectMeta
	switch w := workload.(type) {
	case *appsv1.Deployment:
		tpl, meta, c.Kind, c.Pods = &w.Spec.Template, &w.ObjectMeta, keys.KindDeployment, deref(w.Spec.Replicas, 1)
		c.MaxSurge, c.MaxUnavailable = fenceposts(w.Spec.Strategy, c.Pods)
	case *appsv1.StatefulSet:
		tpl, meta, c.Kind, c.Pods = &w.Spec.Template, &w.ObjectMeta, keys.KindStatefulSet, deref(w.Spec.Replicas, 1)
	case *batchv1.Job:
		tpl, meta, c.Kind, c.Pods = &w.Spec.Template, &w.ObjectMeta, keys.KindJob, deref(w.Spec.Parallelism, 1)
		c.Gang = w.Annotations[keys.AnnotationGang] != ""
	default:
		r, ok := roledWorkload(workload)
		if !ok {
			return c, nil, fmt.Errorf("unexpected workload %T", workload)
		}
		role, ok := r.primary()
		if !ok {
			return c, nil, fmt.Errorf("%s without roles", r.kind)
		}
		// The class's row is its primary role's pods, in every copy.
		tpl, meta, c.Kind, c.Pods = role.Template, r.meta, r.kind, role.Pods*r.copies
		for _, rl := range r.roles {
			row := name
			if rl.Name != role.Name {
				row = sched.RoleRow(name, rl.Name)
			}
			c.PodSets = append(c.PodSets, sched.PodSet{Name: rl.PodSet, Row: row, Pods: rl.Pods})
		}
	}
	// Kueue manages the workload whose own labels name a LocalQueue (its
	// webhooks copy the name onto a Deployment's or StatefulSet's pods).
	c.Queued = meta.Labels[kueue.LabelQueueName] != ""
	c.PriorityClass = meta.Labels[kueue.LabelPriorityClass]
	c.MaxExecSeconds = maxExecSeconds(meta.Labels)
	tpl = tpl.DeepCopy()
	c.Pod = &corev1.Pod{ObjectMeta: tpl.ObjectMeta, Spec: tpl.Spec}
	c.Pod.Name = name
	c.Info = sched.NewPodInfo(c.Pod)
	return c, workload, nil
}

// decodeWorkload decodes an example's first document by its kind.
func decodeWorkload(raw []byte) (any, error) {
	kind, err := tree.Kind(raw)
	if err != nil {
		return nil, err
	}
	var v any
	switch kind {
	case keys.KindDeployment:
		v = &appsv1.Deployment{}
	case keys.KindStatefulSet:
		v = &appsv1.StatefulSet{}
	case keys.KindJob:
		v = &batchv1.Job{}
	default:
		mk, ok := roleKinds[kind]
		if !ok {
			return nil, fmt.Errorf("unexpected kind %q", kind)
		}
		v = mk()
	}
	return v, yaml.UnmarshalStrict(raw, v)
}

func deref(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

// DecodeAll appends the documents of the file at p to out (tree.DecodeAll),
// parsing YAML on every CPU.
func DecodeAll[T any](tr tree.Typed, p string, out *[]T) error {
	return tree.DecodeAll(tr, p, out, forEach)
}

// forEach runs f for 0..n-1 on every CPU and returns the error of the
// lowest i that failed, so that what is reported does not depend on
// scheduling. Reading a big fleet's YAML back is the checker's costliest
// step, and the documents are independent.
func forEach(n int, f func(i int) error) error {
	errs := make([]error, n)
	par.Each(n, func(i int) { errs[i] = f(i) })
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// fenceposts is a Deployment's rolling update in pods, as the Deployment
// controller resolves it (k8s.io/kubernetes pkg/controller/deployment/util
// ResolveFenceposts): maxSurge rounded up and maxUnavailable down, each
// defaulting to 25% as the API server defaults them, and maxUnavailable 1
// when both come to 0. Recreate takes every pod down first.
func fenceposts(s appsv1.DeploymentStrategy, replicas int32) (surge, unavailable int32) {
	if s.Type == appsv1.RecreateDeploymentStrategyType {
		return 0, replicas
	}
	quarter := intstr.FromString("25%")
	ms, mu := &quarter, &quarter
	if r := s.RollingUpdate; r != nil {
		if r.MaxSurge != nil {
			ms = r.MaxSurge
		}
		if r.MaxUnavailable != nil {
			mu = r.MaxUnavailable
		}
	}
	// The API server refuses values these cannot scale; 0 stands for them.
	su, _ := intstr.GetScaledValueFromIntOrPercent(ms, int(replicas), true)
	un, _ := intstr.GetScaledValueFromIntOrPercent(mu, int(replicas), false)
	if su == 0 && un == 0 {
		un = 1
	}
	return int32(su), int32(un)
}
