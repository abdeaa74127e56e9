package queueing

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

const IDKueueGatedQuota check.ID = "KueueGatedQuota"

// A queued Deployment's or StatefulSet's pods exist while Kueue holds
// them: its pod integration gates each one (kueue.x-k8s.io/admission)
// until its workload is admitted, and the API server's pod quota
// evaluator (k8s.io/kubernetes pkg/quota/v1/evaluator/core, podEvaluator)
// charges every pod that is not terminal, a gated one as any other. When
// Kueue preempts such a workload to admit a higher-priority one of the
// same ClusterQueue, the controller recreates the evicted pods, gated and
// still charged; the preemptor's pods are then refused at quota admission
// wherever the namespace's quota cannot hold both, while its Workload
// holds the queue's quota, and neither runs again. The composed rung's
// quota stage (make test-composed) charges them with Kubernetes' own
// evaluators and agrees.
const reasonGatedQuota = "tenant %s: Kueue may preempt class %s's %s to admit class %s's %s (withinClusterQueue LowerPriority); the %s controller recreates the preempted pods gated (kueue.x-k8s.io/admission), and quota admission charges a gated pod as any other, so ResourceQuota %s in namespace %s is exceeded (%s): class %s's pods fail to be created (exceeded quota: %s) while its Workload holds the queue's quota, and neither runs"

// KueueGatedQuota finds, for each queued class Kueue may admit and each
// queued Deployment or StatefulSet it may preempt for it, the unscoped
// ResourceQuotas of the tenant's namespaces that hold each one's pods but
// not the preempted one's gated pods and the preemptor's together.
func KueueGatedQuota(a *check.Admission) []check.Finding {
	var out []check.Finding
	for i := range a.Classes {
		p := &a.Classes[i]
		if !p.Assignment.Admitted() {
			continue
		}
		for _, name := range a.Preempts(i) {
			k := slices.IndexFunc(a.Classes, func(q check.Queued) bool { return q.Class.Name == name })
			if k < 0 || a.Classes[k].Class.Kind == keys.KindJob {
				continue
			}
			v := a.Classes[k].Class
			if f, ok := gatedShort(a, v, p.Class); ok {
				out = append(out, f)
			}
		}
	}
	return out
}

// gatedShort is the finding for the first namespace's quota that holds
// the gated pods of v (all its replicas) and the pods of p that run at
// once, each alone, but not together.
func gatedShort(a *check.Admission, v, p *sched.Class) (check.Finding, bool) {
	need := int64(max(p.Need(), 1))
	for _, ns := range a.Queue.Namespaces {
		for k := range a.Model.ResourceQuotas[ns] {
			rq := &a.Model.ResourceQuotas[ns][k]
			if !unscoped(rq) {
				continue
			}
			over := GatedOver(v, int64(v.Pods), p, need, rq.Spec.Hard)
			if len(over) == 0 || len(GatedOver(v, int64(v.Pods), nil, 0, rq.Spec.Hard)) > 0 || len(GatedOver(p, need, nil, 0, rq.Spec.Hard)) > 0 {
				continue
			}
			victim, ctrl := fmt.Sprintf("Deployment of %d replicas (a workload a pod)", v.Pods), "ReplicaSet"
			if v.Kind == keys.KindStatefulSet {
				victim, ctrl = workloadOf(v, v.Pods), "StatefulSet"
			}
			return check.Finding{Severity: check.Error, Check: IDKueueGatedQuota, Tenant: a.Queue.Tenant, Class: p.Name,
				Message: fmt.Sprintf(reasonGatedQuota, a.Queue.Tenant, v.Name, victim, p.Name, workloadOf(p, int32(need)), ctrl,
					rq.Name, ns, strings.Join(over, ", "), p.Name, rq.Name)}, true
		}
	}
	return check.Finding{}, false
}

// GatedOver lists the hard limits n pods of a and m of b pass together,
// as the pod quota evaluator charges them: pods, and requests of cpu,
// memory and extended resources (requests.<name>, or the bare name for
// cpu and memory), as "<resource> <used>/<hard>".
func GatedOver(a *sched.Class, n int64, b *sched.Class, m int64, hard corev1.ResourceList) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(hard)) {
		h := hard[name]
		var used int64
		switch res, isReq := strings.CutPrefix(string(name), "requests."); {
		case name == corev1.ResourcePods || name == "count/pods":
			used = (n + m) * 1000
		case isReq || name == corev1.ResourceCPU || name == corev1.ResourceMemory:
			r := corev1.ResourceName(res)
			q := a.Info.Request[r]
			used = q.MilliValue() * n
			if b != nil {
				q := b.Info.Request[r]
				used += q.MilliValue() * m
			}
		default:
			continue
		}
		if used > h.MilliValue() {
			out = append(out, fmt.Sprintf("%s %s/%s", name, milliString(used, name), h.String()))
		}
	}
	return out
}

// milliString formats a milli-valued amount of a quota resource.
func milliString(v int64, name corev1.ResourceName) string {
	if strings.HasSuffix(string(name), "cpu") {
		return check.FormatMilli(float64(v), corev1.ResourceCPU)
	}
	if strings.HasSuffix(string(name), "memory") {
		return check.FormatMilli(float64(v), corev1.ResourceMemory)
	}
	return fmt.Sprint(v / 1000)
}
