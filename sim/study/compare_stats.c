/*
 * compare stats: which way each metric gets better, how much worse it may
 * get (its tolerance), and the verdict on one metric at one point.
 *
 * When both sides ran the same seeds for a point, the runs are paired by
 * seed: a seed is the same random draws on both sides (ECMP hashes, arrival
 * times, RED marks), so the change per seed is what the change did, and a
 * metric that moves 2x from one seed to the next does not hide a 30% move
 * between the sides. The mean paired change decides (a regression when it
 * is worse than the tolerance), and its 95% interval (Student's t on the
 * paired differences, GSL's quantile) says how sure: "certain" when the
 * whole interval is past the tolerance, else "likely". Seeds that only one
 * side ran are left out of the pairs (and said); a side of one run is
 * paired with the other's run of its seed. With fewer than two seeds in
 * common (and not a lone run whose seed the other side has) the sides are
 * compared unpaired: the mean must be worse by more than the tolerance and Welch's
 * t-test (unequal variances, Welch-Satterthwaite degrees of freedom) find
 * the difference significant at 95%; the smallest change it could have
 * found is reported with it.
 *
 * A count (PAUSE frames, drops, retransmissions, ECN marks, CNPs, ...) that
 * is 0 in every BASE run and above 0 in NEW is a regression whatever the
 * percentage, unless an absolute --tolerance allows it.
 */
#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim/study/compare_impl.h"

#define CMP_ALPHA 0.05

#define M_DEFAULT 1u /* compared when --metrics is not given */
#define M_COUNT 2u   /* 0 in BASE, above 0 in NEW: a regression whatever the percentage */

/* A metric of the table: its direction, default tolerance and flags. */
struct cmp_metric {
	const char *name;
	enum cmp_dir dir;
	double tol;
	int pct;
	unsigned flags;
};

/*
 * Lower is better for PAUSE frames and time, ECN marks and CNPs, drops,
 * retransmissions, queue and headroom peaks, flow and collective
 * completion times; higher for the collective's bandwidth and the flows
 * done. A lossless drop, a flow that no longer finishes, a deadlock: any
 * at all is a regression. The rows without M_DEFAULT are compared when
 * named (--metrics); so is any other numeric field of the summary, either
 * way (a change beyond the tolerance in either direction is one).
 */
static const struct cmp_metric metrics[] = {
    {"pfc_pause_frames", CMP_LOWER, 5, 1, M_DEFAULT | M_COUNT},
    {"pfc_pause_rate_per_s", CMP_LOWER, 5, 1, M_DEFAULT | M_COUNT},
    {"pfc_paused_time_us", CMP_LOWER, 5, 1, M_DEFAULT | M_COUNT},
    {"paused_ports", CMP_LOWER, 5, 1, M_DEFAULT | M_COUNT},
    {"ecn_marked_packets", CMP_LOWER, 5, 1, M_DEFAULT | M_COUNT},
    {"cnp_sent", CMP_LOWER, 5, 1, M_DEFAULT | M_COUNT},
    {"cnp_handled", CMP_LOWER, 5, 1, M_DEFAULT | M_COUNT},
    {"drops", CMP_LOWER, 5, 1, M_DEFAULT | M_COUNT},
    {"lossless_drops", CMP_LOWER, 0, 0, M_DEFAULT | M_COUNT},
    {"retransmitted_packets", CMP_LOWER, 5, 1, M_DEFAULT | M_COUNT},
    {"unroutable_flows", CMP_LOWER, 0, 0, M_DEFAULT | M_COUNT},
    {"watchdog_triggers", CMP_LOWER, 5, 1, M_DEFAULT | M_COUNT},
    {"max_queue_bytes", CMP_LOWER, 5, 1, M_DEFAULT},
    {"max_headroom_bytes", CMP_LOWER, 5, 1, M_DEFAULT},
    {"flows_done", CMP_HIGHER, 0, 0, M_DEFAULT},
    {"fct_us.p50", CMP_LOWER, 5, 1, M_DEFAULT},
    {"fct_us.p99", CMP_LOWER, 5, 1, M_DEFAULT},
    {"fct_us.max", CMP_LOWER, 5, 1, M_DEFAULT},
    {"collective.completion_time_us", CMP_LOWER, 5, 1, M_DEFAULT},
    {"collective.algbw_GBps", CMP_HIGHER, 5, 1, M_DEFAULT},
    {"collective.busbw_GBps", CMP_HIGHER, 5, 1, M_DEFAULT},
    {"deadlock.detected", CMP_LOWER, 0, 0, M_DEFAULT | M_COUNT},
    {"sim_time_us", CMP_LOWER, 5, 1, 0},
    {"done_us", CMP_LOWER, 5, 1, 0},
    {"unroutable_packets", CMP_LOWER, 0, 0, M_COUNT},
    {"watchdog_drops", CMP_LOWER, 5, 1, M_COUNT},
    {"bytes.dropped", CMP_LOWER, 5, 1, M_COUNT},
    {"deadlock.static_cycles", CMP_LOWER, 0, 0, M_COUNT},
    {"collective.iterations_done", CMP_HIGHER, 0, 0, 0},
};
#define N_METRICS (sizeof(metrics) / sizeof(metrics[0]))

