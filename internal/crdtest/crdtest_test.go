package crdtest

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/internal/upstream"
)

// The validator reproduces the API server's messages, CEL included.
func TestKueueRules(t *testing.T) {
	v, err := Load(upstream.Kueue, upstream.KueueCRDs)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"valid", `apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: a}
spec:
  cohortName: c
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: "1", borrowingLimit: "1"}]}]
`, ""},
		{"CEL: borrowingLimit without cohort", `apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: a}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: "1", borrowingLimit: "1"}]}]
`, "borrowingLimit must be nil when cohort is empty"},
		{"schema: bad enum", `apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: a}
spec: {queueingStrategy: Sometimes}
`, "queueingStrategy"},
		{"unknown field", `apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: a, namespace: n}
spec: {clusterQueue: a, cluster: b}
`, "spec.cluster: Invalid value: null: unknown field"},
	} {
		errs, err := v.Validate([]byte(tc.doc))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := errs.ToAggregate()
		switch {
		case tc.want == "" && got != nil:
			t.Errorf("%s: rejected: %v", tc.name, got)
		case tc.want != "" && (got == nil || !strings.Contains(got.Error(), tc.want)):
			t.Errorf("%s: got %v, want %q", tc.name, got, tc.want)
		}
	}
}

func TestMissingCRDsFailLoudly(t *testing.T) {
	if _, err := Load(upstream.Kueue, "config/nonexistent/*.yaml"); err == nil {
		t.Fatal("Load of no CRDs succeeded")
	}
}

// Default fills what the CRD defaults, as the API server stores it.
func TestDefault(t *testing.T) {
	v, err := Load(upstream.Kueue, upstream.KueueCRDs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := v.Default([]byte(`apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: a}
spec:
  flavorFungibility: {}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"whenCanBorrow":"MayStopSearch"`, `"whenCanPreempt":"TryNextFlavor"`, `"queueingStrategy":"BestEffortFIFO"`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("Default: %s lacks %s", got, want)
		}
	}
	if _, err := v.Default([]byte("apiVersion: v1\nkind: Pod\n")); err == nil {
		t.Error("Default of an unknown kind: no error")
	}
}
