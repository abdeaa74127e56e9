package queueing_test

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check/queueing"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// gatedFleet is a tenant whose ClusterQueue may preempt class serve (4
// replicas of one GPU, queued) for class train (a gang of 4 one-GPU pods).
const gatedFleet = `package fleet
cluster: {provider: "eks", name: "gated", region: "us-east-1", version: "1.36", zones: ["us-east-1a", "us-east-1b"]}
priorities: {
	train: {value: 1000, preemption: "PreemptLowerPriority"}
	serve: {value: 100, preemption: "SERVEPREEMPTS", default: true}
}
pools: a10g: {instanceTypes: ["g5.12xlarge"], size: {min: 0, max: 4}}
classes: {
	serve: {priority: "serve", kind: "SERVEKIND", queue: true, replicas: 4, gpu: {count: 1}}
	train: {priority: "train", kind: "Job", gang: 4, gpu: {count: 1}}
}
tenants: ml: {namespaces: ["ml"], classes: ["serve", "train"], quota: {gpu: GPUS, cpu: 600, memory: "2000Gi"}}
`

// The quota holds serve's 4 gated pods and train's 4 each alone; only 8
// GPUs hold them together. A check that charged no gated pod (as the
// checker did before) finds nothing in the first two cases.
func TestKueueGatedQuota(t *testing.T) {
	for _, tc := range []struct {
		name, kind, preempts, gpus string
		want                       string
	}{
		{"Deployment's gated pods and the gang pass the quota", "Deployment", "PreemptLowerPriority", "6", "the ReplicaSet controller recreates the preempted pods gated"},
		{"StatefulSet's likewise", "StatefulSet", "PreemptLowerPriority", "6", "the StatefulSet controller recreates"},
		{"the quota holds both", "Deployment", "PreemptLowerPriority", "8", ""},
		{"no preemption within the queue", "Deployment", "Never", "6", ""},
		{"a queued Job's pods do not exist while it waits", "Job", "PreemptLowerPriority", "6", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := strings.NewReplacer("SERVEKIND", tc.kind, "SERVEPREEMPTS", tc.preempts, "GPUS", tc.gpus).Replace(gatedFleet)
			res, err := compiler.Compile([]string{testfleet.Write(t, spec)})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range res.Report.Findings {
				if f.Check == queueing.IDKueueGatedQuota {
					got = append(got, f.Message)
				}
			}
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("want no finding, got %q", got)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want) || !strings.Contains(got[0], "requests.nvidia.com/gpu 8/6")):
				t.Errorf("want one finding with %q and requests.nvidia.com/gpu 8/6, got %q", tc.want, got)
			}
		})
	}
}
