#!/usr/bin/env bash
# Sweep benchmark: what `rocesim sweep` costs beyond the runs themselves,
# and how it scales with -j.
#   1. overhead: a 50-point sweep of a tiny scenario (2 hosts, one 64 KB
#      flow: a run of a few ms) at -j 1, against the same 50 `rocesim run`
#      commands one after the other from the shell; the difference per point
#      is the sweep's own cost (checking the point, the fork, point.json,
#      stderr.txt, its share of the tables) less what a run started anew
#      pays and a sweep's does not (loading the program: the sweep's runs
#      are forks that do not exec), so it may be below zero.
#   2. speed-up: a 50-point sweep of a small incast (8 hosts, DCQCN, runs
#      of tens of ms) at -j 1 and -j 2: points per second and their ratio.
# Each figure is the median of REPEATS tries (the machine may be shared).
# usage: experiments/bench/sweep.sh [ROCESIM] [REPEATS]
set -euo pipefail
bin=$(realpath "${1:-build/rocesim}")
repeats=${2:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

cat >tiny.yaml <<'YAML'
name: tiny
topology: {kind: star, hosts: 2}
workload: {kind: flows, flows: [{src: h0, dst: h1, size: 64KB}]}
output: {sample: 0}
YAML
cat >incast.yaml <<'YAML'
name: incast
topology: {kind: star, hosts: 8}
switch: {ecn: {kmin: 50KB, kmax: 800KB}}
nic: {cc: dcqcn}
workload: {kind: incast, senders: 7, size: 4MB}
output: {sample: 0}
YAML

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
# the values of the axis, as the sweep passed them to --set (sweep.csv's 4th column)
values() { awk -F, 'NR > 1 { print $4 }' "$1"; }
calc() { awk "BEGIN { printf \"%.6f\\n\", $1 }"; }

axis=switch.ecn.kmin=10KB..500KB:50
TIMEFORMAT='%R %U %S'
loop() {
	local i=0
	for v in $(values s/sweep.csv); do
		i=$((i + 1))
		"$bin" run tiny.yaml -o "l/$i" --set "switch.ecn.kmin=$v" --seed 1 --quiet
	done
}
: >sweep_t
: >loop_t
for _ in $(seq "$repeats"); do
	rm -rf s l
	{ time "$bin" sweep tiny.yaml --vary "$axis" -j 1 -o s --quiet; } 2>>sweep_t
	{ time loop; } 2>>loop_t
done
# wall and CPU seconds, the median of each
sw=$(awk '{print $1}' sweep_t | median)
sc=$(awk '{print $2 + $3}' sweep_t | median)
lw=$(awk '{print $1}' loop_t | median)
lc=$(awk '{print $2 + $3}' loop_t | median)
printf 'overhead: 50 tiny runs: sweep -j 1 %.3f s wall, %.3f s CPU; shell loop of rocesim run %.3f s wall, %.3f s CPU\n' \
	"$sw" "$sc" "$lw" "$lc"
printf '          per point beyond the runs: %.2f ms wall, %.2f ms CPU\n' \
	"$(calc "($sw - $lw) * 1000 / 50")" "$(calc "($sc - $lc) * 1000 / 50")"

for j in 1 2; do
	: >"j$j"
	for _ in $(seq "$repeats"); do
		rm -rf "o$j"
		{ time "$bin" sweep incast.yaml --vary "$axis" -j "$j" -o "o$j" --quiet; } 2>&1 |
			awk '{print $1}' >>"j$j"
	done
done
w1=$(median <j1)
w2=$(median <j2)
printf 'speed-up: 50 incast runs on %s online cores: -j 1 %.2f s (%.1f points/s), -j 2 %.2f s (%.1f points/s): %.2fx\n' \
	"$(nproc)" "$w1" "$(calc "50 / $w1")" "$w2" "$(calc "50 / $w2")" \
	"$(calc "$w1 / $w2")"
