package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/internal/cli"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// The catalogue of bad inputs. Each case is also a script,
// cmd/gpufleet/testdata/script/bad_<name>.txtar, which pins the whole of
// stderr; this table pins what a script cannot: the exact exit code (2, an
// invalid spec), for vet, for a build into a new directory (which must not
// appear) and for a build over an existing tree (which must stay
// byte-identical).

// validYAML is validFleet in YAML.
const validYAML = `cluster:
  provider: eks
  name: demo
  region: us-east-1
  version: "1.36"
  zones: [us-east-1a, us-east-1b]
priorities:
  standard:
    value: 1000
pools:
  general:
    instanceTypes: [m7i.large]
    size: {min: 1, max: 3}
classes:
  web:
    priority: standard
tenants:
  team:
    namespaces: [team]
    classes: [web]
`

// edit replaces, in base, each old with its new (pairs of old, new); every
// old must occur.
func edit(base string, pairs ...string) string {
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(base, pairs[i]) {
			panic(fmt.Sprintf("edit: %q not in spec", pairs[i]))
		}
		base = strings.Replace(base, pairs[i], pairs[i+1], 1)
	}
	return base
}

func cue(pairs ...string) string { return edit(validFleet, pairs...) }
func yml(pairs ...string) string { return edit(validYAML, pairs...) }

// deep is a spec whose cluster is n nested lists, in JSON or YAML by name.
func deep(name string, n int) string {
	lists := strings.Repeat("[", n) + strings.Repeat("]", n)
	if strings.HasSuffix(name, ".json") {
		return `{"cluster": ` + lists + "}\n"
	}
	return "cluster: " + lists + "\n"
}

// big is a YAML spec of about mb megabytes, mostly comment lines.
func big(mb int) string {
	var b strings.Builder
	b.WriteString("cluster: {provider: eks, name: demo, region: us-east-1, version: \"1.33\", zones: [us-east-1a, us-east-1b]}\n")
	line := "# " + strings.Repeat("x", 97) + "\n"
	for i := 0; i < mb<<20/len(line); i++ {
		b.WriteString(line)
	}
	return b.String()
}

// binary is bytes that are not text: NULs, invalid UTF-8, control characters.
func binary() string {
	return string([]byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xfe, 0x00, 0x01, 0x1b, 0xc3, 0x28, '\n'})
}

// treeSum snapshots dir for a byte-for-byte comparison.
func treeSum(t *testing.T, dir string) string {
	t.Helper()
	sum, err := testfleet.TreeSum(dir)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// runBad runs gpufleet and requires exit 2, empty stdout, and stderr holding
// want.
func runBad(t *testing.T, want string, args ...string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Run(args, &stdout, &stderr)
	if code != cli.ExitInvalid {
		t.Errorf("gpufleet %s: exit %d, want %d\nstderr:\n%s", strings.Join(args, " "), code, cli.ExitInvalid, &stderr)
	}
	if stdout.Len() != 0 {
		t.Errorf("gpufleet %s: stdout not empty:\n%s", strings.Join(args, " "), &stdout)
	}
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("gpufleet %s: stderr does not contain %q:\n%s", strings.Join(args, " "), want, &stderr)
	}
}

func TestBadInputExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		specs []string          // the SPEC arguments, relative to the case's directory
		files map[string]string // the files to write there
		// stderr must contain this: the message, after the file name.
		stderr string
	}{
		{"type_string_for_list", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("instanceTypes: [\"m7i.large\"]", "instanceTypes: \"m7i.large\"")}, ":14:17: pools.general.instanceTypes: conflicting values \"m7i.large\" and [string,...string] (mismatched types string and list)"},
		{"type_list_for_struct", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("size: {min: 1, max: 3}", "size: [1, 3]")}, ":15:8: pools.general.size: conflicting values [1,3] and {"},
		{"type_float_for_int", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("classes: web: priority: \"standard\"", "classes: web: {\n\tpriority: \"standard\"\n\treplicas: 1.5\n}")}, ":20:2: classes.web.replicas: invalid value 1.5 (want 1 | int)"},
		{"type_bool_for_string", []string{"fleet.yaml"}, map[string]string{"fleet.yaml": yml("name: demo", "name: true")}, ":3:9: cluster.name: conflicting values true and string (mismatched types bool and string)"},
		{"type_struct_for_string", []string{"fleet.yaml"}, map[string]string{"fleet.yaml": yml("priority: standard", "priority: {name: standard}")}, ":16:15: classes.web.priority: conflicting values {name:\"standard\"} and string (mismatched types struct and string)"},
		{"type_null_quota", []string{"fleet.yaml"}, map[string]string{"fleet.yaml": yml("classes: [web]\n", "classes: [web]\n    quota: null\n")}, ":21:12: tenants.team.quota: conflicting values null and {"},
		{"type_top_level_list", []string{"fleet.json"}, map[string]string{"fleet.json": "[{\"cluster\": {\"provider\": \"eks\"}}]\n"}, ": a JSON spec must be an object"},
		{"type_number_for_bool", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("size: {min: 1, max: 3}", "size: {min: 1, max: 3}\n\tefa:  1")}, ":16:2: pools.general.efa: invalid value 1 (want bool | false)"},
		{"unknown_top_level", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("pools: general", "pool: general")}, ":13:1: pool: field not allowed"},
		{"unknown_cluster_field", []string{"fleet.yaml"}, map[string]string{"fleet.yaml": yml("  zones: [us-east-1a, us-east-1b]", "  zones: [us-east-1a, us-east-1b]\n  zone: us-east-1a")}, ":7:3: cluster.zone: field not allowed"},
		{"unknown_deep_field", []string{"fleet.yaml"}, map[string]string{"fleet.yaml": yml("    priority: standard\n", "    priority: standard\n    affinity:\n      required:\n        - matchExpressions:\n            - key: node.kubernetes.io/instance-type\n              operator: In\n              value: [m7i.large]\n")}, ":22:15: classes.web.affinity.required.0.matchExpressions.0.value: field not allowed"},
		{"unknown_quota_field", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("classes: [\"web\"]\n", "classes: [\"web\"]\n\tquota: gpus: 4\n")}, ":23:9: tenants.team.quota.gpus: field not allowed"},
		{"dedicated_undefined_class", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("size: {min: 1, max: 3}", "size: {min: 1, max: 3}\n\tdedicatedTo: [\"training\"]")}, ":16:16: pools.general.dedicatedTo.0: pool is dedicated to class \"training\", which is not defined"},
		{"priority_quota_undefined", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("classes: [\"web\"]\n", "classes: [\"web\"]\n\tpriorityQuotas: urgent: pods: 10\n")}, ":23:18: tenants.team.priorityQuotas.urgent: priority \"urgent\" is not defined"},
		{"pool_quota_undefined", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("classes: [\"web\"]\n", "classes: [\"web\"]\n\tpoolQuotas: \"h100-od\": gpu: 8\n")}, ":23:14: tenants.team.poolQuotas.h100-od: pool \"h100-od\" is not defined"},
		{"cohort_cycle", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("classes: [\"web\"]\n", "classes: [\"web\"]\n\tcohort: \"a\"\n", "tenants:", "cohorts: {\n\ta: parent: \"b\"\n\tb: parent: \"c\"\n\tc: parent: \"a\"\n}\n\ntenants:")}, ":21:5: cohorts.a.parent: cohort \"a\" is its own ancestor: parents must form a tree"},
		{"cohort_self_parent", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("classes: [\"web\"]\n", "classes: [\"web\"]\n\tcohort: \"a\"\n", "tenants:", "cohorts: a: parent: \"a\"\n\ntenants:")}, ":20:13: cohorts.a.parent: cohort \"a\" is its own ancestor: parents must form a tree"},
		{"duplicate_namespace", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("namespaces: [\"team\"]", "namespaces: [\"team\", \"team\"]")}, ":21:23: tenants.team.namespaces.1: namespace \"team\" is listed twice"},
		{"duplicate_yaml_key", []string{"fleet.yaml"}, map[string]string{"fleet.yaml": yml("classes:\n  web:\n", "classes:\n  web:\n    priority: other\n  web:\n")}, ":16:15: classes.web.priority: conflicting values \"standard\" and \"other\""},
		{"duplicate_json_key", []string{"fleet.json"}, map[string]string{"fleet.json": "{\n  \"cluster\": {\"provider\": \"eks\", \"name\": \"demo\", \"region\": \"us-east-1\", \"version\": \"1.33\", \"zones\": [\"us-east-1a\", \"us-east-1b\"]},\n  \"priorities\": {\"standard\": {\"value\": 1000}},\n  \"pools\": {\"general\": {\"instanceTypes\": [\"m7i.large\"], \"size\": {\"min\": 1, \"max\": 3}}},\n  \"classes\": {\"web\": {\"priority\": \"standard\"}},\n  \"classes\": {\"web\": {\"priority\": \"other\"}},\n  \"tenants\": {\"team\": {\"namespaces\": [\"team\"], \"classes\": [\"web\"]}}\n}\n"}, ":5:35: classes.web.priority: conflicting values \"other\" and \"standard\""},
		{"duplicate_namespace_tenant_name", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("tenants: team: {\n\tnamespaces: [\"team\"]\n\tclasses: [\"web\"]\n}", "tenants: {\n\tteam: {\n\t\tnamespaces: [\"team\", \"shared\"]\n\t\tclasses: [\"web\"]\n\t}\n\tother: {\n\t\tnamespaces: [\"shared\"]\n\t\tclasses: [\"web\"]\n\t}\n}")}, ":22:24: tenants.team.namespaces.1: namespace \"shared\" already belongs to tenant \"other\" ("},
		{"pool_name_dotdot", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("pools: general", "pools: \"../x\"")}, ":13:8: pools.../x: pool name \"../x\" is invalid: a lowercase RFC 1123"},
		{"pool_name_abs", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("pools: general", "pools: \"/abs\"")}, ":13:8: pools./abs: pool name \"/abs\" is invalid: a lowercase RFC 1123"},
		{"class_name_slash", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("classes: web: priority", "classes: \"a/b\": priority", "classes: [\"web\"]", "classes: [\"a/b\"]")}, ":18:10: classes.a/b: class name \"a/b\" is invalid: a lowercase RFC 1123"},
		{"class_name_uppercase", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("classes: web: priority", "classes: Web: priority", "classes: [\"web\"]", "classes: [\"Web\"]")}, ":18:10: classes.Web: class name \"Web\" is invalid: a lowercase RFC 1123"},
		{"tenant_name_uppercase", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("tenants: team", "tenants: Team")}, ":20:10: tenants.Team: tenant name \"Team\" is invalid: a lowercase RFC 1123"},
		{"tenant_name_too_long", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("tenants: team", "tenants: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")}, ":20:10: tenants.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: tenant name \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" is invalid: must be no more than 63 characters"},
		{"tenant_name_abs", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("tenants: team", "tenants: \"/etc\"")}, ":20:10: tenants./etc: tenant name \"/etc\" is invalid: a lowercase RFC 1123"},
		{"namespace_dotdot", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("namespaces: [\"team\"]", "namespaces: [\"../x\"]")}, ":21:15: tenants.team.namespaces.0: namespace \"../x\" is invalid: a lowercase RFC 1123"},
		{"namespace_abs", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("namespaces: [\"team\"]", "namespaces: [\"/abs\"]")}, ":21:15: tenants.team.namespaces.0: namespace \"/abs\" is invalid: a lowercase RFC 1123"},
		{"namespace_too_long", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("namespaces: [\"team\"]", "namespaces: [\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"]")}, ":21:15: tenants.team.namespaces.0: namespace \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" is invalid: must be no more than 63 characters"},
		{"namespace_uppercase", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("namespaces: [\"team\"]", "namespaces: [\"Team\"]")}, ":21:15: tenants.team.namespaces.0: namespace \"Team\" is invalid: a lowercase RFC 1123"},
		{"priority_name_slash", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("priorities: standard", "priorities: \"a/b\"", "priority: \"standard\"", "priority: \"a/b\"")}, ":11:13: priorities.a/b: priority name \"a/b\" is invalid: a lowercase RFC 1123"},
		{"priority_name_too_long", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("priorities: standard", "priorities: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "priority: \"standard\"", "priority: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"")}, ":11:13: priorities.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: priority name \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" is invalid: must be no more than 63 characters"},
		{"priority_name_dotdot", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("priorities: standard", "priorities: \"../x\"", "priority: \"standard\"", "priority: \"../x\"")}, ":11:13: priorities.../x: priority name \"../x\" is invalid: a lowercase RFC 1123"},
		{"priority_name_system", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("priorities: standard", "priorities: \"system-x\"", "priority: \"standard\"", "priority: \"system-x\"")}, ":11:13: priorities.system-x: priority name \"system-x\" is invalid: the prefix \"system-\" is reserved by Kubernetes"},
		{"pool_name_too_long", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("pools: general", "pools: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")}, ":13:8: pools.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: pool name \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" is invalid: must be no more than 63 characters"},
		{"size_max_huge", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("max: 3", "max: 100000")}, ":15:22: pools.general.size.max: invalid value 100000 (out of bound <=10000)"},
		{"size_min_negative", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("min: 1, max: 3", "min: -1, max: 3")}, ":15:14: pools.general.size.min: invalid value -1 (out of bound >=0)"},
		{"gang_zero", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("classes: web: priority: \"standard\"", "classes: web: {\n\tpriority: \"standard\"\n\tkind:     \"Job\"\n\tgang:     0\n}")}, ":21:12: classes.web.gang: invalid value 0 (out of bound >=1)"},
		{"expire_after_days", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("size: {min: 1, max: 3}", "size: {min: 0, max: 3}\n\tprovisioner: \"karpenter\"\n\texpireAfter: \"30d\"")}, ":17:2: pools.general.expireAfter: expireAfter \"30d\" is not a duration Karpenter accepts"},
		{"expire_after_managed", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("size: {min: 1, max: 3}", "size: {min: 1, max: 3}\n\texpireAfter: \"720h\"")}, ":16:2: pools.general.expireAfter: expireAfter needs provisioner \"karpenter\" or \"both\""},
		{"checkpoint_deployment", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("classes: web: priority: \"standard\"", "classes: web: {\n\tpriority: \"standard\"\n\tcheckpoint: false\n}")}, ":20:2: classes.web.checkpoint: checkpoint needs kind Job, not Deployment"},
		{"size_min_gt_max", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("min: 1, max: 3", "min: 5, max: 3")}, ":15:22: pools.general.size.max: invalid value 3 (out of bound >=5)"},
		{"priority_value_huge", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("value: 1000", "value: 99999999999999999999")}, ":11:30: priorities.standard.value: invalid value 99999999999999999999 (out of bound <=1000000000)"},
		{"quota_gpu_negative", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("classes: [\"web\"]\n", "classes: [\"web\"]\n\tquota: gpu: -8\n")}, ":23:14: tenants.team.quota.gpu: invalid value -8 (out of bound >=0)"},
		{"size_desired_above_max", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("min: 1, max: 3", "min: 1, max: 3, desired: 4")}, ":15:34: pools.general.size.desired: invalid value 4 (out of bound <=3)"},
		{"pool_zone_outside_cluster_yaml", []string{"fleet.yaml"}, map[string]string{"fleet.yaml": yml("    size: {min: 1, max: 3}", "    size: {min: 1, max: 3}\n    zones: [us-west-2a]")}, ":14:13: pools.general.zones.0: zone \"us-west-2a\" is not one of the cluster's zones (\"us-east-1a\", \"us-east-1b\")"},
		{"empty_cue", []string{"fleet.cue"}, map[string]string{"fleet.cue": ""}, ": cluster.name: missing required field (want !=\"\")"},
		{"empty_yaml", []string{"fleet.yaml"}, map[string]string{"fleet.yaml": ""}, ": cluster.name: missing required field (want !=\"\")"},
		{"empty_json", []string{"fleet.json"}, map[string]string{"fleet.json": ""}, ":1:1: invalid JSON for file"},
		{"empty_dir", []string{"spec"}, map[string]string{"spec/README.md": "not a spec\n"}, "spec: no .cue files here: a spec directory holds one CUE package"},
		{"two_packages", []string{"spec"}, map[string]string{"spec/a.cue": validFleet, "spec/b.cue": "package other\n\nx: 1\n"}, "spec: found packages \"fleet\" (a.cue) and \"other\" (b.cue) in \".\""},
		{"binary_yaml", []string{"fleet.yaml"}, map[string]string{"fleet.yaml": binary()}, ": control characters are not allowed"},
		{"alias_bomb", []string{"fleet.yaml"}, map[string]string{"fleet.yaml": "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g,*g]\ni: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h,*h]\n"}, ":1:1: aliases expand to more than 50000 nodes"},
		{"deep_json", []string{"fleet.json"}, map[string]string{"fleet.json": deep("fleet.json", 10000)}, ":1:10012: invalid JSON for file"},
		{"deep_yaml", []string{"fleet.yaml"}, map[string]string{"fleet.yaml": deep("fleet.yaml", 100000)}, ": exceeded max depth of 10000"},
		{"big_yaml", []string{"fleet.yaml"}, map[string]string{"fleet.yaml": big(50)}, ": spec file too large (52428906 bytes; the limit is 16 MiB)"},
		{"pool_name_slash", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("pools: general", "pools: \"a/b\"")}, ":13:8: pools.a/b: pool name \"a/b\" is invalid: a lowercase RFC 1123"},
		{"class_name_abs", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("classes: web: priority", "classes: \"/abs\": priority", "classes: [\"web\"]", "classes: [\"/abs\"]")}, ":18:10: classes./abs: class name \"/abs\" is invalid: a lowercase RFC 1123"},
		{"tenant_name_slash", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("tenants: team", "tenants: \"a/b\"")}, ":20:10: tenants.a/b: tenant name \"a/b\" is invalid: a lowercase RFC 1123"},
		{"gpu_count_huge", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("classes: web: priority: \"standard\"", "classes: web: {\n\tpriority: \"standard\"\n\tgpu: count: 1000\n}")}, ":20:14: classes.web.gpu.count: invalid value 1000 (out of bound <=64)"},
		{"priority_value_float_huge", []string{"fleet.yaml"}, map[string]string{"fleet.yaml": yml("value: 1000", "value: 1e400")}, ":9:12: priorities.standard.value: conflicting values \"1e400\" and int (mismatched types string and int)"},
		{"cluster_name_latin1", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("name:     \"demo\"", "name:     \"d\xe9mo\"")}, ":5:14: invalid UTF-8 byte 0xe9: a spec must be UTF-8 text"},
		{"latin1_yaml", []string{"fleet.yaml"}, map[string]string{"fleet.yaml": yml("name: demo", "name: d\xe9mo")}, ": invalid trailing UTF-8 octet"},
		{"instance_vcpu_huge", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue(`pools: general: {`, "instanceTypes: \"x1.huge\": {vcpu: 1000000000000000, memoryGiB: 4, maxPods: 10}\npools: general: {", `instanceTypes: ["m7i.large"]`, `instanceTypes: ["x1.huge"]`)}, ":13:34: instanceTypes.\"x1.huge\".vcpu: invalid value 1000000000000000 (out of bound <=4096)"},
		{"quota_cpu_huge", []string{"fleet.yaml"}, map[string]string{"fleet.yaml": yml("    classes: [web]\n", "    classes: [web]\n    quota: {cpu: \"1e19\"}\n")}, ": tenants.team.quota.cpu: quantity \"1e19\" is more than 1M, the most gpufleet accounts exactly"},
		{"node_group_name_collision", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("size: {min: 1, max: 3}", "size: {min: 1, max: 3}\n\tzoneGroups: true", "classes: web: priority", "pools: \"general-us-east-1b\": {instanceTypes: [\"m7i.large\"], size: {min: 0, max: 2}}\n\nclasses: web: priority")}, ":19:8: pools.general-us-east-1b: managed node group name \"general-us-east-1b\" is made twice: by pool \"general\" (its group for zone us-east-1b, zoneGroups) and by pool \"general-us-east-1b\""},
		{"namespace_owned", []string{"fleet.cue"}, map[string]string{"fleet.cue": cue("namespaces: [\"team\"]", "namespaces: [\"team\", \"nvidia-device-plugin\"]")}, ":21:23: tenants.team.namespaces.1: namespace \"nvidia-device-plugin\" is gpufleet's: the tree creates it for the NVIDIA device plugin"},
		{"label_kubelet_restricted", []string{"fleet.yaml"}, map[string]string{"fleet.yaml": yml("    size: {min: 1, max: 3}", "    size: {min: 1, max: 3}\n    labels: {node-role.kubernetes.io/worker: \"true\"}")}, ":14:14: pools.general.labels.node-role.kubernetes.io/worker: label key \"node-role.kubernetes.io/worker\" is in a domain the kubelet restricts"},
		{"price_huge", []string{"fleet.yaml"}, map[string]string{"fleet.yaml": validYAML + "prices: {instanceTypes: {m7i.large: {spot: 1.7e308}}}\n"}, ":21:44: prices.instanceTypes.\"m7i.large\".spot: invalid value 1.7E+308 (out of bound <=100000)"},
		// CUE's YAML decoder panicked on old Mac line endings.
		{"yaml_lone_cr", []string{"fleet.yaml"}, map[string]string{"fleet.yaml": strings.ReplaceAll(validYAML, "\n", "\r")}, ":1:9: a carriage return without a line feed"},
		{"yaml_two_documents", []string{"fleet.yaml"}, map[string]string{"fleet.yaml": validYAML + "---\nclasses: {}\n"}, ": a second YAML document: a spec file is one document"},
		{"json_long_number", []string{"fleet.json"}, map[string]string{"fleet.json": "{\"x\": " + strings.Repeat("7", 100_000) + "}\n"}, ":1:7: more than 1000 digits in a row"},
		{"cue_colon_name", []string{"a:b.cue"}, map[string]string{"a:b.cue": validFleet}, "a:b.cue: a .cue file name may not contain ':'"},
		{"two_specs_conflict", []string{"fleet.cue", "extra.yaml"}, map[string]string{"fleet.cue": validFleet, "extra.yaml": "classes:\n  web:\n    priority: urgent\n"}, "classes.web.priority: conflicting values \"urgent\" and \"standard\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, data := range tc.files {
				p := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var specs []string
			for _, s := range tc.specs {
				specs = append(specs, filepath.Join(dir, s))
			}

			runBad(t, tc.stderr, append([]string{"vet"}, specs...)...)

			// A build into a new directory creates nothing.
			fresh := filepath.Join(dir, "fresh")
			runBad(t, tc.stderr, append([]string{"build", "-o", fresh}, specs...)...)
			if _, err := os.Stat(fresh); !os.IsNotExist(err) {
				t.Errorf("failed build created %s (stat: %v)", fresh, err)
			}

			// A build over an existing tree leaves it byte-identical.
			good := filepath.Join(dir, "good.cue")
			if err := os.WriteFile(good, []byte(validFleet), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			var stdout, stderr bytes.Buffer
			if code := cli.Run([]string{"build", good, "-o", out}, &stdout, &stderr); code != cli.ExitOK {
				t.Fatalf("good build: exit %d\n%s", code, &stderr)
			}
			if err := os.WriteFile(filepath.Join(out, "NOTES.md"), []byte("hand-written\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			before := treeSum(t, out)
			runBad(t, tc.stderr, append([]string{"build", "-o", out}, specs...)...)
			if after := treeSum(t, out); after != before {
				t.Errorf("failed build changed %s:\nbefore:\n%s\nafter:\n%s", out, before, after)
			}
		})
	}
}

