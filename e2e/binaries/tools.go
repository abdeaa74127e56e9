//go:build tools

// Package binaries pins the control-plane commands that
// scripts/e2e-binaries.sh builds.
package binaries

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
