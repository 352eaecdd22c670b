#!/usr/bin/env bash
# The fluid model's verdict against the packet model's behaviour on a grid
# of N:1 incasts: N senders (NS, default 2 4 8 16 32 64) at 40G and 100G
# (SPEEDS) with a feedback delay of 4 to 100 us (DELAYS, in us), the
# paper variant as experiments/fluid/validate.sh has it (MTU 1024, ECN
# 5 KB / 200 KB / 1%, PFC out of the way), CNPs as the NIC spaces them
# (np_cnp_mode: gap; MODE=window for one per aligned window).
#
# The delay is made by the cables: on a star a mark's loop is three cable
# delays (bottleneck to receiver, receiver to switch, switch to sender) at
# 5 ns/m, plus a frame's serialization, which `rocesim fluid` reports.
#
# For each point: `rocesim fluid`'s verdict (converges, oscillates, unsure,
# settling) and one packet run of STOP (default 60ms) whose bottleneck
# queue, sampled every 10 us over the last two thirds, is said to
#   drain   when it is empty at 5% of the samples or more,
#   swing   when (p95 - p5) / 2 is more than half its mean,
#   settle  otherwise.
# A point agrees when the fluid model says converges and the packet model
# settles, or the fluid model says oscillates or unsure and the packet
# model drains or swings; "unsure" is never a pass, so it is counted
# apart. Then the same as a markdown table (a row per speed and N, a
# column per delay, each cell the fluid verdict / the packet behaviour)
# and the counts: the points, the agreement over all of them and over the
# points the fluid model decides, and the "converges" verdicts where the
# packet model drains or swings (the figure that must stay 0).
#
# usage: [NS=..] [DELAYS=..] [SPEEDS=..] [STOP=..] [MODE=..]
#        experiments/fluid-grid/grid.sh [ROCESIM]
set -euo pipefail
bin=${1:-build/rocesim}
ns=${NS:-2 4 8 16 32 64}
delays=${DELAYS:-4 10 25 50 100}
speeds=${SPEEDS:-40 100}
stop=${STOP:-60ms}
mode=${MODE:-gap}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cp "$bin" "$out/rocesim" # a rebuild during the grid does not disturb it
bin=$out/rocesim

scenario() { # n gbps delay_us
	# a cable of delay/3 at 5 ns/m, less a frame's serialization
	local cable
	cable=$(awk -v d="$3" -v g="$2" 'BEGIN { c = (d * 1e3 - 1106 * 8 / g) / 15;
		printf "%.0f", c < 1 ? 1 : c }')
	cat >"$out/s.yaml" <<YAML
name: fluid-grid
seed: 1
stop: $stop
topology: {kind: star, hosts: $(($1 + 1)), link: {rate: ${2}Gbps, cable: ${cable}m}}
switch:
  buffer: {size: 256MB}
  pfc: {xoff: 64MB, headroom: 1MB}
  ecn: {kmin: 5KB, kmax: 200KB, pmax: 1%}
nic: {mtu: 1024, cc: dcqcn, dcqcn: {variant: paper, np_cnp_mode: $mode}}
workload: {kind: incast, senders: $1, size: 100GB}
output: {sample: 10us, timeseries: samples}
YAML
}

# the packet model's behaviour at port $1: "verdict mean_KB zero% swing%"
# (a sample without a row is an empty queue: timeseries: samples writes
# the queues that hold something)
packet() {
	awk -F, -v port="$1" -v stop="$stop" '
		BEGIN { t = stop + 0; if (stop ~ /ms$/) t *= 1000; n = int(t / 10 + 0.5) }
		NR > 1 && $2 == port { q[int($1 / 10 + 0.5)] += $4 }
		END { for (i = int(n / 3) + 1; i <= n; i++) print q[i] + 0 }' \
		"$out/run/timeseries.csv" | sort -n |
		awk '{ v[m++] = $1; s += $1; z += ($1 == 0) }
		END {
			mean = s / m; lo = v[int(m * 0.05)]; hi = v[int(m * 0.95) - 1]
			swing = mean > 0 ? (hi - lo) / 2 / mean : 0
			verdict = z / m >= 0.05 ? "drains" : swing > 0.5 ? "swings" : "settles"
			printf "%s %.1f %.0f %.0f", verdict, mean / 1e3, 100 * z / m, 100 * swing
		}'
}

printf '%-5s %3s %6s %7s  %-11s %9s  %-8s %9s %6s %6s  %s\n' speed N delay "p*" fluid "fluid KB" \
	packet "packet KB" "empty" swing agree
total=0 agree=0 unsure=0 bad=0
declare -A cell
for gbps in $speeds; do
	for n in $ns; do
		for d in $delays; do
			scenario "$n" "$gbps" "$d"
			fl=$("$bin" fluid "$out/s.yaml" --json | tr -d ' \n')
			verdict=$(sed -n 's/.*"verdict":"\([a-z]*\)".*/\1/p' <<<"$fl")
			fq=$(sed -n 's/.*"settled":{"queue_bytes":\([0-9.e+-]*\).*/\1/p' <<<"$fl")
			fp=$(sed -n 's/.*"marking_probability":\([0-9.e+-]*\).*/\1/p' <<<"$fl")
			fd=$(sed -n 's/.*"feedback_delay_us":\([0-9.e+-]*\).*/\1/p' <<<"$fl")
			"$bin" run "$out/s.yaml" -o "$out/run" --quiet
			read -r pv pq pz ps <<<"$(packet "sw0:h$n")"
			total=$((total + 1))
			case "$verdict/$pv" in
			converges/settles | oscillates/drains | oscillates/swings)
				ok=yes agree=$((agree + 1)) ;;
			unsure/*) ok=unsure unsure=$((unsure + 1)) ;;
			converges/*) ok=NO bad=$((bad + 1)) ;;
			*) ok=no ;;
			esac
			cell[$gbps/$n/$d]="$verdict / $pv"
			awk -v g="$gbps" -v n="$n" -v d="$fd" -v v="$verdict" -v fq="$fq" -v fp="${fp:-0}" \
				-v pv="$pv" -v pq="$pq" -v pz="$pz" -v ps="$ps" -v ok="$ok" \
				'BEGIN { printf "%-5s %3d %5.1fu %6.3f%%  %-11s %9.1f  %-8s %9.1f %5d%% %5d%%  %s\n",
					g "G", n, d, 100 * fp, v, fq / 1e3, pv, pq, pz, ps, ok }'
		done
	done
done
echo
printf '| speed | N |'
for d in $delays; do printf ' %s us |' "$d"; done
printf '\n|---|---|'
for d in $delays; do printf -- '---|'; done
echo
for gbps in $speeds; do
	for n in $ns; do
		printf '| %sG | %s |' "$gbps" "$n"
		for d in $delays; do printf ' %s |' "${cell[$gbps/$n/$d]}"; done
		echo
	done
done
echo
decided=$((total - unsure))
echo "points: $total; agree: $agree ($((100 * agree / total))%); unsure: $unsure;" \
	"agree where the fluid model decides: $agree of $decided" \
	"($((decided ? 100 * agree / decided : 0))%);" \
	"converges where the packet model drains or swings: $bad"
