package nodediff

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check/readback"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
	karpprov "github.com/gpufleet/gpufleet/compiler/nodegroup/karpenter"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/dradriver"
	"github.com/gpufleet/gpufleet/compiler/wire/eksctl"
	karpwire "github.com/gpufleet/gpufleet/compiler/wire/karpenter"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// fleet is one compiled fleet with its Karpenter objects, decoded with
// Karpenter's own v1 API types from the tree's YAML.
type fleet struct {
	name    string
	res     *compiler.Result
	cl      *sched.Cluster
	pools   []*karpv1.NodePool
	classes map[string]*v1.EC2NodeClass
	zones   []string // every NodePool's zones: the subnets' zones
}

// context is Karpenter's options as its chart installs it with the tree's
// values (nodegroups/karpenter-values.yaml; none: the chart's defaults),
// on ctx's.
func (f *fleet) context(t *testing.T) context.Context {
	t.Helper()
	env, err := ChartEnv(f.res.Tree[karpwire.ValuesPath], f.res.Fleet.Spec.Cluster.Name)
	if err != nil {
		t.Fatalf("%s: Karpenter's chart: %v", f.name, err)
	}
	aws, core, err := ChartArgs(env)
	if err != nil {
		t.Fatalf("%s: %v", f.name, err)
	}
	ctx, err := Context(aws...)
	if err == nil {
		ctx, err = WithCoreOptions(ctx, core...)
	}
	if err != nil {
		t.Fatalf("%s: Karpenter's options: %v", f.name, err)
	}
	return ctx
}

// fleetPaths are the example fleets and generated ones (fleetgen's Full
// covers Karpenter-only and "both" pools, spot, sharing, Bottlerocket,
// taints, spreads), as spec files.
func fleetPaths(t *testing.T, generated, karpenter int) (names, paths []string) {
	t.Helper()
	names, paths, err := testfleet.Examples("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	write := func(name string, f *spec.Fleet) {
		p := filepath.Join(tmp, strings.ReplaceAll(name, " ", "-")+".json")
		if err := os.WriteFile(p, fleetgen.JSON(f), 0o644); err != nil {
			t.Fatal(err)
		}
		names, paths = append(names, name), append(paths, p)
	}
	for seed := 1; seed <= generated; seed++ {
		g := fleetgen.Generate(uint64(seed), fleetgen.S, fleetgen.Options{Full: true})
		write(fmt.Sprintf("full seed %d", seed), g)
		// A fleet whose Karpenter launches for DRA claims, again with
		// Karpenter as its chart installs it by default.
		if k := g.Cluster.Karpenter; k != nil && k.DRA {
			off := *k
			off.DRA = false
			g.Cluster.Karpenter = &off
			write(fmt.Sprintf("full seed %d no DRA", seed), g)
		}
	}
	// Buildable fleets' pools list a family's sizes (several types per
	// pool), but are managed: launched by Karpenter instead (where it can:
	// not MIG, not EFA), they are what tells which type Karpenter launches.
	for seed := 1; seed <= karpenter; seed++ {
		g := fleetgen.Generate(uint64(seed), fleetgen.S, fleetgen.Options{Buildable: true})
		for name, p := range g.Pools {
			if p.MIG == "" && !p.EFA {
				p.Provisioner = spec.Karpenter
				g.Pools[name] = p
			}
		}
		write(fmt.Sprintf("karpenter seed %d", seed), g)
		// Every third again with its whole-GPU pools and classes on DRA,
		// Karpenter launching for claims: each pool lists several sizes,
		// so Karpenter chooses a type by the devices it publishes.
		if seed%3 == 0 && draAll(g) {
			write(fmt.Sprintf("karpenter seed %d DRA", seed), g)
		}
	}
	return names, paths
}

// draAll turns f's whole-GPU Karpenter pools and its whole-GPU classes to
// DRA, its Karpenter launching for claims; false if it has no such pool.
func draAll(f *spec.Fleet) bool {
	any := false
	for name, p := range f.Pools {
		if p.Provisioner == spec.Karpenter && p.Sharing == nil && p.AMIFamily == "" && gpuPool(p) {
			p.GPUAPI = spec.GPUAPIDRA
			f.Pools[name] = p
			any = true
		}
	}
	if !any {
		return false
	}
	for name, c := range f.Classes {
		if c.GPU != nil && !c.GPU.Shared && c.GPU.MIG == "" {
			gpu := *c.GPU
			gpu.API = spec.GPUAPIDRA
			c.GPU = &gpu
			f.Classes[name] = c
		}
	}
	k := spec.KarpenterConfig{DRA: true}
	if f.Cluster.Karpenter != nil {
		k.Role = f.Cluster.Karpenter.Role
	}
	f.Cluster.Karpenter = &k
	return true
}

