#!/bin/bash
# Build every libFuzzer harness (tests/fuzz_*.c) with clang, fuzz each in
# turn for FUZZ_TIME seconds on a copy of its seeds, then measure the line
# coverage of its reader by replaying the final corpus through a second,
# coverage-instrumented build (llvm-profdata, llvm-cov). Prints per harness
# the runs, edges and features, the CPU seconds (user + system) the fuzzing
# took, the findings (crash, leak, timeout and out-of-memory files) and the
# coverage, then the coverage of every reader under all the harnesses
# together.
#
#   tests/fuzz/run.sh [HARNESS...]          (make fuzz [FUZZ_TIME=s])
#
#   FUZZ_TIME   seconds of fuzzing per harness (default 60); 0 only runs the
#               seeds, under the sanitizers and for coverage: what they reach
#               without fuzzing
#   FUZZ_OUT    scratch folder (default build-fuzz): binaries, corpora,
#               findings, logs, coverage reports
#   FUZZ_KEEP   1: start from the corpus already in FUZZ_OUT/HARNESS/corpus
#               (what earlier runs found) plus the seeds, not from a fresh
#               copy of the seeds; FUZZ_TIME=0 FUZZ_KEEP=1 then measures the
#               coverage of several earlier runs' corpora together
#   FUZZ_TIMEOUT  seconds one input may take before it is a timeout finding
#               (default 10, and 60 for the scenario harness: its inputs are
#               whole fabrics, and the deadlock analysis of a 2,000-host
#               All-to-All takes a second in a release build, ten under the
#               sanitizers on a shared core)
#   CLANG, LLVM_PROFDATA, LLVM_COV   the tools (default clang, llvm-profdata-14,
#               llvm-cov-14)
#
# The seeds are the harness's seed folders and, for the inputs listed in
# tests/fuzz/HARNESS/failalloc, one copy per allocation with a trailer that
# makes that allocation fail (tests/fuzz/oom.h): every harness is built with
# tests/failalloc.c, so out-of-memory paths are fuzzed too.
#
# One harness runs at a time, in this process (no -jobs, no -fork). Exit
# status: 0, 1 when a harness found something (its files are listed and
# kept under FUZZ_OUT/HARNESS/findings/), 2 when a build fails.
set -u