/* What a side gives besides its metrics: the workload must be the same.
 * workload_bytes (the flows' sizes summed) is compared when both have it. */
static const char *const workload_keys[] = {"flows",
					    "workload_bytes",
					    "collective.op",
					    "collective.bytes",
					    "collective.ranks",
					    "collective.iterations",
					    NULL};

static const struct cmp_metric *find_metric(const char *name)
{
	for (size_t i = 0; i < N_METRICS; i++)
		if (!strcmp(metrics[i].name, name))
			return &metrics[i];
	return NULL;
}

/* The metric @name: from the table, else a summary field: lower is better
 * for the percentiles of fct_slowdown.BUCKET, either way for the rest. */
static struct cmp_metric metric_of(const char *name)
{
	const struct cmp_metric *m = find_metric(name);
	struct cmp_metric g = {name, CMP_EITHER, 5, 1, 0};
	const char *dot = strrchr(name, '.');

	if (m)
		return *m;
	if (!strncmp(name, "fct_slowdown.", 13) && dot &&
	    (!strcmp(dot, ".p50") || !strcmp(dot, ".p95") || !strcmp(dot, ".p99")))
		g.dir = CMP_LOWER;
	return g;
}

int cmp_metric_dir(const char *metric, enum cmp_dir *dir)
{
	struct cmp_metric m = metric_of(metric);

	*dir = m.dir;
	return !find_metric(metric);
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

const char *cmp_metric_name(size_t i)
{
	return i < N_METRICS ? metrics[i].name : NULL;
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
	char *end;
	size_t len = eq ? (size_t)(eq - arg) : 0;

	if (!eq || !len || len >= sizeof(t->metric))
		return fail(err, size, "--tolerance \"%s\": expected METRIC=PCT%% or METRIC=ABS",
			    arg);
	memcpy(t->metric, arg, len);
	t->metric[len] = '\0';
	t->value = strtod(eq + 1, &end);
	t->pct = *end == '%';
	if (end == eq + 1 || (*end && strcmp(end, "%")) || !(t->value >= 0) || isinf(t->value))
		return fail(err, size,
			    "--tolerance %s: \"%s\" is not a tolerance (5%% of the base, or an "
			    "absolute amount such as 100)",
			    t->metric, eq + 1);
	return 0;
}

/* Is @name a numeric field of a run of @s? */
static int side_has(const struct cmp_side *s, const char *name)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (json_is_number(json_object_get(s->runs[i].flat, name)))
			return 1;
	return 0;
}

/* The numeric fields of @s outside the table, ", "-separated, after @n
 * bytes of @buf (each once: those already in @buf are not repeated). */
