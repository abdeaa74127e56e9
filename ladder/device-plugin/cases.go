// Package devicediff gives the device plugin's own code what the checker
// proved of each GPU node: the plugin config the node's label picks, its
// GPUs, what the checker says it advertises, and, for each class that fits
// it, each container's GPU request and whether the checker says the class
// runs there. The test that judges them (testdata/allocate_test.go) runs
// inside the NVIDIA device plugin's main package, whose path cannot import
// gpufleet's internal packages; this package can.
package devicediff

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/check/nodeagents"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/deviceplugin"
	"github.com/gpufleet/gpufleet/internal/fleetgen"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// Node is one instance type of one pool, as the checker proved it.
type Node struct {
	Fleet, Pool, InstanceType string
	// Profile is the device plugin ConfigMap key the node's label picks
	// (the chart's default key without one), and Config its text; "" when
	// the tree has no ConfigMap, and the plugin runs on its flags alone.
	Profile, Config string
	// GPUs is the catalog's count of the type's physical GPUs, and
	// MIGCapable whether their product has MIG.
	GPUs       int64
	MIGCapable bool
	// Advertised is the checker's allocatable of each nvidia.com resource.
	Advertised map[string]int64
	// Cells are the classes the checker says kube-scheduler binds here.
	Cells []Cell
}

// Cell is one class whose pods fit the node.
type Cell struct {
	Class string
	// Containers is each container's nvidia.com/gpu, in the order the
	// kubelet allocates them: init containers first.
	Containers []int64
	// Runs is the checker's verdict: no finding says the device plugin
	// refuses what a container asks (DevicePluginAllocate).
	Runs bool
}

// Skipped counts the nodes the test cannot judge, by why.
type Skipped map[string]int

// Fleets are the example fleets under root's fleets/, a fleet written to
// probe sharing (every strategy, 1 to 8 GPUs per container), and n
// generated ones (fleetgen's Full, which shares, cuts MIG and runs
// Bottlerocket), as spec files under dir.
func Fleets(root, dir string, n int) (names, paths []string, err error) {
	if names, paths, err = testfleet.Examples(root); err != nil {
		return nil, nil, err
	}
	probe := filepath.Join(dir, "sharing.cue")
	if err := os.WriteFile(probe, []byte(sharingFleet), 0o644); err != nil {
		return nil, nil, err
	}
	names, paths = append(names, "sharing"), append(paths, probe)
	for seed := 1; seed <= n; seed++ {
		p := filepath.Join(dir, fmt.Sprintf("full-%d.json", seed))
		if err := os.WriteFile(p, fleetgen.JSON(fleetgen.Generate(uint64(seed), fleetgen.S, fleetgen.Options{Full: true})), 0o644); err != nil {
			return nil, nil, err
		}
		names, paths = append(names, fmt.Sprintf("full seed %d", seed)), append(paths, p)
	}
	return names, paths, nil
}

// sharingFleet shares 1-, 4- and 8-GPU types by time-slicing and MPS
// beside whole GPUs, with classes asking for 1, 2 and 8 GPUs.
const sharingFleet = `package fleet
cluster: {provider: "eks", name: "sharing", region: "us-east-1", version: "1.36", zones: ["us-east-1a", "us-east-1b"]}
priorities: p: value: 1
pools: {
	"ts-1": {instanceTypes: ["g6.xlarge"], sharing: {strategy: "time-slicing", replicas: 4}, size: {min: 0, max: 2}}
	"mps-1": {instanceTypes: ["g6.xlarge"], sharing: {strategy: "mps", replicas: 8}, size: {min: 0, max: 2}}
	"ts-4": {instanceTypes: ["g6.12xlarge"], sharing: {strategy: "time-slicing", replicas: 2}, size: {min: 0, max: 2}}
	"mps-4": {instanceTypes: ["g6.12xlarge"], sharing: {strategy: "mps", replicas: 3}, size: {min: 0, max: 2}}
	"mps-8": {instanceTypes: ["g6.48xlarge"], sharing: {strategy: "mps", replicas: 2}, size: {min: 0, max: 1}}
	"whole-4": {instanceTypes: ["g6.12xlarge"], size: {min: 0, max: 2}}
}
classes: {
	one: {priority: "p", gpu: {count: 1, products: ["L4"], shared: true}}
	two: {priority: "p", gpu: {count: 2, products: ["L4"], shared: true}}
	eight: {priority: "p", gpu: {count: 8, products: ["L4"], shared: true}}
	whole: {priority: "p", gpu: {count: 2, products: ["L4"]}}
}
tenants: t: {namespaces: ["t"], classes: ["one", "two", "eight", "whole"]}
`

