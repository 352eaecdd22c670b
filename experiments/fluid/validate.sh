#!/usr/bin/env bash
# The packet model against the DCQCN fluid model (rocesim fluid), the
# paper variant on an N:1 incast (2 m cables, MTU 1024, ECN 5 KB / 200 KB /
# 1%, PFC out of the way): the mean bottleneck queue after the transient
# (the last two thirds of 100 ms) with CNPs one per aligned window
# (np_cnp_mode: window, as the fluid model assumes) and one at least the
# spacing after the last (gap, the NIC's behaviour), beside the fluid
# model's settled queue and its closed-form fixed point. The packet
# model's figure is the mean over SEEDS runs (default 8): one seed's queue
# moves by 5-10% from the next one's.
# usage: [SEEDS=n] experiments/fluid/validate.sh [ROCESIM]
set -euo pipefail
bin=${1:-build/rocesim}
seeds=${SEEDS:-8}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

scenario() { # n gbps mode
	cat >"$out/s.yaml" <<YAML
name: fluid-validate
seed: 1
stop: 100ms
topology: {kind: star, hosts: $(($1 + 1)), link: {rate: ${2}Gbps, cable: 2m}}
switch:
  buffer: {size: 256MB}
  pfc: {xoff: 64MB, headroom: 8MB}
  ecn: {kmin: 5KB, kmax: 200KB, pmax: 1%}
nic: {mtu: 1024, cc: dcqcn, dcqcn: {variant: paper, np_cnp_mode: $3}}
workload: {kind: incast, senders: $1, size: 10GB}
output: {sample: 10us, timeseries: samples}
YAML
}

# mean queue_bytes of port $1 over the last two thirds of timeseries.csv
# (a row every sample: output.timeseries: samples)
packet_queue() {
	awk -F, -v port="$1" 'NR > 1 && $2 == port { q[n++] = $4 }
		END { for (i = int(n / 3); i < n; i++) { s += q[i]; m++ } printf "%.0f", s / m }' \
		"$out/run/timeseries.csv"
}

# packet_queue of port $1 averaged over seeds 1..$seeds
packet_mean() {
	local s total=0
	for s in $(seq "$seeds"); do
		"$bin" run "$out/s.yaml" -o "$out/run" --seed "$s" --quiet
		total=$((total + $(packet_queue "$1")))
	done
	echo $((total / seeds))
}

printf '%-5s %3s %14s %14s %18s %18s\n' speed N "fixed point B" "fluid B" "packet window B" "packet gap B"
for gbps in 40 100; do
	for n in 2 8; do
		scenario "$n" "$gbps" window
		fluid=$("$bin" fluid "$out/s.yaml" --json | tr -d ' \n' |
			sed -n 's/.*"settled":{"queue_bytes":\([0-9.e+]*\).*/\1/p')
		fixed=$("$bin" fluid "$out/s.yaml" --json | tr -d ' \n' |
			sed -n 's/.*"fixed_point":{"queue_bytes":\([0-9.e+]*\).*/\1/p')
		win=$(packet_mean "sw0:h$n")
		scenario "$n" "$gbps" gap
		gap=$(packet_mean "sw0:h$n")
		awk -v g="$gbps" -v n="$n" -v fx="$fixed" -v fl="$fluid" -v w="$win" -v gp="$gap" \
			'BEGIN { printf "%-5s %3d %14.0f %14.0f %11.0f (%+5.1f%%) %11.0f (%+5.1f%%)\n",
				g "G", n, fx, fl, w, 100 * (w / fl - 1), gp, 100 * (gp / fl - 1) }'
	done
done
