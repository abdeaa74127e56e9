package e2e

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

// trainerController is Kubeflow Trainer v2.2.1's controller manager
// (cmd/trainer-controller-manager/main.go): once Kueue admits a TrainJob
// (its trainjob integration writes the runtimePatches entry it manages and
// unsuspends it), Trainer's JobSet plugin makes the child JobSet, named
// after the TrainJob, from the ClusterTrainingRuntime's template
// (pkg/runtime/framework/plugins/jobset/jobset.go, Build); the JobSet
// controller makes its Jobs and kube-controller-manager their pods.
//
// It runs as its manifests install it (manifests/base: namespace
// kubeflow-system, ServiceAccount kubeflow-trainer-controller-manager),
// its webhook configurations from manifests/base/webhook, which names
// them itself (defaulter.trainer.kubeflow.org,
// validator.trainer.kubeflow.org: the names its certificate management
// would patch). Its PodGroup CRDs (scheduler-plugins', Volcano's) are
// not installed: the coscheduling and volcano plugins then watch nothing
// (ReconcilerBuilders), and no runtime of the tree names them.
var trainerController = mlController{
	name: "trainer", kind: keys.KindTrainJob, mod: upstream.Trainer, webhooks: "manifests/base/webhook",
	user:     "system:serviceaccount:kubeflow-system:kubeflow-trainer-controller-manager",
	config:   trainerConfig,
	tmpCerts: true,
	// A TrainJob naming a ClusterTrainingRuntime that does not exist: the
	// defaulter (failurePolicy Fail) passes it, the validator refuses it
	// (pkg/webhooks/trainjob_webhook.go, ValidateCreate, through
	// pkg/runtime/core/clustertrainingruntime.go, ValidateObjects). Only
	// a serving manager gives that answer.
	probe: func() *unstructured.Unstructured {
		return probeObject("trainer.kubeflow.org/v1alpha1", "TrainJob", map[string]any{
			"runtimeRef": map[string]any{"name": "webhook-probe", "apiGroup": "trainer.kubeflow.org", "kind": "ClusterTrainingRuntime"},
		})
	},
	answered: func(_ *unstructured.Unstructured, err error) error {
		switch {
		case err == nil:
			return errors.New("its validating webhook admitted a TrainJob of no runtime")
		case !strings.Contains(err.Error(), trainerNoRuntime):
			return err // the webhook server not serving yet
		}
		return nil
	},
}

// trainerNoRuntime is Trainer's refusal of a TrainJob whose
// ClusterTrainingRuntime does not exist, in its own wording
// (pkg/runtime/core/clustertrainingruntime.go, ValidateObjects).
const trainerNoRuntime = "specified clusterTrainingRuntime must be created before the TrainJob is created"

// trainerConfig is Trainer's Configuration (pkg/apis/config/v1alpha1,
// group config.trainer.kubeflow.org, decoded strictly by
// pkg/config/config.go, fromFile): certificate management off
// (config.IsCertManagementEnabled, so main closes certsReady at once and
// the certificate is ours), no leader election, metrics off, the webhook
// and health probe on loopback. It has no certificate directory: the
// manager runs with tmpCerts. The TrainJobStatus feature gate (its status
// server) is off by default (pkg/features) and stays off.
func trainerConfig(webhook, health int, _ string) map[string]any {
	return map[string]any{
		"apiVersion":     "config.trainer.kubeflow.org/v1alpha1",
		"kind":           "Configuration",
		"certManagement": map[string]any{"enable": false},
		"leaderElection": map[string]any{"leaderElect": false},
		"webhook":        map[string]any{"host": "127.0.0.1", "port": webhook},
		"health":         map[string]any{"healthProbeBindAddress": "127.0.0.1:" + strconv.Itoa(health)},
		"metrics":        map[string]any{"bindAddress": "0"},
	}
}

// trainerMade says why the JobSet js, of a TrainJob's name, is not the
// one Trainer made of the TrainJob uid (its JobSet plugin's Build sets
// the TrainJob as its controller), or nil: the TrainJob's pods are then
// that JobSet's.
func trainerMade(js *unstructured.Unstructured, uid types.UID) error {
	for _, ref := range js.GetOwnerReferences() {
		if ref.Controller != nil && *ref.Controller {
			if ref.Kind != keys.KindTrainJob || ref.UID != uid {
				return fmt.Errorf("JobSet %s/%s is controlled by %s %s (uid %s), not by its TrainJob (uid %s)", js.GetNamespace(), js.GetName(), ref.Kind, ref.Name, ref.UID, uid)
			}
			return nil
		}
	}
	return fmt.Errorf("JobSet %s/%s has no controller, not its TrainJob (uid %s)", js.GetNamespace(), js.GetName(), uid)
}

// trainJobSet is trainerMade of the submitted TrainJob's JobSet.
func (fr *fleetRun) trainJobSet(dyn dynamic.Interface, s *submission) error {
	js, err := dyn.Resource(mlResources[keys.KindJobSet]).Namespace(s.ns).Get(fr.ctx, s.name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("the TrainJob's JobSet: %w", err)
	}
	return trainerMade(js, s.uid)
}