cd "$(dirname "$0")/../.." || exit 2
SRC=$(pwd)
FUZZ_TIME=${FUZZ_TIME:-60}
OUT=${FUZZ_OUT:-build-fuzz}
CLANG=${CLANG:-clang}
LLVM_PROFDATA=${LLVM_PROFDATA:-llvm-profdata-14}
LLVM_COV=${LLVM_COV:-llvm-cov-14}
ALL="sonic mlnx cc_params pod topofile scenario hpcc simai chakra compare study measured"
# every library below the studies: each harness links them all, so a file
# moved between readers needs no change here; a harness of a reader of the
# studies (sim/study) or the plots (sim/plot) adds the few files it needs
LIBSRC=$(printf '%s ' sim/engine/*.c topologies/*.c models/*.c sim/readers/*.c sim/config/*.c)
LIBS="-lcyaml -lyaml -lgsl -lgslcblas -ljansson -lprotobuf-c -lm"
# allocation failures (tests/fuzz/oom.h): every allocation of the sources
# above (and of the harness) goes through tests/failalloc.c
FAILALLOC_WRAP="-Wl,--wrap=malloc,--wrap=calloc,--wrap=aligned_alloc,--wrap=realloc,--wrap=strdup,--wrap=strndup,--wrap=mmap64"
SONIC_READERS=$(printf '%s ' sim/readers/sonic*.c)
MLNX_READERS="sim/readers/mlnx.c sim/readers/cc_params.c"
POD_READERS=$(printf '%s ' sim/readers/pod*.c)
TOPO_READERS="sim/readers/topofile.c topologies/topo_sonic.c"
SCENARIO_READERS=$(printf '%s ' sim/config/scenario*.c sim/readers/cdf.c sim/readers/nccl_hca.c)
HPCC_READERS="sim/readers/topo_hpcc.c sim/readers/hpcc_flows.c"
SIMAI_READERS="sim/readers/simai.c"
CHAKRA_READERS="sim/readers/chakra.c sim/readers/chakra_dir.c"
COMPARE_READERS="sim/study/compare_load.c"
STUDY_READERS="sim/study/sweep_spec.c sim/plot/plot_tune_read.c"
MEASURED_READERS="sim/readers/measured.c sim/readers/ethtool.c sim/readers/hw_counters.c
	sim/readers/pfcstat.c sim/readers/nccl_tests_out.c sim/readers/nccl_inspector.c"
ALL_READERS="$SONIC_READERS $MLNX_READERS $POD_READERS $TOPO_READERS sim/readers/ydoc.c $SCENARIO_READERS $HPCC_READERS $SIMAI_READERS $CHAKRA_READERS $COMPARE_READERS $STUDY_READERS $MEASURED_READERS"

KEEP=${FUZZ_KEEP:-0}
KEEP_NOTE=""
[ "$KEEP" = 1 ] && KEEP_NOTE=", kept corpora"
case $FUZZ_TIME in
'' | *[!0-9]*) echo "run.sh: FUZZ_TIME must be whole seconds, not '$FUZZ_TIME'" >&2; exit 2 ;;
esac
for tool in "$CLANG" "$LLVM_PROFDATA" "$LLVM_COV" protoc-c; do
	command -v "$tool" >/dev/null || { echo "run.sh: $tool not found" >&2; exit 2; }
done

# The harness source, seed folders, reader files, extra libFuzzer options
# and replay-only inputs (a folder run through the coverage build alone:
# too slow to fuzz under ASan) of harness $1.
harness() {
	EXTRA=""
	REPLAY=""
	SOURCES="tests/fuzz_$1.c $LIBSRC tests/failalloc.c"
	case $1 in
	sonic)
		SEEDS="tests/fuzz/sonic/seeds tests/sonic experiments/configs/*.json"
		READERS=$SONIC_READERS
		EXTRA="-max_len=65536" ;;
	mlnx)
		SEEDS="tests/fuzz/mlnx/seeds tests/mlnx experiments/configs/*.txt"
		READERS=$MLNX_READERS ;;
	cc_params)
		SEEDS="tests/fuzz/cc_params/seeds"
		READERS=$MLNX_READERS ;;
	pod)
		SEEDS="tests/fuzz/pod/seeds tests/pod experiments/configs/pod*.yaml"
		READERS=$POD_READERS ;;
	topofile)
		SEEDS="tests/fuzz/topofile/seeds topologies/*.yaml tests/topo_*.yaml"
		READERS=$TOPO_READERS
		# 65536 links, more ports than a node may have: a 1 MB file the
		# harness writes (#ports65536, with FUZZ_SLOW set), too slow to
		# fuzz, so replayed only
		REPLAY="tests/fuzz/topofile/replay" ;;
	scenario)
		SEEDS="tests/fuzz/scenario/seeds experiments/*.yaml tests/bad tests/good tests/check"
		READERS=$SCENARIO_READERS ;;
	hpcc)
		SEEDS="tests/fuzz/hpcc/seeds tests/hpcc tests/fuzz/configs/hpcc experiments/traffic/hpcc-fat.txt"
		READERS=$HPCC_READERS ;;
	simai)
		SEEDS="tests/fuzz/simai/seeds tests/simai"
		READERS=$SIMAI_READERS ;;
	chakra)
		SEEDS="tests/fuzz/chakra/seeds tests/chakra/all_reduce_4npus tests/chakra/msccl_ring_8npus"
		READERS=$CHAKRA_READERS ;;
	compare)
		SEEDS="tests/fuzz/compare/seeds"
		READERS=$COMPARE_READERS
		# the reader and what it calls of the study's files: the sides'
		# comparison, sweep.csv's flattening
		SOURCES="$SOURCES sim/study/compare_load.c sim/study/compare_stats.c sim/study/compare_text.c
			sim/study/sweep_tables.c sim/study/sweep_spec.c sim/study/sweep_axes.c" ;;
	study)
		SEEDS="tests/fuzz/study/seeds"
		READERS=$STUDY_READERS
		SOURCES="$SOURCES sim/study/sweep_spec.c sim/study/sweep_axes.c sim/plot/plot_tune_read.c
			sim/plot/plot_data.c" ;;
	measured)
		SEEDS="tests/fuzz/measured/seeds tests/measured/lab"
		READERS=$MEASURED_READERS ;;
	*)
		echo "run.sh: no harness '$1' (harnesses: $ALL)" >&2
		exit 2 ;;
	esac
}

# Copy the seeds of the current harness into $dir/corpus, named by content
# as libFuzzer names its own, then add the allocation-failure seeds: for
# each input listed in tests/fuzz/HARNESS/failalloc (paths from the source
# root, "#" comments), one copy per allocation the harness's reader calls
# make on it, with the trailer "#failalloc N" (tests/fuzz/oom.h) that fails
# the N-th. The harness itself counts them (FUZZ_ALLOC_COUNT).
seed() {
	local list="tests/fuzz/$h/failalloc" f n i base
	# shellcheck disable=SC2086
	find $SEEDS -maxdepth 1 -type f ! -name '*.dict' 2>/dev/null | while read -r f; do
		cp "$f" "$dir/corpus/$(sha1sum <"$f" | cut -c1-40)"
	done
	[ -f "$list" ] || return 0
	# shellcheck disable=SC2046
	FUZZ_ALLOC_COUNT=1 LLVM_PROFILE_FILE=/dev/null "$dir/cov_$h" -runs=0 \
		$(sed 's/#.*//' "$list") 2>&1 |
		awk '/^Running: / { f = $2 } /^fuzz: allocations / { print f, $3 }' >"$dir/allocations.txt"
	while read -r f n; do
		base="$dir/corpus/failalloc-$(sha1sum <"$f" | cut -c1-12)"
		for ((i = 1; i <= n; i++)); do
			{ cat "$f" && printf '\n#failalloc %d' "$i"; } >"$base-$i"
		done
	done <"$dir/allocations.txt"
}

