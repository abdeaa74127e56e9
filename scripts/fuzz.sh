#!/usr/bin/env bash
# Run every fuzz target for a bounded time; exit non-zero on the first
# failure. FUZZTIME (default 30s) is passed to -fuzztime. A failing input
# is written under the package's testdata/fuzz/<Target>/ by go test.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime="${FUZZTIME:-30s}"
targets=(
	"./compiler/load FuzzLoad"
	"./compiler FuzzCompile"
	"./compiler/encode FuzzEmitYAML"
	"./compiler/encode FuzzParseJSON"
	"./compiler/encode FuzzFastYAML"
	"./compiler/encode FuzzWriteJSON"
	"./compiler/load FuzzSplitJSON"
	"./compiler/write FuzzTreeEscape"
	"./internal/cli FuzzLogText"
	"./internal/cli FuzzRunnerCommands"
)

for t in "${targets[@]}"; do
	read -r pkg name <<<"$t"
	echo "== $name ($pkg) for $fuzztime"
	go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime"
done
