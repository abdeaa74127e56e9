#!/usr/bin/env bash
# rung.sh NAME: runs the rung ladder/NAME of the verification ladder.
#
# A rung is a nested module named after the upstream component that judges
# the checker. Most run their own tests (go test ./...). A rung whose
# test must run inside the upstream module, to reach its main or internal
# packages, has a file ladder/NAME/overlay with one line: the module, the
# package, and optionally a -run pattern. scripts/upstream-overlay.sh copies
# that module and overlays ladder/NAME/testdata/*_test.go into the package.
# go test's own vet pass is off: vetting a rung type-checks every one of
# its dependencies for facts (64 to 80 CPU-seconds each for the Kueue,
# kube-scheduler and Karpenter rungs, measured), so the rungs' own code is
# vetted by `make lint-ladder` (RUNG_VET=1), which CI does not run.
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: rung.sh NAME}
dir=ladder/$name
[[ -f $dir/go.mod ]] || { echo "rung.sh: no rung $dir (the rungs: $(ls ladder | tr '\n' ' '))" >&2; exit 2; }
root=$(pwd)
# go test -v prints blank lines and RUN/PAUSE/CONT markers for every case.
quiet() { grep --line-buffered -vE '^\s*$|^=== (RUN|PAUSE|CONT)'; }
if [[ -f $dir/overlay ]]; then
	read -r mod pkg args <"$dir/overlay"
	read -ra args <<<"${args//\{repo\}/$root}"
	scripts/upstream-overlay.sh "$dir" "$mod" "$pkg"
	cd "$dir"
	if [[ ${RUNG_VET:-} == 1 ]]; then
		go vet .
		go vet -overlay .upstream/overlay.json "$mod/$pkg"
		exit 0
	fi
	go test -vet=off -overlay .upstream/overlay.json "$mod/$pkg" -v -count=1 "${args[@]}" 2>&1 | quiet
else
	cd "$dir"
	if [[ ${RUNG_VET:-} == 1 ]]; then
		go vet ./... && go vet -tags composed ./...
		exit 0
	fi
	go test -vet=off ./... -v -count=1 2>&1 | quiet
fi
