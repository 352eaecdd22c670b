/*
 * libFuzzer harness for the readers of `rocesim compare` (and `run
 * --baseline`): a side read with cmp_side_load (sim/study/compare_load.c)
 * from a results.json, a run folder holding one, or a sweep folder (its
 * sweep.json, its sweep.csv, and the results.json of its runs under
 * points/ID/ when the folder still has them). The input is written into a
 * scratch folder made afresh for every input:
 *
 *   no NUL byte        the text of a results.json, read as the file itself
 *                      for an odd length, as the run folder holding it for
 *                      an even one
 *   "A\0B[\0ID\0R...]"  a sweep folder: sweep.json A, sweep.csv B, and for
 *                      each further pair the run ID's points/ID/results.json
 *                      R (an ID holding "/" or "." alone is skipped); A or B
 *                      "@none" leaves that file out
 *
 * "#nofile" in a results.json's text reads a path that does not exist,
 * "#emptydir" an empty folder.
 *
 * A success must keep the promises of compare_impl.h (a run or a failed
 * run; each run with its point, its place and its metrics, numbers or
 * strings, a string never in a metric of compare's table; a sweep with its
 * scenario), and comparing the side with itself must not fail but as
 * cmp_compare says it may (-EINVAL with a message) and find the same
 * provenance on both; a refusal of the reader must carry a one-line
 * message. Out of
 * memory is said only when an allocation failed: jansson's own never fail
 * here, so its refusals (a string that is not UTF-8) are the input's.
 * Crashes, leaks, UB and broken promises (abort) are the findings;
 * refusals are expected.
 *
 * A last line "#failalloc N" (or "N+") makes the N-th allocation (and
 * every later one) of cmp_side_load fail (tests/fuzz/oom.h): it must then
 * refuse with -ENOMEM. The line is stripped before the input is decoded.
 *
 * Not part of the meson build (it needs clang's -fsanitize=fuzzer): `make
 * fuzz` builds it with every library source below the command line and the
 * few files of sim/study it needs (tests/fuzz/run.sh; `tests/fuzz/run.sh
 * compare` runs this one alone). A crash, leak or timeout is kept in
 * build-fuzz/compare/findings/; replay it with `build-fuzz/compare/fuzz_compare FILE`.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FUZZ_NAME "fuzz_compare"

#include "sim/study/compare_impl.h"
#include "tests/fuzz/harness.h"
#include "tests/fuzz/oom.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_RUNS 16

static char root[4096];	   /* the scratch folder */
static char in[4200];	   /* root/in: the folder of an input */
static char results[4300]; /* root/in/results.json */
static char missing[4300]; /* root/in/missing.json */

static void cleanup(void)
{
	fuzz_rm_tree(root);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_scratch(root, sizeof(root), "compare");
	atexit(cleanup);
	snprintf(in, sizeof(in), "%s/in", root);
	snprintf(results, sizeof(results), "%s/results.json", in);
	snprintf(missing, sizeof(missing), "%s/missing.json", in);
	return 0;
}

/* File @name of the sweep folder, holding @part (@n bytes), unless it is "@none". */
static void sweep_file(const char *name, const char *part, size_t n)
{
	char path[4400];

	if (n == 5 && !memcmp(part, "@none", 5))
		return;
	snprintf(path, sizeof(path), "%s/%s", in, name);
	fuzz_put(path, part, n);
}

/* The sweep folder of "A\0B[\0ID\0R...]" (@size bytes of @data). */
static void make_sweep(const char *data, size_t size)
{
	const char *part[2 + 2 * MAX_RUNS], *p = data, *stop = data + size;
	size_t len[2 + 2 * MAX_RUNS], n = 0;
	char path[4400];

	while (n < sizeof(part) / sizeof(part[0])) {
		const char *nul = memchr(p, '\0', (size_t)(stop - p));

		part[n] = p;
		len[n++] = nul ? (size_t)(nul - p) : (size_t)(stop - p);
		if (!nul)
			break;
		p = nul + 1;
	}
	sweep_file("sweep.json", part[0], len[0]);
	if (n > 1)
		sweep_file("sweep.csv", part[1], len[1]);
	for (size_t i = 2; i + 1 < n; i += 2) {
		char id[256];

		if (!len[i] || len[i] >= sizeof(id) || memchr(part[i], '/', len[i]) ||
		    (len[i] <= 2 && !memcmp(part[i], "..", len[i])))
			continue;
		snprintf(id, sizeof(id), "%.*s", (int)len[i], part[i]);
		snprintf(path, sizeof(path), "%s/points", in);
		mkdir(path, 0700);
		snprintf(path, sizeof(path), "%s/points/%s", in, id);
		if (mkdir(path, 0700) && errno != EEXIST)
			continue;
		snprintf(path, sizeof(path), "%s/points/%s/results.json", in, id);
		fuzz_put(path, part[i + 1], len[i + 1]);
	}
}