static size_t list_fields(const struct cmp_side *s, char *buf, size_t size, size_t n)
{
	for (size_t i = 0; s && i < s->n && i < 64 && n < size; i++) {
		const char *k;
		json_t *v;

		json_object_foreach(s->runs[i].flat, k, v) {
			char pat[160];

			if (!json_is_number(v) || find_metric(k))
				continue;
			snprintf(pat, sizeof(pat), " %s,", k);
			if (strstr(buf, pat) || n >= size)
				continue;
			n += (size_t)snprintf(buf + n, size - n, " %s,", k);
		}
	}
	return n;
}

static int check_name(const struct cmp_side *b, const struct cmp_side *n, const char *name,
		      const char *opt, char *err, size_t size)
{
	char known[800], fields[1600] = "";
	size_t len;

	if (find_metric(name) || side_has(b, name) || side_has(n, name))
		return 0;
	cmp_metric_list(known, sizeof(known));
	len = list_fields(n, fields, sizeof(fields), list_fields(b, fields, sizeof(fields), 0));
	if (len && len < sizeof(fields))
		fields[len - 1] = '\0'; /* the last comma */
	return fail(err, size, "%s: unknown metric \"%s\" (one of: %s%s%s)", opt, name, known,
		    *fields ? "; or a numeric summary field the results have:" : "", fields);
}

int cmp_check_names(const struct cmp_side *b, const struct cmp_side *n, const struct cmp_opts *o,
		    char *err, size_t size)
{
	for (size_t i = 0; o->metrics && i < o->n_metrics; i++)
		if (check_name(b, n, o->metrics[i], "--metrics", err, size))
			return -EINVAL;
	for (size_t i = 0; i < o->n_tols; i++)
		if (check_name(b, n, o->tols[i].metric, "--tolerance", err, size))
			return -EINVAL;
	return 0;
}

/* The tolerance of @m: --tolerance when given (*@given set), else its default. */
static struct cmp_tol tol_of(const struct cmp_metric *m, const struct cmp_opts *o, int *given)
{
	struct cmp_tol t = {.value = m->tol, .pct = m->pct};

	*given = 0;
	for (size_t i = 0; i < o->n_tols; i++)
		if (!strcmp(o->tols[i].metric, m->name)) {
			t = o->tols[i];
			*given = 1;
		}
	snprintf(t.metric, sizeof(t.metric), "%s", m->name);
	return t;
}

/* The largest of @k and the magnitudes of @x[0..@n). */
static double max_abs(const double *x, size_t n, double k)
{
	for (size_t i = 0; i < n; i++)
		k = fmax(k, fabs(x[i]));
	return k;
}

/*
 * Is @k, the largest magnitude of some values, so far from 1 that their
 * variances or the squares of those leave double's range? The tests then
 * take the values divided by @k (scaled): they are the same at any scale.
 */
static int far_from_one(double k)
{
	return k > 0 && isfinite(k) && (k < 1e-100 || k > 1e100);
}

/* @x[0..@n) divided by @k into @out. */
static void scaled(double *out, const double *x, size_t n, double k)
{
	for (size_t i = 0; i < n; i++)
		out[i] = x[i] / k;
}

static double welch_p(const double *a, size_t na, const double *b, size_t nb, double *detect);

/*
 * welch_p on @a and @b divided by @k, the largest magnitude among them,
 * the detectable difference scaled back: the test is the same at any
 * scale, but far from 1 the variances or their squares leave double's
 * range (near 1e-160 they underflow to 0, and the degrees of freedom come
 * out infinite or NaN with the quantile; near 1e-300 or 1e160 there is no
 * spread left, and any difference looks certain).
 */
static double welch_scaled(const double *a, size_t na, const double *b, size_t nb, double k,
			   double *detect)
{
	double sa[na], sb[nb], p;

	scaled(sa, a, na, k);
	scaled(sb, b, nb, k);
	p = welch_p(sa, na, sb, nb, detect);
	*detect *= k;
	return p;
}

