#!/usr/bin/env bash
# Run every fuzz target for a bounded time; exit non-zero on the first
# failure. FUZZTIME (default 30s) is passed to -fuzztime, and FUZZWORKERS
# (default: a worker per core) to -parallel: CI runs one worker, so that
# fuzzing leaves the other lane a core. A failing input is written under
# the package's testdata/fuzz/<Target>/ by go test. go vet has run in
# `make test`; go test's own vet pass is off.
#
# FUZZEXECS=1 (CI) gives each target a count of executions instead, about
# what it runs in 10 s on a loaded 2-core machine (the third field): with a
# duration, Go 1.26's fuzz coordinator can report its own deadline as the
# target's failure ("context deadline exceeded", no input written) when a
# slow worker misses it, golang/go#75804, fixed only in Go 1.27. A count
# has no deadline to race; go test's -timeout still bounds a hang.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime="${FUZZTIME:-30s}"
workers="${FUZZWORKERS:-$(nproc)}"
targets=(
	"./compiler/load FuzzLoad 40"
	"./compiler FuzzCompile 400"
	"./compiler/encode FuzzEmitYAML 5000"
	"./compiler/encode FuzzParseJSON 3000"
	"./compiler/encode FuzzFastYAML 5000"
	"./compiler/encode FuzzWriteJSON 5000"
	"./compiler/load FuzzSplitJSON 10000"
	"./compiler/write FuzzTreeEscape 40"
	"./compiler/plan FuzzDecodeReport 10000"
	"./compiler/quantity FuzzQuantity 30000"
	"./internal/cli FuzzLogText 3000"
	"./internal/cli FuzzRunnerCommands 30"
)

for t in "${targets[@]}"; do
	read -r pkg name execs <<<"$t"
	budget=$fuzztime
	[[ ${FUZZEXECS:-} == 1 ]] && budget="${execs}x"
	echo "== $name ($pkg) for $budget"
	go test -vet=off "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "$budget" -parallel "$workers"
done
