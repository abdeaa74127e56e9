package validate_test

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/load"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// TestKarpenterPools covers what a NodePool cannot express or would reject.
func TestKarpenterPools(t *testing.T) {
	for _, ok := range []string{
		`pools: cpu: provisioner: "karpenter"`,
		`pools: cpu: {instanceTypes: ["m7i.large"], size: {min: 0, max: 2}} => pools: cpu: {instanceTypes: ["m7i.large"], size: {min: 1, max: 3}, provisioner: "both", labels: "node.kubernetes.io/tier": "web"}`,
		`pools: cpu: {provisioner: "karpenter", labels: "example.com/tier": "web"}`,
		`cluster: karpenter: role: "my-node-role"`,
		`pools: cpu: {instanceTypes: ["m7i.large"], size: {min: 0, max: 2}} => pools: cpu: {instanceTypes: ["m7i.large"], size: {min: 0, max: 2}, zoneGroups: true}`,
		// A managed node group takes what Karpenter would not.
		`pools: e: {instanceTypes: ["p5.48xlarge"], efa: true, zones: ["us-east-1a"], size: {min: 2, max: 4}}`,
	} {
		if err := check(t, ok); err != nil {
			t.Errorf("%s: rejected: %v", ok, err)
		}
	}
	for _, tc := range []struct{ name, extra, want string }{
		{"min on karpenter", `pools: k: {instanceTypes: ["m7i.large"], provisioner: "karpenter", size: {min: 1, max: 2}}`, `Karpenter keeps no minimum of nodes`},
		{"desired on karpenter", `pools: k: {instanceTypes: ["m7i.large"], provisioner: "karpenter", size: {min: 0, max: 2, desired: 1}}`, `Karpenter has no desired size`},
		{"efa on karpenter", `pools: e: {instanceTypes: ["p5.48xlarge"], efa: true, zones: ["us-east-1a"], provisioner: "both", size: {min: 1, max: 2}}`, `efa needs provisioner "managed"`},
		{"both from zero", `pools: cpu: provisioner: "both"`, `provisioner "both" holds min (or desired) nodes`},
		{"both without a Karpenter share", `pools: cpu: {instanceTypes: ["m7i.large"], size: {min: 0, max: 2}} => pools: cpu: {instanceTypes: ["m7i.large"], size: {min: 2, max: 4, desired: 4}, provisioner: "both"}`, `up to max 4, which leaves it none`},
		{"zoneGroups on Karpenter", `pools: cpu: {instanceTypes: ["m7i.large"], size: {min: 0, max: 2}} => pools: cpu: {instanceTypes: ["m7i.large"], size: {min: 0, max: 2}, provisioner: "karpenter", zoneGroups: true}`, `zoneGroups splits a managed node group by zone`},
		{"zoneGroups in one zone", `pools: cpu: {instanceTypes: ["m7i.large"], size: {min: 0, max: 2}} => pools: cpu: {instanceTypes: ["m7i.large"], size: {min: 0, max: 2}, zones: ["us-east-1a"], zoneGroups: true}`, `this pool has one zone`},
		{"zoneGroups with fewer nodes than zones", `pools: cpu: {instanceTypes: ["m7i.large"], size: {min: 0, max: 2}} => pools: cpu: {instanceTypes: ["m7i.large"], size: {min: 0, max: 1}, zoneGroups: true}`, `max 1 leaves a zone's group no node`},
		{"kubernetes.io label", `pools: cpu: {provisioner: "karpenter", labels: "example.kubernetes.io/x": "y"}`, `a domain Karpenter restricts`},
		{"karpenter.sh label", `pools: cpu: {instanceTypes: ["m7i.large"], size: {min: 0, max: 2}} => pools: cpu: {instanceTypes: ["m7i.large"], size: {min: 1, max: 3}, provisioner: "both", labels: "karpenter.sh/x": "y"}`, `a domain Karpenter restricts`},
		{"karpenter.k8s.aws label", `pools: cpu: {provisioner: "karpenter", labels: "karpenter.k8s.aws/x": "y"}`, `a domain Karpenter restricts`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := check(t, tc.extra)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	// The schema rejects these at load, with a position.
	for _, extra := range []string{`pools: cpu: provisioner: "cluster-autoscaler"`, `cluster: karpenter: role: ""`, `cluster: karpenter: instanceProfile: "p"`} {
		f := testfleet.Write(t, base+extra)
		if _, err := load.Load([]string{f}); err == nil || !strings.Contains(err.Error(), "fleet.cue:") {
			t.Errorf("%s: got %v, want a positioned schema error", extra, err)
		}
	}
}