/* Welch's t-test between @a and @b (at least two each): the two-sided p,
 * and into *@detect the smallest difference of means significant at 95%. */
static double welch_p(const double *a, size_t na, const double *b, size_t nb, double *detect)
{
	double ma, mb, va, vb, se2, t, df, k = max_abs(b, nb, max_abs(a, na, 0));

	/* values far from 1 are tested at 1 (once: scaled, k is 1) */
	if (far_from_one(k))
		return welch_scaled(a, na, b, nb, k, detect);
	ma = gsl_stats_mean(a, 1, na);
	mb = gsl_stats_mean(b, 1, nb);
	va = gsl_stats_variance_m(a, 1, na, ma) / (double)na;
	vb = gsl_stats_variance_m(b, 1, nb, mb) / (double)nb;
	se2 = va + vb;
	*detect = 0;
	if (!(se2 > 0) || !isfinite(se2))
		return ma == mb ? 1.0 : 0.0; /* no spread: any difference is real */
	t = (mb - ma) / sqrt(se2);
	df = se2 * se2 / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	*detect = gsl_cdf_tdist_Pinv(1 - CMP_ALPHA / 2, df) * sqrt(se2);
	return 2.0 * gsl_cdf_tdist_Q(fabs(t), df);
}

/* Each run of @s at @point: the value of @metric into @x (NAN when not
 * measured), its seed into @seed; how many runs. */
static size_t point_runs(const struct cmp_side *s, const char *point, const char *metric, double *x,
			 uint64_t *seed)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n; i++) {
		json_t *v;

		if (strcmp(s->runs[i].point, point))
			continue;
		v = json_object_get(s->runs[i].flat, metric);
		seed[k] = s->runs[i].seed;
		x[k++] = json_is_number(v) ? json_number_value(v) : NAN;
	}
	return k;
}

/* The measured values of @x[0..@n) packed to the front; how many. */
static size_t measured(double *x, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!isnan(x[i]))
			x[k++] = x[i];
	return k;
}

/* A metric present but not a number (a string, an object) in a run of @s
 * at @point: -EINVAL naming where. */
static int not_a_number(const struct cmp_side *s, const char *point, const char *metric, char *err,
			size_t size)
{
	for (size_t i = 0; i < s->n; i++) {
		json_t *v;

		if (strcmp(s->runs[i].point, point))
			continue;
		v = json_object_get(s->runs[i].flat, metric);
		if (v && !json_is_number(v))
			return fail(err, size, "%s: %s: \"%s\" is not a number", s->runs[i].where,
				    metric, json_is_string(v) ? json_string_value(v) : "?");
	}
	return 0;
}

/* The worsening of a change @d (new - base) for @dir: > 0 when worse. */
static double worsening(enum cmp_dir dir, double d)
{
	return dir == CMP_LOWER ? d : dir == CMP_HIGHER ? -d : fabs(d);
}

/*
 * The pairs of @row: the seeds both sides measured (a seed run twice on a
 * side pairs with neither). How many; the pairs into row->pairs (owned).
 */
static size_t make_pairs(struct cmp_row *row, const double *xb, const uint64_t *sb, size_t nb,
			 const double *xn, const uint64_t *sn, size_t nn)
{
	size_t k = 0, both = 0;

	row->pairs = malloc((nb + 1) * sizeof(*row->pairs));
	if (!row->pairs)
		return 0;
	for (size_t i = 0; i < nb; i++) {
		size_t hits = 0, at = 0, twice = 0;

		for (size_t j = 0; j < nn; j++)
			if (sn[j] == sb[i]) {
				hits++;
				at = j;
			}
		for (size_t j = 0; j < nb; j++)
			twice += j != i && sb[j] == sb[i];
		if (hits != 1 || twice)
			continue;
		both++;
		if (isnan(xb[i]) || isnan(xn[at]))
			continue;
		row->pairs[k++] = (struct cmp_pair){sb[i], xb[i], xn[at]};
	}
	row->left_out = nb + nn - 2 * both;
	return k;
}

