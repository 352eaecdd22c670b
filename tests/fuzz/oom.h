/*
 * Allocation failures for the libFuzzer harnesses, so that a reader's
 * out-of-memory paths are fuzzed like its other branches. tests/fuzz/run.sh
 * links every harness with tests/failalloc.c and -Wl,--wrap=malloc,...
 * (failalloc.h), and an input may end with a trailer line:
 *
 *   #failalloc N     the N-th allocation of the reader fails (N >= 1)
 *   #failalloc N+    the N-th and every later one fail
 *
 * The harness strips that line, and the newline before it, and reads what
 * is left; the count starts over at each call of a reader the harness
 * makes. Failures are armed only around those calls: libFuzzer's
 * allocations and the harness's own never fail. A reader whose allocation
 * failed must refuse with -ENOMEM (nothing else, and never succeed); a
 * message is then not needed (the command line says "out of memory").
 *
 * With FUZZ_ALLOC_COUNT set in the environment, a harness prints
 * "fuzz: allocations N" on stderr after each input without a trailer: the
 * most allocations one of its reader calls made. run.sh uses it to add, for
 * each input listed in tests/fuzz/HARNESS/failalloc, one seed per
 * allocation of that input, so the seeds alone fail each allocation once.
 */
#ifndef ROCESIM_TESTS_FUZZ_OOM_H
#define ROCESIM_TESTS_FUZZ_OOM_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/diag.h"
#include "tests/failalloc.h"

#define FUZZ_OOM_TRAILER "#failalloc "

struct fuzz_oom {
	long nth;    /* 0: no trailer, nothing fails */
	int persist; /* "N+" */
	long most;   /* the most allocations a reader call made */
};

/*
 * The size of @data without its trailer line (and the newline before it),
 * and in @o what the trailer asks for; @size and nth 0 when there is none.
 */
static inline size_t fuzz_oom_strip(const uint8_t *data, size_t size, struct fuzz_oom *o)
{
	const size_t tn = sizeof(FUZZ_OOM_TRAILER) - 1;
	size_t start = size, i;
	long n = 0;

	memset(o, 0, sizeof(*o));
	while (start > 0 && data[start - 1] != '\n')
		start--;
	if (size - start <= tn || memcmp(data + start, FUZZ_OOM_TRAILER, tn))
		return size;
	for (i = start + tn; i < size && data[i] >= '0' && data[i] <= '9' && n < 100000000; i++)
		n = n * 10 + (data[i] - '0');
	if (i == start + tn || !n)
		return size;
	if (i < size && data[i] == '+') {
		o->persist = 1;
		i++;
	}
	if (i != size)
		return size;
	o->nth = n;
	return start ? start - 1 : 0;
}

/* Arm the failure @o asks for (or none), for one reader call. */
static inline void fuzz_oom_arm(const struct fuzz_oom *o)
{
	failalloc_set(o->nth, o->persist);
}

/* Disarm; nonzero if an allocation failed since the arm. */
static inline int fuzz_oom_disarm(struct fuzz_oom *o)
{
	int failed = failalloc_failed() > 0;

	if (failalloc_seen() > o->most)
		o->most = failalloc_seen();
	failalloc_set(0, 0);
	return failed;
}

/*
 * The promise of a reader call that returned @err (and @d) after an
 * allocation failed (@failed): -ENOMEM. Aborts otherwise, naming @what.
 */
static inline void fuzz_oom_check(int failed, int err, const struct diag *d, const char *what)
{
	char line[1024];

	if (failed && err != -ENOMEM) {
		diag_str(d, line, sizeof(line));
		fprintf(stderr, "fuzz: %s returned %d after an allocation failed: %s\n", what, err,
			line);
		abort();
	}
}

/* At the end of an input: print its allocation count if asked to. */
static inline void fuzz_oom_done(const struct fuzz_oom *o)
{
	if (!o->nth && getenv("FUZZ_ALLOC_COUNT"))
		fprintf(stderr, "fuzz: allocations %ld\n", o->most);
}

#endif
