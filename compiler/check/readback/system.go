package readback

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
)

// systemFrom reads the workloads the tree itself deploys that kube-scheduler
// must place on a node: its second scheduler's Deployment. They are classes
// of their own, which no tenant runs, so only the SystemLands check reads
// them.
func systemFrom(t tree.Typed) ([]sched.Class, error) {
	objs, docs := t.Documents(tree.SchedulerPath)
	var deployments []*appsv1.Deployment
	for _, o := range objs {
		if d, ok := o.(*appsv1.Deployment); ok {
			deployments = append(deployments, d)
		}
	}
	if len(objs) == 0 {
		for _, doc := range docs {
			if kind, err := tree.Kind(doc); err != nil || kind != keys.KindDeployment {
				continue
			}
			d := &appsv1.Deployment{}
			if err := yaml.UnmarshalStrict(doc, d); err != nil {
				return nil, err
			}
			deployments = append(deployments, d)
		}
	}
	var out []sched.Class
	for _, d := range deployments {
		tpl := d.Spec.Template.DeepCopy()
		c := sched.Class{Name: d.Namespace + "/" + d.Name, Kind: keys.KindDeployment, Pods: deref(d.Spec.Replicas, 1)}
		c.Pod = &corev1.Pod{ObjectMeta: tpl.ObjectMeta, Spec: tpl.Spec}
		c.Info = sched.Like(c.Pod, c.Info)
		out = append(out, c)
	}
	return out, nil
}
