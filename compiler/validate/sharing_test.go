package validate_test

import (
	"strings"
	"testing"
)

func TestValidSharing(t *testing.T) {
	extra := `pools: {
	mig: {instanceTypes: ["p4de.24xlarge"], mig: "all-1g.10gb", size: {min: 0, max: 1}}
	ts: {instanceTypes: ["g6.xlarge"], sharing: {strategy: "time-slicing", replicas: 4}, size: {min: 0, max: 1}}
	mps: {instanceTypes: ["g6.xlarge"], sharing: {strategy: "mps", replicas: 48}, size: {min: 0, max: 1}}
}
classes: {
	slice: {priority: "p", gpu: {count: 1, mig: "1g.10gb", products: ["A100"]}}
	shared: {priority: "p", gpu: {count: 1, shared: true}}
}`
	if err := check(t, extra); err != nil {
		t.Fatalf("sharing and MIG fleet rejected: %v", err)
	}
}

func TestSharingErrors(t *testing.T) {
	for _, tc := range []struct{ name, extra, want string }{
		{"sharing on a CPU pool", `pools: cpu: sharing: {strategy: "time-slicing", replicas: 2}`, `instance type "m7i.large" has no GPU: sharing needs a GPU pool`},
		{"mig on a CPU pool", `pools: cpu: mig: "all-1g.10gb"`, `instance type "m7i.large" has no GPU: mig needs a GPU pool`},
		{"mig on L4", `pools: g: {instanceTypes: ["g6.xlarge"], mig: "all-1g.10gb", size: {min: 0, max: 1}}`, `has L4 GPUs, which have no MIG`},
		{"unknown layout", `pools: g: {instanceTypes: ["p4d.24xlarge"], mig: "all-1g.20gb", size: {min: 0, max: 1}}`, `unknown MIG layout "all-1g.20gb" for instance type "p4d.24xlarge" (A100 40 GB): known "all-1g.10gb", "all-1g.5gb", "all-1g.5gb.me", "all-2g.10gb", "all-3g.20gb", "all-4g.20gb", "all-7g.40gb", "all-balanced"`},
		{"mig and sharing", `pools: g: {instanceTypes: ["p5.48xlarge"], mig: "all-1g.10gb", sharing: {strategy: "mps", replicas: 2}, size: {min: 0, max: 1}}`, `mig and sharing are mutually exclusive`},
		{"too many MPS clients", `pools: g: {instanceTypes: ["g6.xlarge"], sharing: {strategy: "mps", replicas: 64}, size: {min: 0, max: 1}}`, `MPS serves at most 48 clients per GPU, got 64`},
		{"mig label by hand", `pools: cpu: labels: "nvidia.com/mig.config": "all-1g.10gb"`, `label key "nvidia.com/mig.config" is reserved`},
		{"unknown profile", `classes: web: gpu: {count: 1, mig: "9g.99gb"}`, `unknown MIG profile "9g.99gb"`},
		{"shared MIG class", `classes: web: gpu: {count: 1, mig: "1g.10gb", shared: true}`, `shared and mig are mutually exclusive`},
		{"MIG from T4", `classes: web: gpu: {count: 1, mig: "1g.10gb", products: ["T4"]}`, `product "T4" has no MIG`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := check(t, tc.extra)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got:\n%v\nwant it to contain %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), "fleet.cue:") {
				t.Errorf("error has no position in the spec: %v", err)
			}
		})
	}
}
