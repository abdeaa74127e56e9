#!/usr/bin/env bash
# align-pins.sh [MODULE_DIR...]: raises every module's lower pin of a
# dependency that two modules share to the highest, then tidies, until
# nothing moves. Modules built into one cache share compiled packages only
# where they resolve each dependency alike (TestSharedPinsAligned holds
# them to it). A dependency a module replaces is its own and is left be
# (where it replaces it by a version, that version counts as its pin);
# a module that must not be tidied (its go.mod says so) moves by go get.
# With no arguments it aligns the root module, every rung and e2e.
set -euo pipefail
cd "$(dirname "$0")/.."
if (($# == 0)); then
	set -- . $(ls -d ladder/*/ e2e/ e2e/etcd/ | sed 's:/$::')
fi
mods=()
for d in "$@"; do [[ -f $d/go.mod ]] && mods+=("$d"); done

# reqs DIR: "path version edit" for each require line: the version a
# replace line gives where one does (edit 0: the module's own, read but
# never moved; kube-scheduler's rung pins the staging modules so), the
# required version otherwise (edit 1).
reqs() {
	(cd "$1" && go mod edit -json) | python3 -c '
import json, sys
m = json.load(sys.stdin)
rep = {r["Old"]["Path"]: r["New"] for r in m.get("Replace") or []}
for r in m.get("Require") or []:
    n = rep.get(r["Path"])
    if n is None:
        print(r["Path"], r["Version"], 1)
    elif n.get("Version") and n["Path"] == r["Path"]:
        print(r["Path"], n["Version"], 0)'
}

# sums DIR: for a module go mod tidy cannot see into (its test is overlaid
# into an upstream module: ladder/NAME/overlay), adds what its compile
# reports missing from go.sum, by go get of the module providing each
# package, until it compiles.
sums() {
	local d=$1 mod pkg rest out pk all mods
	[[ -f $d/overlay ]] || return 0
	read -r mod pkg rest <"$d/overlay"
	scripts/upstream-overlay.sh "$d" "$mod" "$pkg" >/dev/null
	for _ in 1 2 3 4 5 6 7 8; do
		out=$(cd "$d" && go test -vet=off -overlay .upstream/overlay.json -run '^$' "$mod/$pkg" 2>&1) && return 0
		pk=$(grep -oP 'missing go.sum entry for module providing package \K\S+' <<<"$out" | sort -u)
		[[ -n $pk ]] || { echo "$out" >&2; return 1; }
		all=$(cd "$d" && go list -m -f '{{if not .Replace}}{{.Path}} {{.Version}}{{end}}' all 2>/dev/null)
		mods=$(for p in $pk; do awk -v p="$p" 'index(p"/", $1"/") == 1 {print length($1), $1"@"$2}' <<<"$all" | sort -rn | head -1 | cut -d' ' -f2; done | sort -u)
		(cd "$d" && go get $mods)
	done
	return 1
}

for round in 1 2 3 4 5; do
	all=$(for d in "${mods[@]}"; do reqs "$d" | sed "s|^|$d |"; done)
	# The highest version of each path: sort -V orders semver releases and
	# Go's pseudo-versions (a prerelease sorts first only among equals,
	# which the shared pins here never are).
	best=$(awk '{print $2, $3}' <<<"$all" | sort -k1,1 -k2,2V | awk '{v[$1]=$2} END {for (p in v) print p, v[p]}')
	moved=0
	for d in "${mods[@]}"; do
		edits=()
		while read -r path v edit; do
			((edit)) || continue
			want=$(awk -v p="$path" '$1 == p {print $2}' <<<"$best")
			[[ -n $want && $want != "$v" ]] && edits+=("-require=$path@$want")
		done < <(awk -v d="$d" '$1 == d {print $2, $3, $4}' <<<"$all")
		if ((${#edits[@]})); then
			echo "align-pins: $d: ${edits[*]#-require=}"
			if grep -q "do not tidy this module" "$d/go.mod"; then
				# A module whose tests go mod tidy cannot see: go get moves
				# the pins and go.sum without pruning.
				(cd "$d" && go get "${edits[@]#-require=}")
				sums "$d"
			else
				(cd "$d" && go mod edit "${edits[@]}" && go mod tidy -e)
			fi
			moved=1
		fi
	done
	((moved)) || { echo "align-pins: aligned after $round round(s)"; exit 0; }
done
echo "align-pins: still moving after 5 rounds" >&2
exit 1
