package e2e

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"sigs.k8s.io/yaml"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/deviceplugin"
	"github.com/gpufleet/gpufleet/compiler/wire/dradriver"
	"github.com/gpufleet/gpufleet/compiler/wire/eksctl"
	"github.com/gpufleet/gpufleet/compiler/wire/flux"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

// renderDevicePlugin is `helm template` of the NVIDIA device plugin's chart,
// from its pinned Go module, with the tree's values, as docs/tree.md tells
// users to install it: Helm's own loader, value coalescing and template
// engine, so that what Helm merges from the chart's defaults is in it too.
func renderDevicePlugin(values []byte, kubeVersion string) ([]*unstructured.Unstructured, error) {
	return renderChart(upstream.DevicePlugin, upstream.DevicePluginChart, deviceplugin.ChartVersion, deviceplugin.ValuesPath, values, deviceplugin.ReleaseName, deviceplugin.Namespace, kubeVersion)
}

// renderChart is `helm template` of a chart pinned in a Go module, at the
// version the tree's values are for.
func renderChart(m upstream.Module, chartPath, version, valuesPath string, values []byte, release, namespace, kubeVersion string) ([]*unstructured.Unstructured, error) {
	dir, err := m.File(chartPath)
	if err != nil {
		return nil, err
	}
	ch, err := loader.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("load chart: %w", err)
	}
	if v := ch.Metadata.Version; v != version {
		return nil, fmt.Errorf("the pinned chart is %s, but the tree's values are for %s", v, version)
	}
	vals, err := chartutil.ReadValues(values)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", valuesPath, err)
	}
	return helmTemplate(ch, vals, release, namespace, kubeVersion)
}

// fluxValues are the values of the tree's Flux HelmRelease, the form a
// GitOps tool installs the chart from (compiler's TestChartDelivery
// holds them, and the Argo CD Application's, equal to values.yaml).
func fluxValues(t tree.Tree) ([]byte, error) {
	for _, doc := range tree.Docs(t[deviceplugin.FluxPath]) {
		var hr flux.HelmRelease
		if err := yaml.Unmarshal(doc, &hr); err != nil {
			return nil, fmt.Errorf("%s: %w", deviceplugin.FluxPath, err)
		}
		if hr.Kind == "HelmRelease" {
			return yaml.Marshal(hr.Spec.Values)
		}
	}
	return nil, fmt.Errorf("%s has no HelmRelease", deviceplugin.FluxPath)
}

// helmTemplate is `helm template` of a loaded chart: Helm's own value
// coalescing and template engine, for the server's Kubernetes version.
func helmTemplate(ch *chart.Chart, vals chartutil.Values, release, namespace, kubeVersion string) ([]*unstructured.Unstructured, error) {
	kv, err := chartutil.ParseKubeVersion(kubeVersion)
	if err != nil {
		return nil, err
	}
	inst := action.NewInstall(&action.Configuration{Log: func(string, ...any) {}})
	inst.DryRun, inst.ClientOnly, inst.Replace = true, true, true
	inst.ReleaseName, inst.Namespace, inst.KubeVersion = release, namespace, kv
	rel, err := inst.Run(ch, vals)
	if err != nil {
		return nil, fmt.Errorf("helm template %s: %w", ch.Name(), err)
	}
	objs, err := decodeAll([]byte(rel.Manifest))
	if err != nil {
		return nil, err
	}
	for _, o := range objs {
		if o.GetNamespace() == "" && o.GetKind() != "ClusterRole" && o.GetKind() != "ClusterRoleBinding" && o.GetKind() != "CustomResourceDefinition" {
			o.SetNamespace(namespace)
		}
	}
	return objs, nil
}

