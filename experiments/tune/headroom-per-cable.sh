#!/usr/bin/env bash
# The smallest headroom per cable length: runs `rocesim tune` on
# experiments/tune/headroom-per-cable.yaml (a 2:1 incast at 100G, PFC
# alone) for each cable length and prints the answer beside what
# `rocesim check` says the worst case needs (line-rate arrival during the
# round trip, SONiC's formula).
# usage: experiments/tune/headroom-per-cable.sh [ROCESIM]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/rocesim}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

printf '%-6s %18s %6s %22s\n' cable "tuned headroom B" runs "check's worst case B"
for cable in 2m 100m 300m 1km 2km 5km 10km; do
	"$bin" tune "$here/headroom-per-cable.yaml" --set topology.link.cable=$cable \
		--vary switch.pfc.headroom=1B..4MB --minimize switch.pfc.headroom \
		--subject-to 'lossless_drops == 0' -j 1 -o "$out/$cable" --quiet
	# the answer, or the scenario's own value when tune keeps it
	read -r best runs < <(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
r = j["recommendation"]
p = r["values"] if r.get("point") else j["current"]["values"]
print(p["switch.pfc.headroom"], j["runs"])' "$out/$cable/tune.json")
	need=$("$bin" check "$here/headroom-per-cable.yaml" --set topology.link.cable=$cable \
		--set switch.pfc.headroom=4MB --json | tr -d ' \n' |
		sed -n 's/.*"headroom_needed":\([0-9]*\).*/\1/p')
	printf '%-6s %18s %6s %22s\n' "$cable" "$best" "$runs" "${need:--}"
done
