// Package upstream finds the files that upstream projects publish (CRDs,
// JSON Schemas) in their pinned releases, so that tests check gpufleet's
// output against the real thing rather than a copy of ours.
//
// The releases are pinned by the nested modules under third_party/, one per
// Go toolchain they need. A file is found by asking the go command for the
// module's directory (`go mod download -json`), which fetches the module
// from the Go module proxy the first time and verifies it against the pin's
// go.sum; later calls read the module cache. It is for tests only: the
// gpufleet binary never links it.
package upstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
)

// A Module is an upstream release pinned under third_party/.
type Module struct {
	Path string // module path, e.g. sigs.k8s.io/kueue
	Pins string // the pinning module's directory, relative to the repository
}

// The pinned releases. Their versions live only in the pins' go.mod files.
var (
	// Kueue: its CRDs under config/components/crd/bases/, and its webhook
	// configurations (whose directory's kustomization adds the
	// namespaceSelectors of a real install).
	Kueue = Module{"sigs.k8s.io/kueue", "third_party/upstream"}
	// eksctl: the ClusterConfig JSON Schema.
	Eksctl = Module{"github.com/eksctl-io/eksctl", "third_party/upstream"}
	// Karpenter's core: the NodePool and NodeClaim CRDs.
	Karpenter = Module{"sigs.k8s.io/karpenter", "third_party/karpenter"}
	// Karpenter's AWS provider: the NodePool its chart installs (core plus
	// AWS label rules) and EC2NodeClass.
	KarpenterAWS = Module{"github.com/aws/karpenter-provider-aws", "third_party/karpenter"}
	// The NVIDIA device plugin: its Helm chart, which e2e renders with the
	// values the tree carries.
	DevicePlugin = Module{"github.com/NVIDIA/k8s-device-plugin", "third_party/upstream"}
	DRADriver    = Module{"sigs.k8s.io/dra-driver-nvidia-gpu", "third_party/upstream"}
	// The Amazon VPC CNI: its aws-vpc-cni chart (the aws-node DaemonSet on
	// every EKS node), which e2e renders and runs beside the classes.
	VPCCNI = Module{"github.com/aws/amazon-vpc-cni-k8s", "third_party/upstream"}
	// Flux's helm-controller and source-controller, and Argo CD: the CRDs
	// of the HelmRelease, HelmRepository and Application that deliver the
	// device plugin chart.
	FluxHelm   = Module{"github.com/fluxcd/helm-controller", "third_party/upstream"}
	FluxSource = Module{"github.com/fluxcd/source-controller", "third_party/upstream"}
	ArgoCD     = Module{"github.com/argoproj/argo-cd/v3", "third_party/upstream"}
	// The ML kinds a class may be (issue 52): their CRDs, which the class
	// examples are validated against.
	JobSet          = Module{"sigs.k8s.io/jobset", "third_party/upstream"}
	LeaderWorkerSet = Module{"sigs.k8s.io/lws", "third_party/upstream"}
	KubeRay         = Module{"github.com/ray-project/kuberay/ray-operator", "third_party/upstream"}
	TrainingOp      = Module{"github.com/kubeflow/training-operator", "third_party/upstream"}
	Trainer         = Module{"github.com/kubeflow/trainer/v2", "third_party/upstream"}
)

