package eksctldiff

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	api "github.com/weaveworks/eksctl/pkg/apis/eksctl.io/v1alpha5"
	"github.com/weaveworks/eksctl/pkg/cfn/builder"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/nodegroup/eks"
	"github.com/gpufleet/gpufleet/compiler/nodes"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

var generated = flag.Int("fleets", 24, "generated fleets (half fleetgen Full, half Buildable) besides the examples")

// eksctlLabels are the labels eksctl's defaulting adds to every managed
// node group; the checker does not place on them.
var eksctlLabels = []string{"alpha.eksctl.io/cluster-name", "alpha.eksctl.io/nodegroup-name"}

// TestEksctl loads each fleet's eksctl file as `eksctl create cluster -f`
// does (eksctl's strict parse and decode, then
// Cmd.InitializeClusterConfig's defaulting and validation of the cluster
// and of every node group), and holds each managed node group eksctl
// would create to the group the checker placed on: labels, taints,
// instance types in order, max size, zones, spot and AMI family.
func TestEksctl(t *testing.T) {
	if err := api.Register(); err != nil {
		t.Fatal(err)
	}
	names, paths := fleets(t)
	groups, bad := 0, 0
	for i, path := range paths {
		res, err := compiler.Compile([]string{path})
		if err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		raw := res.Tree[eks.EksctlPath]
		cfg, err := load(raw)
		if err != nil {
			t.Errorf("%s: eksctl refuses %s: %v", names[i], eks.EksctlPath, err)
			bad++
			continue
		}
		want, err := eks.Provisioner{}.NodeGroups(res.Typed())
		if err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		cl, err := res.Cluster()
		if err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		if len(cfg.ManagedNodeGroups) != len(want) {
			t.Errorf("%s: eksctl creates %d managed node groups, the checker read %d", names[i], len(cfg.ManagedNodeGroups), len(want))
			bad++
			continue
		}
		for j, ng := range cfg.ManagedNodeGroups {
			groups++
			if d := differ(ng, want[j]); d != "" {
				t.Errorf("%s: managed node group %s: %s", names[i], ng.Name, d)
				bad++
			}
			if d := template(ng, want[j], poolOf(cl, want[j].Pool)); d != "" {
				t.Errorf("%s: managed node group %s: the Auto Scaling group's cluster-autoscaler tags: %s", names[i], ng.Name, d)
				bad++
			}
		}
	}
	t.Logf("eksctl v0.230.0: %d fleets, %d managed node groups loaded, defaulted and validated, each with the cluster-autoscaler tags it propagates to its Auto Scaling group; %d disagreements", len(paths), groups, bad)
	if groups == 0 {
		t.Error("no managed node group was judged")
	}
}

