#!/usr/bin/env bash
# Copies the NVIDIA device plugin's module into devicediff/.upstream/
# (git-ignored) for `make test-deviceplugin`, and writes the overlay that
# puts devicediff's tests (devicediff/testdata/*_test.go) into the plugin's own main package. The copy is
# the module as the module proxy serves it, verified by the go command
# against third_party/upstream/go.sum, which pins the same release as the
# chart the tree deploys; the go command refuses overlays inside the
# module cache, and the test must sit in the plugin's module to reach its
# internal packages.
set -euo pipefail
cd "$(dirname "$0")/.."
mod=github.com/NVIDIA/k8s-device-plugin
ver=$(cd third_party/upstream && go list -m -f '{{.Version}}' "$mod")
want=$(sed -n "s|^replace $mod => ./.upstream/k8s-device-plugin@\(.*\)$|\1|p" devicediff/go.mod)
if [[ "$ver" != "$want" ]]; then
	echo "devicediff/go.mod replaces $mod with $want, but third_party/upstream pins $ver" >&2
	exit 1
fi
dst=devicediff/.upstream/k8s-device-plugin@$ver
if [[ ! -f "$dst/.complete" ]]; then
	src=$(cd third_party/upstream && go mod download -json "$mod@$ver" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
	[[ -d "$src" ]] || { echo "go mod download $mod@$ver gave no directory" >&2; exit 1; }
	rm -rf "$dst" && mkdir -p "$(dirname "$dst")"
	cp -R "$src" "$dst.tmp" && chmod -R u+w "$dst.tmp" && mv "$dst.tmp" "$dst"
	touch "$dst/.complete"
fi
root=$(pwd)
ov="" sep=""
for f in devicediff/testdata/*_test.go; do
	ov+="$sep\"$root/$dst/cmd/nvidia-device-plugin/gpufleet_$(basename "$f")\":\"$root/$f\""
	sep=","
done
printf '{"Replace":{%s}}\n' "$ov" > devicediff/.upstream/overlay.json
