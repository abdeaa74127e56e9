package e2e

import (
	"encoding/json"
	"fmt"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"maps"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/nodegroup/eks"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// terraformFile is the part of the tfvars for terraform-aws-modules/eks's
// eks_managed_node_groups a node takes. A team applies either it or the
// eksctl ClusterConfig, so both must launch the same nodes.
type terraformFile struct {
	Zones  map[string][]string `json:"eks_managed_node_group_zones"`
	Groups map[string]struct {
		AMIType       string            `json:"ami_type"`
		CapacityType  string            `json:"capacity_type"`
		InstanceTypes []string          `json:"instance_types"`
		Labels        map[string]string `json:"labels"`
		MaxSize       int               `json:"max_size"`
		MinSize       int               `json:"min_size"`
		EFA           bool              `json:"enable_efa_support"`
		Taints        map[string]struct {
			Key, Value, Effect string
		} `json:"taints"`
	} `json:"eks_managed_node_groups"`
}

// terraformEffects are the EKS API's names of taint effects.
var terraformEffects = map[string]corev1.TaintEffect{
	"NO_SCHEDULE": corev1.TaintEffectNoSchedule, "NO_EXECUTE": corev1.TaintEffectNoExecute, "PREFER_NO_SCHEDULE": corev1.TaintEffectPreferNoSchedule,
}

// readTerraform reads the Terraform node groups as the EKS API takes them.
func readTerraform(t tree.Tree) ([]*infraPool, error) {
	raw, ok := t[eks.TerraformPath]
	if !ok {
		return nil, nil
	}
	var f terraformFile
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", eks.TerraformPath, err)
	}
	var out []*infraPool
	for _, name := range slices.Sorted(maps.Keys(f.Groups)) {
		g := f.Groups[name]
		pool := name
		if l := g.Labels[keys.LabelPool]; l != "" {
			pool = l
		}
		p := &infraPool{name: pool, prefix: name, types: g.InstanceTypes, zones: f.Zones[name], max: g.MaxSize, min: g.MinSize, labels: g.Labels,
			spot: g.CapacityType == "SPOT", efa: g.EFA, hostPlugin: strings.HasPrefix(g.AMIType, "BOTTLEROCKET_")}
		for _, key := range slices.Sorted(maps.Keys(g.Taints)) {
			tt := g.Taints[key]
			e, ok := terraformEffects[tt.Effect]
			if !ok {
				return nil, fmt.Errorf("%s: node group %s: taint %s has effect %q, which the EKS API does not know", eks.TerraformPath, name, key, tt.Effect)
			}
			p.taints = append(p.taints, corev1.Taint{Key: tt.Key, Value: tt.Value, Effect: e})
		}
		out = append(out, p)
	}
	return out, nil
}

// sameNodes says how the Terraform node groups would launch other nodes
// than eksctl's managed node groups, or "".
func sameNodes(eksctl, terraform []*infraPool) string {
	var managed []*infraPool
	for _, p := range eksctl {
		if !p.karpenter {
			managed = append(managed, p)
		}
	}
	var diffs []string
	groups := func(ps []*infraPool) string {
		names := make([]string, len(ps))
		for i, p := range ps {
			names[i] = p.prefix
		}
		return strings.Join(names, " ")
	}
	if got, want := groups(terraform), groups(managed); got != want {
		return fmt.Sprintf("Terraform declares node groups [%s], eksctl [%s]", got, want)
	}
	for i, e := range managed {
		tf := terraform[i]
		taints := func(p *infraPool) string {
			s := make([]string, len(p.taints))
			for j, t := range p.taints {
				s[j] = t.ToString()
			}
			sort.Strings(s)
			return strings.Join(s, ",")
		}
		if fmt.Sprint(e.types, e.zones, e.max, e.min, e.spot, e.efa, e.hostPlugin, taints(e)) != fmt.Sprint(tf.types, tf.zones, tf.max, tf.min, tf.spot, tf.efa, tf.hostPlugin, taints(tf)) || !maps.Equal(e.labels, tf.labels) {
			diffs = append(diffs, fmt.Sprintf("%s: eksctl %+v, Terraform %+v", e.prefix, *e, *tf))
		}
	}
	return strings.Join(diffs, "; ")
}
