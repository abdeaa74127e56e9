package plan

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/nodes"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// State is one side of a plan: a tree's node groups, report, quotas and
// what its class examples ask of the scheduler.
type State struct {
	Groups []nodes.Group
	Report *Report
	// Quotas by tenant: each ResourceQuota's and ClusterQueue's, in the
	// tree's order.
	Quotas map[string][]Quota
	// Classes' example pods: their scheduler and PriorityClass.
	Examples map[string]Example
}

// Quota is one quota of a tenant: Scope names the object ("namespace
// inference", "ClusterQueue ml-platform, flavor a100-train").
type Quota struct {
	Scope, Resource string
	Value           resource.Quantity
}

// Example is what a class's example workload asks of kube-scheduler.
type Example struct {
	Scheduler string `json:"scheduler,omitempty"`
	Priority  string `json:"priority,omitempty"`
}

// Wanted reports whether a plan reads the tree's file p (Read's filter).
func Wanted(p string) bool {
	return path.Base(p) == tree.ResourceQuotasFile || p == tree.KueueQueuesPath ||
		strings.HasPrefix(p, "nodegroups/") || strings.HasPrefix(p, "report/") ||
		strings.HasPrefix(p, tree.ClassesDir+"/") && path.Base(p) == "example.yaml"
}

// ReadState is the state a tree's files hold, with its groups (read back by
// the provisioners) and its report.
func ReadState(t tree.Tree, groups []nodes.Group, r *Report) (*State, error) {
	s := &State{Groups: groups, Report: r, Quotas: map[string][]Quota{}, Examples: map[string]Example{}}
	for _, p := range t.Paths() {
		var err error
		switch {
		case path.Base(p) == tree.ResourceQuotasFile:
			err = s.readQuotas(t[p])
		case p == tree.KueueQueuesPath:
			err = s.readQueues(t[p])
		case path.Base(p) == "example.yaml" && strings.HasPrefix(p, tree.ClassesDir+"/"):
			err = s.readExample(path.Base(path.Dir(p)), t[p])
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	return s, nil
}

// quotaName is the name of a tenant namespace's own ResourceQuota.
const quotaName = "gpufleet"

type meta struct {
	Name      string            `json:"name"`
	Namespace string            `json:"namespace"`
	Labels    map[string]string `json:"labels"`
}

func (s *State) readQuotas(b []byte) error {
	for _, d := range tree.Docs(b) {
		var q struct {
			Metadata meta `json:"metadata"`
			Spec     struct {
				Hard map[string]resource.Quantity `json:"hard"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(d, &q); err != nil {
			return err
		}
		t := q.Metadata.Labels[keys.LabelTenant]
		scope := "namespace " + q.Metadata.Namespace
		if q.Metadata.Name != quotaName {
			// A namespace's other quotas (one per priority) say which.
			scope += " (ResourceQuota " + q.Metadata.Name + ")"
		}
		for _, r := range slices.Sorted(maps.Keys(q.Spec.Hard)) {
			s.Quotas[t] = append(s.Quotas[t], Quota{Scope: scope, Resource: r, Value: q.Spec.Hard[r]})
		}
	}
	return nil
}

func (s *State) readQueues(b []byte) error {
	for _, d := range tree.Docs(b) {
		var cq struct {
			Metadata meta `json:"metadata"`
			Spec     struct {
				ResourceGroups []struct {
					Flavors []struct {
						Name      string `json:"name"`
						Resources []struct {
							Name         string            `json:"name"`
							NominalQuota resource.Quantity `json:"nominalQuota"`
						} `json:"resources"`
					} `json:"flavors"`
				} `json:"resourceGroups"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(d, &cq); err != nil {
			return err
		}
		t := cq.Metadata.Labels[keys.LabelTenant]
		for _, g := range cq.Spec.ResourceGroups {
			for _, f := range g.Flavors {
				for _, r := range f.Resources {
					scope := "ClusterQueue " + cq.Metadata.Name + ", flavor " + f.Name
					s.Quotas[t] = append(s.Quotas[t], Quota{Scope: scope, Resource: r.Name, Value: r.NominalQuota})
				}
			}
		}
	}
	return nil
}

func (s *State) readExample(class string, b []byte) error {
	type podSpec struct {
		SchedulerName     string `json:"schedulerName"`
		PriorityClassName string `json:"priorityClassName"`
	}
	var w struct {
		Spec struct {
			podSpec
			Template *struct {
				Spec podSpec `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	docs := tree.Docs(b)
	if len(docs) == 0 {
		return nil
	}
	if err := yaml.Unmarshal(docs[0], &w); err != nil {
		return err
	}
	ps := w.Spec.podSpec
	if w.Spec.Template != nil {
		ps = w.Spec.Template.Spec
	}
	sched := ps.SchedulerName
	if sched == "" {
		sched = "default-scheduler"
	}
	s.Examples[class] = Example{Scheduler: sched, Priority: ps.PriorityClassName}
	return nil
}
