/*
 * rocesim compare, inside: the runs of each side (compare_load.c: a
 * results.json, a run folder, or a sweep folder read from its sweep.json
 * and sweep.csv), the metrics with their direction and default tolerance
 * and the verdicts (compare_stats.c: runs of the same seed paired, else
 * Welch's t-test), their words and what differs in what produced the
 * sides (compare_text.c), and the outputs
 * (compare.c: the verb, the table, --markdown, --json, --junit). `run
 * --baseline DIR` uses the same parts.
 */
#ifndef ROCESIM_COMPARE_IMPL_H
#define ROCESIM_COMPARE_IMPL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CMP_ERR 2400 /* room for one error message */

/* One run: its point's key ("" for a lone run), its seed, its summary
 * metrics flattened with dots ("fct_us.p99" -> number, or a string), and
 * where it was read ("base/sweep.csv:4", "run/results.json"). */
struct cmp_run {
	char *point;
	uint64_t seed;
	json_t *flat;
	char *where;
};

/* A run of a sweep that failed (no results): its point, seed and error. */
struct cmp_fail {
	char *point;
	uint64_t seed;
	char *error;
};

/* One side of a comparison: what was given, what it holds. */
struct cmp_side {
	char *path;	/* as given */
	char *scenario; /* the scenario's name */
	int sweep;	/* a sweep folder */
	struct cmp_run *runs;
	size_t n;
	struct cmp_fail *failed;
	size_t n_failed;
	/* What produced it, where the side says: {"versions": [...], "inputs":
	 * {"scenario": [sha256...], "nic.cc_params cc_params.txt": [...]}};
	 * NULL when it does not say (a stored sweep.csv without its runs). */
	json_t *prov;
};

/* Which way a metric gets better (either: a change either way is one). */
enum cmp_dir { CMP_LOWER, CMP_HIGHER, CMP_EITHER };

/* A tolerance: relative (pct of the base mean) or absolute. */
struct cmp_tol {
	char metric[128];
	double value;
	int pct; /* value is a percentage */
};

struct cmp_opts {
	const struct cmp_tol *tols; /* --tolerance, overriding the defaults */
	size_t n_tols;
	const char *const *metrics; /* --metrics; NULL: every metric compared by default */
	size_t n_metrics;
	int force;	   /* compare mismatched scenarios and points anyway */
	int no_force_hint; /* a mismatch error does not suggest --force */
};

enum cmp_verdict {
	CMP_SAME,	     /* equal */
	CMP_WITHIN,	     /* changed, within the tolerance */
	CMP_NOT_SIGNIFICANT, /* beyond the tolerance, but not at 95% (unpaired) */
	CMP_BETTER,	     /* better beyond the tolerance */
	CMP_WORSE,	     /* a regression */
	CMP_LOST,	     /* measured in BASE, not in NEW: a regression */
	CMP_NEW,	     /* measured in NEW only */
	CMP_FAILED	     /* runs of NEW failed (metric "runs"): a regression */
};

/* How the samples of the two sides were compared. */
enum cmp_test {
	CMP_TEST_NONE,	 /* one run on a side, unpaired: the tolerance alone */
	CMP_TEST_PAIRED, /* runs of the same seed on both sides, paired */
	CMP_TEST_WELCH	 /* different seeds: Welch's unpaired t-test */
};

/* One seed run on both sides. */
struct cmp_pair {
	uint64_t seed;
	double base, new;
};

/* One metric at one point. */
struct cmp_row {
	const char *point;  /* borrowed from the base side ("" for a lone run) */
	const char *metric; /* borrowed from the metric table, the options or a run */
	enum cmp_dir dir;
	size_t n_base, n_new; /* samples (seeds) */
	double base, new;     /* means (over the pairs when paired) */
	double tol;	      /* the allowed worsening, in the metric's unit */
	struct cmp_tol tol_given;
	enum cmp_test test;
	double p; /* two-sided p of the test, or -1 when not tested */
	/* paired: the pairs (owned), the mean change new - base and its 95%
	 * interval (lo = hi = change with one pair), how many seeds got worse,
	 * and the seeds of one side only, left out */
	struct cmp_pair *pairs;
	size_t n_pairs, n_worse, left_out;
	double change, lo, hi;
	/* unpaired with two runs or more a side: the smallest change that
	 * would be significant at 95% (in the metric's unit), else -1 */
	double detectable;
	int zero_base; /* a count 0 in every BASE run and above 0 in NEW */
	int certain;   /* worse (better): the interval is past the tolerance */
	char *note;    /* CMP_FAILED: how many runs failed and the first error (owned) */
	enum cmp_verdict verdict;
};

