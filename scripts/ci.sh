#!/usr/bin/env bash
# ci.sh LANE...: runs CI's stages, each a make target, in lanes at once.
# A lane is a quoted list of targets run in order, stopping at its first
# failure; lanes run side by side, since a build's links, downloads, test
# runs and e2e's waits leave a core idle that another lane's compile takes.
# Each stage's output is printed whole when it ends, under its name, so the
# lanes' logs do not interleave; a table of every stage's time comes last,
# then the output of any that failed again, so the end of a CI log says
# what failed.
set -uo pipefail
cd "$(dirname "$0")/.."
TIMEFORMAT='%U %S'
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
start=$SECONDS

lane() {
	local n=$1 t rc
	shift
	for target in "$@"; do
		t=$SECONDS
		# The CPU a stage takes (user+system, its children's too) says what
		# it costs the other lane, which its wall time alone does not.
		{ time make --no-print-directory "$target" >"$logs/$target.log" 2>&1; } 2>"$logs/$target.cpu"
		rc=$?
		cpu=$(awk '{printf "%d", $1 + $2}' "$logs/$target.cpu")
		{
			flock 9
			echo "=== stage $target (lane $n): $([[ $rc == 0 ]] && echo ok || echo "FAILED, exit $rc") in $((SECONDS - t))s (CPU ${cpu}s), at $((SECONDS - start))s"
			cat "$logs/$target.log"
		} 9>"$logs/.lock"
		echo "$target $n $rc $((SECONDS - t)) $cpu $((SECONDS - start))" >>"$logs/.times"
		((rc == 0)) || return "$rc"
	done
}

pids=()
n=0
for l in "$@"; do
	n=$((n + 1))
	read -ra targets <<<"$l"
	lane "$n" "${targets[@]}" &
	pids+=($!)
done
rc=0
for p in "${pids[@]}"; do
	wait "$p" || rc=1
done
echo "=== CI stages (seconds; lanes run at once)"
printf '%-22s %5s %8s %8s %8s  %s\n' stage lane took cpu ended result
while read -r target l r took cpu ended; do
	printf '%-22s %5s %8s %8s %8s  %s\n' "$target" "$l" "$took" "$cpu" "$ended" "$([[ $r == 0 ]] && echo ok || echo "FAILED ($r)")"
done <"$logs/.times"
echo "total $((SECONDS - start))s"
while read -r target l r took cpu ended; do
	if [[ $r != 0 ]]; then
		echo "=== $target failed; its last 80 lines again:"
		tail -n 80 "$logs/$target.log"
	fi
done <"$logs/.times"
exit $rc
