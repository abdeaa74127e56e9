#!/usr/bin/env bash
# Run every fuzz target for a bounded time; exit non-zero on the first
# failure. FUZZTIME (default 30s) is passed to -fuzztime, and FUZZWORKERS
# (default: a worker per core) to -parallel: CI runs one worker, so that
# fuzzing leaves the other lane a core. A failing input is written under
# the package's testdata/fuzz/<Target>/ by go test. go vet has run in
# `make test`; go test's own vet pass is off.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime="${FUZZTIME:-30s}"
workers="${FUZZWORKERS:-$(nproc)}"
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
	go test -vet=off "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -parallel "$workers"
done
