/*
 * libFuzzer harness for the readers of measured counters: every input goes
 * through the six text parsers, mc_ethtool_parse, mc_hw_counters_parse,
 * mc_pfcstat_parse, mc_queuestat_parse (sim/readers/measured.h),
 * nccl_out_parse (nccl_tests_out.h) and nccl_inspector_parse
 * (nccl_inspector.h); a set of counters it accepts is then subtracted from
 * itself (mc_diff: every count 0, nothing only before). What a parser
 * accepts is checked against the promises of its header (names
 * NUL-terminated and non-empty, lines inside the input, N/A counted 0, a
 * table of nccl-tests with rows and its footer, a rank below n_ranks);
 * what it refuses must come with a message and a line inside the input.
 * An input of odd length is parsed with no file name (NULL).
 *
 * A last line "#failalloc N" (or "N+") makes the N-th allocation (and every
 * later one) of each parser fail (tests/fuzz/oom.h): it must then refuse
 * with -ENOMEM.
 *
 * Not part of the meson build (it needs clang's -fsanitize=fuzzer): `make
 * fuzz` builds it (tests/fuzz/run.sh; `tests/fuzz/run.sh measured` runs this
 * one alone).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/readers/measured.h"
#include "sim/readers/nccl_inspector.h"
#include "sim/readers/nccl_tests_out.h"
#include "tests/fuzz/oom.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

static int lines_in(const uint8_t *data, size_t size)
{
	int n = 1;

	for (size_t i = 0; i < size; i++)
		n += data[i] == '\n';
	return n;
}

static void check_diag(const struct diag *d, int lines, int err)
{
	char buf[1024];

	CHECK(err < 0);
	CHECK(memchr(d->file, '\0', sizeof(d->file)));
	CHECK(memchr(d->msg, '\0', sizeof(d->msg)));
	CHECK(d->msg[0] || err == -ENOMEM);
	CHECK(d->line >= 0 && d->line <= lines);
	diag_str(d, buf, sizeof(buf));
}

static void check_set(const struct mc_set *s, int lines, struct fuzz_oom *o)
{
	struct mc_set z;
	struct diag d = {0};
	char r[160];
	int err, failed;

	CHECK(s->n > 0);
	for (size_t i = 0; i < s->n; i++) {
		const struct mc_counter *c = &s->v[i];

		CHECK(memchr(c->name, '\0', sizeof(c->name)) && c->name[0]);
		CHECK(memchr(c->scope, '\0', sizeof(c->scope)));
		CHECK(c->line >= 1 && c->line <= lines);
		CHECK(!c->na || c->value == 0);
		mc_rocesim_name(s->kind, c, r, sizeof(r));
	}
	fuzz_oom_arm(o);
	err = mc_diff(s, s, &z, &d);
	failed = fuzz_oom_disarm(o);
	fuzz_oom_check(failed, err, &d, "mc_diff");
	if (err) {
		CHECK(err == -ENOMEM);
		return;
	}
	CHECK(z.n == s->n && z.only_before == 0);
	for (size_t i = 0; i < z.n; i++)
		CHECK(z.v[i].value == 0);
	mc_free(&z);
}

typedef int (*mc_parse_fn)(const char *, size_t, const char *, struct mc_set *, struct diag *);

static void one_set(mc_parse_fn parse, const char *what, const char *text, size_t size,
		    const char *file, int lines, struct fuzz_oom *o)
{
	struct mc_set s;
	struct diag d = {0};
	int err, failed;

	fuzz_oom_arm(o);
	err = parse(text, size, file, &s, &d);
	failed = fuzz_oom_disarm(o);
	fuzz_oom_check(failed, err, &d, what);
	if (err) {
		check_diag(&d, lines, err);
		CHECK(!s.v && !s.n);
		return;
	}
	check_set(&s, lines, o);
	mc_free(&s);
}

static void one_nccl(const char *text, size_t size, const char *file, int lines, struct fuzz_oom *o)
{
	struct nccl_out no;
	struct diag d = {0};
	int err, failed;

	fuzz_oom_arm(o);
	err = nccl_out_parse(text, size, file, &no, &d);
	failed = fuzz_oom_disarm(o);
	fuzz_oom_check(failed, err, &d, "nccl_out_parse");
	if (err) {
		check_diag(&d, lines, err);
		CHECK(!no.rows && !no.n);
		return;
	}
	CHECK(no.n > 0 && no.has_avg);
	CHECK(no.avg_line >= 1 && no.avg_line <= lines);
	for (size_t i = 0; i < no.n; i++) {
		CHECK(no.rows[i].line >= 1 && no.rows[i].line <= lines);
		CHECK(no.rows[i].time_us >= 0 && no.rows[i].busbw >= 0);
		CHECK(memchr(no.rows[i].type, '\0', sizeof(no.rows[i].type)));
	}
	nccl_out_free(&no);
}

static void one_inspector(const char *text, size_t size, const char *file, int lines,
			  struct fuzz_oom *o)
{
	struct nccl_inspector ni;
	struct diag d = {0};
	int err, failed;

	fuzz_oom_arm(o);
	err = nccl_inspector_parse(text, size, file, &ni, &d);
	failed = fuzz_oom_disarm(o);
	fuzz_oom_check(failed, err, &d, "nccl_inspector_parse");
	if (err) {
		check_diag(&d, lines, err);
		CHECK(!ni.v && !ni.n);
		return;
	}
	CHECK(ni.n > 0);
	for (size_t i = 0; i < ni.n; i++) {
		CHECK(ni.v[i].line >= 1 && ni.v[i].line <= lines);
		CHECK(ni.v[i].rank >= 0 && ni.v[i].rank < ni.v[i].n_ranks);
		CHECK(ni.v[i].coll[0]);
	}
	nccl_inspector_free(&ni);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct fuzz_oom o;
	const char *file;
	int lines;

	size = fuzz_oom_strip(data, size, &o);
	lines = lines_in(data, size);
	file = size % 2 ? NULL : "fuzz";
	one_set(mc_ethtool_parse, "mc_ethtool_parse", text, size, file, lines, &o);
	one_set(mc_hw_counters_parse, "mc_hw_counters_parse", text, size, file, lines, &o);
	one_set(mc_pfcstat_parse, "mc_pfcstat_parse", text, size, file, lines, &o);
	one_set(mc_queuestat_parse, "mc_queuestat_parse", text, size, file, lines, &o);
	one_nccl(text, size, file, lines, &o);
	one_inspector(text, size, file, lines, &o);
	fuzz_oom_done(&o);
	return 0;
}
