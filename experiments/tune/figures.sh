#!/usr/bin/env bash
# The figures that the recipes of experiments/tune/ (their comments) and the
# docs/tune.md gives, measured again: each recipe's command is
# run as written there and every figure quoted is compared with what it
# gives now. Prints one line per figure; exits 1 when one no longer holds
# (then correct the comment and docs/tune.md with the new figure), 2 when a
# run fails. About 5 minutes on 2 cores.
# usage: experiments/tune/figures.sh [ROCESIM]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$(cd "$(dirname "${1:-$root/build/rocesim}")" && pwd)/$(basename "${1:-rocesim}")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$root"

tune() { # NAME ARGS...: rocesim tune ARGS -o $out/NAME, its stdout in $out/NAME.txt
	local name=$1
	shift
	"$bin" tune "$@" -o "$out/$name" >"$out/$name.txt" 2>"$out/$name.err" || {
		local rc=$?
		[ "$rc" -eq 1 ] || { cat "$out/$name.err" >&2; exit 2; }
	}
}

# The headroom recipe (its comment and docs/tune.md's example output).
tune hr experiments/tune/headroom-per-cable.yaml \
	--vary switch.pfc.headroom=1B..1MB --minimize switch.pfc.headroom \
	--subject-to 'lossless_drops == 0' -j 1
"$bin" run experiments/tune/headroom-per-cable.yaml --set switch.pfc.headroom=141371 \
	-o "$out/below" --quiet
# The ECN recipe.
tune ecn experiments/tune/ecn-incast.yaml \
	--vary switch.ecn.kmin=10KB..1MB --vary switch.ecn.kmax=100KB..4MB \
	--minimize fct_us.max --subject-to 'pfc_pause_frames == 0' --budget 36
# The DCQCN recipe.
tune dcqcn experiments/tune/dcqcn-allreduce.yaml \
	--vary nic.dcqcn.rp_ai_rate=1..400 --vary nic.dcqcn.rp_hai_rate=10..2000 \
	--vary nic.dcqcn.rp_gd=4..15 --minimize collective.completion_time_us \
	--subject-to 'pfc_pause_frames == 0' --budget 60 -j 2
# The seed cluster's ECN thresholds (docs/tune.md: keys without effect).
tune flat experiments/seed-cluster.yaml --set workload.size=16MB \
	--vary switch.ecn.kmin=10KB..1MB --vary switch.ecn.kmax=100KB..4MB \
	--minimize collective.completion_time_us --subject-to 'pfc_pause_frames == 0' \
	--budget 10 -j 2
# The headroom per cable (docs/tune.md's table).
"$here/headroom-per-cable.sh" "$bin" >"$out/cables.txt"

python3 - "$out" <<'PY'
import csv, json, sys

out = sys.argv[1]
bad = 0


def same(what, got, want):
    global bad
    ok = got == want
    bad += not ok
    print(f"{'ok    ' if ok else 'FAILED'} {what}: {got!r}" + ("" if ok else f", the text says {want!r}"))


def load(name):
    j = json.load(open(f"{out}/{name}/tune.json"))
    rows = list(csv.DictReader(open(f"{out}/{name}/tune.csv")))
    return j, rows


def point_rows(rows, pid):
    return [r for r in rows if r["id"].startswith(pid + "-")]


def us(v):  # "4,566" as the comments write microseconds
    return f"{v:,.0f}"


# headroom-per-cable.yaml: 141,372 B at 2 km, 21 runs, the byte below drops,
# check's worst case 287,834 B (HEADROOM_SHORT)
j, rows = load("hr")
rec = j["recommendation"]
same("headroom: answer (B)", rec["values"]["switch.pfc.headroom"], 141372)
same("headroom: runs", j["runs"], 21)
same("headroom: the scenario's own value (B)", j["current"]["values"]["switch.pfc.headroom"], 165888)
below = json.load(open(f"{out}/below/results.json"))["summary"]["lossless_drops"]
same("headroom: the byte below drops", below > 0, True)
same("headroom: check", [f["code"] for f in rec["check"]], ["HEADROOM_SHORT"])
same("headroom: check's worst case", "needs 287834 B" in open(f"{out}/hr.txt").read(), True)