struct cmp_result {
	struct cmp_row *rows;
	size_t n;
	size_t regressions, improvements;
	char **skipped; /* points on one side only, compared anyway (--force) */
	size_t n_skipped;
	json_t *prov; /* cmp_prov_diff of the sides (owned), or NULL */
};

/* ---- compare_load.c ---- */

/*
 * Read @path (a results.json, a run folder holding one, or a sweep folder)
 * into @s (cmp_side_free it). 0, -EINVAL with @err saying why (a file that
 * is not one of these, a schema_version not known, a metric that is not a
 * number), or -ENOMEM.
 */
int cmp_side_load(const char *path, struct cmp_side *s, char *err, size_t size);
/* One side of the single run whose results are @res (borrowed), called
 * @label. 0, -EINVAL with @err set (a metric that is not a number), or
 * -ENOMEM. */
int cmp_side_from_results(const json_t *res, const char *label, struct cmp_side *s, char *err,
			  size_t size);
void cmp_side_free(struct cmp_side *s);

/* ---- compare_stats.c ---- */

/* A metric's direction into *@dir: 0 for a metric of the table, 1 for any
 * other name (a summary field without a direction: CMP_EITHER). */
int cmp_metric_dir(const char *metric, enum cmp_dir *dir);
/* The name of the @i-th metric of the table, NULL past its end. */
const char *cmp_metric_name(size_t i);
/* The metrics of the table, ", "-separated, into @buf. */
void cmp_metric_list(char *buf, size_t size);
/* "METRIC=5%" or "METRIC=ABS" into @t: 0, or -EINVAL with @err set. The
 * name is checked against the results later (cmp_check_names). */
int cmp_tol_parse(const char *arg, struct cmp_tol *t, char *err, size_t size);
/*
 * Every metric named by @o (--metrics, --tolerance) is one of the table
 * or a numeric summary field of a run of @b or @n (@n may be NULL): 0, or
 * -EINVAL with @err naming it and listing the names known.
 */
int cmp_check_names(const struct cmp_side *b, const struct cmp_side *n, const struct cmp_opts *o,
		    char *err, size_t size);
/*
 * Compare @b and @n point by point into @r (cmp_result_free it): 0, or
 * -EINVAL with @err saying how they do not match (another scenario, a
 * point on one side only, another workload; all allowed with force), that
 * a metric is unknown or not a number, or that nothing was compared; or
 * -ENOMEM.
 */
int cmp_compare(const struct cmp_side *b, const struct cmp_side *n, const struct cmp_opts *o,
		struct cmp_result *r, char *err, size_t size);
void cmp_result_free(struct cmp_result *r);

/* ---- compare_text.c ---- */

/* Is @row a regression? */
int cmp_is_regression(const struct cmp_row *row);
/* "REGRESSION, likely (...)", "ok (within 5%)", ... for the table. */
const char *cmp_verdict_text(const struct cmp_row *row, char *buf, size_t size);
/* "regression", "within_tolerance", ... for JSON. */
const char *cmp_verdict_name(enum cmp_verdict v);
/* A number as the tables print it: whole numbers whole, others to 3
 * places, very large or small ones as 1.5e+308. */
const char *cmp_num(double v, char *buf, size_t size);
/* The change from base to new: "+49.9%" (or "+12" when base is 0). */
const char *cmp_change(const struct cmp_row *row, char *buf, size_t size);
/* The change of each pair, "1 +56.0%, 2 +28.1%, ..." (at most 12), into @buf. */
const char *cmp_seed_changes(const struct cmp_row *row, char *buf, size_t size);
/* How the sides of @point were compared, for the table's point line. */
const char *cmp_pairing_text(const struct cmp_result *r, const char *point, char *buf, size_t size);
/*
 * What differs between the provenance of @b and @n: a new object
 * {"known": bool (both sides say), "versions_differ": bool, "base_versions":
 * [...], "new_versions": [...], "inputs_differ": ["nic.cc_params
 * cc_params.txt", ...]}, or NULL when out of memory.
 */
json_t *cmp_prov_diff(const struct cmp_side *b, const struct cmp_side *n);
/* One line saying how the versions and inputs of the sides differ, or NULL
 * when they do not (and both sides say). */
const char *cmp_prov_text(const json_t *diff, char *buf, size_t size);

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
