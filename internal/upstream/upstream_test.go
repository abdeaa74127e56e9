package upstream

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every pinned release resolves at the version its pin names and holds the
// files the tests read.
func TestPins(t *testing.T) {
	for _, tc := range []struct {
		m        Module
		pattern  string
		min      int
		contains string
	}{
		{Kueue, KueueCRDs, 11, "kueue.x-k8s.io_workloads.yaml"},
		{Kueue, KueueWebhooks, 1, "manifests.yaml"},
		{Eksctl, EksctlSchema, 1, "schema.json"},
		{Karpenter, KarpenterCRDs, 2, "karpenter.sh_nodepools.yaml"},
		{KarpenterAWS, KarpenterCRDs, 3, "karpenter.k8s.aws_ec2nodeclasses.yaml"},
		{Karpenter, KWOKNodeClassCRD, 1, "karpenter.kwok.sh_kwoknodeclasses.yaml"},
		{Karpenter, NodeOverlayCRD, 1, "karpenter.sh_nodeoverlays.yaml"},
		{Karpenter, CapacityBufferCRD, 1, "autoscaling.x-k8s.io_capacitybuffers.yaml"},
		{DevicePlugin, DevicePluginChart + "/*.yaml", 2, "Chart.yaml"},
		{DRADriver, DRADriverChart + "/templates/deviceclass-*.yaml", 3, "deviceclass-gpu.yaml"},
	} {
		t.Run(tc.m.Path, func(t *testing.T) {
			files, err := tc.m.Glob(tc.pattern)
			if err != nil {
				t.Fatal(err)
			}
			if len(files) < tc.min {
				t.Errorf("%d files match %s, want at least %d", len(files), tc.pattern, tc.min)
			}
			var names []string
			for _, f := range files {
				names = append(names, filepath.Base(f))
			}
			if !strings.Contains(strings.Join(names, " "), tc.contains) {
				t.Errorf("%s not among %v", tc.contains, names)
			}
			v, err := tc.m.Version()
			if err != nil {
				t.Fatal(err)
			}
			root, err := Root()
			if err != nil {
				t.Fatal(err)
			}
			gomod, err := os.ReadFile(filepath.Join(root, tc.m.Pins, "go.mod"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(gomod), tc.m.Path+" "+v) {
				t.Errorf("resolved %s %s, which %s/go.mod does not pin", tc.m.Path, v, tc.m.Pins)
			}
		})
	}
}

// A pin that is missing is an error, never an empty directory, and a
// pattern that matches nothing is one too.
func TestMissing(t *testing.T) {
	if _, err := (Module{"sigs.k8s.io/kueue", "third_party/missing"}).Glob("*"); err == nil {
		t.Error("a module with no pin resolved")
	}
	if _, err := Kueue.Glob("config/no-such-dir/*.yaml"); err == nil {
		t.Error("a pattern matching nothing gave no error")
	}
}
