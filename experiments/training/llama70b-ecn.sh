#!/usr/bin/env bash
# PFC alone, the production ECN ladder, and the ladder `rocesim tune`
# finds, for a 70B-class model's training iteration on a 2:1
# oversubscribed fabric (experiments/training-llama70b-ecn.yaml):
#   (a) pfc-only   switch.ecn.enabled=false: no mark, DCQCN idle, PFC alone
#   (b) ladder     the scenario as it is: ECN 150 KB / 1.2 MB / 20%, DCQCN
#   (c) tuned      the kmin and kmax tune recommends to minimise the
#                  iteration time (BUDGET runs, on seed 1; pmax stays 20%)
# Each config runs on seeds 1 and 2 (the seed draws the ECMP hashes, which
# move this fabric's iteration by a few percent). Writes OUT/table.md,
# OUT/tokens.png (tokens/s per config), OUT/<config>-s1/timeline.png and
# OUT/tune/ (tune.json, the points; OUT/tune.txt its answer). About 70 s
# of one core a run, 6 + BUDGET runs: 13 minutes with the default budget.
# usage: experiments/training/llama70b-ecn.sh [OUT [ROCESIM [BUDGET]]]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-out/llama70b-ecn}
bin=${2:-build/rocesim}
budget=${3:-5}
scn="$root/experiments/training-llama70b-ecn.yaml"
mkdir -p "$out"

run() { # config name, then --set options; seed 1 (with its pictures) and 2
	local name=$1
	shift
	nice -n 10 "$bin" run "$scn" -o "$out/$name-s1" --seed 1 --quiet "$@"
	"$bin" plot "$out/$name-s1" >/dev/null 2>&1
	nice -n 10 "$bin" run "$scn" -o "$out/$name-s2" --seed 2 --quiet \
		--set output.timeline=false "$@"
}

run pfc-only --set switch.ecn.enabled=false
run ladder
nice -n 10 "$bin" tune "$scn" --vary switch.ecn.kmin=20KB..1MB \
	--vary switch.ecn.kmax=200KB..2.4MB \
	--minimize training.iteration_time_us --seeds 1 --budget "$budget" -j 1 \
	-o "$out/tune" >"$out/tune.txt" || true
# the answer, or the scenario's own values when tune keeps them
read -r kmin kmax < <(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
r = j["recommendation"]
v = r["values"] if r.get("point") else j["current"]["values"]
print(v["switch.ecn.kmin"], v["switch.ecn.kmax"])' "$out/tune/tune.json")
run tuned --set switch.ecn.kmin="$kmin" --set switch.ecn.kmax="$kmax"

python3 - "$out" "$kmin" "$kmax" <<'PY'
import json, sys
out, kmin, kmax = sys.argv[1:4]
def size(b):  # bytes as the scenario writes them
    b = float(b)
    return "%g MB" % (b / 1e6) if b >= 1e6 else "%g KB" % (b / 1e3)
rows = [("pfc-only", "PFC alone (ECN off, DCQCN idle)"),
        ("ladder", "ECN 150 KB / 1.2 MB / 20% + DCQCN"),
        ("tuned", "tuned: ECN %s / %s / 20%% + DCQCN" % (size(kmin), size(kmax)))]
md = ["| config | tokens/s (seed 1, 2) | iteration (ms) | exposed dp (ms) "
      "| exposed pp (ms) | PAUSE frames | paused, all ports (ms) | ECN marks | CNPs |",
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
dat = []
for key, label in rows:
    runs = [json.load(open("%s/%s-s%d/results.json" % (out, key, s)))["summary"]
            for s in (1, 2)]
    mean = lambda f: sum(f(s) for s in runs) / len(runs)
    tok = [s["training"]["tokens_per_s"] for s in runs]
    md.append("| %s | %.0f (%.0f, %.0f) | %.1f | %.1f | %.1f | %.0f | %.1f | %.0f | %.0f |" % (
        label, mean(lambda s: s["training"]["tokens_per_s"]), tok[0], tok[1],
        mean(lambda s: s["training"]["iteration_time_us"]) / 1e3,
        mean(lambda s: s["training"]["exposed_comm_us"]["dp"]) / 1e3,
        mean(lambda s: s["training"]["exposed_comm_us"]["pp"]) / 1e3,
        mean(lambda s: s["pfc_pause_frames"]), mean(lambda s: s["pfc_paused_time_us"]) / 1e3,
        mean(lambda s: s["ecn_marked_packets"]), mean(lambda s: s["cnp_sent"])))
    dat.append("%s %.1f %.1f %.1f %.3f" % (
        key, sum(tok) / 2, min(tok), max(tok),
        mean(lambda s: s["training"]["iteration_time_us"]) / 1e3))
open(out + "/table.md", "w").write("\n".join(md) + "\n")
open(out + "/tokens.dat", "w").write("\n".join(dat) + "\n")
print("\n".join(md))
PY
gnuplot -e "out='$out/tokens.png'; name='training-llama70b-ecn'; data='$out/tokens.dat'" \
	"$root/plots/training-configs.gp"
