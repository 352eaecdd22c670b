/*
 * compare stats: which way each metric gets better, how much worse it may
 * get (its tolerance), and the verdict on one metric at one point. A metric
 * regresses when its mean over the seeds is worse than the base's by more
 * than the tolerance and, when both sides have at least two seeds, the
 * difference is also significant: Welch's t-test (unequal variances,
 * Welch-Satterthwaite degrees of freedom), two-sided, at 95%, with GSL's
 * Student t distribution.
 */
#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/compare_impl.h"

#define CMP_ALPHA 0.05

/* A known metric: its direction and default tolerance. */
struct cmp_metric {
	const char *name;
	enum cmp_dir dir;
	double tol;
	int pct;
};

/*
 * Lower is better for PAUSE frames and time, drops, queue and headroom
 * peaks, flow and collective completion times; higher for the collective's
 * bandwidth and the flows done. A lossless drop, a flow that no longer
 * finishes, a deadlock: any at all is a regression.
 */
static const struct cmp_metric metrics[] = {
    {"pfc_pause_frames", CMP_LOWER, 5, 1},
    {"pfc_pause_rate_per_s", CMP_LOWER, 5, 1},
    {"pfc_paused_time_us", CMP_LOWER, 5, 1},
    {"paused_ports", CMP_LOWER, 5, 1},
    {"drops", CMP_LOWER, 5, 1},
    {"lossless_drops", CMP_LOWER, 0, 0},
    {"retransmitted_packets", CMP_LOWER, 5, 1},
    {"unroutable_flows", CMP_LOWER, 0, 0},
    {"watchdog_triggers", CMP_LOWER, 5, 1},
    {"max_queue_bytes", CMP_LOWER, 5, 1},
    {"max_headroom_bytes", CMP_LOWER, 5, 1},
    {"flows_done", CMP_HIGHER, 0, 0},
    {"fct_us.p50", CMP_LOWER, 5, 1},
    {"fct_us.p99", CMP_LOWER, 5, 1},
    {"fct_us.max", CMP_LOWER, 5, 1},
    {"collective.completion_time_us", CMP_LOWER, 5, 1},
    {"collective.algbw_GBps", CMP_HIGHER, 5, 1},
    {"collective.busbw_GBps", CMP_HIGHER, 5, 1},
    {"deadlock.detected", CMP_LOWER, 0, 0},
};
#define N_METRICS (sizeof(metrics) / sizeof(metrics[0]))

/* What a side gives besides its metrics: the workload must be the same. */
static const char *const workload_keys[] = {"flows", "collective.op", "collective.bytes",
					    "collective.ranks", NULL};

static const struct cmp_metric *find_metric(const char *name)
{
	for (size_t i = 0; i < N_METRICS; i++)
		if (!strcmp(metrics[i].name, name))
			return &metrics[i];
	return NULL;
}

int cmp_metric_dir(const char *metric, enum cmp_dir *dir)
{
	const struct cmp_metric *m = find_metric(metric);

	if (!m)
		return -1;
	*dir = m->dir;
	return 0;
}

static int fail(char *err, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void cmp_metric_list(char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < N_METRICS && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? ", " : "", metrics[i].name);
}

int cmp_tol_parse(const char *arg, struct cmp_tol *t, char *err, size_t size)
{
	const char *eq = strchr(arg, '=');
	char known[800], *end;
	size_t len = eq ? (size_t)(eq - arg) : 0;

	if (!eq || !len || len >= sizeof(t->metric))
		return fail(err, size, "--tolerance \"%s\": expected METRIC=PCT%% or METRIC=ABS",
			    arg);
	memcpy(t->metric, arg, len);
	t->metric[len] = '\0';
	if (!find_metric(t->metric)) {
		cmp_metric_list(known, sizeof(known));
		return fail(err, size, "--tolerance %s: unknown metric (one of: %s)", t->metric,
			    known);
	}
	t->value = strtod(eq + 1, &end);
	t->pct = *end == '%';
	if (end == eq + 1 || (*end && strcmp(end, "%")) || !(t->value >= 0) || isinf(t->value))
		return fail(err, size,
			    "--tolerance %s: \"%s\" is not a tolerance (5%% of the base, or an "
			    "absolute amount such as 100)",
			    t->metric, eq + 1);
	return 0;
}

/* The tolerance of @m: --tolerance when given, else its default. */
static struct cmp_tol tol_of(const struct cmp_metric *m, const struct cmp_opts *o)
{
	struct cmp_tol t = {.value = m->tol, .pct = m->pct};

	for (size_t i = 0; i < o->n_tols; i++)
		if (!strcmp(o->tols[i].metric, m->name))
			t = o->tols[i];
	snprintf(t.metric, sizeof(t.metric), "%s", m->name);
	return t;
}

