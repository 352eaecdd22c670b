#!/bin/sh
# The DCQCN regression suite, as a CI job runs it on a pull request:
# for each scenario (by default every *.yaml beside this script; here
# incast, alltoall-oversub, seed-cluster-small, all reading cc_params.txt),
#   rocesim check  -> OUT/NAME.sarif (code scanning) and OUT/NAME.check.xml
#   rocesim sweep  --seeds 5 -> OUT/NAME/ (sweep.json, sweep.csv, points/)
#   rocesim compare BASELINE/NAME OUT/NAME -> OUT/NAME.compare.xml, OUT/NAME.md
# and OUT/summary.md, every table in one page (for a pull request comment
# or the job summary). The build's `make test` runs it too (meson test
# ci-suite), in the release and the sanitizer builds.
#
# usage: run.sh [-o OUT] [-b BASELINE] [--update] [ROCESIM] [SCENARIO.yaml]...
#   -o OUT       where the outputs go (default out/ci, from where it is called)
#   -b BASELINE  the stored sweeps (default: baseline/ beside this script)
#   --update     after the sweeps, store them as the new baseline (review and
#                commit it with the change that moves it)
#   ROCESIM      the binary (default: build/rocesim of the repository, else
#                rocesim on the PATH)
#   SCENARIO     the scenarios (default: every *.yaml beside this script)
#   JOBS=N       runs at once in each sweep (default 2)
# The script works from wherever it is: copy this folder into another
# repository (with its scenarios, their configs and baseline/) and call it
# from anywhere. Paths given are taken from where it is called; the tools
# are given paths relative to the repository's root (git), so that the
# SARIF files name the configs as code scanning wants.
#
# exit: 0 every scenario passed; 1 a check error, an expect: gate that
# failed in a run, or a regression against the baseline; 2 the suite could
# not run (bad input, a run that failed).
set -u
here=$(cd "$(dirname "$0")" && pwd -P)
root=$(git -C "$here" rev-parse --show-toplevel 2>/dev/null) && root=$(cd "$root" && pwd -P) ||
	root=$here
out=out/ci
baseline=$here/baseline
update=0
rocesim=
scenarios=

while [ $# -gt 0 ]; do
	case $1 in
	-o) [ $# -ge 2 ] || { echo "run.sh: -o needs a folder" >&2; exit 2; }
		out=$2; shift 2 ;;
	-b) [ $# -ge 2 ] || { echo "run.sh: -b needs a folder" >&2; exit 2; }
		baseline=$2; shift 2 ;;
	--update) update=1; shift ;;
	-h | --help) sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	*.yaml | *.yml)
		case $1 in /*) f=$1 ;; *) f=$(pwd)/$1 ;; esac
		[ -f "$f" ] || { echo "run.sh: no scenario $1" >&2; exit 2; }
		scenarios="$scenarios $f"; shift ;;
	*) rocesim=$1; shift ;;
	esac
done
# paths given relative to where we were called
case $rocesim in "" | /*) ;; */*) rocesim=$(pwd)/$rocesim ;; esac
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
case $baseline in /*) ;; *) baseline=$(pwd)/$baseline ;; esac
if [ -z "$rocesim" ]; then
	if [ -x "$root/build/rocesim" ]; then rocesim=$root/build/rocesim; else rocesim=rocesim; fi
fi
if [ -z "$scenarios" ]; then
	for f in "$here"/*.yaml; do
		[ -f "$f" ] && scenarios="$scenarios $f"
	done
fi
[ -n "$scenarios" ] || { echo "run.sh: no scenario (*.yaml) in $here" >&2; exit 2; }
cd "$root" || exit 2
[ -x "$rocesim" ] || command -v "$rocesim" >/dev/null || {
	echo "run.sh: no rocesim at $rocesim (build it, or give its path)" >&2
	exit 2
}
mkdir -p "$out" || exit 2

worst=0
fail() { # fail CODE: remember the worst exit code
	[ "$1" -gt "$worst" ] && worst=$1
	return 0
}
names=
: >"$out/summary.md"
for f in $scenarios; do
	s=$(basename "$f" .yaml)
	s=${s%.yml}
	names="$names $s"
	scn=$f
	# under the repository's root: the path from it, as code scanning names files
	case $f in "$root"/*) scn=${f#"$root"/} ;; esac
	"$rocesim" check "$scn" --sarif "$out/$s.sarif" --junit "$out/$s.check.xml" >"$out/$s.check.txt"
	rc=$?
	[ $rc -eq 0 ] || { echo "run.sh: $s: rocesim check found errors (exit $rc):"; cat "$out/$s.check.txt"; }
	[ $rc -le 1 ] && fail $rc || fail 2
	rm -rf "${out:?}/$s"
	"$rocesim" sweep "$scn" --seeds 5 -j "${JOBS:-2}" -o "$out/$s" --quiet
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "run.sh: $s: the sweep failed (exit $rc)" >&2
		fail 2
		continue
	fi
	if grep -q ',expect-failed,' "$out/$s/sweep.csv"; then
		echo "run.sh: $s: expect: gates failed in runs" \
			"$(grep ',expect-failed,' "$out/$s/sweep.csv" | cut -d, -f1 | tr '\n' ' ')" \
			"(their stderr: $out/$s/points/ID/stderr.txt)"
		fail 1
	fi
	if [ $update -eq 1 ]; then
		mkdir -p "$baseline/$s" &&
			cp "$out/$s/sweep.json" "$out/$s/sweep.csv" "$baseline/$s/" || fail 2
		echo "run.sh: $s: baseline updated ($baseline/$s)"
		continue
	fi
	if [ ! -f "$baseline/$s/sweep.csv" ]; then
		echo "run.sh: $s: no baseline in $baseline/$s (store one: run.sh --update)" >&2
		fail 2
		continue
	fi
	"$rocesim" compare "$baseline/$s" "$out/$s" --junit "$out/$s.compare.xml" \
		--markdown "$out/$s.md"
	rc=$?
	[ $rc -le 1 ] && fail $rc || fail 2
	cat "$out/$s.md" >>"$out/summary.md" && echo >>"$out/summary.md"
done
case $worst in
0) echo "run.sh: the DCQCN regression suite passed (${names# })" ;;
1) echo "run.sh: the DCQCN regression suite FAILED: see above and $out/summary.md" ;;
*) echo "run.sh: the DCQCN regression suite could not run" ;;
esac
exit $worst
