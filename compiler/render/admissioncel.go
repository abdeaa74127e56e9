package render

import (
	"strconv"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// The admission policies' CEL (issue 48). One text serves pods and the
// workload kinds the tree knows: the workload policy reads the pod
// template where the pod policy reads the pod ($SPEC and $META), so
// both hold the same pod to the same rules. The tenant's parameters are
// its namespace's annotations (derive.Admission), read through
// namespaceObject; their encodings are derive's EncodeToleration and
// EncodeRequirement, restated here.
const (
	celTolerationEnc = `(has(t.key) ? t.key : '') + '=' + (has(t.operator) && t.operator != '' ? t.operator : 'Equal') + '=' + (has(t.value) ? t.value : '') + '=' + (has(t.effect) ? t.effect : '')`
	celRequirement   = `x.key + '=' + x.operator + '=' + (has(x.values) ? x.values.join('/') : '')`
	// A toleration of a node condition's taint (node.kubernetes.io/…),
	// which DefaultTolerationSeconds and the DaemonSet controller add,
	// reaches no pool.
	celConditionTaint = `node.kubernetes.io/`
)

// celDigitsAsCapitals is derive.AdmissionKey in CEL.
var celDigitsAsCapitals = func() string {
	var b strings.Builder
	for i := range 10 {
		b.WriteString(".replace('" + string(rune('0'+i)) + "', '" + string(rune('A'+i)) + "')")
	}
	return b.String()
}()

// classParam is the CEL for a field of the admitted class's parameters,
// ” when its namespace has none.
func classParam(field string) string {
	k := `'` + field + `.' + variables.rolePrefix + '` + derive.AdmissionDomain + `/' + variables.key`
	return `(` + k + ` in variables.params ? variables.params[` + k + `] : '')`
}

// tenantParam is the CEL for a tenant-wide parameter.
func tenantParam(key string) string {
	k := `'` + derive.AdmissionTenantKey(key) + `'`
	return `(` + k + ` in variables.params ? variables.params[` + k + `] : '')`
}

// admissionVariables are the policy's variables over a pod spec at spec
// and its metadata at meta.
func admissionVariables(spec, meta string) []admissionv1.Variable {
	d := classParam
	sp := func(s string) string { return strings.ReplaceAll(s, "$SPEC", spec) }
	return []admissionv1.Variable{
		{Name: "params", Expression: `has(namespaceObject.metadata.annotations) ? namespaceObject.metadata.annotations : {}`},
		{Name: "tenant", Expression: `has(namespaceObject.metadata.labels) && '` + keys.LabelTenant + `' in namespaceObject.metadata.labels ? namespaceObject.metadata.labels['` + keys.LabelTenant + `'] : namespaceObject.metadata.name`},
		{Name: "classes", Expression: tenantParam(derive.AdmissionClasses) + `.split('+')`},
		{Name: "priorities", Expression: tenantParam(derive.AdmissionPriorities) + `.split('+')`},
		{Name: "rolePrefix", Expression: `has(` + meta + `.labels) && '` + keys.LabelRole + `' in ` + meta + `.labels ? ` + meta + `.labels['` + keys.LabelRole + `'] + '.' : ''`},
		{Name: "class", Expression: `has(` + meta + `.labels) && 'gpufleet.dev/class' in ` + meta + `.labels ? ` + meta + `.labels['gpufleet.dev/class'] : ''`},
		// The class's parameters' key: derive.AdmissionKey.
		{Name: "key", Expression: `variables.class` + celDigitsAsCapitals},
		{Name: "known", Expression: `variables.class != '' && variables.class in variables.classes`},
		// A class the tenant does not have: the first rule refuses it,
		// and the others leave it be, so it is refused once.
		{Name: "unknown", Expression: `variables.class != '' && !variables.known`},
		{Name: "tolerations", Expression: sp(`has($SPEC.tolerations) ? $SPEC.tolerations.map(t, ` + celTolerationEnc + `) : []`)},
		{Name: "allowedTolerations", Expression: `variables.known ? ` + d(derive.AdmissionTolerations) + `.split('+') : []`},
		{Name: "badTolerations", Expression: `variables.tolerations.filter(t, !t.startsWith('` + celConditionTaint + `') && !(t in variables.allowedTolerations))`},
		{Name: "terms", Expression: sp(`has($SPEC.affinity) && has($SPEC.affinity.nodeAffinity) && has($SPEC.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution) ? $SPEC.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms.map(term, has(term.matchExpressions) ? term.matchExpressions.map(x, ` + celRequirement + `) : []) : []`)},
		{Name: "containers", Expression: celContainers(spec)},
		{Name: "allowedResources", Expression: `variables.known ? ` + d(derive.AdmissionResources) + `.split('+') : []`},
		{Name: "badResources", Expression: celBadResources(`!(r in variables.allowedResources)`)},
		{Name: "allowedClaims", Expression: `variables.known ? ` + d(derive.AdmissionClaims) + `.split('+') : []`},
	}
}

// celStrings is a CEL list of the strings, each a quoted literal (CEL
// reads Go's escapes: \\, \", \xHH, \uHHHH).
func celStrings(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// celContainers are the containers and init containers of the pod spec
// at spec.
func celContainers(spec string) string {
	return spec + `.containers + (has(` + spec + `.initContainers) ? ` + spec + `.initContainers : [])`
}

// celBadResources names the containers of variables.containers that
// request or limit a device (an extended resource: its name has a "/")
// the CEL predicate allowed refuses for r ("" allows none). A zero is no request: the
// tenant's LimitRange gives every container nvidia.com/gpu: 0 (render's
// limitRange).
func celBadResources(allowed string) string {
	if allowed != "" {
		allowed = " && " + allowed
	}
	dev := func(field string) string {
		return `has(c.resources.` + field + `) && c.resources.` + field + `.exists(r, r.contains('/') && string(c.resources.` + field + `[r]) != '0'` + allowed + `)`
	}
	return `variables.containers.filter(c, has(c.resources) && (` + dev("requests") + ` || ` + dev("limits") + `)).map(c, c.name)`
}

// admissionValidations are the rules, each with a message in the spec's
// words: the tenant, the class, what its Component sets; meta is the
// object's metadata, whose labels carry the queue.
func admissionValidations(spec, meta string, pod bool, controllers []string) []admissionv1.Validation {
	d := classParam
	sp := func(s string) string { return strings.ReplaceAll(s, "$SPEC", spec) }
	tenant := `'tenant ' + variables.tenant + ': ' + `
	ofClass := `(variables.known ? 'class ' + variables.class : 'a pod of no class')`
	queued := `(has(` + meta + `.labels) && 'kueue.x-k8s.io/queue-name' in ` + meta + `.labels && ` + meta + `.labels['kueue.x-k8s.io/queue-name'] == ` + d(derive.AdmissionQueue) + `)`
	// The Job controller's, ReplicaSet's or StatefulSet's pods, and the
	// Jobs a JobSet makes or the StatefulSets a LeaderWorkerSet makes,
	// carry no queue label: their owner's admission checked it (Kueue
	// queues the owner, not them). The ownerReference counts only when one
	// of the controllers writes it (anyone can forge one), or when an
	// update leaves it as it was (Kueue ungating an owned pod).
	queued = `(` + queued + ` || has(object.metadata.ownerReferences) && object.metadata.ownerReferences.exists(o, has(o.controller) && o.controller) && ` +
		`(request.userInfo.username in ` + celStrings(controllers) + ` || oldObject != null && has(oldObject.metadata.ownerReferences) && oldObject.metadata.ownerReferences == object.metadata.ownerReferences))`
	queueWhere := "a workload no controller made"
	if pod {
		queueWhere = "a pod no controller made"
	}
	return []admissionv1.Validation{{
		Expression:        `variables.class == '' || variables.known`,
		MessageExpression: tenant + `'it has no class ' + variables.class + ': label the workload gpufleet.dev/class with one of its classes (' + variables.classes.join(', ') + ') and include that class\'s Component'`,
		Reason:            ptrReason(metav1.StatusReasonForbidden),
	}, {
		Expression:        sp(`variables.unknown || (variables.known ? has($SPEC.priorityClassName) && $SPEC.priorityClassName == ` + d(derive.AdmissionPriority) + ` : !has($SPEC.priorityClassName) || $SPEC.priorityClassName in variables.priorities)`),
		MessageExpression: sp(tenant + `(variables.known ? 'class ' + variables.class + ' runs at PriorityClass ' + ` + d(derive.AdmissionPriority) + ` : 'its pods run at PriorityClasses ' + variables.priorities.join(', ')) + ', not ' + (has($SPEC.priorityClassName) ? $SPEC.priorityClassName : 'none')`),
		Reason:            ptrReason(metav1.StatusReasonForbidden),
	}, {
		Expression:        sp(`variables.unknown || (has($SPEC.schedulerName) ? $SPEC.schedulerName : 'default-scheduler') == (variables.known ? ` + d(derive.AdmissionScheduler) + ` : 'default-scheduler')`),
		MessageExpression: sp(tenant + ofClass + ` + ' is scheduled by ' + (variables.known ? ` + d(derive.AdmissionScheduler) + ` : 'default-scheduler') + ', not ' + $SPEC.schedulerName`),
		Reason:            ptrReason(metav1.StatusReasonForbidden),
	}, {
		Expression:        `variables.unknown || variables.badTolerations.size() == 0`,
		MessageExpression: tenant + ofClass + ` + ' may not tolerate ' + variables.badTolerations.join(', ') + ' (key=operator=value=effect): ' + (variables.known ? 'its Component tolerates ' + (` + d(derive.AdmissionTolerations) + ` == '' ? 'no taint' : ` + d(derive.AdmissionTolerations) + `.split('+').join(', ')) : 'only a class\'s pods reach its pools')`,
		Reason:            ptrReason(metav1.StatusReasonForbidden),
	}, {
		Expression:        sp(`!variables.known || ` + d(derive.AdmissionNodeSelector) + ` == '' || ` + d(derive.AdmissionNodeSelector) + `.split('+').all(e, has($SPEC.nodeSelector) && e.split('=')[0] in $SPEC.nodeSelector && $SPEC.nodeSelector[e.split('=')[0]] == e.split('=')[1])`),
		MessageExpression: tenant + `'class ' + variables.class + '\'s pods must keep its Component\'s nodeSelector ' + ` + d(derive.AdmissionNodeSelector) + `.split('+').join(', ')`,
		Reason:            ptrReason(metav1.StatusReasonForbidden),
	}, {
		Expression:        `!variables.known || ` + d(derive.AdmissionAffinity) + ` == '' || variables.terms.size() > 0 && variables.terms.all(term, ` + d(derive.AdmissionAffinity) + `.split('+').exists(ct, ct.split(':').all(e, e in term)))`,
		MessageExpression: tenant + `'class ' + variables.class + '\'s pods must keep its Component\'s required node affinity (every term narrowing one of ' + ` + d(derive.AdmissionAffinity) + `.split('+').join(' OR ').replace(':', ' AND ') + ')'`,
		Reason:            ptrReason(metav1.StatusReasonForbidden),
	}, {
		Expression:        `variables.unknown || variables.badResources.size() == 0`,
		MessageExpression: tenant + ofClass + ` + ' may not request ' + (variables.known && ` + d(derive.AdmissionResources) + ` != '' ? 'devices but ' + ` + d(derive.AdmissionResources) + `.split('+').join(', ') : 'GPUs or other devices') + ': container ' + variables.badResources.join(', ') + ' does'`,
		Reason:            ptrReason(metav1.StatusReasonForbidden),
	}, {
		Expression:        sp(`variables.unknown || !has($SPEC.resourceClaims) || $SPEC.resourceClaims.all(rc, has(rc.resourceClaimTemplateName) && rc.resourceClaimTemplateName in variables.allowedClaims)`),
		MessageExpression: tenant + ofClass + ` + ' may claim devices only through ' + (variables.known && ` + d(derive.AdmissionClaims) + ` != '' ? 'ResourceClaimTemplate ' + ` + d(derive.AdmissionClaims) + `.split('+').join(', ') : 'no ResourceClaim')`,
		Reason:            ptrReason(metav1.StatusReasonForbidden),
	}, {
		Expression:        `!variables.known || ` + d(derive.AdmissionQueue) + ` == '' || ` + queued,
		MessageExpression: tenant + `'class ' + variables.class + ' is queued: ` + queueWhere + ` must carry the label kueue.x-k8s.io/queue-name: ' + ` + d(derive.AdmissionQueue) + ` + ', as its Component sets'`,
		Reason:            ptrReason(metav1.StatusReasonForbidden),
	}}
}

func ptrReason(r metav1.StatusReason) *metav1.StatusReason { return &r }
