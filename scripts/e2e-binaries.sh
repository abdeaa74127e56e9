#!/usr/bin/env bash
# Builds the pinned control-plane binaries for `make e2e` into $1 from the Go
# module proxy: kube-apiserver, kube-controller-manager and kube-scheduler
# from ladder/kube-scheduler, Kueue's manager from ladder/kueue, and etcd
# from e2e/etcd. The first two are the rungs that judge the checker
# in-process, so the binaries run the very code, at the very versions, the
# rungs were judged at, and their shared packages compile once into the one
# build cache (no -trimpath, which would split it). A stamp of the pins and
# the Go version decides whether a rebuild is due, so repeated runs start in
# seconds. Karpenter's kwok controller is built from ladder/karpenter (the
# core module it pins, sigs.k8s.io/karpenter v1.15.0) under a stamp of its
# own, so that a change to one pin rebuilds only what it pins. The JobSet
# and LeaderWorkerSet controllers (sigs.k8s.io/jobset's manager, at the
# module root, and sigs.k8s.io/lws/cmd) and Kubeflow Trainer's
# (github.com/kubeflow/trainer/v2/cmd/trainer-controller-manager) are built
# from ladder/kueue's module graph, at the versions the Kueue rung judged its integrations of them at,
# after Kueue's build so that they reuse its packages, under a stamp of
# their own (.stamp-controllers) so that a warm run rebuilds nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mkdir -p "$1" && cd "$1" && pwd)
sched=ladder/kube-scheduler kueue=ladder/kueue etcd=e2e/etcd
want="$(cat $sched/go.mod $sched/go.sum $kueue/go.mod $kueue/go.sum $etcd/go.mod $etcd/go.sum | sha256sum | cut -d' ' -f1) $(go env GOVERSION)"
karp=ladder/karpenter
kwant="$(cat $karp/go.mod $karp/go.sum | sha256sum | cut -d' ' -f1) $(go env GOVERSION)"
if [[ ! -f "$out/.stamp-karpenter" || "$(cat "$out/.stamp-karpenter")" != "$kwant" ]]; then
	rm -f "$out/.stamp-karpenter"
	t=$SECONDS
	v=$(cd $karp && go list -m -f '{{with .Replace}}{{.Version}}{{else}}{{.Version}}{{end}}' sigs.k8s.io/karpenter)
	echo "e2e: building karpenter $v (kwok cloud provider) from $karp"
	(cd $karp && go build -ldflags "-s -w" -o "$out/karpenter-kwok" sigs.k8s.io/karpenter/kwok)
	echo "e2e: built in $((SECONDS - t))s"
	echo "$kwant" > "$out/.stamp-karpenter"
fi
# The ML kinds' controllers, once Kueue is built (below, or already).
# Each is module:binary:package; the stamp holds the list too, so that a
# controller added to it is built on a warm run.
mlcontrollers="sigs.k8s.io/jobset:jobset:sigs.k8s.io/jobset sigs.k8s.io/lws:lws:sigs.k8s.io/lws/cmd github.com/kubeflow/trainer/v2:trainer:github.com/kubeflow/trainer/v2/cmd/trainer-controller-manager"
controllers() {
	local cwant
	cwant="$(cat $kueue/go.mod $kueue/go.sum | sha256sum | cut -d' ' -f1) $(go env GOVERSION) $(echo "$mlcontrollers" | sha256sum | cut -d' ' -f1)"
	[[ -f "$out/.stamp-controllers" && "$(cat "$out/.stamp-controllers")" == "$cwant" ]] && return
	rm -f "$out/.stamp-controllers"
	local m mod name pkg v t
	for m in $mlcontrollers; do
		IFS=: read -r mod name pkg <<<"$m"
		t=$SECONDS
		v=$(cd $kueue && go list -m -f '{{.Version}}' "$mod")
		echo "e2e: building the $name controller $v from $kueue"
		(cd $kueue && go build -ldflags "-s -w" -o "$out/$name" "$pkg")
		echo "e2e: built in $((SECONDS - t))s"
	done
	echo "$cwant" > "$out/.stamp-controllers"
}
if [[ -f "$out/.stamp" && "$(cat "$out/.stamp")" == "$want" ]]; then
	echo "e2e: control-plane binaries in $out are up to date"
	controllers
	exit 0
fi
rm -f "$out/.stamp"
# The version kube-apiserver reports and derives its emulation version from;
# go build does not stamp it, so it is read from the pin.
kube=$(cd $sched && go list -m -f '{{.Version}}' k8s.io/kubernetes)
minor=$(echo "$kube" | cut -d. -f2)
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$kube -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
t=$SECONDS
echo "e2e: building kube-apiserver, kube-controller-manager and kube-scheduler $kube from $sched"
(cd $sched && go build -ldflags "$ldflags" -o "$out/" \
	k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler)
echo "e2e: built in $((SECONDS - t))s"; t=$SECONDS
v=$(cd $etcd && go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)
echo "e2e: building etcd $v"
(cd $etcd && go build -ldflags "-s -w" -o "$out/etcd" go.etcd.io/etcd/server/v3)
echo "e2e: built in $((SECONDS - t))s"; t=$SECONDS
v=$(cd $kueue && go list -m -f '{{.Version}}' sigs.k8s.io/kueue)
echo "e2e: building kueue $v from $kueue"
(cd $kueue && go build -ldflags "-s -w" -o "$out/kueue" sigs.k8s.io/kueue/cmd/kueue)
echo "e2e: built in $((SECONDS - t))s"
echo "$want" > "$out/.stamp"
controllers
