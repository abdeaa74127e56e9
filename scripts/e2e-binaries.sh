#!/usr/bin/env bash
# Builds the pinned control-plane binaries for `make e2e` into $1 from the Go
# module proxy: etcd from e2e/binaries/etcd, kube-apiserver,
# kube-controller-manager and kube-scheduler from e2e/binaries, and Kueue's
# manager from e2e/binaries/kueue. A stamp of
# the pins and the Go version decides whether a rebuild is due, so repeated
# runs start in seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mkdir -p "$1" && cd "$1" && pwd)
want="$(cat e2e/binaries/go.mod e2e/binaries/go.sum e2e/binaries/etcd/go.mod e2e/binaries/etcd/go.sum e2e/binaries/kueue/go.mod e2e/binaries/kueue/go.sum | sha256sum | cut -d' ' -f1) $(go env GOVERSION)"
if [[ -f "$out/.stamp" && "$(cat "$out/.stamp")" == "$want" ]]; then
	echo "e2e: control-plane binaries in $out are up to date"
	exit 0
fi
rm -f "$out/.stamp"
# The version kube-apiserver reports and derives its emulation version from;
# go build does not stamp it, so it is read from the pin.
kube=$(cd e2e/binaries && go list -m -f '{{.Version}}' k8s.io/kubernetes)
minor=$(echo "$kube" | cut -d. -f2)
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$kube -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
echo "e2e: building kube-apiserver, kube-controller-manager and kube-scheduler $kube (a few minutes the first time)"
(cd e2e/binaries && go build -trimpath -ldflags "$ldflags" -o "$out/" \
	k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler)
etcd=$(cd e2e/binaries/etcd && go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)
echo "e2e: building etcd $etcd"
(cd e2e/binaries/etcd && go build -trimpath -ldflags "-s -w" -o "$out/etcd" go.etcd.io/etcd/server/v3)
kueue=$(cd e2e/binaries/kueue && go list -m -f '{{.Version}}' sigs.k8s.io/kueue)
echo "e2e: building kueue $kueue (about 8 minutes the first time)"
(cd e2e/binaries/kueue && go build -trimpath -ldflags "-s -w" -o "$out/kueue" sigs.k8s.io/kueue/cmd/kueue)
echo "$want" > "$out/.stamp"
