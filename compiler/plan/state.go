package plan

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	policyv1 "k8s.io/api/policy/v1"
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
	// order of the tree's paths and of their documents.
	Quotas map[string][]Quota
	// Classes' example pods: their scheduler and PriorityClass.
	Examples map[string]Example
	// Namespaces by tenant, and the PriorityClasses by name: what a
	// prune deletes and what the API server holds immutable.
	Namespaces      map[string][]string
	PriorityClasses map[string]PriorityClass
	// ClaimTemplates are the ResourceClaimTemplates' specs, canonical
	// JSON, by "namespace/name": the API server holds a template's spec
	// immutable (ValidateResourceClaimTemplateUpdate).
	ClaimTemplates map[string]string
	// Enforcement by tenant: the actions of the admission bindings that
	// select its namespaces.
	Enforcement map[string]string
}

// Quota is one quota of a tenant: Scope names the object ("namespace
// inference", "ClusterQueue ml-platform, flavor a100-train").
type Quota struct {
	Scope, Resource string
	Value           resource.Quantity
}

// Example is what a class's example workload asks of kube-scheduler, and
// what a drain of its nodes does to it: its kind, pods (replicas, a Job's
// parallelism), whether it is a gang (the annotation the checker's
// readback reads), and the PodDisruptionBudget written beside it.
type Example struct {
	Scheduler string                        `json:"scheduler,omitempty"`
	Priority  string                        `json:"priority,omitempty"`
	Kind      string                        `json:"-"`
	Pods      int32                         `json:"-"`
	Gang      bool                          `json:"-"`
	Budget    *policyv1.PodDisruptionBudget `json:"-"`
}

// File is what one file a plan reads says: quotas by tenant, or a class's
// example.
type File struct {
	Quotas          []TenantQuota
	Class           string
	Example         Example
	Namespaces      []TenantNamespace
	PriorityClasses []PriorityClass
	ClaimTemplates  map[string]string
	Enforcement     []TenantEnforcement
}

// TenantNamespace is a namespace and the tenant its label names.
type TenantNamespace struct{ Tenant, Name string }

// TenantQuota is a quota and its tenant.
type TenantQuota struct {
	Tenant string
	Quota
}

// IsQuotas and IsExample say which files a plan reads besides the report
// and the node groups.
func IsQuotas(p string) bool {
	return path.Base(p) == tree.ResourceQuotasFile || p == tree.KueueQueuesPath || IsAdmission(p)
}
func IsExample(p string) bool {
	return strings.HasPrefix(p, tree.ClassesDir+"/") && path.Base(p) == "example.yaml"
}

// IsNamespaces says p is a tenant's Namespaces.
func IsNamespaces(p string) bool {
	return strings.HasPrefix(p, "tenants/") && path.Base(p) == tree.NamespacesFile
}

// IsClaimTemplates says p is a tenant's ResourceClaimTemplates.
func IsClaimTemplates(p string) bool {
	return strings.HasPrefix(p, "tenants/") && path.Base(p) == tree.ResourceClaimTemplatesFile
}

// Reads says which files a plan reads (ParseFile) besides the report and
// the node groups.
func Reads(p string) bool {
	return IsQuotas(p) || IsExample(p) || IsNamespaces(p) || IsClaimTemplates(p) || p == tree.PriorityClassesPath
}

// NewState is the state of a tree whose files (IsQuotas, IsExample) say
// files, by path.
func NewState(groups []nodes.Group, r *Report, files map[string]File) *State {
	s := &State{Groups: groups, Report: r, Quotas: map[string][]Quota{}, Examples: map[string]Example{},
		Namespaces: map[string][]string{}, PriorityClasses: map[string]PriorityClass{}, ClaimTemplates: map[string]string{}, Enforcement: map[string]string{}}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		f := files[p]
		for _, q := range f.Quotas {
			s.Quotas[q.Tenant] = append(s.Quotas[q.Tenant], q.Quota)
		}
		if f.Class != "" {
			s.Examples[f.Class] = f.Example
		}
		for _, ns := range f.Namespaces {
			s.Namespaces[ns.Tenant] = append(s.Namespaces[ns.Tenant], ns.Name)
		}
		for _, pc := range f.PriorityClasses {
			s.PriorityClasses[pc.Name] = pc
		}
		maps.Copy(s.ClaimTemplates, f.ClaimTemplates)
		for _, e := range f.Enforcement {
			s.Enforcement[e.Tenant] = e.Actions
		}
	}
	return s
}

// ParseFile reads the file at p from its bytes.
func ParseFile(p string, b []byte) (File, error) {
	var f File
	var err error
	switch {
	case p == tree.KueueQueuesPath:
		f.Quotas, err = readQueues(b)
	case IsAdmission(p):
		f.Enforcement, err = readEnforcement(b)
	case IsQuotas(p):
		f.Quotas, err = readQuotas(b)
	case IsExample(p):
		f, err = readExample(ClassOf(p), b)
	case IsNamespaces(p):
		f.Namespaces, f.Enforcement, err = readNamespaces(b)
	case p == tree.PriorityClassesPath:
		f.PriorityClasses, err = readPriorityClasses(b)
	case IsClaimTemplates(p):
		f.ClaimTemplates, err = readClaimTemplates(b)
	}
	if err != nil {
		return f, fmt.Errorf("%s: %w", p, err)
	}
	return f, nil
}

// ClassOf is the class whose example is at p.
func ClassOf(p string) string { return path.Base(path.Dir(p)) }