# Build $2 from the current harness's sources with flags $3, unless it is
# newer than every source and header.
build() {
	local name=$1 bin=$2 flags=$3 f stale=0
	if [ -x "$bin" ]; then
		for f in $SOURCES sim/*/*.h models/*.h topologies/*.h tests/*.h tests/fuzz/*.h \
			tests/fuzz/run.sh; do
			[ "$f" -nt "$bin" ] && stale=1 && break
		done
		[ $stale = 0 ] && return 0
	fi
	# shellcheck disable=SC2086
	if ! "$CLANG" $flags -std=c11 -w -D_POSIX_C_SOURCE=200809L -DROCESIM_VERSION='"fuzz"' \
		-I. -I"$OUT/gen" $SOURCES $LIBS $FAILALLOC_WRAP -o "$bin" 2>"$bin.log"; then
		echo "run.sh: building $name failed:" >&2
		cat "$bin.log" >&2
		exit 2
	fi
}

# Line coverage of files $3... in the report of binaries $1 (-object list) and profile $2,
# as "file covered total" lines.
coverage() {
	local objects=$1 profile=$2
	shift 2
	# shellcheck disable=SC2086
	"$LLVM_COV" report $objects -instr-profile="$profile" -show-region-summary=false \
		-show-branch-summary=false -show-functions=false "$@" 2>/dev/null |
		awk -v src="$SRC/" '$1 ~ /\.c$/ { f = $1; sub(src, "", f); print f, $5 - $6, $5 }'
}

# The crash, leak, timeout and out-of-memory files of the harness in $dir.
found() {
	find "$dir/findings" -type f \( -name 'crash-*' -o -name 'leak-*' -o \
		-name 'timeout-*' -o -name 'oom-*' \)
}

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
export TMPDIR="$OUT/tmp" ROCESIM_SRC="$SRC"
rm -rf "$TMPDIR" && mkdir -p "$TMPDIR" # what a crashed harness left behind
unset ROCESIM_FAIL_ALLOC # failalloc.c's own switch: only the trailers fail allocations
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

# the Chakra reader's schema, compiled as meson compiles it (into
# $OUT/gen/sim/readers, found through -I$OUT/gen), again only when the
# .proto changed: every harness links every reader
GEN="$OUT/gen/sim/readers"
mkdir -p "$GEN"
if [ ! -f "$GEN/chakra_et.pb-c.c" ] || [ sim/readers/chakra_et.proto -nt "$GEN/chakra_et.pb-c.c" ]; then
	protoc-c --proto_path=sim/readers --c_out="$GEN" sim/readers/chakra_et.proto || exit 2
fi
LIBSRC="$LIBSRC $GEN/chakra_et.pb-c.c"

HARNESSES=${*:-$ALL}
FOUND=0
SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"
OBJECTS=""
PROFILES=""
printf '%-10s %10s %7s %8s %7s %7s %8s  %s\n' harness runs edges features cpu_s corpus findings \
	"line coverage of its reader (FUZZ_TIME=${FUZZ_TIME}s${KEEP_NOTE})" | tee -a "$SUMMARY"
for h in $HARNESSES; do
	harness "$h"
	dir="$OUT/$h"
	mkdir -p "$dir/findings" "$dir/profiles"
	build "$h" "$dir/fuzz_$h" "-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
	build "$h" "$dir/cov_$h" "-g -O0 -fsanitize=fuzzer -fprofile-instr-generate -fcoverage-mapping"

	# the seeds, into a fresh corpus unless FUZZ_KEEP=1 keeps the last one
	rm -rf "$dir/profiles"/* "$dir/findings"/*
	[ "$KEEP" = 1 ] || rm -rf "$dir/corpus"
	mkdir -p "$dir/corpus"
	seed

	dict=""
	[ -f "tests/fuzz/$h.dict" ] && dict="-dict=tests/fuzz/$h.dict"
	# fuzz (FUZZ_TIME=0: only run the corpus once, under the sanitizers);
	# bash's time gives the user and system seconds of the fuzzing process
	limit="-max_total_time=$FUZZ_TIME"
	[ "$FUZZ_TIME" = 0 ] && limit="-runs=0"
	TIMEFORMAT='%U %S'
	# shellcheck disable=SC2086
	tmo=${FUZZ_TIMEOUT:-10}
	[ "$h" = scenario ] && tmo=${FUZZ_TIMEOUT:-60}
	{ time "$dir/fuzz_$h" "$limit" -timeout="$tmo" -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$dir/findings/" $dict $EXTRA "$dir/corpus" >"$dir/fuzz.log" 2>&1; } \
		2>"$dir/cpu.txt"
	status=$?
	cpu=$(awk '$1 ~ /^[0-9.]+$/ { printf "%.0f", $1 + $2 }' "$dir/cpu.txt")
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/fuzz.log" | tail -1)
	last=$(grep -E '^#[0-9]+.* (cov|INITED): ' "$dir/fuzz.log" | tail -1)
	edges=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	features=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	corpus=$(find "$dir/corpus" -type f | wc -l)
	if [ $status -ne 0 ] && [ -z "$(find "$dir/findings" -type f)" ]; then
		echo "run.sh: fuzz_$h exited with $status and left no file: see $dir/fuzz.log" >&2
		FOUND=1
	fi
	# replay the corpus (seeds and what fuzzing added) through the coverage
	# build: what fails there (a seed, with FUZZ_TIME=0) is a finding too
	# shellcheck disable=SC2086
	if ! FUZZ_SLOW=1 LLVM_PROFILE_FILE="$dir/profiles/%p.profraw" "$dir/cov_$h" -runs=0 \
		-timeout=60 -rss_limit_mb=4096 -artifact_prefix="$dir/findings/" "$dir/corpus" \
		$REPLAY >"$dir/replay.log" 2>&1; then
		echo "run.sh: replaying the corpus of $h failed: see $dir/replay.log" >&2
		FOUND=1
	fi
	findings=$(found | wc -l)
	[ "$findings" -gt 0 ] && FOUND=1
	"$LLVM_PROFDATA" merge -sparse "$dir/profiles"/*.profraw -o "$dir/cov.profdata"
	# shellcheck disable=SC2086
	"$LLVM_COV" show "$dir/cov_$h" -instr-profile="$dir/cov.profdata" $READERS \
		>"$dir/coverage.txt" 2>/dev/null
	# shellcheck disable=SC2086
	cov=$(coverage "$dir/cov_$h" "$dir/cov.profdata" $READERS |
		awk '{ printf "%s%s %.1f%% (%d/%d)", (NR > 1 ? ", " : ""), $1, 100 * $2 / $3, $2, $3 }')
	printf '%-10s %10s %7s %8s %7s %7s %8s  %s\n' "$h" "${runs:-0}" "${edges:--}" \
		"${features:--}" "${cpu:-0}" "$corpus" "$findings" "$cov" | tee -a "$SUMMARY"
	found | sed 's/^/    /'
	OBJECTS="$OBJECTS -object $dir/cov_$h"
	PROFILES="$PROFILES $dir/cov.profdata"
done

# every reader under all the harnesses run now: mlnx.c is read by three
# (mlnx, cc_params, and scenario through nic.mlnx_qos), pod.c and
# topofile.c by two
# shellcheck disable=SC2086
"$LLVM_PROFDATA" merge -sparse $PROFILES -o "$OUT/all.profdata"
echo | tee -a "$SUMMARY"
echo "line coverage under all the harnesses above:" | tee -a "$SUMMARY"
# shellcheck disable=SC2086
coverage "${OBJECTS# -object }" "$OUT/all.profdata" $ALL_READERS |
	awk '{ printf "  %-26s %6.1f%%  %4d of %4d lines\n", $1, 100 * $2 / $3, $2, $3 }' |
	tee -a "$SUMMARY"
# shellcheck disable=SC2086
"$LLVM_COV" show ${OBJECTS# -object } -instr-profile="$OUT/all.profdata" $ALL_READERS \
	>"$OUT/coverage.txt" 2>/dev/null
echo "(uncovered lines: $OUT/coverage.txt and $OUT/HARNESS/coverage.txt)"
exit $FOUND