/* Two-sided p of Welch's t-test between @a and @b (at least two each). */
static double welch_p(const double *a, size_t na, const double *b, size_t nb)
{
	double ma = gsl_stats_mean(a, 1, na), mb = gsl_stats_mean(b, 1, nb);
	double va = gsl_stats_variance_m(a, 1, na, ma) / (double)na;
	double vb = gsl_stats_variance_m(b, 1, nb, mb) / (double)nb;
	double se2 = va + vb, t, df;

	if (!(se2 > 0))
		return ma == mb ? 1.0 : 0.0; /* no spread: any difference is real */
	t = (mb - ma) / sqrt(se2);
	df = se2 * se2 / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	return 2.0 * gsl_cdf_tdist_Q(fabs(t), df);
}

/* The values of @metric over the runs of @s at @point into @x; how many. */
static size_t samples(const struct cmp_side *s, const char *point, const char *metric, double *x)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n; i++) {
		json_t *v;

		if (strcmp(s->runs[i].point, point))
			continue;
		v = json_object_get(s->runs[i].flat, metric);
		if (json_is_number(v))
			x[k++] = json_number_value(v);
	}
	return k;
}

static const struct cmp_run *first_run(const struct cmp_side *s, const char *point)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->runs[i].point, point))
			return &s->runs[i];
	return NULL;
}

static void verdict(struct cmp_row *row, const double *xb, const double *xn)
{
	double worse, tol;

	if (!row->n_new) {
		row->verdict = CMP_LOST;
		return;
	}
	if (!row->n_base) {
		row->verdict = CMP_NEW;
		return;
	}
	worse = row->dir == CMP_LOWER ? row->new - row->base : row->base - row->new;
	tol = row->tol_given.pct ? row->tol_given.value / 100.0 * fabs(row->base)
				 : row->tol_given.value;
	row->tol = tol;
	if (row->n_base >= 2 && row->n_new >= 2)
		row->p = welch_p(xb, row->n_base, xn, row->n_new);
	if (row->new == row->base)
		row->verdict = CMP_SAME;
	else if (fabs(worse) <= tol * (1 + 1e-9))
		row->verdict = CMP_WITHIN;
	else if (row->p >= 0 && row->p >= CMP_ALPHA)
		row->verdict = CMP_NOT_SIGNIFICANT;
	else
		row->verdict = worse > 0 ? CMP_WORSE : CMP_BETTER;
}

static int add_row(struct cmp_result *r, const struct cmp_row *row)
{
	struct cmp_row *v = realloc(r->rows, (r->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	r->rows = v;
	r->rows[r->n++] = *row;
	r->regressions += row->verdict == CMP_WORSE || row->verdict == CMP_LOST;
	r->improvements += row->verdict == CMP_BETTER;
	return 0;
}

static int skip_point(struct cmp_result *r, const char *side, const char *point)
{
	char **v = realloc(r->skipped, (r->n_skipped + 1) * sizeof(*v));
	size_t len = strlen(side) + strlen(point) + 16;

	if (!v)
		return -ENOMEM;
	r->skipped = v;
	if (!(v[r->n_skipped] = malloc(len)))
		return -ENOMEM;
	snprintf(v[r->n_skipped++], len, "%s only: %s", side, *point ? point : "(the run)");
	return 0;
}

/* Is @point already among the first @i runs of @s? */
static int seen_before(const struct cmp_side *s, size_t i, const char *point)
{
	for (size_t k = 0; k < i; k++)
		if (!strcmp(s->runs[k].point, point))
			return 1;
	return 0;
}

/* What a mismatch error ends with: how to compare anyway, where there is a way. */
static const char *hint(const struct cmp_opts *o)
{
	return o->no_force_hint ? "" : " (--force compares them anyway)";
}

/* Points on one side only: an error, or skipped with force. */
static int match_points(const struct cmp_side *a, const struct cmp_side *b, const char *a_name,
			const struct cmp_opts *o, struct cmp_result *r, char *err, size_t size)
{
	for (size_t i = 0; i < a->n; i++) {
		const char *pt = a->runs[i].point;

		if (seen_before(a, i, pt) || first_run(b, pt))
			continue;
		if (!o->force)
			return fail(err, size,
				    "%s has point \"%s\" and the other side has no run of it: not "
				    "the same sweep%s",
				    a_name, *pt ? pt : "(a lone run)", hint(o));
		if (skip_point(r, a_name, pt))
			return -ENOMEM;
	}
	return 0;
}

/* A workload value as messages print it. */
static const char *value_text(const json_t *v, char *buf, size_t size)
{
	if (!v)
		return "absent";
	if (json_is_number(v))
		return cmp_num(json_number_value(v), buf, size);
	snprintf(buf, size, "%s", json_string_value(v));
	return buf;
}

static int same_workload(const struct cmp_run *b, const struct cmp_run *n, const struct cmp_opts *o,
			 char *err, size_t size)
{
	char vb[256], vn[256];

	for (const char *const *k = workload_keys; *k; k++) {
		json_t *x = json_object_get(b->flat, *k), *y = json_object_get(n->flat, *k);

		if ((!x && !y) || (x && y && json_equal(x, y)))
			continue;
		if (json_is_number(x) && json_is_number(y) &&
		    json_number_value(x) == json_number_value(y))
			continue;
		return fail(err, size, "%s%sthe workload differs: %s is %s in BASE, %s in NEW%s",
			    *b->point ? b->point : "", *b->point ? ": " : "", *k,
			    value_text(x, vb, sizeof(vb)), value_text(y, vn, sizeof(vn)), hint(o));
	}
	return 0;
}

int cmp_compare(const struct cmp_side *b, const struct cmp_side *n, const struct cmp_opts *o,
		struct cmp_result *r, char *err, size_t size)
{
	double *xb = NULL, *xn = NULL;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	if (strcmp(b->scenario, n->scenario) && !o->force)
		return fail(
		    err, size,
		    "BASE is scenario \"%s\", NEW is scenario \"%s\": not the same scenario%s",
		    b->scenario, n->scenario, hint(o));
	if ((rc = match_points(b, n, "BASE", o, r, err, size)) ||
	    (rc = match_points(n, b, "NEW", o, r, err, size)))
		goto out;
	xb = malloc((b->n + 1) * sizeof(*xb));
	xn = malloc((n->n + 1) * sizeof(*xn));
	if (!xb || !xn) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < b->n && !rc; i++) {
		const char *pt = b->runs[i].point;
		const struct cmp_run *nr = first_run(n, pt);
		size_t n_names = o->metrics ? o->n_metrics : N_METRICS;

		if (seen_before(b, i, pt) || !nr)
			continue;
		if (!o->force && (rc = same_workload(&b->runs[i], nr, o, err, size)))
			break;
		for (size_t m = 0; m < n_names && !rc; m++) {
			const struct cmp_metric *cm =
			    o->metrics ? find_metric(o->metrics[m]) : &metrics[m];
			struct cmp_row row = {.point = pt, .p = -1};

			if (!cm)
				continue;
			row.metric = cm->name;
			row.dir = cm->dir;
			row.tol_given = tol_of(cm, o);
			row.n_base = samples(b, pt, cm->name, xb);
			row.n_new = samples(n, pt, cm->name, xn);
			if (!row.n_base && !row.n_new)
				continue;
			if (row.n_base)
				row.base = gsl_stats_mean(xb, 1, row.n_base);
			if (row.n_new)
				row.new = gsl_stats_mean(xn, 1, row.n_new);
			verdict(&row, xb, xn);
			rc = add_row(r, &row);
		}
	}
out:
	free(xb);
	free(xn);
	if (rc)
		cmp_result_free(r);
	return rc;
}

void cmp_result_free(struct cmp_result *r)
{
	for (size_t i = 0; i < r->n_skipped; i++)
		free(r->skipped[i]);
	free(r->skipped);
	free(r->rows);
	memset(r, 0, sizeof(*r));
}

const char *cmp_num(double v, char *buf, size_t size)
{
	size_t len;

	if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(buf, size, "%.0f", v);
		return buf;
	}
	snprintf(buf, size, "%.3f", v);
	len = strlen(buf);
	while (len > 1 && buf[len - 1] == '0')
		buf[--len] = '\0';
	return buf;
}