// TestBadOutputExitCodes pins exit 2 for output trees that cannot be
// written and for invalid specs under the CI commands (diff and build
// --check exit 1 only for a stale tree, never for a bad spec).
func TestBadOutputExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string { return writeFile(t, dir, name, data) }
	good := write("good.cue", validFleet)
	bad := write("bad.cue", cue(`classes: web: priority: "standard"`, `classes: web: priority: "urgent"`))
	file := write("file", "a file, not a directory\n")
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	if code := cli.Run([]string{"build", good, "-o", out}, &stdout, &stderr); code != cli.ExitOK {
		t.Fatalf("good build: exit %d\n%s", code, &stderr)
	}
	before := treeSum(t, out)

	runBad(t, "exists and is not a directory", "build", good, "-o", file)
	runBad(t, "exists and is not a directory", "build", good, "-o", file, "--check")
	runBad(t, "exists and is not a directory", "diff", good, "-o", file)
	runBad(t, "not a directory", "build", good, "-o", filepath.Join(file, "sub"))
	if data, err := os.ReadFile(file); err != nil || string(data) != "a file, not a directory\n" {
		t.Errorf("file changed: %q, %v", data, err)
	}
	runBad(t, `names priority "urgent", which is not defined`, "diff", bad, "-o", out)
	runBad(t, `names priority "urgent", which is not defined`, "build", bad, "-o", out, "--check")
	if after := treeSum(t, out); after != before {
		t.Errorf("diff or build --check of a bad spec changed %s", out)
	}
}