// devicePlugin installs the node agents and lets the real DaemonSet
// controller and scheduler place their daemon pods on the fleet's nodes
// (each pool at max size): the real aws-vpc-cni chart and the tree's
// other DaemonSets on every node (nodeAgents), the real NVIDIA chart with
// the tree's values, and eksctl's EFA plugin. A node must get the NVIDIA
// plugin's pod exactly where the checker says it runs (so that the node
// advertises GPUs), and every GPU node of a pool whose host does not run
// the plugin itself must get one; every node must get each agent's. They
// stay for the fleet's classes, whose nodes wait for them (ensureNodes),
// so their requests and pod slots are taken as the checker takes them.
func (fr *fleetRun) devicePlugin() {
	v, err := fr.cp.Client.Discovery().ServerVersion()
	if err != nil {
		fr.t.Fatal(err)
	}
	objs, err := nodeAgents(fr.res.Tree, v.GitVersion)
	if err != nil {
		fr.t.Fatal(err)
	}
	var agents []string
	for _, o := range objs {
		if o.GetKind() == "DaemonSet" {
			agents = append(agents, o.GetName())
		}
	}
	if _, ok := fr.res.Tree[deviceplugin.ValuesPath]; ok {
		values, err := fluxValues(fr.res.Tree)
		if err != nil {
			fr.t.Fatal(err)
		}
		dp, err := renderDevicePlugin(values, v.GitVersion)
		if err != nil {
			fr.t.Fatal(err)
		}
		objs = append(objs, dp...)
	}
	fr.draObjects = fr.draDriverObjects(v.GitVersion)
	objs = append(objs, fr.draObjects...)
	if fr.anyEFA() {
		e, err := efaPluginObjects()
		if err != nil {
			fr.t.Fatal(err)
		}
		objs = append(objs, e...)
	}
	fr.ensureNodes(fr.fullSize(""))
	var daemonSets []*unstructured.Unstructured
	for _, o := range objs {
		if _, err := fr.a.Apply(fr.ctx, o); err != nil {
			fr.t.Fatalf("the API server refused the node agents' %s: %v", id(o), err)
		}
		if o.GetKind() == "DaemonSet" {
			daemonSets = append(daemonSets, o)
		}
	}
	fr.agents, fr.daemonSets = objs, daemonSets
	placed, err := fr.daemonPods(daemonSets)
	if err != nil {
		fr.fail("device plugin: %v", err)
		return
	}
	var bad []string
	gpuNodes, mpsNodes, draNodes := 0, 0, 0
	for _, n := range fr.nodes.nodes {
		pool := fr.pool(fr.nodes.poolOf[n.Name])
		gpu := fr.gpuType(n)
		want := pluginRuns(pool, gpu)
		if isDRANode(n) {
			want = pool.DevicePluginOnDRA
			if why := fr.draPluginAgrees(n, pool, placed[n.Name]); why != "" {
				bad = append(bad, why)
			} else if slices.Contains(placed[n.Name], draKubeletPlugin) {
				draNodes++
			}
		} else if why := fr.draPluginAgrees(n, pool, placed[n.Name]); why != "" {
			bad = append(bad, why)
		}
		if gpu && !pool.HostDevicePlugin && !isDRANode(n) {
			gpuNodes++
			if !want {
				bad = append(bad, fmt.Sprintf("node %s of GPU pool %s: the checker says the device plugin does not run there (%s)", n.Name, pool.Name, pool.NoDevicePlugin))
			}
		}
		var wantDS []string
		if want {
			wantDS = append(wantDS, deviceplugin.ReleaseName)
		}
		if pool.MPSDaemon {
			wantDS = append(wantDS, mpsDaemonSet)
			mpsNodes++
		}
		if why := fr.efaPluginAgrees(n, pool, placed[n.Name]); why != "" {
			bad = append(bad, why)
		}
		for _, a := range agents {
			if !slices.Contains(placed[n.Name], a) {
				bad = append(bad, fmt.Sprintf("node %s of pool %s: no pod of %s, which the checker takes off every node", n.Name, pool.Name, a))
			}
		}
		if got := nvidiaOnly(placed[n.Name]); !slices.Equal(got, wantDS) {
			bad = append(bad, fmt.Sprintf("node %s of pool %s: the checker says the daemon pods of [%s] run there, but the DaemonSet controller and scheduler placed those of [%s]", n.Name, pool.Name, strings.Join(wantDS, " "), strings.Join(got, " ")))
		}
	}
	fr.gpuPools = gpuPools(fr, placed)
	fr.efaPools = efaPools(fr, placed)
	// The classes' nodes advertise GPUs where the plugin runs: rebuild them.
	fr.nodeKey = ""
	sort.Strings(bad)
	if len(bad) > 0 {
		fr.fail("the real device plugin chart and the checker disagree:\n  %s", strings.Join(bad, "\n  "))
		return
	}
	fr.st.DevicePluginNodes += gpuNodes
	fr.st.DRANodes += draNodes
	if len(fr.draObjects) > 0 {
		fr.publishSlices(placed)
		fr.t.Logf("DRA driver chart %s: the kubelet plugin's daemon pod on each of %d DRA nodes, each publishing its ResourceSlice, as the checker said", dradriver.ChartVersion, draNodes)
	}
	fr.st.MPSNodes += mpsNodes
	efaNodes, efaPlugin := 0, 0
	for _, n := range fr.nodes.nodes {
		if fr.efaNode(n) {
			efaNodes++
			if slices.Contains(placed[n.Name], eksctl.EFADevicePluginName) {
				efaPlugin++
			}
		}
	}
	fr.st.EFANodes += efaPlugin
	if efaNodes > 0 {
		fr.t.Logf("eksctl's EFA device plugin: its daemon pod on %d of %d EFA nodes, as the checker said", efaPlugin, efaNodes)
	}
	fr.t.Logf("device plugin chart %s: the plugin's daemon pod on each of %d GPU nodes (and the MPS control daemon's on the %d MPS nodes among them), none on the other %d nodes", deviceplugin.ChartVersion, gpuNodes, mpsNodes, len(fr.nodes.nodes)-gpuNodes)
}

