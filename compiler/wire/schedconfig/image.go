package schedconfig

// Images are the kube-scheduler images the second scheduler runs, by the
// cluster's minor version: the newest patch release of each, from the Go
// module proxy's k8s.io/api versions on 2026-11-24 (k8s.io/api v0.N.P is
// released with Kubernetes v1.N.P, whose image is kube-scheduler:v1.N.P).
// `go list -m -versions k8s.io/api` refreshes them.
var Images = map[string]string{
	"1.30": "registry.k8s.io/kube-scheduler:v1.30.14",
	"1.31": "registry.k8s.io/kube-scheduler:v1.31.14",
	"1.32": "registry.k8s.io/kube-scheduler:v1.32.13",
	"1.33": "registry.k8s.io/kube-scheduler:v1.33.13",
	"1.34": "registry.k8s.io/kube-scheduler:v1.34.13",
	"1.35": "registry.k8s.io/kube-scheduler:v1.35.10",
	"1.36": "registry.k8s.io/kube-scheduler:v1.36.6",
}

// The second scheduler's identity and where it runs. Its lease is its own:
// kube-system/kube-scheduler is the control plane's.
const (
	Namespace      = "kube-system"
	Name           = "gpufleet-scheduler"
	Lease          = "gpufleet-scheduler"
	SecurePort     = 10259
	ConfigMountDir = "/etc/gpufleet-scheduler"
)
