#!/usr/bin/env bash
# Runs experiments/headroom-study.yaml across cable lengths (and speeds) and
# prints, for each, the peak headroom one lossless PG used, the headroom
# configured, the lossless drops, the packets resent and the completion time.
# usage: experiments/headroom-study.sh [ROCESIM]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/rocesim}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

printf '%-6s %-7s %16s %13s %15s %12s %12s\n' speed cable "peak headroom B" "configured B" \
	"lossless drops" "resent pkts" "FCT max us"
for speed in 100Gbps 400Gbps; do
	for cable in 2m 100m 300m 1km 2km; do
		"$bin" run "$here/headroom-study.yaml" -o "$out/run" \
			--set topology.link.rate=$speed --set topology.link.cable=$cable >"$out/summary"
		peak=$(awk '/^  pfc / {print $(NF-1)}' "$out/summary")
		drops=$(awk '/^  fabric / {gsub(/\(/, "", $4); print $4}' "$out/summary")
		resent=$(awk '/^  transport / {print $(NF-2)}' "$out/summary")
		fct=$(awk '/^  flows / {print $(NF-1)}' "$out/summary")
		printf '%-6s %-7s %16s %13s %15s %12s %12s\n' "${speed%bps}" "$cable" "$peak" 165888 \
			"$drops" "$resent" "$fct"
	done
done
