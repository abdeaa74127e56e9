#!/usr/bin/env bash
# workflow.sh: runs the workflow rung, ladder/workflow: actionlint and
# GitHub's own workflow parser judge docs/github-actions/gpufleet.yml.
#
# The parser is an npm package (ladder/workflow/package.json, pinned by its
# package-lock.json), installed into the git-ignored
# ladder/workflow/node_modules by npm ci, only when node_modules is missing
# or was installed from another package-lock.json: a stamp in node_modules
# holds the lock's checksum. Then scripts/rung.sh runs the Go test, which
# fails (never skips) without Node.js or the package.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=ladder/workflow
command -v node >/dev/null || { echo "workflow.sh: node not found: the rung needs Node.js 20 or later and npm" >&2; exit 2; }
stamp=$dir/node_modules/.gpufleet-lock.sha256
sum=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
if [[ ! -f $stamp || $(<"$stamp") != "$sum" ]]; then
	# --ignore-scripts: nothing from the registry runs at install.
	(cd "$dir" && npm ci --no-audit --no-fund --prefer-offline --ignore-scripts)
	echo "$sum" >"$stamp"
fi
exec scripts/rung.sh workflow