// gpuPool reports whether the pool's types have GPUs (fleetgen's
// buildable pools list one family's sizes).
func gpuPool(p spec.Pool) bool {
	for _, it := range p.InstanceTypes {
		if strings.HasPrefix(it, "g") || strings.HasPrefix(it, "p") {
			return true
		}
	}
	return false
}

// load compiles a fleet and decodes its NodePools and EC2NodeClasses; nil
// when the fleet has no Karpenter pool.
func load(t *testing.T, name, path string) *fleet {
	t.Helper()
	res, err := compiler.Compile([]string{path})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	raw, ok := res.Tree[karpprov.Path]
	if !ok {
		return nil
	}
	cl, err := res.Cluster()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	f := &fleet{name: name, res: res, cl: cl, classes: map[string]*v1.EC2NodeClass{}}
	for _, doc := range tree.Docs(raw) {
		kind, err := tree.Kind(doc)
		if err != nil {
			t.Fatalf("%s: %s: %v", name, karpprov.Path, err)
		}
		switch kind {
		case "NodePool":
			np := &karpv1.NodePool{}
			if err := yaml.UnmarshalStrict(doc, np); err != nil {
				t.Fatalf("%s: NodePool: %v", name, err)
			}
			f.pools = append(f.pools, np)
			for _, r := range np.Spec.Template.Spec.Requirements {
				if r.Key == corev1.LabelTopologyZone {
					for _, z := range r.Values {
						if !slices.Contains(f.zones, z) {
							f.zones = append(f.zones, z)
						}
					}
				}
			}
		case "EC2NodeClass":
			nc := &v1.EC2NodeClass{}
			if err := yaml.UnmarshalStrict(doc, nc); err != nil {
				t.Fatalf("%s: EC2NodeClass: %v", name, err)
			}
			f.classes[nc.Name] = nc
		default:
			t.Fatalf("%s: %s: unexpected kind %q", name, karpprov.Path, kind)
		}
	}
	slices.Sort(f.zones)
	return f
}

// instanceTypes are Karpenter's instance types for each EC2NodeClass: the
// EC2 data the release ships (and, for catalog types it lacks, Info's
// assembly), as its AWS provider would list them, all of them: the
// scheduler filters them by each NodePool's requirements itself.
func (f *fleet) instanceTypes(t *testing.T, ctx context.Context, described map[string]ec2types.InstanceTypeInfo) map[string][]*cloudprovider.InstanceType {
	t.Helper()
	all := f.infos(t, described)
	out := map[string][]*cloudprovider.InstanceType{}
	for name, nc := range f.classes {
		WithSubnets(nc, f.zones)
		its, err := Offered(ctx, nc, all, f.zones)
		if err != nil {
			t.Fatalf("%s: EC2NodeClass %s: %v", f.name, name, err)
		}
		WithDRADevices(ctx, its)
		out[name] = its
	}
	return out
}

// infos are the EC2 data of every type the release ships and every type
// a NodePool lists, by name.
func (f *fleet) infos(t *testing.T, described map[string]ec2types.InstanceTypeInfo) []ec2types.InstanceTypeInfo {
	t.Helper()
	infos := map[string]ec2types.InstanceTypeInfo{}
	for n, info := range described {
		infos[n] = info
	}
	for _, np := range f.pools {
		for _, r := range np.Spec.Template.Spec.Requirements {
			if r.Key != corev1.LabelInstanceTypeStable {
				continue
			}
			for _, n := range r.Values {
				info, real, ok := Info(described, f.res.Catalog[n])
				if !ok {
					t.Fatalf("%s: NodePool %s: %s: Karpenter's VPC limits lack it", f.name, np.Name, n)
				}
				if !real {
					// EC2 sells every catalog type as spot too; the
					// assembly knows only on-demand.
					info.SupportedUsageClasses = []ec2types.UsageClassType{ec2types.UsageClassTypeOnDemand, ec2types.UsageClassTypeSpot}
				}
				infos[n] = info
			}
		}
	}
	all := make([]ec2types.InstanceTypeInfo, 0, len(infos))
	for _, n := range slices.Sorted(maps.Keys(infos)) {
		all = append(all, infos[n])
	}
	return all
}