/* The tolerance of @row in the metric's unit (its base mean set). */
static double tol_units(const struct cmp_row *row)
{
	return row->tol_given.pct ? row->tol_given.value / 100.0 * fabs(row->base)
				  : row->tol_given.value;
}

/*
 * The standard deviation of the @n paired changes @d (mean @m), taken at
 * 1 when they are far from it: near 1e-300 or 1e300 their squares leave
 * double's range, and the interval would shrink to nothing (a change
 * "certain" on any three seeds).
 */
static double paired_sd(const double *d, size_t n, double m)
{
	double k = max_abs(d, n, 0), dk[n];

	if (!far_from_one(k))
		return gsl_stats_sd_m(d, 1, n, m);
	scaled(dk, d, n, k);
	return gsl_stats_sd_m(dk, 1, n, m / k) * k;
}

/* The verdict of a paired @row (n_pairs >= 1): its means are those of the
 * pairs, so that the change shown is the mean paired change. */
static void verdict_paired(struct cmp_row *row)
{
	size_t n = row->n_pairs, same = 0;
	double d[n], mb = 0, mn = 0, w, h = 0;

	for (size_t i = 0; i < n; i++) {
		d[i] = row->pairs[i].new - row->pairs[i].base;
		same += d[i] == 0;
		row->n_worse += worsening(row->dir, d[i]) > 0;
		mb += (row->pairs[i].base - mb) / (double)(i + 1);
		mn += (row->pairs[i].new - mn) / (double)(i + 1);
	}
	row->base = mb;
	row->new = mn;
	row->tol = tol_units(row);
	row->change = gsl_stats_mean(d, 1, n);
	row->lo = row->hi = row->change;
	if (n >= 2) {
		double sd = paired_sd(d, n, row->change);

		h = gsl_cdf_tdist_Pinv(1 - CMP_ALPHA / 2, (double)(n - 1)) * sd / sqrt((double)n);
		if (!isfinite(h))
			h = 0;
		row->lo = row->change - h;
		row->hi = row->change + h;
		row->p = sd > 0 ? 2.0 * gsl_cdf_tdist_Q(fabs(row->change) / (sd / sqrt((double)n)),
							(double)(n - 1))
			 : row->change == 0 ? 1.0
					    : 0.0;
	}
	w = worsening(row->dir, row->change);
	if (same == n) {
		row->verdict = CMP_SAME;
	} else if (w > row->tol * (1 + 1e-9) || (row->zero_base && w > 0)) {
		double best = row->dir == CMP_HIGHER ? -row->hi : row->lo; /* least worse */

		row->verdict = CMP_WORSE;
		if (row->dir == CMP_EITHER)
			best = row->change > 0 ? row->lo : -row->hi;
		row->certain = n >= 2 && best > row->tol * (1 + 1e-9);
	} else if (-w > row->tol * (1 + 1e-9)) {
		double best = row->dir == CMP_HIGHER ? row->lo : -row->hi; /* least better */

		row->verdict = CMP_BETTER;
		row->certain = n >= 2 && best > row->tol * (1 + 1e-9);
	} else {
		row->verdict = CMP_WITHIN;
	}
}

/* The verdict of an unpaired @row (means set, tol set). */
static void verdict_unpaired(struct cmp_row *row, const double *xb, const double *xn)
{
	double w = worsening(row->dir, row->new - row->base);

	if (row->n_base >= 2 && row->n_new >= 2) {
		row->test = CMP_TEST_WELCH;
		row->p = welch_p(xb, row->n_base, xn, row->n_new, &row->detectable);
	}
	if (row->new == row->base)
		row->verdict = CMP_SAME;
	else if (row->zero_base)
		row->verdict = CMP_WORSE; /* any at all, whatever p */
	else if (fabs(row->new - row->base) <= row->tol * (1 + 1e-9))
		row->verdict = CMP_WITHIN;
	else if (row->p >= 0 && row->p >= CMP_ALPHA)
		row->verdict = CMP_NOT_SIGNIFICANT;
	else
		row->verdict = w > 0 ? CMP_WORSE : CMP_BETTER;
}