// Load compiles a fleet and lists its GPU nodes that run the NVIDIA device
// plugin chart, one per pool and instance type.
func Load(name, path string, skipped Skipped) ([]Node, error) {
	res, err := compiler.Compile([]string{path})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	cl, err := res.Cluster()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	configs, err := configs(res.Tree[tree.DevicePluginConfigPath])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	refused := map[[2]string]bool{}
	for _, f := range res.Report.Findings {
		if f.Check == nodeagents.IDDevicePluginAllocate {
			refused[[2]string{f.Class, f.Pool}] = true
		}
	}
	var out []Node
	for _, p := range cl.Pools {
		seen := map[string]bool{}
		for _, n := range p.Nodes {
			in := res.Catalog[n.InstanceType]
			if in.GPU == nil || seen[n.InstanceType] {
				continue
			}
			seen[n.InstanceType] = true
			switch {
			case p.HostDevicePlugin:
				skipped["Bottlerocket's own device plugin, not the chart's"]++
				continue
			case p.NoDevicePlugin != "":
				skipped["the chart's plugin does not run there (DevicePlugin)"]++
				continue
			case n.Node.Labels[keys.LabelGPUAPI] == spec.GPUAPIDRA && !p.DevicePluginOnDRA:
				skipped["the NVIDIA DRA driver publishes its GPUs (gpuAPI dra), the chart's plugin shuns them"]++
				continue
			case n.Node.Labels[keys.LabelMIGConfig] != "":
				skipped["MIG slices: go-nvml v0.13.0-1's mock A100 makes no MIG devices"]++
				continue
			}
			node := Node{Fleet: name, Pool: p.Name, InstanceType: n.InstanceType, GPUs: in.GPU.Count, MIGCapable: catalog.SupportsMIG(in.GPU.Product), Advertised: map[string]int64{}}
			if configs != nil {
				node.Profile = deviceplugin.DefaultProfile
				if l, ok := n.Node.Labels[keys.LabelDevicePluginConfig]; ok {
					node.Profile = l
				}
				text, ok := configs[node.Profile]
				if !ok {
					return nil, fmt.Errorf("%s: pool %s: no key %q in %s", name, p.Name, node.Profile, tree.DevicePluginConfigPath)
				}
				node.Config = text
			}
			for r, q := range n.Node.Status.Allocatable {
				if strings.HasPrefix(string(r), "nvidia.com/") {
					node.Advertised[string(r)] = q.Value()
				}
			}
			for i := range cl.Classes {
				c := &cl.Classes[i]
				cell := res.Report.Cell(c.Name, p.Name)
				if cell == nil || !cell.Fits || !onType(cell, n.InstanceType) {
					continue
				}
				node.Cells = append(node.Cells, Cell{Class: c.Name, Containers: containers(c.Pod), Runs: !refused[[2]string{c.Name, p.Name}]})
			}
			out = append(out, node)
		}
	}
	return out, nil
}

// onType: the class's pods fit a node of the type, as the checker
// evaluated the pool node by node.
func onType(cell *sched.Cell, it string) bool {
	if len(cell.Nodes) == 0 {
		return cell.Type == it
	}
	for _, nv := range cell.Nodes {
		if nv.InstanceType == it && nv.Fits {
			return true
		}
	}
	return false
}

// configs reads the device plugin ConfigMap: its keys' texts, nil without
// one.
func configs(raw []byte) (map[string]string, error) {
	if raw == nil {
		return nil, nil
	}
	var cm corev1.ConfigMap
	if err := yaml.Unmarshal(raw, &cm); err != nil {
		return nil, fmt.Errorf("%s: %w", tree.DevicePluginConfigPath, err)
	}
	return cm.Data, nil
}

// containers is each container's nvidia.com/gpu, init containers first.
func containers(p *corev1.Pod) []int64 {
	var out []int64
	for _, cs := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for _, c := range cs {
			q, ok := c.Resources.Limits[catalog.ResourceGPU]
			if !ok {
				q = c.Resources.Requests[catalog.ResourceGPU]
			}
			out = append(out, q.Value())
		}
	}
	return out
}
