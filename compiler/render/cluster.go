package render

import (
	"path"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/compiler/wire/dradriver"
)

func (r *renderer) cluster() {
	var objs []any
	for _, p := range r.d.Priorities {
		preempt := corev1.PreemptLowerPriority
		if p.Preemption == "Never" {
			preempt = corev1.PreemptNever
		}
		objs = append(objs, &schedulingv1.PriorityClass{
			TypeMeta:         metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1", Kind: "PriorityClass"},
			ObjectMeta:       meta(p.Name, "", nil),
			Value:            p.Value,
			GlobalDefault:    p.Default,
			Description:      p.Description,
			PreemptionPolicy: &preempt,
		})
	}
	files := []string{}
	if len(objs) > 0 {
		r.emit(tree.PriorityClassesPath, objs...)
		files = append(files, path.Base(tree.PriorityClassesPath))
	}
	files = append(files, r.admissionPolicies()...)
	files = append(files, r.trainingRuntimes()...)
	r.nodeAgents()
	if r.devicePlugin() {
		files = append(files, path.Base(tree.DevicePluginNamespacePath), path.Base(tree.DevicePluginConfigPath))
	}
	if r.draDriver() {
		files = append(files, path.Base(dradriver.NamespacePath))
		if len(migProfiles(r.d)) > 0 {
			files = append(files, path.Base(tree.DRADeviceClassesPath))
		}
	}
	if r.scheduler() {
		files = append(files, path.Base(tree.SchedulerConfigPath), path.Base(tree.SchedulerPath))
	}
	r.kustomization("cluster", files)
}