func (fr *fleetRun) pool(name string) *sched.Pool {
	for i := range fr.cl.Pools {
		if fr.cl.Pools[i].Name == name {
			return &fr.cl.Pools[i]
		}
	}
	fr.t.Fatalf("no pool %s", name)
	return nil
}

// gpuPools are the pools every node of which runs the plugin's daemon pod,
// and the MPS control daemon's where the pool's sharing profile is MPS: the
// pools whose nodes advertise GPUs.
func gpuPools(fr *fleetRun, placed map[string][]string) map[string]bool {
	out := map[string]bool{}
	for _, p := range fr.infra {
		out[p.name] = true
	}
	for _, n := range fr.nodes.nodes {
		pool := fr.nodes.poolOf[n.Name]
		p := fr.infraPool(pool)
		want := []string{deviceplugin.ReleaseName}
		if fr.sharing[p.labels[keys.LabelDevicePluginConfig]].MPS {
			want = append(want, mpsDaemonSet)
		}
		for _, ds := range want {
			if !slices.Contains(placed[n.Name], ds) {
				out[pool] = false
			}
		}
	}
	return out
}

func (fr *fleetRun) infraPool(name string) *infraPool {
	for _, p := range fr.infra {
		if p.name == name {
			return p
		}
	}
	fr.t.Fatalf("no pool %s in the infrastructure files", name)
	return nil
}

// mpsDaemonSet is the chart's MPS control daemon, which runs where GFD's
// nvidia.com/mps.capable label is true.
const mpsDaemonSet = deviceplugin.ReleaseName + "-mps-control-daemon"

// pluginRuns is the checker's word on whether the device plugin's daemon
// pod runs on a node of pool (a GPU node, or not).
func pluginRuns(p *sched.Pool, gpu bool) bool {
	switch {
	case p.HostDevicePlugin:
		return p.DevicePluginOnHost
	case gpu:
		return p.NoDevicePlugin == ""
	default:
		return p.DevicePluginOnCPU
	}
}

// gpuType tells from the catalog whether the node's instance type has
// GPUs: a pool the plugin misses has them, but its nodes advertise none.
func (fr *fleetRun) gpuType(n *corev1.Node) bool {
	it, ok := fr.res.Catalog[fr.nodes.typeOf[fr.nodes.poolOf[n.Name]]]
	return ok && it.GPU != nil && it.GPU.Count > 0
}

