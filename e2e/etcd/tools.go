//go:build tools

// Package etcd pins the etcd server that scripts/e2e-binaries.sh builds.
package etcd

import _ "go.etcd.io/etcd/server/v3"
