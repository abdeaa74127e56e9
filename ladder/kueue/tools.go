//go:build tools

// The Kueue manager `make e2e` runs (scripts/e2e-binaries.sh) is built from
// this module, so that the packages it shares with this rung compile once
// into the one build cache, at the versions this rung is judged at.
package kueuediff

import _ "sigs.k8s.io/kueue/cmd/kueue"