// daemonPods waits until every DaemonSet reports as many pods scheduled as
// it wants, each bound by kube-scheduler, and returns the DaemonSets whose
// pods run on each node, sorted.
func (fr *fleetRun) daemonPods(daemonSets []*unstructured.Unstructured) (map[string][]string, error) {
	placed := map[string][]string{}
	var state string
	err := poll(60*time.Second, 200*time.Millisecond, func() (bool, error) {
		if err := fr.cp.Alive(); err != nil {
			return false, err
		}
		var b bytes.Buffer
		done := true
		var pods []corev1.Pod
		namespaces := map[string]bool{}
		for _, o := range daemonSets {
			ds, err := fr.cp.Client.AppsV1().DaemonSets(o.GetNamespace()).Get(fr.ctx, o.GetName(), metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			s := ds.Status
			fmt.Fprintf(&b, "%s: generation %d observed %d, desired %d, scheduled %d; ", ds.Name, ds.Generation, s.ObservedGeneration, s.DesiredNumberScheduled, s.CurrentNumberScheduled)
			done = done && s.ObservedGeneration == ds.Generation && s.CurrentNumberScheduled == s.DesiredNumberScheduled
			if !namespaces[ds.Namespace] {
				namespaces[ds.Namespace] = true
				l, err := fr.cp.Client.CoreV1().Pods(ds.Namespace).List(fr.ctx, metav1.ListOptions{})
				if err != nil {
					return false, err
				}
				pods = append(pods, l.Items...)
			}
		}
		placed = map[string][]string{}
		zero := int64(0)
		for _, p := range pods {
			// Only the DaemonSets' pods: the namespace may hold others,
			// such as the tree's own scheduler, which SystemLands may
			// find fits no node.
			if ref := metav1.GetControllerOf(&p); ref == nil || ref.Kind != "DaemonSet" {
				continue
			}
			// A pod the DaemonSet controller deleted (a surplus one on a
			// node) would wait for a kubelet forever, still counted on its
			// node: confirm it gone, as the kubelet would.
			if p.DeletionTimestamp != nil {
				err := fr.cp.Client.CoreV1().Pods(p.Namespace).Delete(fr.ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
				if err != nil && !apierrors.IsNotFound(err) {
					return false, err
				}
				fmt.Fprintf(&b, "pod %s terminating; ", p.Name)
				done = false
				continue
			}
			if p.Spec.NodeName == "" {
				fmt.Fprintf(&b, "pod %s not bound; ", p.Name)
				done = false
				continue
			}
			owner := metav1.GetControllerOf(&p).Name
			placed[p.Spec.NodeName] = append(placed[p.Spec.NodeName], owner)
		}
		for node, ds := range placed {
			slices.Sort(ds)
			if len(slices.Compact(slices.Clone(ds))) != len(ds) {
				fmt.Fprintf(&b, "node %s has two pods of one DaemonSet: %v; ", node, ds)
				done = false
			}
		}
		state = b.String()
		return done, nil
	})
	if err != nil {
		return nil, fmt.Errorf("the DaemonSets did not settle: %w (%s)", err, state)
	}
	return placed, nil
}

// nvidiaOnly are the NVIDIA chart's DaemonSets among placed.
func nvidiaOnly(placed []string) []string {
	return slices.DeleteFunc(slices.Clone(placed), func(ds string) bool { return !strings.HasPrefix(ds, deviceplugin.ReleaseName) })
}

// removeDevicePlugin deletes the node agents' objects, and the daemon pods
// by hand: the control plane runs no garbage collector.
func (fr *fleetRun) removeDevicePlugin(objs []*unstructured.Unstructured) {
	for i := len(objs) - 1; i >= 0; i-- {
		if err := fr.a.Delete(fr.ctx, objs[i], 30*time.Second); err != nil {
			fr.fail("cleanup: %s: %v", id(objs[i]), err)
		}
	}
	zero := int64(0)
	for _, o := range objs {
		if o.GetKind() != "DaemonSet" {
			continue
		}
		pods := fr.cp.Client.CoreV1().Pods(o.GetNamespace())
		sel := metav1.FormatLabelSelector(daemonSelector(o))
		if err := pods.DeleteCollection(fr.ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{LabelSelector: sel}); err != nil {
			fr.fail("cleanup: %s pods: %v", o.GetName(), err)
		}
		err := poll(30*time.Second, 200*time.Millisecond, func() (bool, error) {
			l, err := pods.List(fr.ctx, metav1.ListOptions{LabelSelector: sel})
			return err == nil && len(l.Items) == 0, err
		})
		if err != nil {
			fr.fail("cleanup: %s pods: %v", o.GetName(), err)
		}
	}
}

// daemonSelector is the DaemonSet's pod selector.
func daemonSelector(o *unstructured.Unstructured) *metav1.LabelSelector {
	m, _, _ := unstructured.NestedStringMap(o.Object, "spec", "selector", "matchLabels")
	return &metav1.LabelSelector{MatchLabels: m}
}
