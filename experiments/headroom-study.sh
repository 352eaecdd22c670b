#!/usr/bin/env bash
# Runs experiments/headroom-study.yaml across cable lengths (and speeds) and
# prints, for each, the peak headroom one lossless PG used, the headroom
# configured, and the lossless drops.
# usage: experiments/headroom-study.sh [ROCESIM]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/rocesim}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

printf '%-6s %-7s %16s %16s %15s\n' speed cable "peak headroom B" "configured B" "lossless drops"
for speed in 100Gbps 400Gbps; do
	for cable in 2m 100m 300m 1km 2km; do
		"$bin" run "$here/headroom-study.yaml" -o "$out/run" \
			--set topology.link.rate=$speed --set topology.link.cable=$cable >"$out/summary"
		peak=$(awk '/^  pfc / {print $(NF-1)}' "$out/summary")
		drops=$(awk '/^  fabric / {gsub(/\(/, "", $4); print $4}' "$out/summary")
		printf '%-6s %-7s %16s %16s %15s\n' "${speed%bps}" "$cable" "$peak" 165888 "$drops"
	done
done
