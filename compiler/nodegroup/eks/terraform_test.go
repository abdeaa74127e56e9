package eks_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/nodegroup/eks"
	tfwire "github.com/gpufleet/gpufleet/compiler/wire/terraform"
)

// nodeGroupAttrs are the attributes gpufleet sets, with their types in
// terraform-aws-modules/eks v21's eks_managed_node_groups variable.
var nodeGroupAttrs = map[string]string{
	"ami_type":      "string",
	"capacity_type": "string",
	"capacity_reservation_specification": `object({
      capacity_reservation_preference = optional(string)
      capacity_reservation_target = optional(object({
        capacity_reservation_id                 = optional(string)
        capacity_reservation_resource_group_arn = optional(string)
      }))
    })`,
	"instance_market_options": `object({
      market_type = optional(string)
    })`,
	"use_custom_launch_template": "bool",
	"block_device_mappings": `map(object({
      device_name = optional(string)
      ebs = optional(object({
        delete_on_termination = optional(bool)
        volume_size           = optional(number)
        volume_type           = optional(string)
      }))
    }))`,
	"desired_size":       "number",
	"disk_size":          "number",
	"enable_efa_support": "bool",
	"instance_types":     "list(string)",
	"labels":             "map(string)",
	"max_size":           "number",
	"min_size":           "number",
	"taints": `map(object({
      key    = string
      value  = optional(string)
      effect = string
    }))`,
}

// rootModule declares the file's variables as a root module calling the
// eks module would, with validations for what the EKS API accepts.
func rootModule() string {
	var attrs []string
	for _, k := range sortedNames(nodeGroupAttrs) {
		attrs = append(attrs, fmt.Sprintf("    %s = optional(%s)", k, nodeGroupAttrs[k]))
	}
	return fmt.Sprintf(`variable %q {
  nullable = false
  type = map(object({
%s
  }))
  validation {
    condition     = alltrue([for g in values(var.%[1]s) : contains(["ON_DEMAND", "SPOT", "CAPACITY_BLOCK"], g.capacity_type)])
    error_message = "capacity_type must be ON_DEMAND, SPOT or CAPACITY_BLOCK."
  }
  validation {
    condition     = alltrue([for g in values(var.%[1]s) : contains(["AL2023_x86_64_STANDARD", "AL2023_x86_64_NVIDIA", "BOTTLEROCKET_x86_64", "BOTTLEROCKET_x86_64_NVIDIA"], g.ami_type)])
    error_message = "ami_type must be an x86_64 AL2023 or Bottlerocket type."
  }
  validation {
    condition     = alltrue(flatten([for g in values(var.%[1]s) : [for t in values(coalesce(g.taints, {})) : contains(["NO_SCHEDULE", "NO_EXECUTE", "PREFER_NO_SCHEDULE"], t.effect)]]))
    error_message = "taint effect must be NO_SCHEDULE, NO_EXECUTE or PREFER_NO_SCHEDULE."
  }
  validation {
    condition     = alltrue([for g in values(var.%[1]s) : g.min_size <= g.desired_size && g.desired_size <= g.max_size])
    error_message = "min_size <= desired_size <= max_size must hold."
  }
}

variable %[3]q {
  nullable = false
  type = map(object({
    node_group = string
    key        = string
    value      = string
  }))
  validation {
    condition     = alltrue([for t in values(var.%[3]s) : contains(keys(var.%[1]s), t.node_group)])
    error_message = "every tag must name a node group."
  }
  validation {
    condition     = alltrue([for t in values(var.%[3]s) : startswith(t.key, "k8s.io/cluster-autoscaler/node-template/") && length(t.key) <= 128])
    error_message = "tag keys must be cluster-autoscaler node-template keys of at most 128 characters."
  }
  validation {
    condition     = alltrue([for t in values(var.%[3]s) : !startswith(t.key, "k8s.io/cluster-autoscaler/node-template/taint/") || can(regex(":(NoSchedule|NoExecute|PreferNoSchedule)$", t.value))])
    error_message = "taint tag values must end in :<Effect>."
  }
}

variable %[4]q {
  nullable = false
  type     = map(list(string))
  validation {
    condition     = toset(keys(var.%[4]s)) == toset(keys(var.%[1]s))
    error_message = "every node group needs its zones."
  }
}
`, tfwire.NodeGroupsVar, strings.Join(attrs, "\n"), tfwire.ASGTagsVar, tfwire.ZonesVar)
}

func sortedNames[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// terraform is an initialised root module and the binary to plan it with.
type terraform struct {
	bin, dir string
	env      []string
}

func newTerraform(t *testing.T) *terraform {
	t.Helper()
	bin, err := exec.LookPath("terraform")
	if err != nil {
		t.Fatal("terraform is not on PATH; this test type-checks the tfvars with it and never skips.\n" +
			"Install Terraform >= 1.9 (cross-variable validation): https://developer.hashicorp.com/terraform/install")
	}
	tmp := t.TempDir()
	tf := &terraform{bin: bin, dir: filepath.Join(tmp, "root")}
	// Isolated from the user's config, cache and credentials; no prompts.
	cli := filepath.Join(tmp, "terraformrc")
	for f, b := range map[string]string{cli: "", filepath.Join(tf.dir, "main.tf"): rootModule()} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tf.env = append(os.Environ(), "TF_IN_AUTOMATION=1", "TF_INPUT=0", "CHECKPOINT_DISABLE=1",
		"TF_CLI_CONFIG_FILE="+cli, "TF_DATA_DIR="+filepath.Join(tmp, "data"), "HOME="+tmp)
	if out, err := tf.run("init", "-backend=false"); err != nil {
		t.Fatalf("terraform init: %v\n%s", err, out)
	}
	return tf
}

func (tf *terraform) run(args ...string) (string, error) {
	cmd := exec.Command(tf.bin, append(args, "-input=false", "-no-color")...)
	cmd.Dir, cmd.Env = tf.dir, tf.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// plan type-checks one tfvars file: terraform converts it to the declared
// types and runs the validations, with no provider and no state.
func (tf *terraform) plan(t *testing.T, tfvars []byte) (string, error) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "nodegroups.tfvars.json")
	if err := os.WriteFile(f, tfvars, 0o644); err != nil {
		t.Fatal(err)
	}
	return tf.run("plan", "-lock=false", "-var-file="+f)
}

