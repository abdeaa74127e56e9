package plan

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
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