// Well-known files, relative to their module.
const (
	KueueCRDs       = "config/components/crd/bases/*.yaml"
	KueueWebhooks   = "config/components/webhook/manifests.yaml"
	EksctlSchema    = "pkg/apis/eksctl.io/v1alpha5/assets/schema.json"
	KarpenterCRDs   = "pkg/apis/crds/*.yaml"
	NodePoolCRD     = "pkg/apis/crds/karpenter.sh_nodepools.yaml"
	EC2NodeClassCRD = "pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml"
	// KWOKCRDs are what Karpenter's kwok cloud provider needs beside the
	// NodePool and NodeClaim (which the AWS chart's CRDs give): its
	// KWOKNodeClass, and the NodeOverlay and CapacityBuffer its
	// controllers watch (in sigs.k8s.io/karpenter).
	KWOKNodeClassCRD  = "kwok/apis/crds/karpenter.kwok.sh_kwoknodeclasses.yaml"
	NodeOverlayCRD    = "kwok/charts/crds/karpenter.sh_nodeoverlays.yaml"
	CapacityBufferCRD = "kwok/charts/crds/autoscaling.x-k8s.io_capacitybuffers.yaml"
	DevicePluginChart = "deployments/helm/nvidia-device-plugin"
	DRADriverChart    = "deployments/helm/dra-driver-nvidia-gpu"
	VPCCNIChart       = "charts/aws-vpc-cni"
	HelmReleaseCRD    = "config/crd/bases/helm.toolkit.fluxcd.io_helmreleases.yaml"
	HelmRepositoryCRD = "config/crd/bases/source.toolkit.fluxcd.io_helmrepositories.yaml"
	ApplicationCRD    = "manifests/crds/application-crd.yaml"
	JobSetCRD         = "config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml"
	LWSCRD            = "config/crd/bases/leaderworkerset.x-k8s.io_leaderworkersets.yaml"
	RayClusterCRD     = "config/crd/bases/ray.io_rayclusters.yaml"
	RayJobCRD         = "config/crd/bases/ray.io_rayjobs.yaml"
	PyTorchJobCRD     = "manifests/base/crds/kubeflow.org_pytorchjobs.yaml"
	TrainJobCRD       = "manifests/base/crds/trainer.kubeflow.org_trainjobs.yaml"
	// ClusterTrainingRuntimeCRD is the runtime a TrainJob class's
	// TrainJobs name, which gpufleet writes in cluster/.
	ClusterTrainingRuntimeCRD = "manifests/base/crds/trainer.kubeflow.org_clustertrainingruntimes.yaml"
	// TrainingRuntimeCRD is the namespaced runtime, which gpufleet writes
	// none of, but Trainer's runtime framework (and so Kueue's trainjob
	// integration) indexes: a cluster running them has it.
	TrainingRuntimeCRD = "manifests/base/crds/trainer.kubeflow.org_trainingruntimes.yaml"
)

// A File is a file of an upstream release.
type File struct {
	Module Module
	Path   string
}

// MLKindCRDs are the CRDs of the ML kinds a class may be (issue 52).
var MLKindCRDs = []File{
	{JobSet, JobSetCRD}, {LeaderWorkerSet, LWSCRD},
	{KubeRay, RayClusterCRD}, {KubeRay, RayJobCRD},
	{TrainingOp, PyTorchJobCRD},
	{Trainer, TrainJobCRD}, {Trainer, ClusterTrainingRuntimeCRD},
}

type result struct {
	dir, version string
	err          error
}

var (
	mu    sync.Mutex
	cache = map[Module]*result{}
)

// Dir returns the module's directory in the module cache, downloading it
// the first time.
func (m Module) Dir() (string, error) {
	r := m.resolve()
	return r.dir, r.err
}

// Version returns the pinned version.
func (m Module) Version() (string, error) {
	r := m.resolve()
	return r.version, r.err
}

// File returns the path of a file in the module; it must exist.
func (m Module) File(rel string) (string, error) {
	dir, err := m.Dir()
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("upstream: %s: %w", m.Path, err)
	}
	return p, nil
}

// Glob returns the module's files matching pattern, in order. Matching
// nothing is an error: a test must never pass because its schemas are
// missing.
func (m Module) Glob(pattern string) ([]string, error) {
	dir, err := m.Dir()
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, filepath.FromSlash(pattern)))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("upstream: no file of %s matches %s", m.Path, pattern)
	}
	sort.Strings(files)
	return files, nil
}

func (m Module) resolve() *result {
	mu.Lock()
	defer mu.Unlock()
	if r, ok := cache[m]; ok {
		return r
	}
	r := &result{}
	r.dir, r.version, r.err = download(m)
	cache[m] = r
	return r
}

func download(m Module) (dir, version string, err error) {
	root, err := Root()
	if err != nil {
		return "", "", err
	}
	cmd := exec.Command("go", "mod", "download", "-json", m.Path)
	cmd.Dir = filepath.Join(root, filepath.FromSlash(m.Pins))
	// auto: a pin whose go line is newer than the installed Go gets its
	// toolchain from the module proxy (many installs default to local).
	// -mod=readonly: never edit the pin, only verify against its go.sum.
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=auto", "GOFLAGS=-mod=readonly", "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	var info struct{ Path, Version, Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil || info.Error != "" || info.Dir == "" {
		msg := info.Error
		if msg == "" {
			msg = stderr.String()
		}
		if msg == "" && runErr != nil {
			msg = runErr.Error()
		}
		return "", "", fmt.Errorf("upstream: go mod download %s in %s: %s", m.Path, m.Pins, msg)
	}
	return info.Dir, info.Version, nil
}

// Root returns the repository's root: the nearest directory, from the
// working directory up, that holds third_party/upstream/go.mod.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "third_party", "upstream", "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("upstream: no third_party/upstream/go.mod above the working directory")
		}
		dir = parent
	}
}