// daemons are the daemon pods the checker takes off every node it reaches
// (check/readback/daemonsets.go): the DaemonSets on every node (EKS's add-ons
// tolerate every taint), the NVIDIA chart's device plugin and MPS control
// daemon, and eksctl's EFA device plugin. Karpenter adds each to a
// NodePool's overhead where it tolerates the taints and its affinity meets
// the requirements (isDaemonPodCompatible).
func (f *fleet) daemons(t *testing.T) []*corev1.Pod {
	t.Helper()
	every, err := readback.EveryNode(f.res.Tree)
	if err != nil {
		t.Fatal(err)
	}
	var out []*corev1.Pod
	add := func(name string, p *corev1.Pod, requests corev1.ResourceList) {
		p.Name, p.Namespace, p.UID = name, "kube-system", types.UID("daemon/"+name)
		p.Spec.Containers = []corev1.Container{{Name: name, Resources: corev1.ResourceRequirements{Requests: requests}}}
		out = append(out, p)
	}
	for _, ds := range every {
		add(ds.Name, &corev1.Pod{Spec: corev1.PodSpec{Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}}}, ds.Requests)
	}
	plugin, err := readback.DevicePluginPod(f.res.Tree)
	if err != nil {
		t.Fatal(err)
	}
	if plugin != nil {
		mps := plugin.DeepCopy()
		mps.Spec.NodeSelector = map[string]string{keys.LabelMPSCapable: "true"} // the chart's MPS daemon template
		add("nvidia-device-plugin", plugin, nil)
		add("nvidia-device-plugin-mps-control-daemon", mps, nil)
	}
	add("aws-efa-k8s-device-plugin", &corev1.Pod{Spec: corev1.PodSpec{
		Affinity:    &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: eksctl.EFADevicePluginAffinity}},
		Tolerations: eksctl.EFADevicePluginTolerations,
	}}, eksctl.EFADevicePluginRequests)
	return out
}

// claims are the ResourceClaims the resourceclaim controller makes for
// the pods from the class's templates (one per pod claim, named in the
// pod's status), and the driver chart's DeviceClasses they name.
func claims(c *sched.Class, ps []*corev1.Pod) []client.Object {
	if !c.Info.Claims.Asks() {
		return nil
	}
	var out []client.Object
	for _, dc := range dradriver.DeviceClasses() {
		out = append(out, dc)
	}
	for _, p := range ps {
		for i, pc := range p.Spec.ResourceClaims {
			rc := c.Info.Claims.Claims[i].DeepCopy()
			rc.Name, rc.Namespace = p.Name+"-"+pc.Name, p.Namespace
			name := rc.Name
			p.Status.ResourceClaimStatuses = append(p.Status.ResourceClaimStatuses, corev1.PodResourceClaimStatus{Name: pc.Name, ResourceClaimName: &name})
			out = append(out, rc)
		}
	}
	return out
}

// pods are the class's whole workload: its replicas, or its Job's gang,
// each the pod kube-scheduler sees (after LimitRanger), pending.
func pods(c *sched.Class) []*corev1.Pod {
	out := make([]*corev1.Pod, c.Pods)
	for i := range out {
		p := c.Pod.DeepCopy()
		p.Name = fmt.Sprintf("%s-%d", c.Name, i)
		if p.Namespace == "" {
			p.Namespace = "default"
		}
		p.UID = types.UID(p.Namespace + "/" + p.Name)
		p.Spec.NodeName = ""
		p.Status.Phase = corev1.PodPending
		out[i] = p
	}
	return out
}

// share is the checker's pool as Karpenter launches it: a "both" pool's
// NodePool launches only its Karpenter share (the max-nodes annotation,
// which the NodePool's limits are sized to), the managed baseline apart.
func share(t *testing.T, p sched.Pool, np *karpv1.NodePool) sched.Pool {
	n, err := strconv.ParseInt(np.Annotations[keys.AnnotationMaxNodes], 10, 32)
	if err != nil {
		t.Fatalf("NodePool %s: %v", np.Name, err)
	}
	p.MaxNodes = int32(n)
	return p
}
