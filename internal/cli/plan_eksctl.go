package cli

import (
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/gpufleet/gpufleet/compiler/nodegroup/eks"
	"github.com/gpufleet/gpufleet/compiler/plan"
)

// eksctlCommands are the eksctl commands that carry out a plan's changes
// to managed node groups once the tree in dir is rebuilt, in the plan's
// order: eksctl v0.230.0's 'create nodegroup' only creates (it skips a
// node group that exists), so a size change needs 'scale nodegroup',
// which reads the sizes from the config file with --name
// (pkg/ctl/cmdutils/scale.go, NewScaleNodeGroupLoader), a removed pool
// 'delete nodegroup' (which drains first), and a replacement both, the
// old group deleted before the new one of the same name is created.
// Other in-place changes (labels, taints) have no eksctl command:
// 'update nodegroup' changes only updateConfig
// (pkg/actions/nodegroup/update.go).
func eksctlCommands(p *plan.Plan, cluster, region, dir string) []string {
	config := joinArgs([]string{"--config-file=" + path.Join(dir, eks.EksctlPath)})
	if !eksctlName.MatchString(cluster) || !eksctlName.MatchString(region) {
		return nil
	}
	del := func(names []string) []string {
		var out []string
		for _, n := range names {
			out = append(out, fmt.Sprintf("eksctl delete nodegroup --cluster=%s --region=%s --name=%s --approve", cluster, region, n))
		}
		return out
	}
	create := func(names []string) string {
		return fmt.Sprintf("eksctl create nodegroup %s --include=%s", config, strings.Join(names, ","))
	}
	var out []string
	for _, g := range p.NodeGroups {
		before, after := eksctlGroups(g.Before), eksctlGroups(g.After)
		if len(before)+len(after) == 0 {
			continue
		}
		switch g.Action {
		case plan.Create:
			out = append(out, create(after))
		case plan.Destroy:
			out = append(out, del(before)...)
		case plan.Replace:
			out = append(out, del(before)...)
			if len(after) > 0 {
				out = append(out, create(after))
			}
		case plan.Update:
			var other []string
			for _, f := range g.Fields {
				if !slices.Contains([]string{"min", "desired", "max", "karpenterNodes"}, f) {
					other = append(other, f)
				}
			}
			if len(other) < len(g.Fields) {
				for _, n := range after {
					if slices.Contains(before, n) {
						out = append(out, fmt.Sprintf("eksctl scale nodegroup %s --name=%s", config, n))
					}
				}
			}
			if added := slices.DeleteFunc(slices.Clone(after), func(n string) bool { return slices.Contains(before, n) }); len(added) > 0 {
				out = append(out, create(added))
			}
			if gone := slices.DeleteFunc(slices.Clone(before), func(n string) bool { return slices.Contains(after, n) }); len(gone) > 0 {
				out = append(out, del(gone)...)
			}
			if len(other) > 0 {
				out = append(out, fmt.Sprintf("# pool %s: %s change in place, which no eksctl command does (apply the Terraform files, or EKS's UpdateNodegroupConfig)", g.Pool, strings.Join(other, ", ")))
			}
		}
	}
	return out
}

// eksctlName is what a command line may name unquoted: eksctl's own names
// (a node group's: a letter, then letters, digits and hyphens), and a
// region. A committed tree's node group of another name, which a pull
// request chose, gets no command.
var eksctlName = regexp.MustCompile(`^[a-zA-Z][-a-zA-Z0-9]{0,127}$`)

// eksctlGroups are a pool's managed node groups, if eksctl makes them and
// every name is one eksctl takes.
func eksctlGroups(g *plan.Group) []string {
	if g == nil || g.Provisioner != eks.EksctlPath {
		return nil
	}
	for _, n := range g.NodeGroups {
		if !eksctlName.MatchString(n) {
			return nil
		}
	}
	return g.NodeGroups
}

// printEksctl adds the eksctl commands to a text or Markdown plan.
func printEksctl(stdout io.Writer, format string, cmds []string, build string) error {
	if len(cmds) == 0 || format != formatText && format != formatMarkdown {
		return nil
	}
	var b strings.Builder
	head := "eksctl commands, after '" + build + "' (docs/ci.md, \"Day two with eksctl\"):"
	if format == formatMarkdown {
		b.WriteString("\n**" + head + "**\n\n```sh\n")
	} else {
		b.WriteString("\n" + logLine(head) + "\n")
	}
	for _, c := range cmds {
		if format == formatText {
			c = "  " + c
		}
		b.WriteString(logLine(c) + "\n")
	}
	if format == formatMarkdown {
		b.WriteString("```\n")
	}
	_, err := io.WriteString(stdout, b.String())
	return err
}
