#!/bin/sh
# The DCQCN regression suite, as a CI job runs it on a pull request:
# for each scenario of this folder (incast, alltoall-oversub,
# seed-cluster-small, all reading cc_params.txt),
#   rocesim check  -> OUT/NAME.sarif (code scanning) and OUT/NAME.check.xml
#   rocesim sweep  --seeds 5 -> OUT/NAME/ (sweep.json, sweep.csv, points/)
#   rocesim compare baseline/NAME OUT/NAME -> OUT/NAME.compare.xml, OUT/NAME.md
# and OUT/summary.md, every table in one page (for a pull request comment
# or the job summary). The build's `make test` runs it too (meson test
# ci-suite), in the release and the sanitizer builds.
#
# usage: experiments/ci/run.sh [-o OUT] [--update] [ROCESIM]
#   -o OUT     where the outputs go (default out/ci)
#   --update   after the sweeps, store them as the new baseline (review and
#              commit baseline/ with the change that moves it)
#   ROCESIM    the binary (default build/rocesim)
#   JOBS=N     runs at once in each sweep (default 2)
#
# exit: 0 every scenario passed; 1 a check error, an expect: gate that
# failed in a run, or a regression against the baseline; 2 the suite could
# not run (bad input, a run that failed).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=out/ci
update=0
rocesim=build/rocesim
scenarios="incast alltoall-oversub seed-cluster-small"

while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift 2 ;;
	--update) update=1; shift ;;
	-h | --help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	*) rocesim=$1; shift ;;
	esac
done
# paths given relative to where we were called, then work from the root:
# the SARIF files name the configs relative to it, as code scanning wants
case $rocesim in /*) ;; */*) rocesim=$(pwd)/$rocesim ;; esac
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
cd "$root" || exit 2
[ -x "$rocesim" ] || command -v "$rocesim" >/dev/null || {
	echo "run.sh: no rocesim at $rocesim (build it: make build)" >&2
	exit 2
}
mkdir -p "$out" || exit 2

worst=0
fail() { # fail CODE: remember the worst exit code
	[ "$1" -gt "$worst" ] && worst=$1
	return 0
}
: >"$out/summary.md"
for s in $scenarios; do
	scn=experiments/ci/$s.yaml
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
		mkdir -p "$here/baseline/$s" &&
			cp "$out/$s/sweep.json" "$out/$s/sweep.csv" "$here/baseline/$s/" || fail 2
		echo "run.sh: $s: baseline updated (experiments/ci/baseline/$s)"
		continue
	fi
	"$rocesim" compare "experiments/ci/baseline/$s" "$out/$s" --junit "$out/$s.compare.xml" \
		--markdown "$out/$s.md"
	rc=$?
	[ $rc -le 1 ] && fail $rc || fail 2
	cat "$out/$s.md" >>"$out/summary.md" && echo >>"$out/summary.md"
done
case $worst in
0) echo "run.sh: the DCQCN regression suite passed ($scenarios)" ;;
1) echo "run.sh: the DCQCN regression suite FAILED: see above and $out/summary.md" ;;
*) echo "run.sh: the DCQCN regression suite could not run" ;;
esac
exit $worst
