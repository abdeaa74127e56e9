package kubeapiserver

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gpufleet/gpufleet/compiler/derive"
)

// forgedCases are a queued class's objects that name a controller owner
// their sender is not: its pod as the controller makes it, sent by the
// tenant (refused: anyone can write an ownerReference), and the same pod
// updated by Kueue with its owner unchanged (admitted: Kueue ungates the
// pods it gates); a pod in its queue updated by the tenant to leave the
// queue behind a forged owner (refused); and a JobSet's Job or a
// LeaderWorkerSet's StatefulSet sent by the tenant (refused).
func forgedCases(tn, c string, cls *derive.Class, ns string, own func(func(*corev1.Pod)) *corev1.Pod, q string,
	as func(user string, old runtime.Object, name string, o runtime.Object, res string, admit bool)) {
	p := own(func(p *corev1.Pod) { delete(p.Labels, labelQueue) })
	owner := p.OwnerReferences[0].Kind
	as(tenant, nil, fmt.Sprintf("%s: queued class %s's pod with a forged %s owner", tn, c, owner), p, "pods", false)
	as(kueueUser, p.DeepCopy(), fmt.Sprintf("%s: queued class %s's owned pod updated by Kueue", tn, c), p, "pods", true)
	queued := own(func(p *corev1.Pod) {
		p.OwnerReferences = nil
		p.Labels[labelQueue] = q
	})
	as(tenant, queued, fmt.Sprintf("%s: queued class %s's pod leaving its queue for a forged %s owner", tn, c, owner), p, "pods", false)
	if len(cls.Roles) > 0 {
		if w, res := child(cls.Spec.Kind, cls.Roles[0].Template, ns, true); w != nil {
			as(tenant, nil, fmt.Sprintf("%s: queued class %s's %s with a forged %s owner", tn, c, res, cls.Spec.Kind), w, res, false)
		}
	}
}
