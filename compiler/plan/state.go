package plan

import (
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
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
}

// PriorityClass is what the API server holds immutable of one: value and
// preemptionPolicy (ValidatePriorityClassUpdate, k8s.io/kubernetes
// pkg/apis/scheduling/validation), the policy as the API server defaults
// it (PreemptLowerPriority where unset).
type PriorityClass struct {
	Name             string `json:"name"`
	Value            int32  `json:"value"`
	PreemptionPolicy string `json:"preemptionPolicy"`
}

// NewPriorityClass is one as the API server stores it: an unset policy
// is PreemptLowerPriority (SetDefaults_PriorityClass, k8s.io/kubernetes
// pkg/apis/scheduling/v1/defaults.go), so "unset" to "PreemptLowerPriority"
// is no change to it.
func NewPriorityClass(name string, value int32, policy *corev1.PreemptionPolicy) PriorityClass {
	pc := PriorityClass{Name: name, Value: value, PreemptionPolicy: string(corev1.PreemptLowerPriority)}
	if policy != nil {
		pc.PreemptionPolicy = string(*policy)
	}
	return pc
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

// File is what one file a plan reads says: quotas by tenant, or a class's
// example.
type File struct {
	Quotas          []TenantQuota
	Class           string
	Example         Example
	Namespaces      []TenantNamespace
	PriorityClasses []PriorityClass
	ClaimTemplates  map[string]string
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
	return path.Base(p) == tree.ResourceQuotasFile || p == tree.KueueQueuesPath
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
		Namespaces: map[string][]string{}, PriorityClasses: map[string]PriorityClass{}, ClaimTemplates: map[string]string{}}
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
	case IsQuotas(p):
		f.Quotas, err = readQuotas(b)
	case IsExample(p):
		f, err = readExample(ClassOf(p), b)
	case IsNamespaces(p):
		f.Namespaces, err = readNamespaces(b)
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
					out = append(out, TenantQuota{TenantOf(cq.Metadata.Labels), Quota{Scope: FlavorScope(cq.Metadata.Name, f.Name), Resource: r.Name, Value: r.NominalQuota}})
				}
			}
		}
	}
	return out, nil
}

// ExampleFile is a class's example as its pod spec's scheduler and
// PriorityClass name it.
func ExampleFile(class, scheduler, priority string) File {
	if scheduler == "" {
		scheduler = "default-scheduler"
	}
	return File{Class: class, Example: Example{Scheduler: scheduler, Priority: priority}}
}

func readExample(class string, b []byte) (File, error) {
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
		return File{}, nil
	}
	if err := yaml.Unmarshal(docs[0], &w); err != nil {
		return File{}, err
	}
	ps := w.Spec.podSpec
	if w.Spec.Template != nil {
		ps = w.Spec.Template.Spec
	}
	return ExampleFile(class, ps.SchedulerName, ps.PriorityClassName), nil
}

func readNamespaces(b []byte) ([]TenantNamespace, error) {
	var out []TenantNamespace
	for _, d := range tree.Docs(b) {
		var ns struct {
			Metadata meta `json:"metadata"`
		}
		if err := tree.Unmarshal(d, &ns); err != nil {
			return nil, err
		}
		out = append(out, TenantNamespace{TenantOf(ns.Metadata.Labels), ns.Metadata.Name})
	}
	return out, nil
}

func readPriorityClasses(b []byte) ([]PriorityClass, error) {
	var out []PriorityClass
	for _, d := range tree.Docs(b) {
		var pc schedulingv1.PriorityClass
		if err := tree.Unmarshal(d, &pc); err != nil {
			return nil, err
		}
		out = append(out, NewPriorityClass(pc.Name, pc.Value, pc.PreemptionPolicy))
	}
	return out, nil
}

func readClaimTemplates(b []byte) (map[string]string, error) {
	out := map[string]string{}
	for _, d := range tree.Docs(b) {
		var t resourcev1.ResourceClaimTemplate
		if err := tree.Unmarshal(d, &t); err != nil {
			return nil, err
		}
		if err := claimTemplate(out, &t); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// claimTemplate adds t's spec to m, as canonical JSON, defaulted as the
// API server stores it: the same spec encodes the same whatever its YAML's
// layout, and a field left to its default is that default.
func claimTemplate(m map[string]string, t *resourcev1.ResourceClaimTemplate) error {
	spec := t.Spec.DeepCopy()
	defaultClaim(spec)
	b, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	m[t.Namespace+"/"+t.Name] = string(b)
	return nil
}

// defaultClaim is SetObjectDefaults_ResourceClaimTemplate (k8s.io/
// kubernetes pkg/apis/resource/v1, zz_generated.defaults.go and
// defaults.go): a request's allocationMode is ExactCount and its count 1
// where unset, a toleration's operator Equal. The kube-scheduler rung
// holds it to that function (TestPlanRefusedClaimTemplates).
func defaultClaim(spec *resourcev1.ResourceClaimTemplateSpec) {
	exact := func(mode *resourcev1.DeviceAllocationMode, count *int64, tols []resourcev1.DeviceToleration) {
		if *mode == "" {
			*mode = resourcev1.DeviceAllocationModeExactCount
		}
		if *mode == resourcev1.DeviceAllocationModeExactCount && *count == 0 {
			*count = 1
		}
		for i := range tols {
			if tols[i].Operator == "" {
				tols[i].Operator = resourcev1.DeviceTolerationOpEqual
			}
		}
	}
	for i := range spec.Spec.Devices.Requests {
		r := &spec.Spec.Devices.Requests[i]
		if e := r.Exactly; e != nil {
			exact(&e.AllocationMode, &e.Count, e.Tolerations)
		}
		for j := range r.FirstAvailable {
			sr := &r.FirstAvailable[j]
			exact(&sr.AllocationMode, &sr.Count, sr.Tolerations)
		}
	}
}
