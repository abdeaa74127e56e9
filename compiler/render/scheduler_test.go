package render_test

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedv1 "k8s.io/kube-scheduler/config/v1"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/schedconfig"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// schedulerConfig strict-decodes the tree's scheduler ConfigMap and the
// KubeSchedulerConfiguration in it into k8s.io/kube-scheduler's v1 types,
// plugin args included (kube-scheduler keeps those raw until it knows the
// plugin). Unknown fields anywhere are errors.
func schedulerConfig(tr tree.Tree) (*corev1.ConfigMap, *schedv1.KubeSchedulerConfiguration, error) {
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict(tr[tree.SchedulerConfigPath], &cm); err != nil {
		return nil, nil, err
	}
	cfg, err := decodeSchedulerConfig([]byte(cm.Data[schedconfig.ConfigKey]))
	return &cm, cfg, err
}

func decodeSchedulerConfig(b []byte) (*schedv1.KubeSchedulerConfiguration, error) {
	var cfg schedv1.KubeSchedulerConfiguration
	if err := yaml.UnmarshalStrict(b, &cfg); err != nil {
		return nil, err
	}
	for _, p := range cfg.Profiles {
		for _, pc := range p.PluginConfig {
			var args any
			switch pc.Name {
			case "NodeResourcesFit":
				args = &schedv1.NodeResourcesFitArgs{}
			case "PodTopologySpread":
				args = &schedv1.PodTopologySpreadArgs{}
			default:
				return nil, &unexpectedPlugin{pc.Name}
			}
			if err := yaml.UnmarshalStrict(pc.Args.Raw, args); err != nil {
				return nil, err
			}
		}
	}
	return &cfg, nil
}

type unexpectedPlugin struct{ name string }

func (e *unexpectedPlugin) Error() string { return "unexpected pluginConfig for " + e.name }

// profilesUsed is the scheduler names the fleet's classes choose, sorted;
// each class's template must carry its own.
func profilesUsed(t *testing.T, fleet string, d *derive.Fleet) []string {
	t.Helper()
	var names []string
	for _, c := range d.Classes {
		if p := c.Spec.SchedulerProfile; p != "" && !slices.Contains(names, schedconfig.SchedulerNames[p]) {
			names = append(names, schedconfig.SchedulerNames[p])
		}
		if got, want := c.Template.Spec.SchedulerName, derive.SchedulerName(c.Spec); got != want {
			t.Errorf("%s: class %s template schedulerName %q, want %q", fleet, c.Name, got, want)
		}
	}
	slices.Sort(names)
	return names
}

