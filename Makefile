# The two commands users need, on a fresh Debian 12 machine:
#   make run    set up, build (release) and run the default scenario
#   make test   set up, build and run the whole test suite (with the DCQCN
#               regression suite of experiments/ci), then again under
#               AddressSanitizer + UndefinedBehaviorSanitizer
# and, apart from them, `make fuzz [FUZZ_TIME=s] [FUZZ_KEEP=1]`: the
# libFuzzer harnesses (needs clang and llvm-14), FUZZ_TIME seconds each,
# from the last corpus with FUZZ_KEEP=1 (tests/fuzz/run.sh).
# Set-up installs the missing Debian packages when run as root, and
# otherwise prints the one apt-get line to run.

# libopenmpi-dev and openmpi-bin: `mpirun rocesim sweep` and its tests; the
# build works without them (meson -Dmpi=auto leaves MPI out).
PACKAGES = meson ninja-build pkg-config gcc libc6-dev libgsl-dev libcyaml-dev \
	libyaml-dev libjansson-dev libprotobuf-c-dev protobuf-c-compiler libcriterion-dev \
	gnuplot-nox libopenmpi-dev openmpi-bin
# clang-format: the suite's check of the layout (tests/format.sh), installed
# by `make test` only
TEST_PACKAGES = clang-format
SCENARIO ?= experiments/seed-cluster.yaml
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_TIME ?= 60
FUZZ_OUT ?= build-fuzz

.PHONY: run test deps build build-asan test-release test-asan bench bench-callgrind bench-scale bench-par stress-mpi fuzz clean

# the program alone: the test programs are built by `make test`
run: deps $(BUILD)/build.ninja
	ninja -C $(BUILD) rocesim
	./$(BUILD)/rocesim run $(SCENARIO)

test: test-release test-asan
test test-release test-asan: EXTRA_PACKAGES = $(TEST_PACKAGES)

deps:
	@missing=""; \
	for p in $(PACKAGES) $(EXTRA_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' \
			|| missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "installing:$$missing"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
				apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
		else \
			echo "missing Debian packages; run:"; \
			echo "  sudo apt-get install -y$$missing"; \
			exit 1; \
		fi; \
	fi

$(BUILD)/build.ninja: | deps
	meson setup $(BUILD) --buildtype=release

$(ASAN_BUILD)/build.ninja: | deps
	meson setup $(ASAN_BUILD) --buildtype=debugoptimized -Db_sanitize=address,undefined \
		-Db_lundef=false -Db_lto=false

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

build-asan: deps $(ASAN_BUILD)/build.ninja
	ninja -C $(ASAN_BUILD)

# --verbose shows each Criterion binary's "Synthesis:" line
test-release: build
	meson test -C $(BUILD) --verbose --num-processes 2

test-asan: build-asan
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
		meson test -C $(ASAN_BUILD) --verbose --num-processes 2 --timeout-multiplier 3

bench: build
	experiments/bench/run.sh $(BUILD)/rocesim

# instructions per data-packet hop under callgrind (needs valgrind)
bench-callgrind: build
	experiments/bench/callgrind.sh $(BUILD)/rocesim

# the 1024-, 8192- and 65,536-host fat-tree runs, the 128-GPU rail and the
# 1,024-GPU GPT-175B iteration (fast-forward on): minutes each
bench-scale: build
	for s in experiments/bench/scale/*.yaml experiments/training-gpt13b.yaml \
		experiments/training-gpt175b.yaml; do \
		./$(BUILD)/rocesim run $$s -o out/$$(basename $$s .yaml) --progress || exit 1; \
	done
	# the training iterations both ways (the suite's both-ways test leaves
	# them; GPT-175B's packet-by-packet run is the longest of all)
	for s in experiments/training-gpt13b.yaml experiments/training-llama70b-ecn.yaml \
		experiments/training-gpt175b.yaml; do \
		./$(BUILD)/rocesim run $$s -o out/$$(basename $$s .yaml)-verify --verify-fast-forward || exit 1; \
	done

# one fabric on one process and on mpirun -np 2: the speed-up (NP=n)
NP ?= 2
bench-par: build
	experiments/bench/par.sh $(BUILD)/rocesim experiments/bench/scale/fattree-1024-permutation.yaml $(NP)

# not part of `make test`: the MPI tests STRESS_COPIES times at once, with
# other MPI programs starting beside them (tests/mpi_stress.sh)
STRESS_COPIES ?= 20
stress-mpi: build
	tests/mpi_stress.sh $(BUILD) $(STRESS_COPIES)

# not part of `make test`: each harness fuzzed FUZZ_TIME s on a copy of its
# seeds in FUZZ_OUT; prints runs, CPU seconds, findings and reader coverage
fuzz:
	FUZZ_TIME=$(FUZZ_TIME) FUZZ_OUT=$(FUZZ_OUT) tests/fuzz/run.sh

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_OUT)
