//go:build tools

// The control plane `make e2e` runs (scripts/e2e-binaries.sh) is built from
// this module, so that the packages it shares with this rung compile once
// into the one build cache, at the versions this rung is judged at.
package kubesched

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