// TestSchedulerConfigStrict decodes every fleet's scheduler config strictly
// and checks it holds exactly the profiles its classes choose, each as the
// issue asks, and that cluster/kustomization.yaml lists it exactly then.
func TestSchedulerConfigStrict(t *testing.T) {
	fleets := renderedFleets(t)
	for name, spread := range map[string]string{"binpack-only": "", "spread-only": "spread"} {
		fleets[name] = renderFleet(t, schedulerFleet(t, spread))
	}
	seen := 0
	for name, r := range fleets {
		want := profilesUsed(t, name, r.D)
		var k types.Kustomization
		if err := yaml.UnmarshalStrict(r.Tree["cluster/kustomization.yaml"], &k); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		listed := slices.Contains(k.Resources, filepath.Base(tree.SchedulerConfigPath))
		if _, ok := r.Tree[tree.SchedulerConfigPath]; !ok || !listed {
			if len(want) > 0 || ok || listed {
				t.Errorf("%s: profiles %v used; config emitted %v, in kustomization %v", name, want, ok, listed)
			}
			continue
		}
		seen++
		if bytes.Contains(r.Tree[tree.SchedulerConfigPath], []byte("NodeResourcesMostAllocated")) {
			t.Errorf("%s: names the removed NodeResourcesMostAllocated plugin", name)
		}
		cm, cfg, err := schedulerConfig(r.Tree)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if cm.Namespace != "kube-system" || cm.Name != schedconfig.ConfigMapName || len(cm.Data) != 1 {
			t.Errorf("%s: ConfigMap %s/%s with %d keys", name, cm.Namespace, cm.Name, len(cm.Data))
		}
		if cfg.APIVersion != "kubescheduler.config.k8s.io/v1" || cfg.Kind != "KubeSchedulerConfiguration" {
			t.Errorf("%s: %s %s", name, cfg.APIVersion, cfg.Kind)
		}
		// Its own lease: the default one is the control plane scheduler's.
		if le := cfg.LeaderElection; le.ResourceName == "" || le.ResourceName == "kube-scheduler" {
			t.Errorf("%s: leader election lease %q", name, le.ResourceName)
		}
		var got []string
		for _, p := range cfg.Profiles {
			got = append(got, *p.SchedulerName)
			if p.Plugins != nil {
				t.Errorf("%s: profile %s changes plugins; profiles change only args", name, *p.SchedulerName)
			}
			checkFit(t, name, p)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: profiles %v, classes use %v (default-scheduler stays the control plane's)", name, got, want)
		}
	}
	if seen < 3 {
		t.Errorf("only %d fleets emit a scheduler config; want platform and the two here", seen)
	}
}

// checkFit checks the NodeResourcesFit scoring each profile is about.
func checkFit(t *testing.T, fleet string, p schedv1.KubeSchedulerProfile) {
	t.Helper()
	strategy := map[string]schedv1.ScoringStrategyType{"gpufleet-binpack": schedv1.MostAllocated, "gpufleet-spread": schedv1.LeastAllocated}[*p.SchedulerName]
	for _, pc := range p.PluginConfig {
		if pc.Name != "NodeResourcesFit" {
			continue
		}
		var args schedv1.NodeResourcesFitArgs
		if err := yaml.UnmarshalStrict(pc.Args.Raw, &args); err != nil {
			t.Fatal(err)
		}
		s := args.ScoringStrategy
		want := []schedv1.ResourceSpec{{Name: "nvidia.com/gpu", Weight: 5}, {Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}}
		if s == nil || s.Type != strategy || !slices.Equal(s.Resources, want) {
			t.Errorf("%s: %s scoring %+v, want %s over %v", fleet, *p.SchedulerName, s, strategy, want)
		}
		return
	}
	t.Errorf("%s: %s has no NodeResourcesFit args", fleet, *p.SchedulerName)
}

// schedulerFleet writes a fleet whose GPU class uses binpack, plus a CPU
// class using spread if spread is set, and returns its path.
func schedulerFleet(t *testing.T, spread string) string {
	t.Helper()
	spec := `package fleet
cluster: {provider: "eks", name: "s", region: "us-east-1", version: "1.36", zones: ["us-east-1a", "us-east-1b"]}
priorities: p: value: 1
pools: {
	"l4": {instanceTypes: ["g6.xlarge"], size: {min: 0, max: 4}}
	"cpu": {instanceTypes: ["m7i.large"], size: {min: 1, max: 3}}
}
classes: {
	infer: {priority: "p", gpu: count: 1, schedulerProfile: "binpack"}
	web: {priority: "p"}
}
tenants: t: {namespaces: ["t"], classes: ["infer", "web"]}
`
	if spread != "" {
		spec = strings.Replace(spec, `infer: {priority: "p", gpu: count: 1, schedulerProfile: "binpack"}`, `infer: {priority: "p", gpu: count: 1}`, 1)
		spec += "classes: web: schedulerProfile: \"" + spread + "\"\n"
	}
	f := testfleet.Write(t, spec)
	return f
}

// TestSchedulerConfigStrictRejects proves the strict decoding above can fail.
func TestSchedulerConfigStrictRejects(t *testing.T) {
	r := renderFleet(t, filepath.Join("..", "..", "fleets", "platform"))
	_, cfg, err := schedulerConfig(r.Tree)
	if err != nil || len(cfg.Profiles) == 0 {
		t.Fatalf("platform: %v", err)
	}
	var cm corev1.ConfigMap
	if err := yaml.Unmarshal(r.Tree[tree.SchedulerConfigPath], &cm); err != nil {
		t.Fatal(err)
	}
	good := cm.Data[schedconfig.ConfigKey]
	for _, tc := range []struct{ name, from, to string }{
		{"unknown top-level field", "profiles:", "profile: []\nprofiles:"},
		{"unknown profile field", "schedulerName: gpufleet-binpack", "schedulerName: gpufleet-binpack\n  scheduler: x"},
		{"unknown args field", "type: MostAllocated", "type: MostAllocated\n        typ: x"},
		{"removed plugin", "name: NodeResourcesFit", "name: NodeResourcesMostAllocated"},
	} {
		bad := strings.Replace(good, tc.from, tc.to, 1)
		if bad == good {
			t.Fatalf("%s: %q not in the config", tc.name, tc.from)
		}
		_, err := decodeSchedulerConfig([]byte(bad))
		if err == nil {
			t.Errorf("%s: accepted:\n%s", tc.name, bad)
		}
		t.Logf("%s: %v", tc.name, err)
	}
}
