package nodediff

import (
	"strings"
	"testing"

	"github.com/aws/karpenter-provider-aws/pkg/operator/options"
	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"

	karpprov "github.com/gpufleet/gpufleet/compiler/nodegroup/karpenter"
	"github.com/gpufleet/gpufleet/compiler/tree"
	karpwire "github.com/gpufleet/gpufleet/compiler/wire/karpenter"
)

// TestKarpenterChartDRA holds the checker's reading of Karpenter's values
// (nodegroup/karpenter, NoKarpenterDRA) to Karpenter's own chart and
// options: each values file rendered by the chart, the controller's
// environment parsed as Karpenter parses it. Karpenter launches for claims
// where IGNORE_DRA_REQUESTS is off, and has devices to allocate where
// DRANVIDIAGPU is on too.
func TestKarpenterChartDRA(t *testing.T) {
	names, paths := fleetPaths(t, 0, 0)
	var f *fleet
	for i := range paths {
		if f = load(t, names[i], paths[i]); f != nil {
			break
		}
	}
	if f == nil {
		t.Fatal("no example fleet has a Karpenter pool")
	}
	for _, values := range []string{
		"", // the chart's defaults
		string(f.res.Tree[karpwire.ValuesPath]),
		"settings:\n  awsFeatureGates:\n    draNVIDIAGPU: true\n", // what gpufleet writes
		"settings:\n  enableDRA: true\n",
		"settings:\n  awsFeatureGates:\n    draNVIDIAGPU: false\n",
		"settings:\n  ignoreDRARequests: false\n",
		"settings:\n  ignoreDRARequests: true\n  awsFeatureGates:\n    draNVIDIAGPU: true\n",
	} {
		env, err := ChartEnv([]byte(values), "gpufleet")
		if err != nil {
			t.Fatalf("%q: %v", values, err)
		}
		aws, core, err := ChartArgs(env)
		if err != nil {
			t.Fatal(err)
		}
		ctx, err := Context(aws...)
		if err == nil {
			ctx, err = WithCoreOptions(ctx, core...)
		}
		if err != nil {
			t.Fatal(err)
		}
		launches := !coreoptions.FromContext(ctx).IgnoreDRARequests
		devices := launches && options.FromContext(ctx).FeatureGates.DRANVIDIAGPU
		tr := tree.Tree{}
		for p, b := range f.res.Tree {
			tr[p] = b
		}
		delete(tr, karpwire.ValuesPath)
		if values != "" {
			tr[karpwire.ValuesPath] = []byte(values)
		}
		groups, err := karpprov.Provisioner{}.NodeGroups(tree.Bytes(tr))
		if err != nil || len(groups) == 0 {
			t.Fatalf("%q: %d groups, %v", values, len(groups), err)
		}
		why := groups[0].NoKarpenterDRA
		ok := why == "" && launches && devices ||
			strings.Contains(why, "IGNORE_DRA_REQUESTS") && !launches ||
			strings.Contains(why, "DRANVIDIAGPU") && launches && !devices
		t.Logf("%q: Karpenter: IGNORE_DRA_REQUESTS=%s, %s; the checker: %q", values, env["IGNORE_DRA_REQUESTS"], env["AWS_FEATURE_GATES"], why)
		if !ok {
			t.Errorf("values %q: Karpenter launches for claims: %v, with devices: %v; the checker says %q", values, launches, devices, why)
		}
	}
}
