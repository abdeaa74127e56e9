package validate_test

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/load"
	"github.com/gpufleet/gpufleet/compiler/validate"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// base is a minimal valid fleet; each case appends CUE that unifies with it.
const base = `package fleet
cluster: {provider: "eks", name: "c", region: "us-east-1", version: "1.36", zones: ["us-east-1a", "us-east-1b"]}
priorities: p: value: 1
pools: cpu: {instanceTypes: ["m7i.large"], size: {min: 0, max: 2}}
classes: web: {priority: "p"}
tenants: t: {namespaces: ["t"], classes: ["web"]}
`

// check validates base with extra appended. An extra of "A => B" lines
// replaces each A in base with its B instead, since CUE cannot override.
func check(t *testing.T, extra string) error {
	t.Helper()
	spec := base + extra
	if strings.Contains(extra, " => ") {
		spec = base
		for _, line := range strings.Split(extra, "\n") {
			from, to, _ := strings.Cut(line, " => ")
			if !strings.Contains(spec, from) {
				t.Fatalf("base has no %q", from)
			}
			spec = strings.Replace(spec, from, to, 1)
		}
	}
	f := testfleet.Write(t, spec)
	src, err := load.Load([]string{f})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return validate.Fleet(src, aws.Cloud{}, aws.Catalog(src.Fleet.InstanceTypes))
}

func TestValid(t *testing.T) {
	if err := check(t, ""); err != nil {
		t.Fatalf("base fleet rejected: %v", err)
	}
}

// Topology takes the types EC2 topology describes, built in or declared
// with networkLayers (p6-b200, declared over the built-in type, keeps its
// four layers by name).
func TestValidTopology(t *testing.T) {
	for _, extra := range []string{
		`pools: tp: {instanceTypes: ["p5e.48xlarge", "p5en.48xlarge"], topology: true, size: {min: 0, max: 1}}`,
		`instanceTypes: "p6-b200.48xlarge": {vcpu: 192, memoryGiB: 2048, maxPods: 100, gpu: {count: 8, product: "B200", memoryGiB: 180}}
pools: tp: {instanceTypes: ["p6-b200.48xlarge"], topology: true, size: {min: 0, max: 1}}`,
		`instanceTypes: "x.large": {vcpu: 2, memoryGiB: 8, maxPods: 29, networkLayers: 3}
pools: tp: {instanceTypes: ["x.large"], topology: true, size: {min: 0, max: 1}}`,
	} {
		if err := check(t, extra); err != nil {
			t.Errorf("%s: rejected: %v", extra, err)
		}
	}
	if err := check(t, `pools: tp: {instanceTypes: ["g6.12xlarge"], topology: true, size: {min: 0, max: 1}}`); err == nil {
		t.Error("g6 gets no topology labels, but a topology pool of it was accepted")
	}
}

func TestValidEFA(t *testing.T) {
	if err := check(t, `pools: e: {instanceTypes: ["p5e.48xlarge", "p5en.48xlarge"], efa: true, zones: ["us-east-1b"], size: {min: 0, max: 1}}`); err != nil {
		t.Fatalf("EFA pool in one zone rejected: %v", err)
	}
	// EC2 gives the 8xlarge and larger g types EFA too (make test-karpenter).
	if err := check(t, `pools: e: {instanceTypes: ["g6e.24xlarge", "g6e.48xlarge"], efa: true, zones: ["us-east-1b"], size: {min: 0, max: 1}}`); err != nil {
		t.Fatalf("EFA pool of g types rejected: %v", err)
	}
	if err := check(t, `pools: e: {instanceTypes: ["g5.4xlarge"], efa: true, zones: ["us-east-1b"], size: {min: 0, max: 1}}`); err == nil {
		t.Fatal("g5.4xlarge has no EFA, but an EFA pool of it was accepted")
	}
}