// load is eksctl's ParseConfig and InitializeClusterConfig.
func load(raw []byte) (*api.ClusterConfig, error) {
	if err := yaml.UnmarshalStrict(raw, &api.ClusterConfig{}); err != nil {
		return nil, err
	}
	obj, err := runtime.Decode(scheme.Codecs.UniversalDeserializer(), raw)
	if err != nil {
		return nil, err
	}
	cfg, ok := obj.(*api.ClusterConfig)
	if !ok {
		return nil, fmt.Errorf("decoded a %T", obj)
	}
	api.SetClusterConfigDefaults(cfg)
	if err := api.ValidateClusterConfig(cfg); err != nil {
		return nil, err
	}
	for i, ng := range cfg.NodeGroups {
		if err := api.ValidateNodeGroup(i, ng, cfg); err != nil {
			return nil, err
		}
		if err := api.SetNodeGroupDefaults(ng, cfg.Metadata, cfg.IsControlPlaneOnOutposts()); err != nil {
			return nil, err
		}
	}
	for i, ng := range cfg.ManagedNodeGroups {
		if err := api.SetManagedNodeGroupDefaults(ng, cfg.Metadata, cfg.IsControlPlaneOnOutposts()); err != nil {
			return nil, err
		}
		if err := api.ValidateManagedNodeGroup(i, ng); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// differ lists how eksctl's node group differs from the checker's.
func differ(ng *api.ManagedNodeGroup, g nodes.Group) string {
	var d []string
	labels := maps.Clone(ng.Labels)
	for _, l := range eksctlLabels {
		if _, ok := labels[l]; !ok {
			d = append(d, "eksctl no longer adds label "+l)
		}
		delete(labels, l)
	}
	if !maps.Equal(labels, g.NodeLabels()) {
		d = append(d, fmt.Sprintf("labels %v, the checker's %v", labels, g.NodeLabels()))
	}
	if got, want := taints(ng.Taints), taintsOf(g.Taints); got != want {
		d = append(d, fmt.Sprintf("taints [%s], the checker's [%s]", got, want))
	}
	if !slices.Equal(ng.InstanceTypes, g.InstanceTypes) {
		d = append(d, fmt.Sprintf("instance types %v, the checker's %v", ng.InstanceTypes, g.InstanceTypes))
	}
	if ng.MaxSize == nil || int32(*ng.MaxSize) != g.MaxNodes {
		d = append(d, fmt.Sprintf("max size %v, the checker's %d", deref(ng.MaxSize), g.MaxNodes))
	}
	if !slices.Equal(ng.AvailabilityZones, g.Zones) {
		d = append(d, fmt.Sprintf("zones %v, the checker's %v", ng.AvailabilityZones, g.Zones))
	}
	if spot := api.IsEnabled(&ng.Spot); spot != g.Spot {
		d = append(d, fmt.Sprintf("spot %v, the checker's %v", spot, g.Spot))
	}
	if br := api.IsBottlerocketImage(ng.AMIFamily); br != g.HostDevicePlugin {
		d = append(d, fmt.Sprintf("AMI family %s, the checker's host device plugin %v", ng.AMIFamily, g.HostDevicePlugin))
	}
	return strings.Join(d, "; ")
}

// Cluster-autoscaler builds a node group's scale-from-zero template from
// its Auto Scaling group's tags: a label's value, a taint's as
// "<value>:<effect>" (it ignores a taint tag without the effect), and the
// count of an extended resource.
const (
	labelTag    = "k8s.io/cluster-autoscaler/node-template/label/"
	taintTag    = "k8s.io/cluster-autoscaler/node-template/taint/"
	resourceTag = "k8s.io/cluster-autoscaler/node-template/resources/"
)

// template compares the tags eksctl propagates to the group's Auto Scaling
// group, as propagateManagedNodeGroupTagsToASGTask makes them (its
// GenerateClusterAutoscalerTags for labels and taints, then the group's own
// tags over them), with the nodes the checker placed on: every label and
// taint there, and no extended resource promised beyond what the first
// type's node advertises, nor left out where it advertises some.
func template(ng *api.ManagedNodeGroup, g nodes.Group, p *sched.Pool) string {
	if !api.IsEnabled(ng.PropagateASGTags) {
		return "propagateASGTags is off: the Auto Scaling group gets no template tags"
	}
	tags := map[string]string{}
	builder.GenerateClusterAutoscalerTags(ng, func(k, v string) { tags[k] = v })
	maps.Copy(tags, ng.Tags)
	var d []string
	for k, v := range g.NodeLabels() {
		if got, ok := tags[labelTag+k]; !ok || got != v {
			d = append(d, fmt.Sprintf("label %s=%s tagged %q", k, v, got))
		}
	}
	for _, t := range g.Taints {
		if got, want := tags[taintTag+t.Key], t.Value+":"+string(t.Effect); got != want {
			d = append(d, fmt.Sprintf("taint %s tagged %q, want %q", t.Key, got, want))
		}
	}
	if p == nil || len(p.Nodes) == 0 {
		return strings.Join(append(d, "the checker has no node of the pool"), "; ")
	}
	alloc := p.Nodes[0].Node.Status.Allocatable
	for r, q := range alloc {
		if !strings.Contains(string(r), "/") || r == corev1.ResourcePods {
			continue
		}
		got, ok := tags[resourceTag+string(r)]
		switch {
		case !ok && !q.IsZero():
			d = append(d, fmt.Sprintf("no %s tag: a node advertises %s, which cluster-autoscaler's template would lack", r, q.String()))
		case ok && got > "" && !fits(got, q.Value()):
			d = append(d, fmt.Sprintf("%s tagged %s, more than the %s a node advertises", r, got, q.String()))
		}
	}
	slices.Sort(d)
	return strings.Join(d, "; ")
}

func poolOf(cl *sched.Cluster, name string) *sched.Pool {
	for i := range cl.Pools {
		if cl.Pools[i].Name == name {
			return &cl.Pools[i]
		}
	}
	return nil
}

// fits: the tagged count is a number no greater than n.
func fits(tag string, n int64) bool {
	v, err := strconv.ParseInt(tag, 10, 64)
	return err == nil && v <= n
}

func taints(ts []api.NodeGroupTaint) string {
	var kube []corev1.Taint
	for _, t := range ts {
		kube = append(kube, corev1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
	}
	return taintsOf(kube)
}

func taintsOf(ts []corev1.Taint) string {
	var out []string
	for _, t := range ts {
		out = append(out, fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect))
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// fleets are the example fleets and generated ones, half fleetgen's Full
// (zone groups, spot, Bottlerocket, EFA, MIG, sharing, taints) and half
// Buildable, as spec files.
func fleets(t *testing.T) (names, paths []string) {
	t.Helper()
	names, paths, err := testfleet.Examples("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	for seed := 1; seed <= *generated; seed++ {
		opts, kind := fleetgen.Options{Full: true}, "full"
		if seed%2 == 0 {
			opts, kind = fleetgen.Options{Buildable: true}, "buildable"
		}
		p := filepath.Join(tmp, fmt.Sprintf("%s-%d.json", kind, seed))
		if err := os.WriteFile(p, fleetgen.JSON(fleetgen.Generate(uint64(seed), fleetgen.S, opts)), 0o644); err != nil {
			t.Fatal(err)
		}
		names, paths = append(names, fmt.Sprintf("%s seed %d", kind, seed)), append(paths, p)
	}
	return names, paths
}
