package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/internal/upstream"
)

// mlController is the controller manager of an ML kind that its project
// serves as a Go module: JobSet v0.12.0's (sigs.k8s.io/jobset, main.go),
// LeaderWorkerSet v0.9.0's (sigs.k8s.io/lws/cmd) and Kubeflow Trainer
// v2.2.1's (github.com/kubeflow/trainer/v2/cmd/trainer-controller-manager),
// built from ladder/kueue's module graph by scripts/e2e-binaries.sh, so at
// the versions whose Kueue integrations the Kueue rung judged.
type mlController struct {
	name string // the binary
	kind string
	// user is its service account's username as its default install runs
	// it (config/default: namespace <name>-system, namePrefix <name>-,
	// ServiceAccount controller-manager), which the tree's admission
	// policies take a controller ownerReference from.
	user string
	mod  upstream.Module
	// webhooks is the module's kustomization of its webhook
	// configurations, and prefix the namePrefix its default install gives
	// them ("" where the kustomization names them itself).
	webhooks, prefix string
	// config is the manager's Configuration file, its webhook and health
	// probe on the loopback ports given, its webhook certificate in certs.
	config func(webhook, health int, certs string) map[string]any
	// tmpCerts: the Configuration cannot name a certificate directory, so
	// the webhook server reads controller-runtime's default,
	// $TMPDIR/k8s-webhook-server/serving-certs (pkg/webhook/server.go,
	// setDefaults), and the manager runs with TMPDIR set to hold certs.
	tmpCerts bool
	// probe is a dry-run create that kube-apiserver answers through the
	// manager's webhooks only once they serve.
	probe func() *unstructured.Unstructured
	// answered reports whether the probe's answer came through them, and
	// if not, why.
	answered func(*unstructured.Unstructured, error) error
}

// mlControllers are run for the control plane's whole life: the JobSet
// controller makes a JobSet's Jobs (kube-controller-manager's Job
// controller their pods), the LeaderWorkerSet controller a group's leader
// StatefulSet and, per leader pod, its workers' StatefulSet
// (kube-controller-manager's StatefulSet controller their pods), and
// Trainer's a TrainJob's JobSet (mltrainer.go).
var mlControllers = []mlController{
	{
		name: "jobset", kind: keys.KindJobSet, mod: upstream.JobSet, webhooks: "config/components/webhook", prefix: "jobset-",
		config: xk8sConfig("jobset"),
		user:   "system:serviceaccount:jobset-system:jobset-controller-manager",
		// The JobSet webhook defaults a replicated job's pod restartPolicy
		// to OnFailure (pkg/webhooks/jobset_webhook.go, Default); the CRD
		// sets no default there.
		probe: func() *unstructured.Unstructured {
			return probeObject("jobset.x-k8s.io/v1alpha2", "JobSet", map[string]any{
				"replicatedJobs": []any{map[string]any{"name": "probe", "template": map[string]any{"spec": map[string]any{
					"template": map[string]any{"spec": map[string]any{"containers": probeContainers()}},
				}}}},
			})
		},
		answered: mutated(func(u *unstructured.Unstructured) bool {
			rjs, _, _ := unstructured.NestedSlice(u.Object, "spec", "replicatedJobs")
			if len(rjs) == 0 {
				return false
			}
			p, _, _ := unstructured.NestedString(rjs[0].(map[string]any), "template", "spec", "template", "spec", "restartPolicy")
			return p == "OnFailure"
		}),
	},
	{
		name: "lws", kind: keys.KindLeaderWorkerSet, mod: upstream.LeaderWorkerSet, webhooks: "config/webhook", prefix: "lws-",
		config: xk8sConfig("lws"),
		user:   "system:serviceaccount:lws-system:lws-controller-manager",
		// The LWS webhook defaults networkConfig.subdomainPolicy to Shared
		// (pkg/webhooks/leaderworkerset_webhook.go, Default); the CRD
		// sets no default there.
		probe: func() *unstructured.Unstructured {
			return probeObject("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", map[string]any{
				"leaderWorkerTemplate": map[string]any{"size": int64(2), "workerTemplate": map[string]any{"spec": map[string]any{"containers": probeContainers()}}},
			})
		},
		answered: mutated(func(u *unstructured.Unstructured) bool {
			p, _, _ := unstructured.NestedString(u.Object, "spec", "networkConfig", "subdomainPolicy")
			return p == "Shared"
		}),
	},
	trainerController,
}

// xk8sConfig is the Configuration the JobSet and LWS managers read, the
// same shape in a group named after each (api/config/v1alpha1:
// config.jobset.x-k8s.io, config.lws.x-k8s.io), decoded strictly:
// internal certificate management off, no leader election, metrics off.
func xk8sConfig(name string) func(webhook, health int, certs string) map[string]any {
	return func(webhook, health int, certs string) map[string]any {
		return map[string]any{
			"apiVersion":             "config." + name + ".x-k8s.io/v1alpha1",
			"kind":                   "Configuration",
			"internalCertManagement": map[string]any{"enable": false},
			"leaderElection":         map[string]any{"leaderElect": false},
			"webhook":                map[string]any{"host": "127.0.0.1", "port": webhook, "certDir": certs},
			"health":                 map[string]any{"healthProbeBindAddress": "127.0.0.1:" + strconv.Itoa(health)},
			"metrics":                map[string]any{"bindAddress": "0"},
		}
	}
}

// mutated answers a probe once the object comes back as only the
// manager's mutating webhook leaves it.
func mutated(ok func(*unstructured.Unstructured) bool) func(*unstructured.Unstructured, error) error {
	return func(u *unstructured.Unstructured, err error) error {
		switch {
		case err != nil:
			return err // the webhook server not serving yet
		case !ok(u):
			return errors.New("it came back as its webhook would not leave it")
		}
		return nil
	}
}

