// This file is compiled into the NVIDIA device plugin's own main package
// (cmd/nvidia-device-plugin), through the overlay scripts/
// upstream-overlay.sh writes: `make test-device-plugin` runs it. It is
// gpufleet's, under gpufleet's license; nothing of the plugin is changed.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvlib/pkg/nvlib/device"
	nvinfo "github.com/NVIDIA/go-nvlib/pkg/nvlib/info"
	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxa100"
	"github.com/urfave/cli/v2"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"

	spec "github.com/NVIDIA/k8s-device-plugin/api/config/v1"
	"github.com/NVIDIA/k8s-device-plugin/internal/plugin"
	"github.com/NVIDIA/k8s-device-plugin/internal/rm"

	"github.com/gpufleet/gpufleet/ladder/device-plugin"
)

var (
	generated = flag.Int("fleets", 12, "generated fleets (fleetgen Full) besides the examples and the sharing probe")
	// The test runs in devicediff/.upstream/k8s-device-plugin@<v>/cmd/nvidia-device-plugin.
	repo = flag.String("repo", "../../../../../..", "the gpufleet repository, whose fleets/ holds the example fleets")
)

// TestDevicePlugin starts the plugin's own code as startPlugins does, for
// every GPU node type of every fleet: its config loader on the ConfigMap
// key the node's label picks (the file the chart's config-manager writes),
// validateFlags, the default resources, and plugin.New's resource managers
// on go-nvml's mock DGX A100 cut to the type's GPU count. What each
// plugin's ListAndWatch would list must be what the checker says the node
// advertises; then, for each class the checker says kube-scheduler binds
// there, the kubelet's calls for each container, GetPreferredAllocation
// and Allocate, must succeed exactly where the checker says the pod runs.
func TestDevicePlugin(t *testing.T) {
	dir := t.TempDir()
	names, paths, err := devicediff.Fleets(*repo, dir, *generated)
	if err != nil {
		t.Fatal(err)
	}
	skipped := devicediff.Skipped{}
	var nodes, cells, refused, bad int
	for i := range names {
		ns, err := devicediff.Load(names[i], paths[i], skipped)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range ns {
			nodes++
			got, runs, err := startNode(t, dir, n)
			if err != nil {
				t.Errorf("%s: pool %s (%s, profile %q): the plugin does not start: %v", n.Fleet, n.Pool, n.InstanceType, n.Profile, err)
				bad++
				continue
			}
			if !equal(got, n.Advertised) {
				t.Errorf("%s: pool %s (%s, %d GPUs, profile %q): the plugin advertises %v, the checker says %v", n.Fleet, n.Pool, n.InstanceType, n.GPUs, n.Profile, got, n.Advertised)
				bad++
			}
			for _, c := range n.Cells {
				cells++
				why := runs(c.Containers)
				if why != nil {
					refused++
				}
				if (why == nil) != c.Runs {
					t.Errorf("%s: class %s on pool %s (%s, profile %q), containers asking %v nvidia.com/gpu: the checker says it runs: %v; the plugin: %v", n.Fleet, c.Class, n.Pool, n.InstanceType, n.Profile, c.Containers, c.Runs, orOK(why))
					bad++
				}
			}
		}
	}
	var skips []string
	for why, k := range skipped {
		skips = append(skips, fmt.Sprintf("%d (%s)", k, why))
	}
	sort.Strings(skips)
	t.Logf("device plugin v0.18.0: %d fleets, %d GPU node types started, %d class × node cells allocated (%d refused by the plugin), %d disagreements; not judged: %s", len(names), nodes, cells, refused, bad, strings.Join(skips, ", "))
	if nodes == 0 || cells == 0 || refused == 0 {
		t.Errorf("the fleets gave %d nodes, %d cells and %d refusals: nothing would be judged", nodes, cells, refused)
	}
}

// chartMPSRoot is the MPS_ROOT the chart's DaemonSet sets (values.yaml
// mps.root); the chart sets no other flag the tree's values leave unset.
const chartMPSRoot = "/run/nvidia/mps"

