package cli

import (
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/nodegroup/eks"
	"github.com/gpufleet/gpufleet/compiler/plan"
)

// Each node-group change gets the eksctl commands that carry it out, and
// a name eksctl would not take (a committed tree's, which a pull request
// chose) gets none.
func TestEksctlCommands(t *testing.T) {
	g := func(names ...string) *plan.Group { return &plan.Group{Provisioner: eks.EksctlPath, NodeGroups: names} }
	p := &plan.Plan{NodeGroups: []plan.GroupChange{
		{Pool: "new", Action: plan.Create, After: g("new-a", "new-b")},
		{Pool: "gone", Action: plan.Destroy, Before: g("gone")},
		{Pool: "swap", Action: plan.Replace, Before: g("swap"), After: g("swap")},
		{Pool: "grow", Action: plan.Update, Fields: []string{"max"}, Before: g("grow"), After: g("grow")},
		{Pool: "relabel", Action: plan.Update, Fields: []string{"labels", "desired"}, Before: g("relabel"), After: g("relabel")},
		{Pool: "karp", Action: plan.Update, Fields: []string{"max"}, Before: &plan.Group{Provisioner: "nodegroups/karpenter.yaml", NodeGroups: []string{"karp"}}},
		{Pool: "hostile", Action: plan.Destroy, Before: g("x;rm -rf /")},
	}}
	want := `eksctl create nodegroup --config-file=out/nodegroups/eksctl.yaml --include=new-a,new-b
eksctl delete nodegroup --cluster=demo --region=us-east-1 --name=gone --approve
eksctl delete nodegroup --cluster=demo --region=us-east-1 --name=swap --approve
eksctl create nodegroup --config-file=out/nodegroups/eksctl.yaml --include=swap
eksctl scale nodegroup --config-file=out/nodegroups/eksctl.yaml --name=grow
eksctl scale nodegroup --config-file=out/nodegroups/eksctl.yaml --name=relabel
# pool relabel: labels change in place, which no eksctl command does (apply the Terraform files, or EKS's UpdateNodegroupConfig)`
	if got := strings.Join(eksctlCommands(p, "demo", "us-east-1", "out"), "\n"); got != want {
		t.Errorf("commands:\n%s\nwant:\n%s", got, want)
	}
	if got := eksctlCommands(p, "demo;x", "us-east-1", "out"); got != nil {
		t.Errorf("a cluster name eksctl does not take: %q", got)
	}
	if got := eksctlCommands(p, "demo", "us-east-1", "my tree"); !strings.Contains(got[0], "'--config-file=my tree/nodegroups/eksctl.yaml'") {
		t.Errorf("a directory with a space, unquoted: %q", got[0])
	}
}