static int add_row(struct cmp_result *r, const struct cmp_row *row)
{
	struct cmp_row *v = realloc(r->rows, (r->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	r->rows = v;
	r->rows[r->n++] = *row;
	r->regressions += cmp_is_regression(row);
	r->improvements += row->verdict == CMP_BETTER;
	return 0;
}

/* Compare metric @cm at @point into a row of @r. */
static int compare_metric(const struct cmp_side *b, const struct cmp_side *n, const char *point,
			  const struct cmp_metric *cm, const struct cmp_opts *o,
			  struct cmp_result *r, double *xb, double *xn, uint64_t *sb, uint64_t *sn)
{
	struct cmp_row row = {.point = point, .p = -1, .detectable = -1};
	size_t nb = point_runs(b, point, cm->name, xb, sb);
	size_t nn = point_runs(n, point, cm->name, xn, sn);
	int given, rc;

	row.metric = cm->name;
	row.dir = cm->dir;
	row.tol_given = tol_of(cm, o, &given);
	row.n_pairs = make_pairs(&row, xb, sb, nb, xn, sn, nn);
	if (!row.pairs)
		return -ENOMEM;
	nb = row.n_base = measured(xb, nb);
	nn = row.n_new = measured(xn, nn);
	if (!nb && !nn) {
		free(row.pairs);
		return 0;
	}
	if (nb)
		row.base = gsl_stats_mean(xb, 1, nb);
	if (nn)
		row.new = gsl_stats_mean(xn, 1, nn);
	row.zero_base = (cm->flags & M_COUNT) && !(given && !row.tol_given.pct) && nb && nn &&
			gsl_stats_max(xb, 1, nb) == 0 && row.new > 0;
	if (!nn) {
		row.verdict = CMP_LOST;
	} else if (!nb) {
		row.verdict = CMP_NEW;
	} else if (row.n_pairs >= 2 || (row.n_pairs == 1 && (nb == 1 || nn == 1))) {
		row.test = CMP_TEST_PAIRED;
		verdict_paired(&row);
	} else {
		row.tol = tol_units(&row);
		verdict_unpaired(&row, xb, xn);
	}
	if (row.test != CMP_TEST_PAIRED) {
		free(row.pairs);
		row.pairs = NULL;
		row.n_pairs = 0;
	}
	if ((rc = add_row(r, &row)))
		free(row.pairs);
	return rc;
}

static int skip_point(struct cmp_result *r, const char *what, const char *point)
{
	char **v = realloc(r->skipped, (r->n_skipped + 1) * sizeof(*v));
	size_t len = strlen(what) + strlen(point) + 16;

	if (!v)
		return -ENOMEM;
	r->skipped = v;
	if (!(v[r->n_skipped] = malloc(len)))
		return -ENOMEM;
	snprintf(v[r->n_skipped++], len, "%s: %s", what, *point ? point : "(the run)");
	return 0;
}

static const struct cmp_run *first_run(const struct cmp_side *s, const char *point)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->runs[i].point, point))
			return &s->runs[i];
	return NULL;
}

static const struct cmp_fail *first_fail(const struct cmp_side *s, const char *point)
{
	for (size_t i = 0; i < s->n_failed; i++)
		if (!strcmp(s->failed[i].point, point))
			return &s->failed[i];
	return NULL;
}

