/*
 * run ci: `rocesim run --baseline DIR [--tolerance M=X]... --junit FILE`
 * (run_ci.h). The comparison is compare's (compare_stats.c) with this run
 * as NEW. A baseline with several seeds is compared by its run of this
 * run's seed when it has one, the two paired: the same seed is the same
 * random choices, so what differs is what the change did, not the seed
 * (one pair has no interval: a regression is "likely"). Without it, its seeds
 * are the samples and the tolerance decides (one run on the NEW side
 * admits no t-test).
 */
#include "sim/cli/run_ci.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/ci_report.h"
#include "sim/cli/cli.h"
#include "sim/config/scenario.h"
#include "sim/engine/textsafe.h"

#define P "rocesim: "

int run_ci_arg(struct run_ci *c, int argc, char **argv, int *i, const char *usage)
{
	const char *o = argv[*i];
	char err[CMP_ERR];
	int has_next = *i + 1 < argc && argv[*i + 1][0];

	if (strcmp(o, "--baseline") && strcmp(o, "--tolerance") && strcmp(o, "--junit"))
		return -1;
	if (!has_next)
		return cli_usage_error(P, usage,
				       !strcmp(o, "--tolerance")
					   ? "%s needs METRIC=PCT%% or METRIC=ABS"
				       : !strcmp(o, "--junit") ? "%s needs a file"
							       : "%s needs a folder",
				       o);
	++*i;
	if (!strcmp(o, "--baseline")) {
		c->baseline = argv[*i];
	} else if (!strcmp(o, "--junit")) {
		c->junit = argv[*i];
	} else {
		if (c->n_tols == c->cap_tols) {
			size_t cap = c->cap_tols ? 2 * c->cap_tols : 8;
			struct cmp_tol *t = realloc(c->tols, cap * sizeof(*t));

			if (!t) {
				fputs(P "out of memory\n", stderr);
				return ROCESIM_EXIT_INPUT;
			}
			c->tols = t;
			c->cap_tols = cap;
		}
		if (cmp_tol_parse(argv[*i], &c->tols[c->n_tols], err, sizeof(err)))
			return cli_usage_error(P, usage, "%s", err);
		c->n_tols++;
	}
	return 0;
}

int run_ci_prepare(struct run_ci *c)
{
	char err[CMP_ERR];
	int e;

	if (c->n_tols && !c->baseline) {
		fputs(P "--tolerance needs --baseline DIR: the baseline it applies to\n", stderr);
		return ROCESIM_EXIT_INPUT;
	}
	if (!c->baseline)
		return 0;
	e = cmp_side_load(c->baseline, &c->base, err, sizeof(err));
	if (!e) {
		struct cmp_opts o = {.tols = c->tols, .n_tols = c->n_tols};

		e = cmp_check_names(&c->base, NULL, &o, err, sizeof(err));
	}
	if (e) {
		fputs(P "--baseline: ", stderr);
		txt_fputs_term(e == -ENOMEM ? "out of memory" : err, stderr);
		fputc('\n', stderr);
		return ROCESIM_EXIT_INPUT;
	}
	return 0;
}

/*
 * The baseline's runs this run is compared with, into @view (its runs
 * array is new, the runs borrowed): those of this run's seed when there
 * are any, else all. 0 or -ENOMEM.
 */
static int same_seed(const struct cmp_side *base, uint64_t seed, struct cmp_side *view)
{
	size_t k = 0;

	*view = *base;
	view->runs = malloc((base->n + 1) * sizeof(*view->runs));
	if (!view->runs)
		return -ENOMEM;
	for (size_t i = 0; i < base->n; i++)
		if (base->runs[i].seed == seed)
			view->runs[k++] = base->runs[i];
	if (!k) {
		memcpy(view->runs, base->runs, base->n * sizeof(*view->runs));
		k = base->n;
	}
	view->n = k;
	return 0;
}

/* The comparison with the baseline into @r; an exit code (0 when compared). */
static int compare(const struct run_ci *c, const json_t *res, const char *dir, int quiet,
		   struct cmp_result *r)
{
	struct cmp_opts o = {.tols = c->tols, .n_tols = c->n_tols, .no_force_hint = 1};
	struct cmp_side now = {0}, base = {0};
	char err[CMP_ERR];
	int e, rc = 0;

