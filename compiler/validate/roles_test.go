package validate_test

import (
	"strings"
	"testing"
)

// TestRoles accepts each ML kind's roles and refuses, at the role's
// position, what its API has no such thing as.
func TestRoles(t *testing.T) {
	gpu := `gpu: {count: 1}`
	for _, extra := range []string{
		`classes: js: {priority: "p", kind: "JobSet", roles: [{name: "driver"}, {name: "trainer", replicas: 2, parallelism: 4, ` + gpu + `}]}`,
		`classes: lws: {priority: "p", kind: "LeaderWorkerSet", replicas: 2, roles: [{name: "leader"}, {name: "worker", replicas: 3, ` + gpu + `}]}`,
		`classes: ray: {priority: "p", kind: "RayJob", roles: [{name: "head", resources: cpu: "2"}, {name: "gpu-workers", replicas: 2, ` + gpu + `}]}`,
		`classes: rc: {priority: "p", kind: "RayCluster", roles: [{name: "head"}, {name: "a", ` + gpu + `}, {name: "b", ` + gpu + `}]}`,
		`classes: pt: {priority: "p", kind: "PyTorchJob", container: "pytorch", roles: [{name: "master", ` + gpu + `}, {name: "worker", replicas: 3, ` + gpu + `}]}`,
		`classes: tj: {priority: "p", kind: "TrainJob", container: "node", roles: [{name: "node", replicas: 4, ` + gpu + `}]}`,
	} {
		if err := check(t, extra); err != nil {
			t.Errorf("%s: rejected: %v", extra, err)
		}
	}
	for _, tc := range []struct {
		name, extra, want string
	}{
		{"roles on a Deployment", `classes: web: roles: [{name: "a"}]`, `roles need one of the kinds JobSet, LeaderWorkerSet`},
		{"JobSet without roles", `classes: js: {priority: "p", kind: "JobSet"}`, `kind JobSet needs roles`},
		{"gpu on the class", `classes: js: {priority: "p", kind: "JobSet", ` + gpu + `, roles: [{name: "a", ` + gpu + `}]}`, `kind JobSet takes gpu on each of its roles`},
		{"replicas on a JobSet", `classes: js: {priority: "p", kind: "JobSet", replicas: 2, roles: [{name: "a", ` + gpu + `}]}`, `replicas needs kind LeaderWorkerSet`},
		{"role twice", `classes: js: {priority: "p", kind: "JobSet", roles: [{name: "a", ` + gpu + `}, {name: "a"}]}`, `role name "a" is used twice`},
		{"no GPUs at all", `classes: js: {priority: "p", kind: "JobSet", roles: [{name: "a"}]}`, `no role of class "js" has gpu`},
		{"parallelism on a PyTorchJob", `classes: pt: {priority: "p", kind: "PyTorchJob", roles: [{name: "worker", parallelism: 2, ` + gpu + `}]}`, `parallelism needs kind JobSet`},
		{"LWS without workers", `classes: l: {priority: "p", kind: "LeaderWorkerSet", roles: [{name: "leader", ` + gpu + `}]}`, `a LeaderWorkerSet needs role "worker"`},
		{"LWS misspelt", `classes: l: {priority: "p", kind: "LeaderWorkerSet", roles: [{name: "leader"}, {name: "workers", ` + gpu + `}]}`, `a LeaderWorkerSet has no role "workers"; did you mean "worker"?`},
		{"two LWS leaders", `classes: l: {priority: "p", kind: "LeaderWorkerSet", roles: [{name: "leader", replicas: 2}, {name: "worker", ` + gpu + `}]}`, `a LeaderWorkerSet has one leader, not 2`},
		{"two Ray heads", `classes: r: {priority: "p", kind: "RayJob", roles: [{name: "head"}, {name: "head", ` + gpu + `}]}`, `a Ray cluster has one head: role "head" names a worker group`},
		{"Ray without head", `classes: r: {priority: "p", kind: "RayCluster", roles: [{name: "w", ` + gpu + `}, {name: "x"}]}`, `a Ray cluster's first role is its "head", not "w"`},
		{"Ray head only", `classes: r: {priority: "p", kind: "RayCluster", roles: [{name: "head", ` + gpu + `}]}`, `a RayCluster needs a worker group beside its head`},
		{"Ray head of two", `classes: r: {priority: "p", kind: "RayCluster", roles: [{name: "head", replicas: 2}, {name: "w", ` + gpu + `}]}`, `a Ray cluster has one head, not 2`},
		{"PyTorchJob container", `classes: pt: {priority: "p", kind: "PyTorchJob", roles: [{name: "worker", ` + gpu + `}]}`, `a PyTorchJob's container is "pytorch", not "main"`},
		{"two masters", `classes: pt: {priority: "p", kind: "PyTorchJob", roles: [{name: "master", replicas: 2}, {name: "worker", ` + gpu + `}]}`, `a PyTorchJob has one master, not 2`},
		{"TrainJob container", `classes: tj: {priority: "p", kind: "TrainJob", roles: [{name: "node", ` + gpu + `}]}`, `a TrainJob's container is "node", not "main"`},
		{"TrainJob misspelt", `classes: tj: {priority: "p", kind: "TrainJob", container: "node", roles: [{name: "nodes", ` + gpu + `}]}`, `a TrainJob has no role "nodes"; did you mean "node"?`},
		{"TrainJob initializer", `classes: tj: {priority: "p", kind: "TrainJob", container: "node", roles: [{name: "dataset-initializer"}, {name: "node", ` + gpu + `}]}`, `a TrainJob has no role "dataset-initializer"`},
		{"TrainJob without node", `classes: tj: {priority: "p", kind: "TrainJob", container: "node", roles: [{name: "trainer", ` + gpu + `}]}`, `a TrainJob needs role "node"`},
		{"TrainJob parallelism", `classes: tj: {priority: "p", kind: "TrainJob", container: "node", roles: [{name: "node", parallelism: 2, ` + gpu + `}]}`, `parallelism needs kind JobSet`},
		{"TrainJob replicas", `classes: tj: {priority: "p", kind: "TrainJob", container: "node", replicas: 2, roles: [{name: "node", ` + gpu + `}]}`, `replicas needs kind LeaderWorkerSet`},
		{"role product", `classes: js: {priority: "p", kind: "JobSet", roles: [{name: "a", gpu: {count: 1, products: ["H10"]}}]}`, `unknown GPU product "H10"; did you mean "H100"?`},
		{"role quantity", `classes: js: {priority: "p", kind: "JobSet", roles: [{name: "a", ` + gpu + `, resources: cpu: "lots"}]}`, `invalid quantity "lots"`},
		{"role DRA", `classes: js: {priority: "p", kind: "JobSet", roles: [{name: "a", gpu: {count: 1, api: "dra"}}]}`, `a role's GPUs through DRA claims are not built yet`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := check(t, tc.extra)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			// Every error is at a position in the spec: file:line:col.
			if !strings.Contains(err.Error(), ".cue:") {
				t.Errorf("error without a position: %v", err)
			}
		})
	}
}