// TestSchemaErrors covers the node-group fields the schema constrains.
func TestSchemaErrors(t *testing.T) {
	for _, tc := range []struct{ name, extra, want string }{
		{"unknown AMI family", `pools: cpu: amiFamily: "Ubuntu2404"`, `amiFamily`},
		{"volume too small", `pools: cpu: volumeSizeGiB: 10`, `volumeSizeGiB`},
		{"efa not a bool", `pools: cpu: efa: "yes"`, `efa`},
		{"topology level", `classes: web: topology: {mode: "required", level: "network-layer-5"}`, `level`},
		{"networkLayers too deep", `instanceTypes: x: {vcpu: 1, memoryGiB: 1, maxPods: 1, networkLayers: 5}`, `networkLayers`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := testfleet.Write(t, base+tc.extra)
			_, err := load.Load([]string{f})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "fleet.cue:") {
				t.Fatalf("got %v; want a positioned error naming %s", err, tc.want)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name, extra, want string
	}{
		{"undefined priority", `priority: "p"} => priority: "nope"}`, `class "web" names priority "nope", which is not defined`},
		{"undefined class", `classes: ["web"]} => classes: ["web", "ghost"]}`, `tenant "t" names class "ghost", which is not defined`},
		{"zone outside cluster", `pools: cpu: zones: ["us-east-1c"]`, `zone "us-east-1c" is not one of the cluster's zones`},
		{"two defaults", `priorities: {p: default: true, q: {value: 2, default: true}}`, `more than one default priority: p, q`},
		{"namespace twice", `tenants: u: {namespaces: ["t"], classes: ["web"]}`, `namespace "t" already belongs to tenant "t"`},
		{"upper-case pool", `pools: CPU: {instanceTypes: ["m7i.large"], size: {min: 0, max: 1}}`, `pool name "CPU" is invalid: a lowercase RFC 1123 label`},
		{"path-like class", `classes: "../x": priority: "p"`, `class name "../x" is invalid`},
		{"long tenant", `tenants: "` + strings.Repeat("a", 64) + `": {namespaces: ["x"], classes: ["web"]}`, `must be no more than 63 characters`},
		{"reserved priority", `priorities: "system-x": value: 1`, `the prefix "system-" is reserved`},
		{"exempt tenant namespace", `cluster: unownedNamespaces: exempt: ["t"]`, `namespace "t" belongs to tenant "t", whose classes its pods keep to: it cannot be exempt`},
		{"exempt twice", `cluster: unownedNamespaces: exempt: ["monitoring", "monitoring"]`, `namespace "monitoring" is listed twice`},
		{"exempt invalid", `cluster: unownedNamespaces: exempt: ["Monitoring"]`, `namespace "Monitoring" is invalid`},
		{"controller twice", `cluster: controllers: ["system:serviceaccount:ray:op", "system:serviceaccount:ray:op"]`, `controller "system:serviceaccount:ray:op" is listed twice`},
		{"controller without name", `cluster: controllers: ["system:serviceaccount:ray"]`, `is not a service account's username: want system:serviceaccount:<namespace>:<name>`},
		{"controller control character", `cluster: controllers: ["a\nb"]`, `controller "a\nb" is not a username: it holds control characters or invalid UTF-8`},
		{"controller bad namespace", `cluster: controllers: ["system:serviceaccount:Ray:op"]`, `controller "system:serviceaccount:Ray:op": namespace "Ray" is invalid`},
		{"reserved namespace", `namespaces: ["t"] => namespaces: ["kube-system"]`, `namespace "kube-system" is reserved`},
		{"unknown instance", `["m7i.large"] => ["m9z.huge"]`, `unknown instance type "m9z.huge"`},
		{"mixed GPU products", `pools: g: {instanceTypes: ["g4dn.xlarge", "g5.xlarge"], size: {min: 0, max: 1}}`, `must share one GPU product`},
		{"unknown product", `classes: web: gpu: {count: 1, products: ["MI300X"]}`, `unknown GPU product "MI300X"`},
		{"bad quantity", `classes: web: resources: cpu: "lots"`, `invalid quantity "lots"`},
		{"negative quantity", `classes: web: resources: memory: "-1Gi"`, `must not be negative`},
		{"gang on deployment", `classes: web: gang: 2`, `gang needs kind Job`},
		{"expireAfter in days", `pools: k: {instanceTypes: ["m7i.large"], provisioner: "karpenter", size: {min: 0, max: 1}, expireAfter: "30d"}`, `expireAfter "30d" is not a duration Karpenter accepts`},
		{"expireAfter zero", `pools: k: {instanceTypes: ["m7i.large"], provisioner: "karpenter", size: {min: 0, max: 1}, expireAfter: "0h0m"}`, `would replace every node as soon as it launches`},
		{"expireAfter overflows", `pools: k: {instanceTypes: ["m7i.large"], provisioner: "karpenter", size: {min: 0, max: 1}, expireAfter: "9999999999h"}`, `is out of range`},
		{"expireAfter on managed", `pools: cpu: expireAfter: "720h"`, `expireAfter needs provisioner "karpenter" or "both"`},
		{"checkpoint on deployment", `classes: web: checkpoint: false`, `checkpoint needs kind Job, not Deployment`},
		{"backoffLimit on deployment", `classes: web: backoffLimit: 2`, `backoffLimit needs kind Job, not Deployment`},
		{"maxRunTime on deployment", `classes: web: maxRunTime: "6h"`, `maxRunTime needs a batch kind (Job, JobSet, RayJob, PyTorchJob), not Deployment`},
		{"maxRunTime unqueued", `classes: web: {kind: "Job", queue: false, maxRunTime: "6h"}`, `maxRunTime needs queue: Kueue enforces`},
		{"maxRunTime in days", `classes: web: {kind: "Job", maxRunTime: "2d"}`, `maxRunTime "2d" is not a duration of hours, minutes and seconds`},
		{"maxRunTime zero", `classes: web: {kind: "Job", maxRunTime: "0s"}`, `"should be greater than 0"`},
		{"maxRunTime above int32", `classes: web: {kind: "Job", maxRunTime: "600000h"}`, `which Kueue ignores (it reads kueue.x-k8s.io/max-exec-time-seconds as an int32)`},
		{"long StatefulSet", `classes: "` + strings.Repeat("s", 53) + `": {priority: "p", kind: "StatefulSet"}`, `is 53 characters: a StatefulSet's name may have at most 52`},
		{"dedicated to ghost", `pools: cpu: dedicatedTo: ["ghost"]`, `dedicated to class "ghost", which is not defined`},
		{"reserved label", `pools: cpu: labels: "gpufleet.dev/pool": "x"`, `label key "gpufleet.dev/pool" is reserved`},
		{"bad label key", `pools: cpu: labels: "bad key": "x"`, `label key "bad key" is invalid`},
		{"reserved taint", `pools: cpu: taints: [{key: "nvidia.com/gpu", effect: "NoSchedule"}]`, `taint key "nvidia.com/gpu" is reserved`},
		{"exists with value", `classes: web: tolerations: [{key: "k", operator: "Exists", value: "v"}]`, `value must be empty when operator is Exists`},
		{"empty key equal", `classes: web: tolerations: [{operator: "Equal", value: "v"}]`, `empty key must use operator Exists`},
		{"Gt not integer", `classes: web: affinity: required: [{matchExpressions: [{key: "k", operator: "Gt", values: ["x"]}]}]`, `needs an integer value`},
		{"In without values", `classes: web: affinity: required: [{matchExpressions: [{key: "k", operator: "In"}]}]`, `needs at least one value`},
		{"empty term", `classes: web: affinity: required: [{matchExpressions: []}]`, `an empty term matches no node`},
		{"overhead without runtime class", `classes: web: overhead: cpu: "100m"`, `overhead needs runtimeClassName`},
		{"priority quota of ghost", `tenants: t: priorityQuotas: ghost: gpu: 1`, `priority "ghost" is not defined`},
		{"duplicate container", `classes: web: initContainers: [{name: "main", image: "busybox"}]`, `container name "main" is used twice`},
		{"one zone", `["us-east-1a", "us-east-1b"] => ["us-east-1a"]`, `an EKS cluster needs at least two zones, got 1`},
		{"efa on a type without it", `pools: cpu: {efa: true, zones: ["us-east-1a"]}`, `instance type "m7i.large" has no EFA`},
		{"efa in every zone", `pools: e: {instanceTypes: ["p5.48xlarge"], efa: true, size: {min: 0, max: 1}}`, `efa needs the pool in a single zone: set zones`},
		{"topology on a type EC2 does not describe", `pools: cpu: topology: true`, `instance type "m7i.large" gets no topology.k8s.aws/network-node-layer labels`},
		{"topology on a Deployment", `classes: web: topology: {mode: "required", level: "host"}`, `topology needs kind Job, not Deployment`},
		{"topology on an unqueued Job", `classes: j: {priority: "p", kind: "Job", queue: false, topology: {mode: "required", level: "host"}}`, `topology needs a queued class`},
		{"topology without a topology pool", `classes: j: {priority: "p", kind: "Job", topology: {mode: "preferred", level: "network-layer-3"}}`, `class "j" asks for topology, but no pool sets topology: true`},
		{"efa in two zones", `pools: e: {instanceTypes: ["p4d.24xlarge"], efa: true, zones: ["us-east-1a", "us-east-1b"], size: {min: 0, max: 1}}`, `efa needs the pool in a single zone, got 2`},
		{"taint key twice", `pools: cpu: taints: [{key: "k", effect: "NoSchedule"}, {key: "k", effect: "NoExecute"}]`, `taint key "k" is listed twice`},
		{"label too long for its tag", `pools: cpu: labels: "` + strings.Repeat("a", 30) + `.com/` + strings.Repeat("b", 50) + `": "x"`, `AWS allows 128 characters, got 131`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := check(t, tc.extra)
			if err == nil {
				t.Fatalf("accepted; want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got:\n%v\nwant it to contain %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), "fleet.cue:") {
				t.Errorf("error has no position in the spec: %v", err)
			}
		})
	}
}