// quotaName is the name of a tenant namespace's own ResourceQuota.
const quotaName = "gpufleet"

type meta struct {
	Name      string            `json:"name"`
	Namespace string            `json:"namespace"`
	Labels    map[string]string `json:"labels"`
}

// ResourceQuotaScope names a ResourceQuota as a plan does.
func ResourceQuotaScope(namespace, name string) string {
	scope := "namespace " + namespace
	if name != quotaName {
		// A namespace's other quotas (one per priority) say which.
		scope += " (ResourceQuota " + name + ")"
	}
	return scope
}

// FlavorScope names a ClusterQueue's quota of one flavor.
func FlavorScope(queue, flavor string) string { return "ClusterQueue " + queue + ", flavor " + flavor }

// TenantOf is the tenant an object's labels name.
func TenantOf(labels map[string]string) string { return labels[keys.LabelTenant] }

func readQuotas(b []byte) ([]TenantQuota, error) {
	var out []TenantQuota
	for _, d := range tree.Docs(b) {
		var q struct {
			Metadata meta `json:"metadata"`
			Spec     struct {
				Hard map[string]resource.Quantity `json:"hard"`
			} `json:"spec"`
		}
		if err := tree.Unmarshal(d, &q); err != nil {
			return nil, err
		}
		scope := ResourceQuotaScope(q.Metadata.Namespace, q.Metadata.Name)
		for _, r := range slices.Sorted(maps.Keys(q.Spec.Hard)) {
			if v := q.Spec.Hard[r]; v.Sign() < 0 {
				return nil, fmt.Errorf("%s: hard %s is negative: no build writes a negative quota", scope, r)
			}
			out = append(out, TenantQuota{TenantOf(q.Metadata.Labels), Quota{Scope: scope, Resource: r, Value: q.Spec.Hard[r]}})
		}
	}
	return out, nil
}

func readQueues(b []byte) ([]TenantQuota, error) {
	var out []TenantQuota
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
		if err := tree.Unmarshal(d, &cq); err != nil {
			return nil, err
		}
		for _, g := range cq.Spec.ResourceGroups {
			for _, f := range g.Flavors {
				for _, r := range f.Resources {
					if r.NominalQuota.Sign() < 0 {
						return nil, fmt.Errorf("%s: nominalQuota of %s is negative: no build writes a negative quota", FlavorScope(cq.Metadata.Name, f.Name), r.Name)
					}
					out = append(out, TenantQuota{TenantOf(cq.Metadata.Labels), Quota{Scope: FlavorScope(cq.Metadata.Name, f.Name), Resource: r.Name, Value: r.NominalQuota}})
				}
			}
		}
	}
	return out, nil
}

// ExampleFile is a class's example as its pod spec's scheduler and
// PriorityClass name it, with what a drain does to it (work.go).
func ExampleFile(class, scheduler, priority string, w Example) File {
	if scheduler == "" {
		scheduler = "default-scheduler"
	}
	w.Scheduler, w.Priority = scheduler, priority
	return File{Class: class, Example: w}
}

func readExample(class string, b []byte) (File, error) {
	type podSpec struct {
		SchedulerName     string `json:"schedulerName"`
		PriorityClassName string `json:"priorityClassName"`
	}
	var w struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
		Spec struct {
			podSpec
			Replicas    *int32 `json:"replicas"`
			Parallelism *int32 `json:"parallelism"`
			Template    *struct {
				Spec podSpec `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	docs := tree.Docs(b)
	if len(docs) == 0 {
		return File{}, nil
	}
	if err := yaml.Unmarshal(docs[0], &w); err != nil {
		return File{}, err
	}
	ps := w.Spec.podSpec
	if w.Spec.Template != nil {
		ps = w.Spec.Template.Spec
	}
	ex := Example{Kind: w.Kind, Pods: podsOf(w.Kind, w.Spec.Replicas, w.Spec.Parallelism), Gang: w.Metadata.Annotations[keys.AnnotationGang] != ""}
	for _, d := range docs[1:] {
		var k struct {
			Kind string `json:"kind"`
		}
		if err := yaml.Unmarshal(d, &k); err != nil {
			return File{}, err
		}
		if k.Kind == "PodDisruptionBudget" {
			ex.Budget = &policyv1.PodDisruptionBudget{}
			if err := tree.Unmarshal(d, ex.Budget); err != nil {
				return File{}, err
			}
		}
	}
	return ExampleFile(class, ps.SchedulerName, ps.PriorityClassName, ex), nil
}

// podsOf is a workload's pods as the checker's readback counts them:
// replicas, or a Job's parallelism, 1 where unset.
func podsOf(kind string, replicas, parallelism *int32) int32 {
	n := replicas
	if kind == keys.KindJob {
		n = parallelism
	}
	if n == nil {
		return 1
	}
	return *n
}

// readNamespaces reads a tenant's namespaces and the enforcement their
// labels select.
func readNamespaces(b []byte) ([]TenantNamespace, []TenantEnforcement, error) {
	var out []TenantNamespace
	var enf []TenantEnforcement
	for _, d := range tree.Docs(b) {
		var ns struct {
			Metadata meta `json:"metadata"`
		}
		if err := tree.Unmarshal(d, &ns); err != nil {
			return nil, nil, err
		}
		t := TenantOf(ns.Metadata.Labels)
		out = append(out, TenantNamespace{t, ns.Metadata.Name})
		if e := namespaceEnforcement(ns.Metadata.Labels); e != "" {
			enf = append(enf, TenantEnforcement{t, e})
		}
	}
	return out, enf, nil
}
