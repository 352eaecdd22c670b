#!/usr/bin/env bash
# Instructions per data-packet hop: each scenario run under callgrind,
# then again stopped at 1 ns (loading, building the fabric and writing the
# outputs); the difference is the event loop's, divided by the
# run.data_packet_hops of results.json. Deterministic, unlike wall time:
# the figure to compare two builds by. Every packet is simulated
# (fast-forward off): a span's packets count as hops without their events.
# usage: experiments/bench/callgrind.sh [ROCESIM] [SCENARIO...]
#        (make bench-callgrind; default: the 8:1 DCQCN incast and the
#        k = 8 fat-tree permutation)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/rocesim}
shift || true
if [ $# -eq 0 ]; then
	set -- "$here/dcqcn-incast-8to1-mtu1024.yaml" "$here/fattree-128-permutation.yaml"
fi
command -v valgrind >/dev/null || {
	echo "callgrind.sh: valgrind is not installed (apt-get install valgrind)" >&2
	exit 2
}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# instructions of a run of "$@" (the program total callgrind prints)
instructions() {
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
		awk '/Collected :/ { print $NF }'
}

printf '%-34s %14s %14s %12s %10s\n' scenario "instructions" "set-up" "data hops" "per hop"
for scn in "$@"; do
	name=$(basename "$scn" .yaml)
	all=$(instructions "$bin" run "$scn" -o "$out/$name" --quiet \
		--set engine.fast_forward.enabled=false)
	setup=$(instructions "$bin" run "$scn" -o "$out/$name-setup" --quiet --set stop=1ns \
		--set engine.fast_forward.enabled=false)
	hops=$(sed -n 's/.*"data_packet_hops": *\([0-9]*\).*/\1/p' "$out/$name/results.json" | head -1)
	awk -v n="$name" -v a="$all" -v s="$setup" -v h="$hops" 'BEGIN {
		printf "%-34s %14d %14d %12d %10.0f\n", n, a, s, h, (a - s) / h }'
done
