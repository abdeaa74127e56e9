package kubesched

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic/dynamicinformer"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/schedconfig"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// loadSchedulerConfig does what kube-scheduler --config does with a file:
// strict decoding with its own scheme, which applies the v1 defaults and
// converts to the internal type (cmd/kube-scheduler/app/options.loadConfig),
// then its config validation (Options.Validate).
func loadSchedulerConfig(data []byte) (*config.KubeSchedulerConfiguration, error) {
	obj, gvk, err := scheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		return nil, err
	}
	cfg, ok := obj.(*config.KubeSchedulerConfiguration)
	if !ok {
		return nil, fmt.Errorf("decoded a %s, not a KubeSchedulerConfiguration", gvk)
	}
	cfg.TypeMeta.APIVersion = gvk.GroupVersion().String()
	if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// startScheduler builds the scheduler from cfg as kube-scheduler's Setup
// does, against a fake clientset. This is where each plugin's constructor
// checks its args: kube-scheduler v1.35's config validation looks
// NodeResourcesFit's up under the wrong name ("NodeResourcesFitArgs") and so
// never checks them, but NewFit does, and a bad scoringStrategy fails here.
func startScheduler(t *testing.T, cfg *config.KubeSchedulerConfiguration) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset()
	factory := informers.NewSharedInformerFactory(client, 0)
	dyn := dynamicinformer.NewDynamicSharedInformerFactory(dynamicfake.NewSimpleDynamicClient(runtime.NewScheme()), 0)
	recorders := func(string) events.EventRecorderLogger { return events.NewFakeRecorder(100) }
	_, err := scheduler.New(ctx, client, factory, dyn, recorders,
		scheduler.WithComponentConfigVersion(cfg.TypeMeta.APIVersion),
		scheduler.WithProfiles(cfg.Profiles...),
		scheduler.WithPercentageOfNodesToScore(cfg.PercentageOfNodesToScore),
		scheduler.WithParallelism(cfg.Parallelism),
	)
	return err
}

// exampleSchedulerConfigs compiles every example fleet and returns the
// kube-scheduler config each emits, by fleet.
func exampleSchedulerConfigs(t *testing.T) map[string][]byte {
	t.Helper()
	_, dirs, err := testfleet.Examples("../..")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, d := range dirs {
		res, err := compiler.Compile([]string{d})
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		raw, ok := res.Tree[tree.SchedulerConfigPath]
		if !ok {
			continue
		}
		var cm v1.ConfigMap
		if err := yaml.UnmarshalStrict(raw, &cm); err != nil {
			t.Fatalf("%s: %s: %v", d, tree.SchedulerConfigPath, err)
		}
		out[filepath.Base(d)] = []byte(cm.Data[schedconfig.ConfigKey])
	}
	// platform uses both profiles; a test over no config must not pass.
	if _, ok := out["platform"]; !ok {
		t.Fatalf("fleets/platform emits no %s", tree.SchedulerConfigPath)
	}
	return out
}

// vetSchedulerConfig loads the config as kube-scheduler does, starts a
// scheduler with it, and checks each profile after defaulting.
func vetSchedulerConfig(t *testing.T, data []byte) error {
	t.Helper()
	cfg, err := loadSchedulerConfig(data)
	if err != nil {
		return err
	}
	if err := startScheduler(t, cfg); err != nil {
		return err
	}
	for _, p := range cfg.Profiles {
		if err := checkDefaulted(p); err != nil {
			return err
		}
	}
	return nil
}

// TestSchedulerConfigValid loads every example fleet's scheduler config
// the way kube-scheduler does, validates it, and starts a scheduler with it.
func TestSchedulerConfigValid(t *testing.T) {
	for fleet, data := range exampleSchedulerConfigs(t) {
		if err := vetSchedulerConfig(t, data); err != nil {
			t.Errorf("%s: %v\n%s", fleet, err, data)
		}
	}
}

// checkDefaulted checks a profile after kube-scheduler's defaulting: not
// default-scheduler (the control plane's), the default plugins, and
// NodeResourcesFit scoring as meant. kube-scheduler ignores args of a
// plugin that is not enabled, so a misnamed pluginConfig would silently
// leave the default LeastAllocated on cpu and memory.
func checkDefaulted(p config.KubeSchedulerProfile) error {
	want, ok := map[string]config.ScoringStrategyType{"gpufleet-binpack": config.MostAllocated, "gpufleet-spread": config.LeastAllocated}[p.SchedulerName]
	if !ok {
		return fmt.Errorf("profile %s is not gpufleet's", p.SchedulerName)
	}
	if p.Plugins == nil || len(p.Plugins.MultiPoint.Enabled) == 0 {
		return fmt.Errorf("%s has no default plugins after defaulting", p.SchedulerName)
	}
	for _, pc := range p.PluginConfig {
		if args, ok := pc.Args.(*config.NodeResourcesFitArgs); ok {
			gpu := config.ResourceSpec{Name: "nvidia.com/gpu", Weight: 5}
			if s := args.ScoringStrategy; s == nil || s.Type != want || len(s.Resources) == 0 || s.Resources[0] != gpu {
				return fmt.Errorf("%s scores %+v, want %s weighting nvidia.com/gpu 5", p.SchedulerName, s, want)
			}
			return nil
		}
	}
	return fmt.Errorf("%s lost its NodeResourcesFit args", p.SchedulerName)
}

// TestSchedulerConfigChecksCanFail proves the checks above reject broken
// configs: each edit of platform's config must fail loading, starting, or
// the profile check.
func TestSchedulerConfigChecksCanFail(t *testing.T) {
	good := string(exampleSchedulerConfigs(t)["platform"])
	for _, tc := range []struct{ name, from, to, want string }{
		{"duplicate schedulerName", "schedulerName: gpufleet-spread", "schedulerName: gpufleet-binpack", "Duplicate value"},
		{"unknown field", "percentageOfNodesToScore: 100", "percentageOfNodesToScore: 100\n  scoreAll: true", "unknown field"},
		{"percentage out of range", "percentageOfNodesToScore: 100", "percentageOfNodesToScore: 101", "percentageOfNodesToScore"},
		{"unknown scoring strategy", "type: MostAllocated", "type: MostAllocatedGPU", "scoringStrategy.type"},
		{"GPU weight out of range", "weight: 5", "weight: 500", "weight"},
		{"removed plugin's args", "name: NodeResourcesFit", "name: NodeResourcesMostAllocated", "want MostAllocated"},
		{"removed plugin enabled", "- percentageOfNodesToScore: 100", "- plugins: {score: {enabled: [{name: NodeResourcesMostAllocated}]}}\n  percentageOfNodesToScore: 100", "NodeResourcesMostAllocated"},
		{"default-scheduler served", "schedulerName: gpufleet-spread", "schedulerName: default-scheduler", "not gpufleet's"},
		{"spread without List", "defaultingType: List", "defaultingType: System", "defaultingType"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := strings.Replace(good, tc.from, tc.to, 1)
			if bad == good {
				t.Fatalf("%q not in the config", tc.from)
			}
			err := vetSchedulerConfig(t, []byte(bad))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error mentioning %q", err, tc.want)
			}
			t.Log(err)
		})
	}
}