	e = cmp_side_from_results(res, dir, &now, err, sizeof(err));
	if (!e)
		e = same_seed(&c->base, now.runs[0].seed, &base);
	if (!e)
		e = cmp_compare(&base, &now, &o, r, err, sizeof(err));
	if (e == -ENOMEM) {
		fputs(P "out of memory comparing with the baseline\n", stderr);
		rc = ROCESIM_EXIT_INPUT;
	} else if (e) {
		fputs(P "--baseline ", stderr);
		txt_fputs_term(c->baseline, stderr);
		fputs(": ", stderr);
		txt_fputs_term(err, stderr);
		fputc('\n', stderr);
		rc = ROCESIM_EXIT_INPUT;
	} else {
		if (!quiet)
			cmp_print_table(r, &base, &now, stdout);
		cmp_print_regressions(r, stderr, P "baseline: ");
		if (r->regressions)
			fprintf(stderr, P "%zu regression%s against the baseline %s\n",
				r->regressions, r->regressions == 1 ? "" : "s",
				txt_term(err, sizeof(err), c->baseline));
		rc = r->regressions ? ROCESIM_EXIT_FOUND : 0;
	}
	free(base.runs);
	cmp_side_free(&now);
	return rc;
}

/* A testcase per expect: gate of the results. */
static void junit_expects(struct junit *j, const json_t *res, const char *cls)
{
	char name[300], text[800], lim[64], val[64];
	size_t i;
	json_t *g;

	json_array_foreach(json_object_get(res, "expect"), i, g) {
		const char *metric = json_string_value(json_object_get(g, "metric"));
		const char *op = json_string_value(json_object_get(g, "op"));
		const char *where = json_string_value(json_object_get(g, "where"));
		json_t *v = json_object_get(g, "value");

		cmp_num(json_number_value(json_object_get(g, "limit")), lim, sizeof(lim));
		snprintf(name, sizeof(name), "expect %s %s %s", metric, op, lim);
		if (json_is_number(v))
			snprintf(text, sizeof(text), "%s is %s, the gate %s %s %s (%s)", metric,
				 cmp_num(json_number_value(v), val, sizeof(val)), metric, op, lim,
				 where);
		else
			snprintf(text, sizeof(text), "%s was not measured in this run (%s)", metric,
				 where);
		junit_add(j, cls, name, json_is_true(json_object_get(g, "pass")) ? NULL : text,
			  text);
	}
}

int run_ci_finish(const struct run_ci *c, const json_t *res, const struct scenario *s,
		  const char *dir, int quiet, double wall_s)
{
	struct cmp_result r = {0};
	struct junit j = {0};
	char cls[300], text[600], t[64];
	const json_t *run = json_object_get(res, "run");
	int rc = 0, e;

	if (c->baseline)
		rc = compare(c, res, dir, quiet, &r);
	if (c->junit && rc != ROCESIM_EXIT_INPUT) {
		snprintf(cls, sizeof(cls), "rocesim.run.%s", s->name);
		snprintf(
		    text, sizeof(text), "%s at %s us simulated, results in %s/results.json",
		    json_string_value(json_object_get(run, "end")),
		    cmp_num(json_number_value(json_object_get(run, "sim_time_us")), t, sizeof(t)),
		    dir);
		junit_add(&j, cls, "run", NULL, text);
		junit_expects(&j, res, cls);
		if (c->baseline)
			cmp_junit_add(&j, &r, s->name);
		snprintf(text, sizeof(text), "rocesim run %s", s->name);
		if ((e = junit_write(&j, c->junit, text, wall_s))) {
			fprintf(stderr, P "cannot write %s: %s\n",
				txt_term(text, sizeof(text), c->junit), strerror(-e));
			rc = ROCESIM_EXIT_IO;
		}
		junit_free(&j);
	}
	cmp_result_free(&r);
	return rc;
}

void run_ci_free(struct run_ci *c)
{
	free(c->tols);
	cmp_side_free(&c->base);
}
