#!/bin/sh
# The MPI tests started many times at once, with other MPI programs
# starting beside them: each mpirun of a test has a session folder of its
# own (tests/proc.c, ts_mpirun), so none fails to make Open MPI's per-host
# folder ("mkdir ... File exists").
# usage: tests/mpi_stress.sh [BUILD] [COPIES] [FILTER]
#   BUILD   the build folder (default build); COPIES at once (default 20);
#   FILTER  the Criterion tests to run (default: a quick par test)
# Exit 0 when every copy passed, 1 otherwise (the failed copies' output
# is printed).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
copies=${2:-20}
filter=${3:-par/what_cannot_be_split_is_refused_once}
case $build in /*) ;; *) build=$root/$build ;; esac
command -v mpirun >/dev/null || { echo "mpi_stress.sh: no mpirun" >&2; exit 2; }
[ -x "$build/tests/test_par" ] || { echo "mpi_stress.sh: no $build/tests/test_par" >&2; exit 2; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
root_opt=
[ "$(id -u)" = 0 ] && root_opt=--allow-run-as-root
i=0
while [ $i -lt "$copies" ]; do
	ROCESIM_SRC=$root ROCESIM_BIN=$build/rocesim \
		"$build/tests/test_par" --filter "$filter" >"$tmp/$i.log" 2>&1 &
	# another MPI program starting at the same moment, in the default
	# session folder
	mpirun $root_opt --oversubscribe -np 2 true >/dev/null 2>&1 &
	i=$((i + 1))
done
bad=0
i=0
wait
while [ $i -lt "$copies" ]; do
	if ! grep -q "Failing: 0 | Crashing: 0" "$tmp/$i.log" || grep -q "Tested: 0" "$tmp/$i.log"; then
		echo "mpi_stress.sh: copy $i failed:"
		cat "$tmp/$i.log"
		bad=1
	fi
	i=$((i + 1))
done
[ $bad = 0 ] && echo "mpi_stress.sh: $copies copies of $filter passed"
exit $bad
