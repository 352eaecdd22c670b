#!/usr/bin/env bash
# Parallel run benchmark: one scenario on one process and under
# `mpirun -np N` (default 2), REPEATS times each (default 3): the median
# wall time of each, the speed-up, and from the last parallel run its
# windows, crossings and the share of its time spent waiting in MPI; it
# checks that the results are the same (results.json but "run"). Both
# simulate every packet (fast-forward off, as a split run does).
# usage: experiments/bench/par.sh [ROCESIM] [SCENARIO] [N] [REPEATS]
#        (make bench-par)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "${1:-build/rocesim}")
scn=$(realpath "${2:-$here/scale/fattree-1024-permutation.yaml}")
np=${3:-2}
repeats=${4:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
field() { # results.json, a python expression over j
	python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"
}

for _ in $(seq "$repeats"); do
	"$bin" run "$scn" -o "$tmp/one" --quiet --set engine.fast_forward.enabled=false
	field "$tmp/one/results.json" "j['run']['wall_s']" >>"$tmp/one.wall"
	mpirun "${root[@]}" -np "$np" "$bin" run "$scn" -o "$tmp/many" --quiet \
		--set engine.fast_forward.enabled=false
	field "$tmp/many/results.json" "j['run']['wall_s']" >>"$tmp/many.wall"
done
python3 - "$tmp/one/results.json" "$tmp/many/results.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
a.pop("run"); b.pop("run")
sys.exit(0 if a == b else "the parallel run's results differ")
PY
one=$(median <"$tmp/one.wall")
many=$(median <"$tmp/many.wall")
par="$tmp/many/results.json"
printf 'scenario     %s (%s events)\n' "$(basename "$scn" .yaml)" \
	"$(field "$par" "j['run']['events']")"
printf 'one process  %.2f s (median of %s)\n' "$one" "$repeats"
awk -v n="$np" -v a="$one" -v b="$many" 'BEGIN { printf "%-12s %.2f s: %.2fx\n", n " processes", b, a / b }'
field "$par" "'windows      %d of %.0f ns; %d crossings; %.0f%% of the wall time in MPI' % (
	j['run']['parallel']['windows'], j['run']['parallel']['lookahead_ns'],
	j['run']['parallel']['cross_messages'],
	100 * j['run']['parallel']['wait_s'] / j['run']['wall_s'])"
echo "results      the same as one process's"