// checkAttrs fails on attributes the root module does not declare:
// terraform drops unknown object attributes silently, so a misspelt field
// would pass its type check and then be ignored by the module.
func checkAttrs(tfvars []byte) error {
	var file map[string]json.RawMessage
	if err := json.Unmarshal(tfvars, &file); err != nil {
		return err
	}
	for _, v := range sortedNames(file) {
		if v != tfwire.NodeGroupsVar && v != tfwire.ASGTagsVar && v != tfwire.ZonesVar {
			return fmt.Errorf("undeclared variable %q", v)
		}
	}
	var groups map[string]map[string]any
	if err := json.Unmarshal(file[tfwire.NodeGroupsVar], &groups); err != nil {
		return err
	}
	for _, name := range sortedNames(groups) {
		for _, attr := range sortedNames(groups[name]) {
			if _, ok := nodeGroupAttrs[attr]; !ok {
				return fmt.Errorf("node group %s: attribute %q is not one gpufleet declares for the module", name, attr)
			}
		}
	}
	return nil
}

func TestTerraformTypeCheck(t *testing.T) {
	tf := newTerraform(t)
	for name, f := range renderedFleets(t) {
		t.Run(name, func(t *testing.T) {
			tfvars, ok := f.Tree[eks.TerraformPath]
			if !ok {
				t.Fatalf("%s missing from the tree", eks.TerraformPath)
			}
			if err := checkAttrs(tfvars); err != nil {
				t.Fatal(err)
			}
			if out, err := tf.plan(t, tfvars); err != nil {
				t.Fatalf("terraform rejects %s: %v\n%s", eks.TerraformPath, err, out)
			}
		})
	}
}

// TestTerraformRejects proves the type check can fail: each case breaks one
// field of a valid file, and terraform must reject it with the given words.
func TestTerraformRejects(t *testing.T) {
	tf := newTerraform(t)
	valid := renderedFleets(t)["platform"].Tree[eks.TerraformPath]
	for _, tc := range []struct {
		name, want string
		mutate     func(file map[string]any)
	}{
		{"min_size not a number", "a number is required", func(f map[string]any) { a100Train(f)["min_size"] = "two" }},
		{"capacity_type in Kubernetes spelling", "capacity_type must be ON_DEMAND, SPOT or CAPACITY_BLOCK", func(f map[string]any) { a100Train(f)["capacity_type"] = "spot" }},
		{"taint effect in Kubernetes casing", "taint effect must be NO_SCHEDULE", func(f map[string]any) {
			for _, taint := range a100Train(f)["taints"].(map[string]any) {
				taint.(map[string]any)["effect"] = "NoSchedule"
			}
		}},
		{"taint without effect", `attribute "effect" is required`, func(f map[string]any) {
			for _, taint := range a100Train(f)["taints"].(map[string]any) {
				delete(taint.(map[string]any), "effect")
			}
		}},
		{"desired above max", "min_size <= desired_size <= max_size", func(f map[string]any) { a100Train(f)["desired_size"] = 1000 }},
		{"tag for an unknown node group", "every tag must name a node group", func(f map[string]any) {
			for _, tag := range f[tfwire.ASGTagsVar].(map[string]any) {
				tag.(map[string]any)["node_group"] = "ghost"
				break
			}
		}},
		{"taint tag without effect", "taint tag values must end in :<Effect>", func(f map[string]any) {
			for _, tag := range f[tfwire.ASGTagsVar].(map[string]any) {
				if tg := tag.(map[string]any); strings.Contains(tg["key"].(string), "/taint/") {
					tg["value"] = "true"
				}
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var file map[string]any
			if err := json.Unmarshal(valid, &file); err != nil {
				t.Fatal(err)
			}
			tc.mutate(file)
			b, err := json.Marshal(file)
			if err != nil {
				t.Fatal(err)
			}
			out, err := tf.plan(t, b)
			if err == nil {
				t.Fatalf("terraform accepted it:\n%s", out)
			}
			if !strings.Contains(strings.Join(strings.Fields(out), " "), tc.want) {
				t.Fatalf("terraform rejected it, but not with %q:\n%s", tc.want, out)
			}
		})
	}
}

// a100Train is the first GPU node group (a100-train in fleets/platform): it
// has taints to break.
func a100Train(file map[string]any) map[string]any {
	return file[tfwire.NodeGroupsVar].(map[string]any)["a100-train"].(map[string]any)
}

// TestTerraformAttrsPinned proves checkAttrs catches what terraform's type
// conversion would drop silently.
func TestTerraformAttrsPinned(t *testing.T) {
	var file map[string]any
	if err := json.Unmarshal(renderedFleets(t)["platform"].Tree[eks.TerraformPath], &file); err != nil {
		t.Fatal(err)
	}
	a100Train(file)["disk_sise"] = 100
	b, _ := json.Marshal(file)
	if err := checkAttrs(b); err == nil || !strings.Contains(err.Error(), `"disk_sise"`) {
		t.Fatalf("a misspelt attribute passed: %v", err)
	}
}