// disaggregatedSetCRD is the CRD the LWS manager's DisaggregatedSet
// controller watches beside the LeaderWorkerSet's (cmd/main.go sets both
// up); without it the manager never starts.
const disaggregatedSetCRD = "config/crd/bases/disaggregatedset.x-k8s.io_disaggregatedsets.yaml"

func probeObject(apiVersion, kind string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"name": "webhook-probe", "namespace": "default"},
		"spec":     spec,
	}}
}

func probeContainers() []any {
	return []any{map[string]any{"name": "main", "image": "registry.k8s.io/pause:3.10"}}
}

// StartMLControllers runs each of mlControllers: no leader election,
// metrics off, probes and webhook server on loopback free ports, internal
// certificate management off through the manager's own configuration file
// (mlController.config), the webhook serving a certificate for 127.0.0.1;
// then registers its webhook configurations (mlWebhooks) and waits until
// kube-apiserver calls them. The CRDs must be installed.
func (cp *ControlPlane) StartMLControllers(ctx context.Context) error {
	dyn, err := dynamic.NewForConfig(cp.Config)
	if err != nil {
		return err
	}
	for _, c := range mlControllers {
		if err := cp.startMLController(ctx, dyn, c); err != nil {
			return fmt.Errorf("the %s controller: %w", c.name, err)
		}
	}
	return nil
}

func (cp *ControlPlane) startMLController(ctx context.Context, dyn dynamic.Interface, c mlController) error {
	dir := filepath.Join(cp.Dir, c.name)
	webhook, err := freePort()
	if err != nil {
		return err
	}
	health, err := freePort()
	if err != nil {
		return err
	}
	certs, env := filepath.Join(dir, "certs"), []string(nil)
	if c.tmpCerts {
		certs = filepath.Join(dir, "k8s-webhook-server", "serving-certs")
		env = append(os.Environ(), "TMPDIR="+dir)
	}
	if err := os.MkdirAll(certs, 0o700); err != nil {
		return err
	}
	caPEM, err := selfSigned(certs)
	if err != nil {
		return err
	}
	out, err := yaml.Marshal(c.config(webhook, health, certs))
	if err != nil {
		return err
	}
	file := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(file, out, 0o600); err != nil {
		return err
	}
	kc := filepath.Join(dir, "kubeconfig")
	if err := writeKubeconfigAs(kc, cp.Config.Host, cp.caFile, c.user); err != nil {
		return err
	}
	p, err := startProcEnv(cp.Dir, c.name, filepath.Join(cp.Bin, c.name), env, "--config="+file, "--kubeconfig="+kc, "--zap-log-level=2", "--zap-devel=false")
	if err != nil {
		return err
	}
	cp.procs = append(cp.procs, p)
	if err := waitReadyz(p, c.name, health); err != nil {
		return err
	}
	mut, val, err := mlWebhooks(c, webhook, caPEM)
	if err != nil {
		return err
	}
	ar := cp.Client.AdmissionregistrationV1()
	if _, err := ar.MutatingWebhookConfigurations().Create(ctx, mut, metav1.CreateOptions{}); err != nil {
		return err
	}
	if _, err := ar.ValidatingWebhookConfigurations().Create(ctx, val, metav1.CreateOptions{}); err != nil {
		return err
	}
	probe := c.probe()
	gvr := mlResources[c.kind]
	var last error
	err = poll(60*time.Second, 250*time.Millisecond, func() (bool, error) {
		last = c.answered(dyn.Resource(gvr).Namespace("default").Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}))
		return last == nil, nil
	})
	if err != nil {
		return fmt.Errorf("its webhook never answered: %w (last: %v)\n%s", err, last, p.tail(30))
	}
	return nil
}

// mlWebhooks builds the controller's webhook configurations as a real
// install has them (`kustomize build` of the pinned module's webhook
// kustomization, whose patches give the pod webhooks their
// objectSelector, named with its default install's namePrefix), each
// webhook calling the manager on 127.0.0.1:port, which serves the
// certificate caPEM. As in a real install they sit beside Kueue's:
// kube-apiserver calls the mutating ones in the order of their
// configurations' names (defaulter.trainer.kubeflow.org, jobset-, kueue-,
// lws-).
func mlWebhooks(c mlController, port int, caPEM []byte) (*admissionv1.MutatingWebhookConfiguration, *admissionv1.ValidatingWebhookConfiguration, error) {
	dir, err := c.mod.Dir()
	if err != nil {
		return nil, nil, err
	}
	mut, val, err := webhookConfigs(filepath.Join(dir, c.webhooks))
	if err != nil {
		return nil, nil, err
	}
	point := func(cc *admissionv1.WebhookClientConfig, name string) error {
		if cc.Service == nil || cc.Service.Path == nil {
			return fmt.Errorf("%s's webhook %s calls no service path", c.name, name)
		}
		url := fmt.Sprintf("https://127.0.0.1:%d%s", port, *cc.Service.Path)
		*cc = admissionv1.WebhookClientConfig{URL: &url, CABundle: caPEM}
		return nil
	}
	mut.ObjectMeta = metav1.ObjectMeta{Name: c.prefix + mut.Name}
	for i := range mut.Webhooks {
		if err := point(&mut.Webhooks[i].ClientConfig, mut.Webhooks[i].Name); err != nil {
			return nil, nil, err
		}
	}
	val.ObjectMeta = metav1.ObjectMeta{Name: c.prefix + val.Name}
	for i := range val.Webhooks {
		if err := point(&val.Webhooks[i].ClientConfig, val.Webhooks[i].Name); err != nil {
			return nil, nil, err
		}
	}
	return mut, val, nil
}
