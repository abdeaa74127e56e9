package derive

import (
	"slices"

	"github.com/gpufleet/gpufleet/compiler/keys"
)

// kcmControllers are kube-controller-manager's identities when it makes a
// workload's pods or child workloads: each controller's service account
// with --use-service-account-credentials (kubeadm's and EKS's setting;
// k8s.io/kubernetes v1.36.5 cmd/kube-controller-manager/app,
// createClientBuilders), and its own user without it.
var kcmControllers = []string{
	"system:kube-controller-manager",
	"system:serviceaccount:kube-system:cronjob-controller",
	"system:serviceaccount:kube-system:job-controller",
	"system:serviceaccount:kube-system:replicaset-controller",
	"system:serviceaccount:kube-system:statefulset-controller",
}

// mlControllers are the service accounts of the ML kinds' controllers as
// their own default installs name them: jobset v0.12.0 and lws v0.9.0
// config/default (namespace jobset-system and lws-system, namePrefix
// jobset- and lws-, ServiceAccount controller-manager), kuberay
// ray-operator v1.6.2 config/default (namespace default, ServiceAccount
// kuberay-operator), training-operator v1.9.3 manifests/overlays/standalone
// (namespace kubeflow, ServiceAccount training-operator), trainer v2.2.1
// manifests/overlays/manager (namespace kubeflow-system, ServiceAccount
// kubeflow-trainer-controller-manager). A TrainJob's JobSet makes its Jobs.
var mlControllers = map[string][]string{
	keys.KindJobSet:          {jobsetController},
	keys.KindTrainJob:        {"system:serviceaccount:kubeflow-system:kubeflow-trainer-controller-manager", jobsetController},
	keys.KindLeaderWorkerSet: {"system:serviceaccount:lws-system:lws-controller-manager"},
	keys.KindRayJob:          {kuberayController},
	keys.KindRayCluster:      {kuberayController},
	keys.KindPyTorchJob:      {"system:serviceaccount:kubeflow:training-operator"},
}

const (
	jobsetController  = "system:serviceaccount:jobset-system:jobset-controller-manager"
	kuberayController = "system:serviceaccount:default:kuberay-operator"
)

// Controllers are the usernames whose controller ownerReference the
// admission policies take for a queued workload's own admission, sorted:
// kube-controller-manager's, and the spec's cluster.controllers or, when it
// gives none, the ML kinds' controllers the classes use.
func (d *Fleet) Controllers() []string {
	out := slices.Clone(kcmControllers)
	if given := d.Spec.Cluster.Controllers; given != nil {
		out = append(out, given...)
	} else {
		for _, c := range d.Classes {
			out = append(out, mlControllers[c.Spec.Kind]...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
