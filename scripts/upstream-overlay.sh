#!/usr/bin/env bash
# upstream-overlay.sh DIR MODULE PKG
#
# For the differentials whose tests must run inside an upstream module to
# reach its internal (or main) packages: copies MODULE into DIR/.upstream/
# (git-ignored) and writes DIR/.upstream/overlay.json, which puts each
# DIR/testdata/*_test.go into the copy's package PKG as gpufleet_<name>.
# DIR/go.mod replaces MODULE with that copy; the version there must be the
# one third_party/upstream pins, whose go.sum the go command verifies the
# download against. The copy is the module as the proxy serves it: the go
# command refuses overlays inside the module cache.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1 mod=$2 pkg=$3
ver=$(cd third_party/upstream && go list -m -f '{{.Version}}' "$mod")
base=$(basename "$mod")
want=$(sed -n "s|^replace $mod => ./.upstream/$base@\(.*\)$|\1|p" "$dir/go.mod")
if [[ "$ver" != "$want" ]]; then
	echo "$dir/go.mod replaces $mod with ${want:-nothing}, but third_party/upstream pins $ver" >&2
	exit 1
fi
dst=$dir/.upstream/$base@$ver
if [[ ! -f "$dst/.complete" ]]; then
	src=$(cd third_party/upstream && go mod download -json "$mod@$ver" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
	[[ -d "$src" ]] || { echo "go mod download $mod@$ver gave no directory" >&2; exit 1; }
	rm -rf "$dst" "$dst.tmp" && mkdir -p "$(dirname "$dst")"
	cp -R "$src" "$dst.tmp" && chmod -R u+w "$dst.tmp" && mv "$dst.tmp" "$dst"
	touch "$dst/.complete"
fi
root=$(pwd)
shopt -s nullglob
tests=("$dir"/testdata/*_test.go)
[[ ${#tests[@]} -gt 0 ]] || { echo "no $dir/testdata/*_test.go to overlay" >&2; exit 1; }
ov="" sep=""
for f in "${tests[@]}"; do
	ov+="$sep\"$root/$dst/$pkg/gpufleet_$(basename "$f")\":\"$root/$f\""
	sep=","
done
printf '{"Replace":{%s}}\n' "$ov" > "$dir/.upstream/overlay.json"
