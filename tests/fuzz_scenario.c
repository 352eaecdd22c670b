/*
 * libFuzzer harness for the scenario loader: the input is a scenario text.
 * It is loaded with scn_load_text three times: alone, with fixed --set
 * overrides, and with the override that a "#set KEY=VALUE" line of the input
 * gives (a YAML comment, so the fuzzer can steer --set paths). When a load
 * succeeds and the topology is small, the topology is built and the scenario
 * resolved against it, as `rocesim run` does before simulating. Every error
 * is formatted as the CLI would print it. Crashes, leaks and UB are the
 * findings; refusals are expected.
 *
 * Not part of the meson build (it needs clang's -fsanitize=fuzzer). From
 * the source root (topology files in the corpus are named from there):
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
 *     -D_POSIX_C_SOURCE=200809L -DROCESIM_VERSION='"fuzz"' -I. tests/fuzz_scenario.c \
 *     $(ls sim/[a-z]*.c | grep -v main.c) models/[a-z]*.c topologies/[a-z]*.c \
 *     -lcyaml -lyaml -lgsl -lgslcblas -ljansson -lm -o /tmp/fuzz_scenario
 *   mkdir -p /tmp/fuzz-corpus
 *   cp experiments/[a-z]*.yaml tests/bad/[a-z]*.yaml tests/good/[a-z]*.yaml /tmp/fuzz-corpus/
 *   /tmp/fuzz_scenario -max_total_time=600 -rss_limit_mb=2048 -timeout=10 /tmp/fuzz-corpus
 *
 * A crash leaves crash-<sha1> in the current folder; replay it with
 * `/tmp/fuzz_scenario crash-<sha1>` or `build/rocesim run crash-<sha1>`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/config/scenario.h"
#include "topologies/topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Building more than this is slow, not interesting: skip it. */
#define FUZZ_MAX_HOSTS 2000u
#define FUZZ_MAX_LINKS 20000u
#define FUZZ_MAX_FILE (1u << 20)

static uint64_t mul(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* Is building @t cheap enough for a fuzzing run? */
static int small_enough(const struct topo_spec *t)
{
	uint64_t hosts = 0, links = 0;
	struct stat st;

	switch (t->kind) {
	case TOPO_STAR:
		hosts = t->hosts;
		links = hosts;
		break;
	case TOPO_LEAF_SPINE:
		hosts = mul(t->leaves, t->hosts_per_leaf);
		links = hosts + mul(mul(t->leaves, t->spines), t->parallel);
		break;
	case TOPO_FAT_TREE:
		if (t->k > 16)
			return 0;
		hosts = mul(mul(t->k, t->k), t->k) / 4;
		links = 3 * hosts;
		break;
	case TOPO_RING:
		hosts = mul(t->switches, t->hosts_per_switch);
		links = hosts + t->switches;
		break;
	case TOPO_FILE:
		/* only small regular files: not /dev/zero, not a FIFO */
		return t->file && !stat(t->file, &st) && S_ISREG(st.st_mode) &&
		       st.st_size <= FUZZ_MAX_FILE;
	}
	return hosts <= FUZZ_MAX_HOSTS && links <= FUZZ_MAX_LINKS;
}

static void one(const char *text, size_t len, const char *const *sets, size_t n_sets)
{
	struct scenario *s = NULL;
	struct topo *t = NULL;
	struct diag d = {0};
	char line[1024];
	int err;

	err = scn_load_text("./fuzz.yaml", text, len, sets, n_sets, &s, &d);
	if (err) {
		if (s)
			abort(); /* a failed load hands nothing back */
		diag_str(&d, line, sizeof(line));
		return;
	}
	if (small_enough(&s->topo)) {
		memset(&d, 0, sizeof(d));
		err = topo_build(&s->topo, &t, &d);
		if (err)
			scn_locate(s, &d);
		else
			err = scn_resolve(s, t, &d);
		if (err)
			diag_str(&d, line, sizeof(line));
		for (uint32_t i = 0; !err && i < s->wl.n_flows; i++)
			if (s->wl.flows[i].src >= t->n_hosts || s->wl.flows[i].dst >= t->n_hosts)
				abort(); /* resolve must only give hosts that exist */
		for (uint32_t i = 0; !err && i < s->n_faults; i++)
			if (s->faults[i].link >= t->n_links)
				abort();
		topo_free(t);
	}
	scn_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const fixed[] = {
		"topology.link.rate=40Gbps",
		"seed=7",
		"expect.fct_us.p99.max=100",
	};
	const char *text = (const char *)data;
	const char *mark, *sets[1];
	char kv[256];

	one(text, size, NULL, 0);
	one(text, size, fixed, sizeof(fixed) / sizeof(fixed[0]));
	for (mark = text; mark + 5 <= text + size && memcmp(mark, "#set ", 5); mark++)
		;
	if (mark + 5 <= text + size) {
		size_t n = 0;

		mark += 5;
		while (mark + n < text + size && n < sizeof(kv) - 1 && mark[n] != '\n' &&
		       mark[n] != '\0')
			n++;
		memcpy(kv, mark, n);
		kv[n] = '\0';
		sets[0] = kv;
		/* the CLI only passes KEY=VALUE on */
		if (strchr(kv, '='))
			one(text, size, sets, 1);
	}
	return 0;
}
