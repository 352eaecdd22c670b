#!/usr/bin/env bash
# Benchmarks: runs each scenario in experiments/bench/ several times and
# prints the median events/s, packet-hops/s, wall time and peak RSS, then
# the event-queue hold benchmark for the calendar queue and the heap alone.
# Every packet is simulated (fast-forward off): these are the packet
# engine's figures; fast-forward's are in docs/performance.md.
# usage: experiments/bench/run.sh [ROCESIM] [REPEATS]   (make bench)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/rocesim}
repeats=${2:-5}
bindir=$(dirname "$bin")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

printf '%-28s %12s %14s %10s %10s\n' scenario "Mevents/s" "Mpkt-hops/s" "wall s" "RSS MB"
for scn in "$here"/*.yaml; do
	name=$(basename "$scn" .yaml)
	: >"$out/rows"
	for _ in $(seq "$repeats"); do
		"$bin" run "$scn" -o "$out/$name" --set engine.fast_forward.enabled=false | awk '/^  speed/ {
			gsub(/M/, "", $9); gsub(/M/, "", $11);
			print $9, $11, $5, $(NF-1) }' >>"$out/rows"
	done
	ev=$(cut -d' ' -f1 "$out/rows" | median)
	hops=$(cut -d' ' -f2 "$out/rows" | median)
	wall=$(cut -d' ' -f3 "$out/rows" | median)
	rss=$(cut -d' ' -f4 "$out/rows" | median)
	printf '%-28s %12s %14s %10s %10s\n' "$name" "$ev" "$hops" "$wall" "$rss"
done

for kind in calendar heap; do
	if [ -x "$bindir/experiments/evq_bench_$kind" ]; then
		echo
		echo "event queue hold benchmark, $kind (pop + re-arm, millions/s):"
		"$bindir/experiments/evq_bench_$kind"
	fi
done
