package validate_test

import (
	"strings"
	"testing"
)

// TestKubeletRestrictedLabels: a managed pool's labels reach its nodes
// through the kubelet's --node-labels, so one the kubelet restricts is
// refused at its position (issue 36, Medium 7), as eksctl v0.230.0's
// validateLabels refuses the node group (its own table's entries first,
// from pkg/apis/eksctl.io/v1alpha5/validation_test.go).
func TestKubeletRestrictedLabels(t *testing.T) {
	const managed = `pools: cpu: labels: `
	for _, k := range []string{
		"node-role.kubernetes.io/os", "alpha.service-controller.kubernetes.io/test",
		"kubernetes.io/role", "example.kubernetes.io/x", "k8s.io/x", "x.k8s.io/y",
		// Karpenter allows these two; eksctl and the kubelet do not.
		"node-restriction.kubernetes.io/x", "kops.k8s.io/x",
	} {
		err := check(t, managed+`"`+k+`": "v"`)
		want := `pools.cpu.labels.` + k + `: label key "` + k + `" is in a domain the kubelet restricts`
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "fleet.cue:7:") {
			t.Errorf("%s: got %v, want an error at its position containing %q", k, err, want)
		}
	}
	for _, k := range []string{
		"kubernetes.io/hostname", "beta.kubernetes.io/os", "kubelet.kubernetes.io/palindrome",
		"node.kubernetes.io/tier", "x.node.kubernetes.io/y", "topology.kubernetes.io/region",
		"example.com/x", "notkubernetes.io/x", "kubernetes.io.example.com/x",
	} {
		if err := check(t, managed+`"`+k+`": "v"`); err != nil {
			t.Errorf("%s: rejected: %v", k, err)
		}
	}
	// A Karpenter pool has no kubelet flags: Karpenter's rule applies.
	if err := check(t, `pools: cpu: {provisioner: "karpenter", labels: "kops.k8s.io/x": "v"}`); err != nil {
		t.Errorf("Karpenter pool: %v", err)
	}
}
