package check_test

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// tasPinFleet is a queued gang of 3 on three standing g6e.12xlarge (4
// L40S each), with the pool, class and topology request of each case.
const tasPinFleet = `package fleet
cluster: {provider: "eks", name: "tas", region: "us-east-1", version: "1.36", zones: ["us-east-1a", "us-east-1b"]}
priorities: batch: value: 100
pools: l40s: {instanceTypes: ["g6e.12xlarge"], zones: ["us-east-1a"], size: {min: 3, max: 3}, POOL}
classes: train: {priority: "batch", kind: "Job", gang: 3, CLASS}
tenants: ml: {namespaces: ["ml"], classes: ["train"], quota: {gpu: 16, cpu: 600, memory: "2000Gi"}}
`

// Kueue's TAS counts only the pods' requests, so it puts a whole gang on
// one host, and its ungater pins the pods there (taspin.go): the checker
// places on each host only what anti-affinity or the host's devices hold.
// A pinner that ignored the pin (placing over the pool, as before) says 3
// in the first two cases; the composed rung and e2e
// (broken_kueue_topology_host) agree with the table.
func TestTASPinned(t *testing.T) {
	topo := `topology: {mode: "preferred", level: "network-layer-3"}`
	for _, tc := range []struct {
		name, pool, class string
		placed            int64
		reason            string
	}{
		{"anti-affinity pinned to one host", `topology: true`, `antiAffinity: "required", gpu: {count: 1}, ` + topo, 1, "pod anti-affinity"},
		{"claims pinned to one host", `topology: true, gpuAPI: "dra"`, `gpu: {count: 2, api: "dra"}, ` + topo, 2, "cannot allocate all claims"},
		{"no anti-affinity: the host holds them", `topology: true`, `gpu: {count: 1}, ` + topo, 3, ""},
		{"Kueue counts the GPUs: one a host", `topology: true`, `antiAffinity: "required", gpu: {count: 4}, ` + topo, 3, ""},
		{"no TAS: kube-scheduler spreads them", `labels: {"example.com/x": "y"}`, `antiAffinity: "required", gpu: {count: 1}`, 3, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := strings.NewReplacer("POOL", tc.pool, "CLASS", tc.class).Replace(tasPinFleet)
			res, err := compiler.Compile([]string{testfleet.Write(t, spec)})
			if err != nil {
				t.Fatal(err)
			}
			var found bool
			for _, u := range res.Report.Units {
				if u.Class != "train" || u.Tenant != "ml" {
					continue
				}
				if len(u.Pinned) != 1 {
					t.Fatalf("pinned %+v", u.Pinned)
				}
				found = true
				p := u.Pinned[0]
				if p.Placed != tc.placed {
					t.Errorf("placed %d, want %d (%q)", p.Placed, tc.placed, p.Reasons)
				}
				if got := strings.Join(p.Reasons, "; "); tc.reason != "" && !strings.Contains(got, tc.reason) || tc.reason != "" && !strings.Contains(got, "ungater pins") {
					t.Errorf("reasons %q, want Kueue's pin and %q", got, tc.reason)
				}
			}
			if !found {
				t.Fatal("no unit for class train")
			}
		})
	}
}
