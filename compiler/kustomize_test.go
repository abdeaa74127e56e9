package compiler_test

import (
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/render"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

func kustomize(t *testing.T, res *compiler.Result, extra map[string]string, dir string) resmap.ResMap {
	t.Helper()
	fs := filesys.MakeFsInMemory()
	for p, b := range res.Tree {
		if err := fs.WriteFile(path.Join("/tree", p), b); err != nil {
			t.Fatal(err)
		}
	}
	for p, s := range extra {
		if err := fs.WriteFile(path.Join("/tree", p), []byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, path.Join("/tree", dir))
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	return m
}

// TestKustomizeTree builds the whole tree with kustomize and counts what
// it yields against a count taken from the spec itself.
func TestKustomizeTree(t *testing.T) {
	for _, dir := range exampleFleets(t) {
		res := compile(t, dir)
		f := res.Fleet.Spec
		want := map[string]int{
			"PriorityClass": len(f.Priorities), "WorkloadPriorityClass": len(f.Priorities),
			"ResourceFlavor": len(f.Pools),
		}
		// One Topology per network-layer depth the pools with topology use.
		depths := map[int]bool{}
		for _, p := range res.Fleet.Pools {
			if p.Topology != nil {
				depths[len(p.Topology.Levels)] = true
			}
		}
		if len(depths) > 0 {
			want["Topology"] = len(depths)
		}
		cohorts := map[string]bool{}
		for name, c := range f.Cohorts {
			cohorts[name] = true
			if c.Parent != "" {
				cohorts[c.Parent] = true
			}
		}
		for _, tn := range f.Tenants {
			if tn.Cohort != "" {
				cohorts[tn.Cohort] = true
			}
		}
		want["Cohort"] = len(cohorts)
		// The kube-scheduler config ships as one ConfigMap, when a class
		// chooses a scheduler profile, with the scheduler's Deployment,
		// ServiceAccount and RBAC.
		for _, c := range f.Classes {
			if c.SchedulerProfile != "" {
				want["ConfigMap"] = 1
				want["Deployment"], want["ServiceAccount"], want["Role"], want["RoleBinding"], want["ClusterRoleBinding"] = 1, 1, 1, 2, 2
			}
		}
		// So does the NVIDIA device plugin's config, in a namespace of its
		// own, when a pool not on DRA has GPUs (Bottlerocket's run the
		// plugin on the host).
		cat := aws.Catalog(f.InstanceTypes)
		for _, p := range f.Pools {
			if f.PoolGPUAPI(p) != spec.GPUAPIDRA && p.AMIFamily != "Bottlerocket" && slices.ContainsFunc(p.InstanceTypes, func(it string) bool { return cat[it].GPU != nil }) {
				want["ConfigMap"]++
				want["Namespace"]++
				break
			}
		}
		// The DRA driver's namespace, and a ResourceClaimTemplate per DRA
		// class in each of its tenants' namespaces.
		if f.UsesDRA() {
			want["Namespace"]++
		}
		for _, tn := range f.Tenants {
			for _, c := range tn.Classes {
				if f.ClassGPUAPI(f.Classes[c]) == spec.GPUAPIDRA {
					want["ResourceClaimTemplate"] += len(tn.Namespaces)
				}
			}
		}
		// The admission policies, and a binding of each per admission
		// the tenants use (issue 48); their parameters are annotations.
		// A third for the ML kinds' own objects when a class is of one.
		policies := 2
		for _, c := range f.Classes {
			if slices.Contains(keys.RoleKinds, c.Kind) {
				policies = 3
			}
		}
		if len(f.Tenants) > 0 {
			want["ValidatingAdmissionPolicy"] += policies
		}
		actions := map[string]bool{}
		for _, tn := range f.Tenants {
			actions[render.TenantAdmission(tn.Admission)] = true
		}
		want["ValidatingAdmissionPolicyBinding"] += policies * len(actions)
		// The unowned namespaces' policy and binding.
		if len(f.Tenants) > 0 && (f.Cluster.UnownedNamespaces == nil || f.Cluster.UnownedNamespaces.Admission != "Off") {
			want["ValidatingAdmissionPolicy"]++
			want["ValidatingAdmissionPolicyBinding"]++
		}
		for _, tn := range f.Tenants {
			n := len(tn.Namespaces)
			want["Namespace"] += n
			want["LimitRange"] += n
			// Only a tenant with a queued class gets Kueue's queues, or
			// a ClusterQueue when it has per-pool quota to lend.
			queued := slices.ContainsFunc(tn.Classes, func(name string) bool { return f.Classes[name].Queued() })
			if queued {
				want["LocalQueue"] += n
			}
			if queued || (tn.Cohort != "" && len(tn.PoolQuotas) > 0) {
				want["ClusterQueue"]++
			}
			quotas := len(tn.PriorityQuotas)
			if tn.Quota != nil || tn.Borrow != nil {
				quotas++
			}
			// A tenant that queues and has several namespaces gets its
			// unqueued classes' share of the quota beside (issue 48).
			unqueued := slices.ContainsFunc(tn.Classes, func(name string) bool { return !f.Classes[name].Queued() })
			if tn.Quota != nil && n > 1 && unqueued && (queued || (tn.Cohort != "" && len(tn.PoolQuotas) > 0)) {
				quotas++
			}
			want["ResourceQuota"] += n * quotas
		}
		// The MIG profiles' DeviceClasses, and Karpenter objects, are
		// counted from their own files.
		want["DeviceClass"] += len(docs(res.Tree[tree.DRADeviceClassesPath]))
		for _, doc := range docs(res.Tree["nodegroups/karpenter.yaml"]) {
			for _, kind := range []string{"NodePool", "EC2NodeClass"} {
				if strings.Contains(string(doc), "\nkind: "+kind+"\n") {
					want[kind]++
				}
			}
		}
		got := map[string]int{}
		for _, r := range kustomize(t, res, nil, "").Resources() {
			got[r.GetKind()]++
		}
		for k, v := range want {
			if v == 0 {
				delete(want, k)
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: kustomize build objects by kind (-want +got):\n%s", dir, diff)
		}
	}
}

// userWorkloads is what a user brings: their own names, image, env, a stale
// toleration and a nodeSelector entry, and one workload of another class
// that the Component must leave alone.
func userWorkloads(class, container string) string {
	return strings.NewReplacer("CLASS", class, "CTR", container).Replace(`apiVersion: apps/v1
kind: Deployment
metadata: {name: user-deploy, labels: {gpufleet.dev/class: CLASS}}
spec:
  selector: {matchLabels: {app: u}}
  template:
    metadata: {labels: {app: u}}
    spec:
      nodeSelector: {team: blue}
      tolerations: [{key: stale, operator: Exists}]
      containers: [{name: CTR, image: user/app:1, env: [{name: A, value: b}]}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: user-job, labels: {gpufleet.dev/class: CLASS}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: CTR, image: user/app:1}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: other-class, labels: {gpufleet.dev/class: someone-else}}
spec:
  selector: {matchLabels: {app: o}}
  template:
    metadata: {labels: {app: o}}
    spec:
      containers: [{name: CTR, image: other/app:1}]
`)
}

// TestClassComponents applies every class Component to a user's Deployment
// and Job and checks the scheduling fields that land on them. An ML kind's
// Component patches its own kind only: TestMLKindsComponent's.
func TestClassComponents(t *testing.T) {
	for _, dir := range exampleFleets(t) {
		res := compile(t, dir)
		for _, c := range res.Fleet.Classes {
			if c.Spec.HasRoles() {
				continue
			}
			extra := map[string]string{
				"app/workloads.yaml":     userWorkloads(c.Name, c.Spec.Container),
				"app/kustomization.yaml": "resources: [workloads.yaml]\ncomponents: [../classes/" + c.Name + "]\n",
			}
			out := kustomize(t, res, extra, "app")
			for _, r := range out.Resources() {
				b, err := r.AsYAML()
				if err != nil {
					t.Fatal(err)
				}
				var tpl corev1.PodTemplateSpec
				switch r.GetKind() {
				case "Deployment":
					var d appsv1.Deployment
					mustStrict(t, b, &d)
					tpl = d.Spec.Template
				case "Job":
					var j batchv1.Job
					mustStrict(t, b, &j)
					tpl = j.Spec.Template
				}
				if r.GetName() == "other-class" {
					if _, ok := tpl.Labels[keys.LabelClass]; ok || tpl.Spec.Affinity != nil || tpl.Spec.PriorityClassName != "" {
						t.Errorf("%s: component %s patched a workload of another class", dir, c.Name)
					}
					continue
				}
				checkStamped(t, dir+" "+c.Name+" "+r.GetKind(), &c, tpl)
			}
		}
	}
}

func mustStrict(t *testing.T, b []byte, obj any) {
	t.Helper()
	if err := yaml.UnmarshalStrict(b, obj); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
}

func checkStamped(t *testing.T, where string, c *derive.Class, got corev1.PodTemplateSpec) {
	t.Helper()
	want := c.Template.Spec
	if got.Labels[keys.LabelClass] != c.Name {
		t.Errorf("%s: pod label %s = %q", where, keys.LabelClass, got.Labels[keys.LabelClass])
	}
	gs := got.Spec
	for _, f := range []struct {
		name      string
		want, got any
	}{
		{"affinity", want.Affinity, gs.Affinity},
		{"tolerations (class policy replaces stale ones)", want.Tolerations, gs.Tolerations},
		{"topologySpreadConstraints", want.TopologySpreadConstraints, gs.TopologySpreadConstraints},
		{"priorityClassName", want.PriorityClassName, gs.PriorityClassName},
		{"schedulerName", want.SchedulerName, gs.SchedulerName},
		{"terminationGracePeriodSeconds", want.TerminationGracePeriodSeconds, gs.TerminationGracePeriodSeconds},
		{"runtimeClassName", want.RuntimeClassName, gs.RuntimeClassName},
		{"overhead", want.Overhead, gs.Overhead},
		{"initContainers", want.InitContainers, gs.InitContainers},
	} {
		if diff := cmp.Diff(f.want, f.got); diff != "" {
			t.Errorf("%s: %s (-want +got):\n%s", where, f.name, diff)
		}
	}
	if gs.NodeSelector["team"] != "blue" && got.Labels["app"] == "u" {
		t.Errorf("%s: user's nodeSelector entry was lost: %v", where, gs.NodeSelector)
	}
	for k, v := range want.NodeSelector {
		if gs.NodeSelector[k] != v {
			t.Errorf("%s: nodeSelector %s = %q, want %q", where, k, gs.NodeSelector[k], v)
		}
	}
	if len(gs.Containers) != 1 {
		t.Fatalf("%s: %d containers, want the user's one (a misnamed container was added?)", where, len(gs.Containers))
	}
	ctr := gs.Containers[0]
	if ctr.Image != "user/app:1" {
		t.Errorf("%s: image %q, want the user's", where, ctr.Image)
	}
	if diff := cmp.Diff(want.Containers[0].Resources, ctr.Resources); diff != "" {
		t.Errorf("%s: resources (-want +got):\n%s", where, diff)
	}
}
