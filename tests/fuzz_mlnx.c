/*
 * libFuzzer harness for the host config readers of sim/mlnx.h: every input
 * goes through both text parsers, mlnx_qos_parse and cc_params_parse (the
 * *_read functions only add the file read, or the folder walk). What a
 * parser accepts is checked against the promises of mlnx.h (a tsa is one of
 * the three, an entry's name and value are non-empty, NUL-terminated and
 * trimmed, every listed DSCP has a prio 0-7 and a line); what it refuses
 * must come with a message and a line inside the input. An input of odd
 * length is parsed with no file name (NULL), as the parsers allow. Crashes,
 * leaks, UB and failed checks are the findings; refusals are expected.
 *
 * A last line "#failalloc N" (or "N+") makes the N-th allocation (and every
 * later one) of each parser fail (tests/fuzz/oom.h): it must then refuse
 * with -ENOMEM. The line is stripped before parsing.
 *
 * Not part of the meson build (it needs clang's -fsanitize=fuzzer): `make
 * fuzz` builds it with every library source below the command line and
 * runs it on its seeds (tests/fuzz/run.sh; `tests/fuzz/run.sh mlnx` runs
 * this one alone). A crash, leak or timeout is kept in
 * build-fuzz/mlnx/findings/; replay it with `build-fuzz/mlnx/fuzz_mlnx FILE`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/readers/mlnx.h"
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

	CHECK(memchr(d->file, '\0', sizeof(d->file)));
	CHECK(memchr(d->msg, '\0', sizeof(d->msg)));
	CHECK(d->msg[0] || err == -ENOMEM); /* out of memory needs no message */
	CHECK(d->line >= 0 && d->line <= lines);
	diag_str(d, buf, sizeof(buf));
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

static void check_qos(const struct mlnx_qos *q, int lines)
{
	for (int dscp = 0; dscp < 64; dscp++) {
		if ((q->dscp_given >> dscp) & 1) {
			CHECK(q->dscp2prio[dscp] <= 7);
			CHECK(q->dscp_line[dscp] >= 1 && q->dscp_line[dscp] <= lines);
		} else {
			CHECK(q->dscp2prio[dscp] == 0 && q->dscp_line[dscp] == 0);
		}
	}
	for (int tc = 0; tc < 8; tc++) {
		CHECK(memchr(q->tsa[tc], '\0', sizeof(q->tsa[tc])));
		if (!q->tsa[tc][0])
			continue;
		CHECK(!strcmp(q->tsa[tc], "ets") || !strcmp(q->tsa[tc], "strict") ||
		      !strcmp(q->tsa[tc], "vendor") || !strcmp(q->tsa[tc], "unknown"));
		CHECK(q->bw[tc] <= 100);
		CHECK(q->tc_line[tc] >= 1 && q->tc_line[tc] <= lines);
		CHECK(q->has_tc);
	}
	for (int p = 0; p < 8; p++) {
		CHECK(q->prio_tc[p] <= 7);
		CHECK(q->prio_buffer[p] <= 7);
	}
	if (q->has_trust)
		CHECK(q->trust_line >= 1 && q->trust_line <= lines);
	if (q->has_pfc)
		CHECK(q->pfc_line >= 1 && q->pfc_line <= lines);
	else
		CHECK(!q->pfc_enabled);
	CHECK(q->cable_len >= 0);
}

static void check_cc(const struct cc_params *cc, int lines, const char *file)
{
	for (size_t i = 0; i < cc->n; i++) {
		const struct cc_entry *e = &cc->v[i];
		size_t nl, vl;

		CHECK(memchr(e->name, '\0', sizeof(e->name)));
		CHECK(memchr(e->value, '\0', sizeof(e->value)));
		nl = strlen(e->name);
		vl = strlen(e->value);
		CHECK(nl && vl);
		CHECK(!is_blank(e->name[0]) && !is_blank(e->name[nl - 1]));
		CHECK(!is_blank(e->value[0]) && !is_blank(e->value[vl - 1]));
		CHECK(!strchr(e->name, '/'));
		CHECK(!strcmp(e->file, file));
		CHECK(e->line >= 1 && e->line <= lines);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct mlnx_qos q;
	struct cc_params cc;
	struct diag d;
	struct fuzz_oom o;
	const char *file;
	int lines, err, failed;

	size = fuzz_oom_strip(data, size, &o);
	lines = lines_in(data, size);
	file = size % 2 ? NULL : "fuzz";
	memset(&d, 0, sizeof(d));
	fuzz_oom_arm(&o);
	err = mlnx_qos_parse(text, size, file, &q, &d);
	failed = fuzz_oom_disarm(&o);
	fuzz_oom_check(failed, err, &d, "mlnx_qos_parse");
	if (err)
		check_diag(&d, lines, err);
	else
		check_qos(&q, lines);

	memset(&d, 0, sizeof(d));
	fuzz_oom_arm(&o);
	err = cc_params_parse(text, size, file, &cc, &d);
	failed = fuzz_oom_disarm(&o);
	fuzz_oom_check(failed, err, &d, "cc_params_parse");
	if (err) {
		check_diag(&d, lines, err);
		CHECK(!cc.v && !cc.n);
	} else {
		CHECK(cc.n > 0);
		check_cc(&cc, lines, file ? file : "");
	}
	cc_params_free(&cc);
	fuzz_oom_done(&o);
	return 0;
}