// startNode loads the node's config as the plugin's main does and
// returns what its plugins would list, and a function that allocates a
// pod's containers as the kubelet would.
func startNode(t *testing.T, dir string, n devicediff.Node) (map[string]int64, func([]int64) error, error) {
	args := []string{"nvidia-device-plugin"}
	if n.Config != "" {
		f := filepath.Join(dir, "config.yaml")
		if err := os.WriteFile(f, []byte(n.Config), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--config-file", f)
	}
	t.Setenv("MPS_ROOT", chartMPSRoot)
	config, err := parseArgs(args)
	if err != nil {
		return nil, nil, err
	}
	spec.DisableResourceNamingInConfig(config)

	srv := dgxa100.New()
	if n.GPUs > int64(len(srv.Devices)) {
		return nil, nil, fmt.Errorf("the mock has %d GPUs, the type %d", len(srv.Devices), n.GPUs)
	}
	srv.DeviceGetCountFunc = func() (int, nvml.Return) { return int(n.GPUs), nvml.SUCCESS }
	// The mock is a MIG-capable A100 with MIG off, but for the calls below
	// it lacks: NVML's answers for the node's GPU, with no MIG device.
	for _, d := range srv.Devices {
		d := d.(*dgxa100.Device)
		if !n.MIGCapable {
			d.GetMigModeFunc = func() (int, int, nvml.Return) { return 0, 0, nvml.ERROR_NOT_SUPPORTED }
			continue
		}
		d.GetMaxMigDeviceCountFunc = func() (int, nvml.Return) { return 7, nvml.SUCCESS }
		d.GetMigDeviceHandleByIndexFunc = func(int) (nvml.Device, nvml.Return) { return nil, nvml.ERROR_NOT_FOUND }
	}
	devicelib := device.New(srv)
	// A GPU node: NVML is there (the mock), whatever this machine has.
	infolib := nvinfo.New(nvinfo.WithNvmlLib(srv), nvinfo.WithDeviceLib(devicelib), nvinfo.WithPlatform(nvinfo.PlatformNVML),
		nvinfo.WithPropertyExtractor(&nvinfo.PropertyExtractorMock{
			HasNvmlFunc:               func() (bool, string) { return true, "the mock" },
			HasDXCoreFunc:             func() (bool, string) { return false, "" },
			IsTegraSystemFunc:         func() (bool, string) { return false, "" },
			HasTegraFilesFunc:         func() (bool, string) { return false, "" },
			UsesOnlyNVGPUModuleFunc:   func() (bool, string) { return false, "" },
			HasOnlyIntegratedGPUsFunc: func() (bool, string) { return false, "" },
		}))
	if err := validateFlags(infolib, config); err != nil {
		return nil, nil, fmt.Errorf("unable to validate flags: %w", err)
	}
	if err := rm.AddDefaultResourcesToConfig(infolib, srv, devicelib, config); err != nil {
		return nil, nil, err
	}
	strategies, err := spec.NewDeviceListStrategies(*config.Flags.Plugin.DeviceListStrategy)
	if err != nil {
		return nil, nil, err
	}
	plugins, err := plugin.New(context.Background(), infolib, srv, devicelib,
		plugin.WithConfig(config), plugin.WithDeviceListStrategies(strategies), plugin.WithFailOnInitError(*config.Flags.FailOnInitError))
	if err != nil {
		return nil, nil, err
	}
	// The resource each plugin registers with the kubelet is its resource
	// manager's: the same managers, built again, name them by device set.
	rms, err := rm.NewNVMLResourceManagers(infolib, srv, devicelib, config)
	if err != nil {
		return nil, nil, err
	}
	got := map[string]int64{}
	servers := map[string]pluginapi.DevicePluginServer{}
	ids := map[string][]string{}
	for _, p := range plugins {
		s, ok := p.(pluginapi.DevicePluginServer)
		if !ok {
			return nil, nil, fmt.Errorf("plugin %T is not a DevicePluginServer", p)
		}
		devs := p.Devices().GetIDs()
		if len(devs) == 0 {
			continue // startPlugins starts no server for it
		}
		slices.Sort(devs)
		r := ""
		for _, m := range rms {
			mine := m.Devices().GetIDs()
			slices.Sort(mine)
			if slices.Equal(mine, devs) {
				r = string(m.Resource())
			}
		}
		if r == "" {
			return nil, nil, fmt.Errorf("no resource manager serves the devices %v", devs)
		}
		got[r], servers[r], ids[r] = int64(len(devs)), s, devs
	}
	runs := func(containers []int64) error {
		gpu := "nvidia.com/gpu"
		available := slices.Clone(ids[gpu])
		for _, want := range containers {
			if want == 0 {
				continue
			}
			s := servers[gpu]
			if s == nil || int64(len(available)) < want {
				return fmt.Errorf("%d %s left for a container asking %d", len(available), gpu, want)
			}
			// The plugin prefers whole GPUs by NVLink topology, which the
			// mock does not model (and which only orders them): take the
			// first, as the kubelet does without a preference. Replicas it
			// spreads over GPUs without topology: ask it.
			chosen := available[:want]
			if strings.Contains(available[0], "::") {
				pref, err := s.GetPreferredAllocation(context.Background(), &pluginapi.PreferredAllocationRequest{ContainerRequests: []*pluginapi.ContainerPreferredAllocationRequest{{
					AvailableDeviceIDs: available, AllocationSize: int32(want),
				}}})
				if err != nil {
					return fmt.Errorf("GetPreferredAllocation: %w", err)
				}
				chosen = pref.ContainerResponses[0].DeviceIDs
			}
			if int64(len(chosen)) != want {
				return fmt.Errorf("GetPreferredAllocation chose %d of %d", len(chosen), want)
			}
			chosen = slices.Clone(chosen)
			if _, err := s.Allocate(context.Background(), &pluginapi.AllocateRequest{ContainerRequests: []*pluginapi.ContainerAllocateRequest{{DevicesIDs: chosen}}}); err != nil {
				return fmt.Errorf("Allocate: %w", err)
			}
			available = slices.DeleteFunc(available, func(id string) bool { return slices.Contains(chosen, id) })
		}
		return nil
	}
	return got, runs, nil
}

// parseArgs builds the command line's context with the plugin's own flags
// and loads the config as its main does.
func parseArgs(args []string) (*spec.Config, error) {
	app := cli.NewApp()
	app.Flags = mainFlags()
	var config *spec.Config
	app.Action = func(c *cli.Context) error {
		var err error
		config, err = loadConfig(c, app.Flags)
		return err
	}
	if err := app.Run(args); err != nil {
		return nil, err
	}
	return config, nil
}

func equal(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func orOK(err error) string {
	if err == nil {
		return "allocated"
	}
	return err.Error()
}
