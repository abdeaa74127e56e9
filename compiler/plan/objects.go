package plan

import (
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gpufleet/gpufleet/compiler/tree"
)

// The API server's own refusal of a PriorityClass update, in its words
// (ValidatePriorityClassUpdate, k8s.io/kubernetes pkg/apis/scheduling/
// validation/validation.go): value and preemptionPolicy are immutable.
// The ladder's kube-scheduler rung runs that function on every edit of
// these (TestPlanRefusedIsAPIServers).
const (
	valueImmutable  = "may not be changed in an update."
	policyImmutable = "field is immutable"
)

// Refused names the fields of an update from b to a that the API server
// refuses, with its message for each ("value: Forbidden: may not be
// changed in an update.").
func (b PriorityClass) Refused(a PriorityClass) []string {
	var out []string
	if a.Value != b.Value {
		out = append(out, "value: Forbidden: "+valueImmutable)
	}
	if a.PreemptionPolicy != b.PreemptionPolicy {
		out = append(out, "preemptionPolicy: Invalid value: \""+a.PreemptionPolicy+"\": "+policyImmutable)
	}
	return out
}

// priorityClassChanges are the PriorityClasses created, destroyed, or
// changed where the API server refuses it.
func priorityClassChanges(before, after map[string]PriorityClass) []ObjectChange {
	var out []ObjectChange
	for _, name := range union(before, after) {
		b, bok := before[name]
		a, aok := after[name]
		oc := ObjectChange{Kind: "PriorityClass", Name: name}
		switch {
		case !bok:
			oc.Action = Create
		case !aok:
			// The Priority admission plugin refuses a pod that names a
			// PriorityClass that does not exist; running pods keep theirs.
			oc.Action, oc.Why = Destroy, "on prune it is deleted: a new pod that names it is refused (the Priority admission plugin), running pods keep their priority"
		default:
			refused := b.Refused(a)
			if len(refused) == 0 {
				continue
			}
			for _, r := range refused {
				field, _, _ := strings.Cut(r, ":")
				oc.Fields = append(oc.Fields, field)
			}
			oc.Action = Refuse
			oc.Why = fmt.Sprintf("the API server refuses the update (%s): the sync fails until the PriorityClass is deleted and created again%s; running pods keep their old priority value", strings.Join(refused, "; "), kubectl("priorityclass", "", name))
		}
		out = append(out, oc)
	}
	return out
}

// claimTemplateChanges are the ResourceClaimTemplates whose spec changed:
// the API server refuses it (ValidateResourceClaimTemplateUpdate, k8s.io/
// kubernetes pkg/apis/resource/validation: "The spec is immutable"). A
// template created or removed is the tenant's or class's own change.
func claimTemplateChanges(before, after map[string]string) []ObjectChange {
	var out []ObjectChange
	for _, key := range union(before, after) {
		b, bok := before[key]
		a, aok := after[key]
		if !bok || !aok || a == b {
			continue
		}
		ns, name, _ := strings.Cut(key, "/")
		out = append(out, ObjectChange{Kind: "ResourceClaimTemplate", Name: key, Action: Refuse, Fields: []string{"spec"},
			Why: fmt.Sprintf("the API server refuses the update (spec: field is immutable): the sync fails until it is deleted and created again%s; pods already created keep the claims made from the old spec", kubectl("resourceclaimtemplate", ns, name))})
	}
	return out
}

// kubectl is the command that deletes the object, " ('kubectl delete …',
// then sync)", or "" where a name is not one the API server accepts: the
// names come from the committed tree, which a pull request chooses, and
// a reviewer may paste the command into a shell.
func kubectl(resource, namespace, name string) string {
	if len(validation.IsDNS1123Subdomain(name)) > 0 || namespace != "" && len(validation.IsDNS1123Label(namespace)) > 0 {
		return ""
	}
	if namespace != "" {
		return " ('kubectl delete " + resource + " -n " + namespace + " " + name + "', then sync)"
	}
	return " ('kubectl delete " + resource + " " + name + "', then sync)"
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