/* Did the run of @seed at @point fail on side @s? */
static int failed_too(const struct cmp_side *s, const char *point, uint64_t seed)
{
	for (size_t i = 0; i < s->n_failed; i++)
		if (s->failed[i].seed == seed && !strcmp(s->failed[i].point, point))
			return 1;
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

/* Points on one side only: an error, or skipped with force. A point whose
 * runs all failed on the other side is not one (the failures are said). */
static int match_points(const struct cmp_side *a, const struct cmp_side *b, const char *a_name,
			const struct cmp_opts *o, struct cmp_result *r, char *err, size_t size)
{
	char what[64];

	for (size_t i = 0; i < a->n; i++) {
		const char *pt = a->runs[i].point;

		if (seen_before(a, i, pt) || first_run(b, pt))
			continue;
		if (first_fail(b, pt)) {
			if (!strcmp(a_name, "NEW") && skip_point(r, "every run failed in BASE", pt))
				return -ENOMEM;
			continue;
		}
		if (!o->force)
			return fail(err, size,
				    "%s has point \"%s\" and the other side has no run of it: not "
				    "the same sweep%s",
				    a_name, *pt ? pt : "(a lone run)", hint(o));
		snprintf(what, sizeof(what), "%s only", a_name);
		if (skip_point(r, what, pt))
			return -ENOMEM;
	}
	return 0;
}

/*
 * Runs of NEW at @point that failed where BASE's run of the seed did not:
 * a row "runs" (a regression) saying how many of NEW's runs failed and the
 * first error.
 */
static int failed_runs(const struct cmp_side *b, const struct cmp_side *n, const char *point,
		       struct cmp_result *r)
{
	const struct cmp_fail *first = NULL;
	size_t k = 0, all = 0;
	struct cmp_row row = {.point = point, .metric = "runs", .p = -1, .detectable = -1};
	char text[700];

	for (size_t i = 0; i < n->n; i++)
		all += !strcmp(n->runs[i].point, point);
	for (size_t i = 0; i < n->n_failed; i++) {
		if (strcmp(n->failed[i].point, point))
			continue;
		all++;
		if (failed_too(b, point, n->failed[i].seed))
			continue;
		k++;
		first = first ? first : &n->failed[i];
	}
	if (!k)
		return 0;
	snprintf(text, sizeof(text), "%s%zu of %zu run%s failed in NEW (seed %llu: %s)",
		 k == all ? "every run failed in NEW: " : "", k, all, all == 1 ? "" : "s",
		 (unsigned long long)first->seed, *first->error ? first->error : "no results");
	row.verdict = CMP_FAILED;
	row.n_base = row.n_new = 0;
	if (!(row.note = strdup(text)))
		return -ENOMEM;
	if (add_row(r, &row)) {
		free(row.note);
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

/* The run of @s at @point of @seed, or NULL. */
static const struct cmp_run *run_of(const struct cmp_side *s, const char *point, uint64_t seed)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->runs[i].seed == seed && !strcmp(s->runs[i].point, point))
			return &s->runs[i];
	return NULL;
}

/* The workload of BASE and NEW at @point must be the same: compared on a
 * seed both ran when there is one (a random workload draws by seed). */
static int same_workload(const struct cmp_side *bs, const struct cmp_side *ns, const char *point,
			 const struct cmp_opts *o, char *err, size_t size)
{
	const struct cmp_run *b = first_run(bs, point), *n = first_run(ns, point);
	char vb[256], vn[256];

	for (size_t i = 0; i < bs->n; i++) {
		const struct cmp_run *m;

		if (strcmp(bs->runs[i].point, point) || !(m = run_of(ns, point, bs->runs[i].seed)))
			continue;
		b = &bs->runs[i];
		n = m;
		break;
	}
	for (const char *const *k = workload_keys; *k; k++) {
		json_t *x = json_object_get(b->flat, *k), *y = json_object_get(n->flat, *k);

		if ((!x && !y) || (x && y && json_equal(x, y)))
			continue;
		if (json_is_number(x) && json_is_number(y) &&
		    json_number_value(x) == json_number_value(y))
			continue;
		if ((!x || !y) && !strcmp(*k, "workload_bytes"))
			continue; /* results from before it was recorded */
		return fail(err, size, "%s%sthe workload differs: %s is %s in BASE, %s in NEW%s",
			    *point ? point : "", *point ? ": " : "", *k,
			    value_text(x, vb, sizeof(vb)), value_text(y, vn, sizeof(vn)), hint(o));
	}
	return 0;
}

/* Compare BASE and NEW at @pt: the workload, failed runs, each metric. */
static int compare_point(const struct cmp_side *b, const struct cmp_side *n, const char *pt,
			 const struct cmp_opts *o, struct cmp_result *r, double *xb, double *xn,
			 uint64_t *sb, uint64_t *sn, char *err, size_t size)
{
	size_t n_names = o->metrics ? o->n_metrics : N_METRICS;
	int rc;

	if (!first_run(n, pt))
		return failed_runs(b, n, pt, r); /* every run of NEW failed, or none ran */
	if (!o->force && (rc = same_workload(b, n, pt, o, err, size)))
		return rc;
	if ((rc = failed_runs(b, n, pt, r)))
		return rc;
	for (size_t m = 0; m < n_names; m++) {
		struct cmp_metric cm;

		if (o->metrics) {
			cm = metric_of(o->metrics[m]);
		} else {
			cm = metrics[m];
			if (!(cm.flags & M_DEFAULT))
				continue;
		}
		if ((rc = not_a_number(b, pt, cm.name, err, size)) ||
		    (rc = not_a_number(n, pt, cm.name, err, size)) ||
		    (rc = compare_metric(b, n, pt, &cm, o, r, xb, xn, sb, sn)))
			return rc;
	}
	return 0;
}

/* Nothing was compared: why, as an error. */
static int nothing(const struct cmp_side *b, const struct cmp_side *n, const struct cmp_opts *o,
		   char *err, size_t size)
{
	int any_point = 0;

	for (size_t i = 0; i < b->n && !any_point; i++)
		any_point = first_run(n, b->runs[i].point) != NULL;
	if (!any_point)
		return fail(err, size,
			    "nothing compared: BASE and NEW have no point in common (%zu and %zu "
			    "runs)",
			    b->n, n->n);
	return fail(err, size, "nothing compared: %s measured on both sides at any point in common",
		    o->metrics ? "none of the metrics of --metrics was" : "no metric was");
}

int cmp_compare(const struct cmp_side *b, const struct cmp_side *n, const struct cmp_opts *o,
		struct cmp_result *r, char *err, size_t size)
{
	double *xb = NULL, *xn = NULL;
	uint64_t *sb = NULL, *sn = NULL;
	size_t compared = 0;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	if ((rc = cmp_check_names(b, n, o, err, size)))
		return rc;
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
	sb = malloc((b->n + 1) * sizeof(*sb));
	sn = malloc((n->n + 1) * sizeof(*sn));
	if (!xb || !xn || !sb || !sn) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < b->n && !rc; i++)
		if (!seen_before(b, i, b->runs[i].point))
			rc = compare_point(b, n, b->runs[i].point, o, r, xb, xn, sb, sn, err, size);
	/* the points whose runs all failed in BASE are skipped by match_points */
	for (size_t i = 0; i < r->n; i++)
		compared += r->rows[i].verdict != CMP_NEW;
	if (!rc && !compared)
		rc = nothing(b, n, o, err, size);
	if (!rc && !(r->prov = cmp_prov_diff(b, n)))
		rc = -ENOMEM;
out:
	free(xb);
	free(xn);
	free(sb);
	free(sn);
	if (rc)
		cmp_result_free(r);
	return rc;
}

void cmp_result_free(struct cmp_result *r)
{
	for (size_t i = 0; i < r->n_skipped; i++)
		free(r->skipped[i]);
	for (size_t i = 0; i < r->n; i++) {
		free(r->rows[i].pairs);
		free(r->rows[i].note);
	}
	free(r->skipped);
	free(r->rows);
	json_decref(r->prov);
	memset(r, 0, sizeof(*r));
}
