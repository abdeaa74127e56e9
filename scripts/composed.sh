#!/usr/bin/env bash
# composed.sh: the composed differential, a rung of the verification ladder
# that composes two others. A cluster admits a queued workload with Kueue,
# which pins it to one ResourceFlavor (its nodeLabels merged into the pods'
# nodeSelector), and only then does kube-scheduler place the pinned pods.
# The two rungs are modules of their own (Kueue's requirements and
# k8s.io/kubernetes' replace lines), on one Kubernetes minor whose packages
# they compile once between them: a cluster composes them through the API
# server, this rung through a JSON file. Half 1 (ladder/kueue,
# TestComposedAdmit) admits and pins every queued unit with Kueue v0.19.2
# and writes each unit's pinned pod templates, with the checker's Pinned
# entries, to ladder/.composed/units.json (git-ignored); half 2
# (ladder/kube-scheduler, TestComposedPlace) places them with kube-scheduler
# v1.36.5's scheduling cycle. Both halves are behind the build tag
# `composed`, so the kueue and kube-scheduler rungs do not run them.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
handoff=$root/ladder/.composed
rm -rf "$handoff"
mkdir -p "$handoff"
# go test -v prints blank lines and RUN/PAUSE/CONT markers for every case.
quiet() { grep --line-buffered -vE '^\s*$|^=== (RUN|PAUSE|CONT)'; }

echo "=== half 1: Kueue v0.19.2 admits and pins every queued unit (ladder/kueue)"
t=$SECONDS
(
	cd ladder/kueue
	go test -vet=off -tags composed -run '^TestComposedAdmit' -v -count=1 . -composed-out="$handoff/units.json" 2>&1 | quiet
)
echo "=== half 1 took $((SECONDS - t))s"

echo "=== half 2: kube-scheduler v1.36.5 places the pinned pods (ladder/kube-scheduler)"
t=$SECONDS
(
	cd ladder/kube-scheduler
	go test -vet=off -tags composed -run '^TestComposedPlace' -v -count=1 . -composed-in="$handoff/units.json" 2>&1 | quiet
)
echo "=== half 2 took $((SECONDS - t))s"
