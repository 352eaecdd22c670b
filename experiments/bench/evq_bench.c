/*
 * evq_bench: the classic "hold" benchmark of an event queue. N timers are
 * pending; each step pops the earliest and re-arms it a random delay later
 * (uniform in [0, 2 us), as links and pacers do; beyond a million timers
 * the span grows with them, so that they stay as dense in time). Prints pop+push pairs per
 * second for several N (usage: evq_bench [OPS [N...]]; by default 5 million
 * operations for each of 100 to 4 million timers). experiments/meson.build
 * builds it against evq.c
 * as it is (evq_bench_calendar) and with the binary heap alone
 * (evq_bench_heap).
 */
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sim/engine/evq.h"
#include "sim/engine/mem.h"

struct bench {
	struct evq *q;
	gsl_rng *r;
	uint64_t steps;
	unsigned long span; /* re-arm delays are uniform in [0, span) ps */
};

static void hold(void *obj, uint64_t arg)
{
	struct bench *b = obj;
	struct evq_timer *t = (struct evq_timer *)(uintptr_t)arg;

	b->steps++;
	if (evq_arm(b->q, t, evq_now(b->q) + gsl_rng_uniform_int(b->r, b->span))) {
		fputs("evq_bench: out of memory\n", stderr);
		exit(1);
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	static size_t sizes[16] = {100, 1000, 10000, 100000, 1000000, 4000000};
	size_t n_sizes = 6;
	uint64_t ops = argc > 1 ? strtoull(argv[1], NULL, 10) : 5000000;

	if (argc > 2) {
		for (n_sizes = 0; n_sizes + 2 < (size_t)argc && n_sizes < 16; n_sizes++)
			sizes[n_sizes] = strtoull(argv[n_sizes + 2], NULL, 10);
	}
	printf("%-10s %12s\n", "pending", "Mops/s");
	for (size_t k = 0; k < n_sizes; k++) {
		/* 2 us; beyond a million timers, as many microseconds as keep them
		 * as dense in time (half an event a picosecond at most) */
		unsigned long span = sizes[k] > 1000000 ? 2 * sizes[k] : 2000000;
		struct bench b = {.q = evq_new(), .r = gsl_rng_alloc(gsl_rng_taus2), .span = span};
		/* in one array on huge pages, as the models' ports and QPs hold theirs */
		struct evq_timer *t = mem_zalloc_lines(sizes[k], sizeof(*t));
		double t0;

		if (!b.q || !b.r || !t)
			return 1;
		gsl_rng_set(b.r, 1);
		for (size_t i = 0; i < sizes[k]; i++) {
			evq_timer_init(&t[i], hold, &b, i);
			t[i].arg = (uint64_t)(uintptr_t)&t[i];
			if (evq_arm(b.q, &t[i], gsl_rng_uniform_int(b.r, b.span)))
				return 1;
		}
		t0 = now_s();
		while (b.steps < ops)
			evq_step(b.q);
		printf("%-10zu %12.2f\n", sizes[k], (double)ops / (now_s() - t0) / 1e6);
		free(t);
		gsl_rng_free(b.r);
		evq_free(b.q);
	}
	return 0;
}
