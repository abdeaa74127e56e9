//go:build tools

// Package kueue pins the Kueue command that scripts/e2e-binaries.sh builds.
package kueue

import _ "sigs.k8s.io/kueue/cmd/kueue"
