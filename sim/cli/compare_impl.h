/*
 * rocesim compare, inside: the runs of each side (compare_load.c: a
 * results.json, a run folder, or a sweep folder read from its sweep.json
 * and sweep.csv), the metrics with their direction and default tolerance
 * and the verdicts (compare_stats.c: Welch's t-test when both sides have
 * several seeds), and the outputs (compare.c: the verb, the table,
 * --markdown, --json, --junit). `run --baseline DIR` uses the same parts.
 */
#ifndef ROCESIM_COMPARE_IMPL_H
#define ROCESIM_COMPARE_IMPL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CMP_ERR 600 /* room for one error message */

/* One run: its point's key ("" for a lone run), its seed and its summary
 * metrics flattened with dots ("fct_us.p99" -> number, or a string). */
struct cmp_run {
	char *point;
	uint64_t seed;
	json_t *flat;
};

/* One side of a comparison: what was given, what it holds. */
struct cmp_side {
	char *path;	/* as given */
	char *scenario; /* the scenario's name */
	int sweep;	/* a sweep folder */
	struct cmp_run *runs;
	size_t n;
};

/* Which way a metric gets better. */
enum cmp_dir { CMP_LOWER, CMP_HIGHER };

/* A tolerance: relative (pct of the base mean) or absolute. */
struct cmp_tol {
	char metric[64];
	double value;
	int pct; /* value is a percentage */
};

struct cmp_opts {
	const struct cmp_tol *tols; /* --tolerance, overriding the defaults */
	size_t n_tols;
	const char *const *metrics; /* --metrics; NULL: every known metric found */
	size_t n_metrics;
	int force;	   /* compare mismatched scenarios and points anyway */
	int no_force_hint; /* a mismatch error does not suggest --force */
};

enum cmp_verdict {
	CMP_SAME,	     /* equal */
	CMP_WITHIN,	     /* changed, within the tolerance */
	CMP_NOT_SIGNIFICANT, /* beyond the tolerance, but not at 95% (Welch) */
	CMP_BETTER,	     /* better beyond the tolerance */
	CMP_WORSE,	     /* a regression */
	CMP_LOST,	     /* measured in BASE, not in NEW: a regression */
	CMP_NEW		     /* measured in NEW only */
};

/* One metric at one point. */
struct cmp_row {
	const char *point; /* borrowed from the base side ("" for a lone run) */
	const char *metric;
	enum cmp_dir dir;
	size_t n_base, n_new; /* samples (seeds) */
	double base, new;     /* means */
	double tol;	      /* the allowed worsening, in the metric's unit */
	struct cmp_tol tol_given;
	double p; /* two-sided p of Welch's t-test, or -1 when not tested */
	enum cmp_verdict verdict;
};

struct cmp_result {
	struct cmp_row *rows;
	size_t n;
	size_t regressions, improvements;
	char **skipped; /* points on one side only, compared anyway (--force) */
	size_t n_skipped;
};

/* ---- compare_load.c ---- */

/*
 * Read @path (a results.json, a run folder holding one, or a sweep folder)
 * into @s (cmp_side_free it). 0, -EINVAL with @err saying why, or -ENOMEM.
 */
int cmp_side_load(const char *path, struct cmp_side *s, char *err, size_t size);
/* One side of the single run whose results are @res (borrowed), called
 * @label. 0 or -ENOMEM. */
int cmp_side_from_results(const json_t *res, const char *label, struct cmp_side *s);
void cmp_side_free(struct cmp_side *s);

/* ---- compare_stats.c ---- */

/* A metric's direction into *@dir: 0, or -1 when the metric is not known. */
int cmp_metric_dir(const char *metric, enum cmp_dir *dir);
/* The known metrics, ", "-separated, into @buf. */
void cmp_metric_list(char *buf, size_t size);
/* "METRIC=5%" or "METRIC=ABS" into @t: 0, or -EINVAL with @err set. */
int cmp_tol_parse(const char *arg, struct cmp_tol *t, char *err, size_t size);
/*
 * Compare @b and @n point by point into @r (cmp_result_free it): 0, or
 * -EINVAL with @err saying how they do not match (another scenario, a
 * point on one side only, another workload; all allowed with force), or
 * -ENOMEM.
 */
int cmp_compare(const struct cmp_side *b, const struct cmp_side *n, const struct cmp_opts *o,
		struct cmp_result *r, char *err, size_t size);
void cmp_result_free(struct cmp_result *r);
/* "REGRESSION", "within 5%", ... for the table. */
const char *cmp_verdict_text(const struct cmp_row *row, char *buf, size_t size);
/* "regression", "within_tolerance", ... for JSON. */
const char *cmp_verdict_name(enum cmp_verdict v);
/* A number as the tables print it: whole numbers whole, others to 3 places. */
const char *cmp_num(double v, char *buf, size_t size);
/* The change from base to new: "+49.9%" (or "+12" when base is 0). */
const char *cmp_change(const struct cmp_row *row, char *buf, size_t size);

/* ---- compare.c ---- */

struct junit;
/* A testcase per row of @r (a failure per regression) into @j, classname
 * "rocesim.compare.SCENARIO[.POINT]", name the metric. 0 or -ENOMEM. */
int cmp_junit_add(struct junit *j, const struct cmp_result *r, const char *scenario);
/* One line per regression on @f, "@prefix" "regression: METRIC [at POINT] ...". */
void cmp_print_regressions(const struct cmp_result *r, FILE *f, const char *prefix);
/* Print the table of @r (BASE @b, NEW @n) on @f. */
void cmp_print_table(const struct cmp_result *r, const struct cmp_side *b, const struct cmp_side *n,
		     FILE *f);

#endif