// TestReadOnlyOutput pins that a build into a directory it cannot write
// fails with exit 2 and leaves the directory as it was. Root writes
// anyway, so the test needs an unprivileged user (testscript has no
// condition for that, so this case has no script).
func TestReadOnlyOutput(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root can write to a read-only directory")
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "good.cue")
	if err := os.WriteFile(good, []byte(validFleet), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(out, 0o755) })
	before := treeSum(t, out)
	runBad(t, "output directory is not writable", "build", good, "-o", out)
	if after := treeSum(t, out); after != before {
		t.Errorf("build into a read-only directory changed it:\nbefore:\n%s\nafter:\n%s", before, after)
	}

	// A read-only subdirectory of an existing tree: the build that would
	// change files in it and elsewhere changes none of them.
	tree := filepath.Join(dir, "tree")
	var stdout, stderr bytes.Buffer
	if code := cli.Run([]string{"build", good, "-o", tree}, &stdout, &stderr); code != cli.ExitOK {
		t.Fatalf("good build: exit %d\n%s", code, &stderr)
	}
	sub := filepath.Join(tree, "tenants", "team")
	if err := os.Chmod(sub, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(sub, 0o755) })
	changed := filepath.Join(dir, "changed.cue")
	if err := os.WriteFile(changed, []byte(cue("value: 1000", "value: 2000", "max: 3", "max: 4", `namespaces: ["team"]`, `namespaces: ["team", "team2"]`)), 0o644); err != nil {
		t.Fatal(err)
	}
	before = treeSum(t, tree)
	runBad(t, "output directory is not writable", "build", changed, "-o", tree)
	if after := treeSum(t, tree); after != before {
		t.Errorf("build into a tree with a read-only subdirectory changed it:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// An error quoting a huge spec value is cut (diag.MaxMsg) in every format:
// a 15 MB label value reached the log whole.
func TestHugeValueEchoCapped(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "fleet.yaml")
	huge := strings.Repeat("v", 2<<20)
	if err := os.WriteFile(spec, []byte(yml("    size: {min: 1, max: 3}", "    size: {min: 1, max: 3}\n    labels: {example.com/x: "+huge+"}")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "json", "github", "sarif"} {
		var o, e strings.Builder
		code := cli.Run([]string{"vet", spec, "--format", format}, &o, &e)
		stdout, stderr := o.String(), e.String()
		if code != cli.ExitInvalid || len(stdout)+len(stderr) > 4000 || !strings.Contains(stdout+stderr, "bytes more)") {
			t.Errorf("%s: exit %d, %d bytes out, %d bytes err: %.300s", format, code, len(stdout), len(stderr), stdout+stderr)
		}
	}
}