static void check_side(const struct cmp_side *s, int sweep)
{
	enum cmp_dir dir;

	fuzz_check(s->n + s->n_failed > 0, "a run, or a run that failed");
	fuzz_check(!s->n || s->runs, "the runs are there");
	fuzz_check(s->path && s->scenario, "what was given and the scenario's name");
	fuzz_check(s->sweep == sweep, "a sweep folder is a sweep");
	fuzz_check(sweep || (s->n == 1 && !s->n_failed), "a results.json is one run");
	for (size_t i = 0; i < s->n; i++) {
		const struct cmp_run *r = &s->runs[i];
		const char *k;
		json_t *v;

		fuzz_check(r->point && r->where && r->where[0], "a run has its point and place");
		fuzz_check(json_is_object(r->flat), "a run's metrics");
		fuzz_check(sweep || !r->point[0], "a lone run has no point");
		json_object_foreach(r->flat, k, v) {
			fuzz_check(json_is_number(v) || json_is_string(v),
				   "metrics are numbers or strings");
			fuzz_check(!json_is_string(v) || !sweep || cmp_metric_dir(k, &dir),
				   "a metric of the table is a number");
		}
	}
	for (size_t i = 0; i < s->n_failed; i++)
		/* the error, else the status: empty when both are (not what sweep writes) */
		fuzz_check(s->failed[i].point && s->failed[i].error,
			   "a failed run has its point and error");
}

/* The side against itself: the comparison compare would make. */
static void check_self(const struct cmp_side *s)
{
	struct cmp_opts o = {0};
	struct cmp_result r;
	char err[CMP_ERR] = "";
	json_t *diff = cmp_prov_diff(s, s);
	int rc;

	fuzz_check(diff != NULL, "the provenance of a side against itself");
	fuzz_check(json_is_true(json_object_get(diff, "known")) == (s->prov != NULL),
		   "the provenance is known when the side says it");
	fuzz_check(json_is_false(json_object_get(diff, "versions_differ")) &&
		       !json_array_size(json_object_get(diff, "inputs_differ")),
		   "a side's provenance is its own");
	json_decref(diff);
	memset(&r, 0, sizeof(r));
	rc = cmp_compare(s, s, &o, &r, err, sizeof(err));
	fuzz_check(!rc || rc == -EINVAL, "compare succeeds or refuses");
	fuzz_check(!rc || err[0], "a refusal of compare says why");
	cmp_result_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cmp_side s;
	struct fuzz_oom o;
	char err[CMP_ERR] = "";
	const char *path = in;
	int rc, failed, sweep;

	size = fuzz_oom_strip(data, size, &o);
	fuzz_rm_tree(in);
	fuzz_check(!mkdir(in, 0700), "the scratch folder can be made");
	sweep = memchr(data, '\0', size) != NULL;
	if (sweep) {
		make_sweep((const char *)data, size);
	} else if (fuzz_has(data, size, "#nofile")) {
		path = missing;
	} else if (!fuzz_has(data, size, "#emptydir")) {
		fuzz_put(results, (const char *)data, size);
		if (size % 2)
			path = results;
	}
	fuzz_oom_arm(&o);
	rc = cmp_side_load(path, &s, err, sizeof(err));
	failed = fuzz_oom_disarm(&o);
	if (failed && rc != -ENOMEM) {
		fprintf(stderr, "fuzz: cmp_side_load returned %d after an allocation failed: %s\n",
			rc, err);
		abort();
	}
	fuzz_oom_done(&o);
	fuzz_check(rc != -ENOMEM || failed, "out of memory only when an allocation failed");
	if (rc) {
		fuzz_check(rc == -EINVAL || rc == -ENOMEM, "-EINVAL or -ENOMEM");
		fuzz_check(err[0] || rc == -ENOMEM,
			   "a refusal carries a message (-ENOMEM need not)");
		fuzz_check(!strchr(err, '\n'), "the error is one line");
	} else {
		check_side(&s, sweep);
		check_self(&s);
	}
	cmp_side_free(&s);
	return 0;
}
