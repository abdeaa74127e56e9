package render

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/wire/schedconfig"
)

// schedulerObjects run the second scheduler: its ServiceAccount, the RBAC
// it needs and a Deployment of the upstream image. system:kube-scheduler
// grants get and update on the lease named kube-scheduler only (and
// create on any), so the scheduler's own lease needs a Role of its own;
// extension-apiserver-authentication-reader lets it authenticate the
// clients of its /healthz and /metrics as every kube-scheduler does.
// Its pod runs on the system pools where the spec marks some, tolerating
// their taints (derive.System); the checker proves it fits (SystemLands).
func schedulerObjects(image string, system derive.System) []any {
	ns, name := schedconfig.Namespace, schedconfig.Name
	labels := map[string]string{"app.kubernetes.io/name": name}
	sa := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: ns}
	clusterBinding := func(role string) *rbacv1.ClusterRoleBinding {
		return &rbacv1.ClusterRoleBinding{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
			ObjectMeta: meta(name+"-as-"+role[len("system:"):], "", nil),
			Subjects:   []rbacv1.Subject{sa},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		}
	}
	binding := func(bname, role string) *rbacv1.RoleBinding {
		return &rbacv1.RoleBinding{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"},
			ObjectMeta: meta(bname, ns, nil),
			Subjects:   []rbacv1.Subject{sa},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role},
		}
	}
	replicas := int32(1)
	nonRoot, noEscalation := true, false
	user := int64(65532)
	probe := func(path string) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
			Path: path, Port: intstr.FromInt32(schedconfig.SecurePort), Scheme: corev1.URISchemeHTTPS}},
			InitialDelaySeconds: 15}
	}
	var affinity *corev1.Affinity
	if len(system.Pools) > 0 {
		affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: keys.LabelPool, Operator: corev1.NodeSelectorOpIn, Values: system.Pools},
			}}},
		}}}
	}
	return []any{
		&corev1.ServiceAccount{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
			ObjectMeta: meta(name, ns, nil),
		},
		clusterBinding("system:kube-scheduler"),
		clusterBinding("system:volume-scheduler"),
		&rbacv1.Role{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"},
			ObjectMeta: meta(name+"-lease", ns, nil),
			Rules: []rbacv1.PolicyRule{{
				APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"},
				ResourceNames: []string{schedconfig.Lease}, Verbs: []string{"get", "update"},
			}},
		},
		binding(name+"-lease", name+"-lease"),
		binding(name+"-authentication-reader", "extension-apiserver-authentication-reader"),
		&appsv1.Deployment{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
			ObjectMeta: meta(name, ns, nil),
			Spec: appsv1.DeploymentSpec{
				Replicas: &replicas,
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{
						ServiceAccountName: name,
						PriorityClassName:  "system-cluster-critical",
						NodeSelector:       map[string]string{corev1.LabelOSStable: "linux"},
						Affinity:           affinity,
						Tolerations:        system.Tolerations,
						Containers: []corev1.Container{{
							Name:    "kube-scheduler",
							Image:   image,
							Command: []string{"kube-scheduler", "--config=" + schedconfig.ConfigMountDir + "/" + schedconfig.ConfigKey},
							Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
								corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi"),
							}},
							LivenessProbe:  probe("/livez"),
							ReadinessProbe: probe("/readyz"),
							SecurityContext: &corev1.SecurityContext{
								RunAsNonRoot: &nonRoot, RunAsUser: &user, AllowPrivilegeEscalation: &noEscalation,
								Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
							},
							VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: schedconfig.ConfigMountDir, ReadOnly: true}},
						}},
						Volumes: []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{
							ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: schedconfig.ConfigMapName}},
						}}},
					},
				},
			},
		},
	}
}
