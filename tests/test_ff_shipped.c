/*
 * Every shipped experiment (experiments/ *.yaml) run both ways with
 * `rocesim run --verify-fast-forward`: completion times and bytes
 * received within 1%, PAUSE frames, drops and lossless drops within 5% or
 * 2, bytes conserved, and a run where nothing
 * was skipped (DCQCN still moving, a PFC storm, a deadlock) exactly the
 * same. An experiment that is bad input on purpose (a scenario of
 * mistakes) is refused alike with and without. The scale experiments
 * (a whole training iteration: a minute and more of one core each) are run
 * both ways by `make bench-scale` instead, to keep the suite short.
 */
#include <criterion/criterion.h>
#include <glob.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc.h"

/* Run both ways by `make bench-scale`, not here. */
static const char *const scale[] = {"experiments/training-gpt13b.yaml",
				    "experiments/training-gpt175b.yaml",
				    "experiments/training-llama70b-ecn.yaml"};

static int is_scale(const char *rel)
{
	for (size_t i = 0; i < sizeof(scale) / sizeof(scale[0]); i++)
		if (!strcmp(rel, scale[i]))
			return 1;
	return 0;
}

static double num(const json_t *o, const char *k)
{
	return json_number_value(json_object_get(o, k));
}

static void both_ways(const char *rel)
{
	struct ts_proc p;
	const char *out;
	json_t *res, *v, *rows, *ff;
	char path[4200];

	ts_proc_setup("ff-shipped");
	out = ts_tmp("out");
	ts_exec(&p,
		(const char *const[]){"run", rel, "--verify-fast-forward", "-q", "-o", out, NULL});
	if (p.code == 2) {
		/* bad input on purpose: the same without fast-forward */
		struct ts_proc q;

		ts_exec(&q, (const char *const[]){"run", rel, "-q", "-o", ts_tmp("plain"), NULL});
		cr_assert_eq(q.code, 2, "%s: refused with fast-forward only: %s", rel, p.err);
		ts_proc_free(&q);
		ts_proc_free(&p);
		ts_proc_teardown();
		return;
	}
	cr_assert(p.code == 0 || p.code == 1, "%s: exit %d: %s", rel, p.code, p.err);
	snprintf(path, sizeof(path), "%s/results.json", out);
	res = json_load_file(path, 0, NULL);
	cr_assert_not_null(res, "%s: no results", rel);
	v = json_object_get(res, "verify_fast_forward");
	ff = json_object_get(json_object_get(res, "summary"), "fast_forward");
	cr_assert_not_null(v, "%s", rel);
	cr_assert_not_null(ff, "%s", rel);
	rows = json_object_get(v, "metrics");
	for (size_t i = 0; i < json_array_size(rows); i++) {
		const json_t *r = json_array_get(rows, i);

		cr_expect(json_is_true(json_object_get(r, "within")), "%s: %s %.6g against %.6g",
			  rel, json_string_value(json_object_get(r, "metric")), num(r, "with"),
			  num(r, "without"));
		if (!json_integer_value(json_object_get(ff, "spans")))
			cr_expect_eq(num(r, "diff_share"), 0, "%s: %s moved with nothing skipped",
				     rel, json_string_value(json_object_get(r, "metric")));
	}
	{
		const json_t *b = json_object_get(json_object_get(res, "summary"), "bytes");

		cr_assert_eq(json_integer_value(json_object_get(b, "sent")),
			     json_integer_value(json_object_get(b, "received")) +
				 json_integer_value(json_object_get(b, "dropped")) +
				 json_integer_value(json_object_get(b, "in_flight")),
			     "%s: bytes not conserved", rel);
	}
	json_decref(res);
	ts_proc_free(&p);
	ts_proc_teardown();
}

/* One test over them all, in turn: Criterion's parameterized tests are
 * dropped by the link-time optimizer of this build. */
Test(ff_shipped, every_experiment_both_ways, .timeout = 1800)
{
	const char *src = getenv("ROCESIM_SRC");
	char pattern[4096];
	glob_t g;
	size_t n = 0;

	snprintf(pattern, sizeof(pattern), "%s/experiments/*.yaml", src ? src : ".");
	cr_assert_eq(glob(pattern, 0, NULL, &g), 0, "no experiments under %s", pattern);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *rel = strstr(g.gl_pathv[i], "experiments/");

		if (is_scale(rel))
			continue;
		both_ways(rel);
		n++;
	}
	globfree(&g);
	cr_assert(n >= 15, "only %zu experiments", n);
}