const char *cmp_change(const struct cmp_row *row, char *buf, size_t size)
{
	char num[64];

	if (!row->n_base || !row->n_new)
		snprintf(buf, size, "-");
	else if (row->new == row->base)
		snprintf(buf, size, "0");
	else if (row->base != 0)
		snprintf(buf, size, "%+.1f%%", 100.0 * (row->new - row->base) / fabs(row->base));
	else
		snprintf(buf, size, "%s%s", row->new > row->base ? "+" : "",
			 cmp_num(row->new - row->base, num, sizeof(num)));
	return buf;
}

static const char *tol_text(const struct cmp_row *row, char *buf, size_t size)
{
	char num[64];

	if (row->tol_given.pct)
		snprintf(buf, size, "%s%%", cmp_num(row->tol_given.value, num, sizeof(num)));
	else
		snprintf(buf, size, "%s", cmp_num(row->tol_given.value, num, sizeof(num)));
	return buf;
}

const char *cmp_verdict_text(const struct cmp_row *row, char *buf, size_t size)
{
	char tol[64], p[32] = "";

	tol_text(row, tol, sizeof(tol));
	if (row->p >= 0)
		snprintf(p, sizeof(p), ", p=%.2g", row->p);
	switch (row->verdict) {
	case CMP_SAME:
		snprintf(buf, size, "same");
		break;
	case CMP_WITHIN:
		snprintf(buf, size, "ok (within %s)", tol);
		break;
	case CMP_NOT_SIGNIFICANT:
		snprintf(buf, size, "ok (beyond %s, not significant%s)", tol, p);
		break;
	case CMP_BETTER:
		snprintf(buf, size, "better (beyond %s%s)", tol, p);
		break;
	case CMP_WORSE:
		snprintf(buf, size, "REGRESSION (worse by more than %s%s)", tol, p);
		break;
	case CMP_LOST:
		snprintf(buf, size, "REGRESSION (not measured in NEW)");
		break;
	case CMP_NEW:
		snprintf(buf, size, "new (not measured in BASE)");
		break;
	}
	return buf;
}

const char *cmp_verdict_name(enum cmp_verdict v)
{
	static const char *const names[] = {"same",	   "within_tolerance", "not_significant",
					    "improvement", "regression",       "regression",
					    "new"};

	return names[v];
}
