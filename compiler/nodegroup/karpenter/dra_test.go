package karpenter

import (
	"testing"

	"github.com/gpufleet/gpufleet/compiler/tree"
	wire "github.com/gpufleet/gpufleet/compiler/wire/karpenter"
)

// TestDRALaunch reads Karpenter's values as its chart's karpenter.dra
// helper resolves them (ladder/karpenter renders the chart itself).
func TestDRALaunch(t *testing.T) {
	for _, tc := range []struct {
		name, values, want string
	}{
		{"no values: the chart's defaults", "", draIgnored},
		{"what gpufleet writes", "settings:\n  awsFeatureGates:\n    draNVIDIAGPU: true\n", ""},
		{"enableDRA turns every gate on", "settings:\n  enableDRA: true\n  awsFeatureGates: {}\n", ""},
		{"the gate off", "settings:\n  awsFeatureGates:\n    draNVIDIAGPU: false\n", draIgnored},
		{"claims simulated, no devices", "settings:\n  ignoreDRARequests: false\n  awsFeatureGates: {}\n", draNoDevices},
		{"a gate overrides ignoreDRARequests", "settings:\n  ignoreDRARequests: true\n  awsFeatureGates:\n    draNVIDIAGPU: true\n", ""},
	} {
		tr := tree.Tree{}
		if tc.values != "" {
			tr[wire.ValuesPath] = []byte(tc.values)
		}
		got, err := draLaunch(tree.Bytes(tr))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if _, err := draLaunch(tree.Bytes(tree.Tree{wire.ValuesPath: []byte("settings:\n  bogus: 1\n")})); err == nil {
		t.Error("a field the values type lacks: no error")
	}
}