# ecn-incast.yaml
j, rows = load("ecn")
rec, cur = j["recommendation"], j["current"]
same("ecn: seed-dependent", j["seed_dependent"], True)
same("ecn: runs", j["runs"], 36)
same("ecn: points run", sum(p["runs"] > 0 for p in j["points"]), 12)
same("ecn: points refused", sum(p["state"] == "refused" for p in j["points"]), 2)
same("ecn: PFC silent on every run", {r["pfc_pause_frames"] for r in rows if r["status"] == "ok"}, {"0"})
seeds = [float(r["fct_us.max"]) for r in point_rows(rows, cur["id"])]
same("ecn: the scenario's own, seeds 1-3 (us)", [us(min(seeds)), us(max(seeds))], ["6,283", "6,468"])
same("ecn: the scenario's own, mean (us)", us(cur["metrics"]["fct_us.max"]), "6,380")
same("ecn: answer", rec["values"], {"switch.ecn.kmin": 1000000, "switch.ecn.kmax": 4000000})
best = next(p for p in j["points"] if p["id"] == rec["point"])
same("ecn: answer, mean (us)", us(best["metrics"]["fct_us.max"]), "5,629")
g = rec["gain"]["fct_us.max"]
same("ecn: gain", f"{g['percent']:.1f}%", "-11.8%")
same("ecn: 95% interval (us)", [us(g["ci95_low"]), us(g["ci95_high"])], ["-1,117", "-386"])
same("ecn: at a range's end", rec["at_range_end"], ["switch.ecn.kmin", "switch.ecn.kmax"])
same("ecn: check", [f["code"] for f in rec["check"]], ["THRESHOLD_ORDER"])

# dcqcn-allreduce.yaml
j, rows = load("dcqcn")
rec, cur = j["recommendation"], j["current"]
same("dcqcn: seed-dependent", j["seed_dependent"], True)
same("dcqcn: runs", j["runs"], 60)
same("dcqcn: points", j["points_evaluated"], 20)
own = point_rows(rows, cur["id"])
seeds = [float(r["collective.completion_time_us"]) for r in own]
same("dcqcn: the mlx5 defaults", cur["values"],
     {"nic.dcqcn.rp_ai_rate": 5, "nic.dcqcn.rp_hai_rate": 50, "nic.dcqcn.rp_gd": 11})
same("dcqcn: the defaults on seed 1 (us)", us(seeds[0]), "4,566")
same("dcqcn: the defaults, seeds 1-3 (us)", [us(min(seeds)), us(max(seeds))], ["4,384", "6,014"])
same("dcqcn: the defaults, mean (us)", us(cur["metrics"]["collective.completion_time_us"]), "4,988")
same("dcqcn: no effect", rec["no_effect"], ["nic.dcqcn.rp_ai_rate", "nic.dcqcn.rp_hai_rate"])
same("dcqcn: keep the current values", rec["keep"], True)
gd = lambda v: [r for r in rows if r["nic.dcqcn.rp_gd"] == v and r["status"] == "ok"]
gd4 = [r for r in gd("4") if r["nic.dcqcn.rp_ai_rate"] == "5" and r["nic.dcqcn.rp_hai_rate"] == "50"]
same("dcqcn: rp_gd 4 alone, mean (us)", us(sum(float(r["collective.completion_time_us"]) for r in gd4) / len(gd4)), "6,242")
paused = [int(r["pfc_pause_frames"]) for r in gd("15")]
same("dcqcn: rp_gd 15 pauses (frames)", [min(paused), max(paused)], [44, 149])
fast = min(float(r["collective.completion_time_us"]) for r in gd("15") if r["seed"] == "1")
same("dcqcn: rp_gd 15 on seed 1 (us)", us(fast), "4,100")

# seed-cluster.yaml at 16 MB: neither threshold moves anything
j, rows = load("flat")
same("seed cluster: no effect", j["recommendation"]["no_effect"], ["switch.ecn.kmin", "switch.ecn.kmax"])
same("seed cluster: keep the current values", j["recommendation"]["keep"], True)
same("seed cluster: runs", j["runs"], 9)
same("seed cluster: time (us)", f"{j['current']['metrics']['collective.completion_time_us']:.3f}", "1290.588")

# headroom-per-cable.sh: docs/tune.md's table
want = {"2m": (16632, 38084), "100m": (24948, 50334), "300m": (37422, 75334),
        "1km": (79002, 162834), "2km": (141372, 287834), "5km": (328482, 662834),
        "10km": (640332, 1287834)}
runs = []
for line in open(f"{out}/cables.txt").read().splitlines()[1:]:
    cable, tuned, n, need = line.split()
    same(f"cable {cable}: tuned and check's worst case (B)", (int(tuned), int(need)), want[cable])
    runs.append(int(n))
same("cables: runs", [min(runs), max(runs)], [21, 26])
print(f"{bad} figure{'s' if bad != 1 else ''} no longer hold" if bad else "every figure holds")
sys.exit(1 if bad else 0)
PY
