#!/usr/bin/env bash
# e2e.sh BIN: builds the control plane into BIN (scripts/e2e-binaries.sh),
# then runs the end-to-end test in E2E_SHARDS (default 3) processes at once,
# each with its own control plane on loopback and its share of the fleets
# (E2E_SHARD=i/n): a fleet's run mostly waits on controllers, so three share
# the machine's cores well. Each shard's log is printed whole when all end,
# shard by shard, so that a CI log reads in order.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mkdir -p "$1" && cd "$1" && pwd)
shards=${E2E_SHARDS:-3}
[[ $shards =~ ^[1-9][0-9]*$ ]] || { echo "E2E_SHARDS=$shards: want a positive count" >&2; exit 2; }
scripts/e2e-binaries.sh "$bin"
cd e2e
go vet ./...
# The harness's packages (scaleup: cluster-autoscaler's scale-up restated)
# run their table tests here; the root package's run in shard 0 below.
go test -vet=off ./scaleup/
go test -vet=off -c -o "$bin/e2e.test" .
pids=()
for ((i = 0; i < shards; i++)); do
	# The unit tests run once, in shard 0.
	run='.'
	((i == 0)) || run='^TestEndToEnd$'
	E2E_BIN=$bin E2E_SHARD=$i/$shards "$bin/e2e.test" -test.run "$run" -test.v -test.count=1 -test.timeout 45m >"$bin/shard-$i.log" 2>&1 &
	pids+=($!)
done
rc=0
for ((i = 0; i < shards; i++)); do
	wait "${pids[i]}" || rc=$?
done
for ((i = 0; i < shards; i++)); do
	echo "=== e2e shard $i/$shards"
	grep -vE '^\s*$' "$bin/shard-$i.log" || true
done
# Last, so that the end of a CI log says what failed, whichever shard.
if ((rc != 0)); then
	echo "=== e2e failed: each shard's failures, again"
	for ((i = 0; i < shards; i++)); do
		grep -hE -- "--- FAIL|^FAIL|panic:" "$bin/shard-$i.log" | sed "s|^|shard $i: |" || true
		sed -n "/the fleets' failures, again:/,\$p" "$bin/shard-$i.log" | sed "s|^|shard $i: |"
	done
fi
exit $rc
