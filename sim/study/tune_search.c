/*
 * tune search: where to run next, given what ran.
 *
 * One key whose own value is the objective (the smallest headroom, the
 * largest kmax) under constraints that are monotone in it: bisection at
 * the key's grain, the bracket cut into batch + 1 parts per round when
 * several points may run at once; every point evaluated is checked for
 * monotonicity, and the note says when it does not hold.
 *
 * Anything else: a coarse grid over the parameters scaled to [0, 1] (log
 * scale for ranges over a decade; the ends of each range included, where
 * thresholds often find their best), then GSL's Nelder-Mead simplex
 * (nmsimplex2) from the grid's best point, restarted from the best point
 * with half the step each time it shrinks below the grain (or a hundredth
 * of the range, whichever is coarser), until the budget is spent. Values are snapped to the grain
 * (whole bytes, ps, ...) before they run, and a point already evaluated is never run again.
 * Constraints enter as a penalty above every feasible score, scaled by
 * how far they are broken (relative to their limit), so the simplex walks
 * toward feasibility; with seeds, the objective is the mean over the seeds
 * and a constraint must hold for every seed.
 */
#include <errno.h>
#include <float.h>
#include <gsl/gsl_multimin.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/study/tune_impl.h"

double tune_snap(const struct tune_param *p, double v)
{
	if (sweep_family_integral(p->fam))
		v = p->grain > 1 ? round(v / p->grain) * p->grain : round(v);
	return v < p->lo ? p->lo : v > p->hi ? p->hi : v;
}

double tune_from_unit(const struct tune_param *p, double u)
{
	u = u < 0 ? 0 : u > 1 ? 1 : u;
	if (p->log)
		return tune_snap(p, p->lo * pow(p->hi / p->lo, u));
	return tune_snap(p, p->lo + (p->hi - p->lo) * u);
}

double tune_to_unit(const struct tune_param *p, double v)
{
	if (p->hi <= p->lo)
		return 0;
	if (p->log)
		return log(v / p->lo) / log(p->hi / p->lo);
	return (v - p->lo) / (p->hi - p->lo);
}

double tune_violation(enum tune_op op, double m, double c)
{
	double scale = fabs(c) > 1 ? fabs(c) : 1, over = (m - c) / scale;

	if (isnan(m))
		return TUNE_VIOL_FAILED;
	switch (op) {
	case TUNE_EQ:
		return m == c ? 0 : fabs(over);
	case TUNE_LE:
		return m <= c ? 0 : over;
	case TUNE_LT:
		return m < c ? 0 : over + 1e-9;
	case TUNE_GE:
		return m >= c ? 0 : -over;
	case TUNE_GT:
		return m > c ? 0 : -over + 1e-9;
	}
	return TUNE_VIOL_FAILED;
}

void tune_fold(const struct tune_problem *pb, struct tune_point *pt, size_t seed,
	       const double *vals)
{
	double v = 0;

	for (size_t c = 0; c < pb->n_cons; c++)
		v += tune_violation(pb->cons[c].op, vals[pb->n_obj + c], pb->cons[c].value);
	for (size_t k = 0; k < pb->n_obj; k++) {
		pt->obj[k] =
		    seed ? pt->obj[k] + (vals[k] - pt->obj[k]) / (double)(seed + 1) : vals[k];
		pt->lo[k] = seed && !(vals[k] < pt->lo[k]) ? pt->lo[k] : vals[k];
		pt->hi[k] = seed && !(vals[k] > pt->hi[k]) ? pt->hi[k] : vals[k];
		if (seed < TUNE_PAIRED)
			pt->seed_obj[seed][k] = vals[k];
	}
	pt->viol = seed && pt->viol > v ? pt->viol : v;
}

int tune_feasible(const struct tune_point *p)
{
	return p->state == TUNE_RAN && p->viol == 0;
}

double tune_score(const struct tune_search *s, const struct tune_point *pt)
{
	const struct tune_problem *pb = s->pb;
	double f = 0;

	if (pt->state == TUNE_UNFINISHED) /* the more flows done, the closer */
		return TUNE_INFEASIBLE * (1 + TUNE_VIOL_UNFINISHED * (1 + pt->unfinished));
	if (pt->viol > 0 || pt->state != TUNE_RAN)
		return TUNE_INFEASIBLE *
		       (1 + (pt->state == TUNE_RAN ? pt->viol : TUNE_VIOL_FAILED));
	for (size_t k = 0; k < pb->n_obj; k++) {
		double v = pb->obj[k].maximize ? -pt->obj[k] : pt->obj[k];

		f += pb->n_obj > 1 ? (v - s->norm_lo[k]) / s->norm_span[k] : v;
	}
	return f;
}

int tune_bisects(const struct tune_problem *pb)
{
	return pb->n_params == 1 && pb->n_obj == 1 && pb->obj[0].m.param == 0 && pb->n_cons > 0;
}

long tune_best(const struct tune_search *s)
{
	long best = -1;

	for (size_t i = 0; i < s->n; i++)
		if (s->pts[i].state != TUNE_REFUSED &&
		    (best < 0 || tune_score(s, &s->pts[i]) < tune_score(s, &s->pts[best])))
			best = (long)i;
	return best;
}

size_t tune_front(const struct tune_search *s, size_t *idx)
{
	const struct tune_problem *pb = s->pb;
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++) {
		const struct tune_point *a = &s->pts[i];
		int dominated = a->state != TUNE_RAN || a->viol > 0;

		for (size_t j = 0; j < s->n && !dominated; j++) {
			const struct tune_point *b = &s->pts[j];
			int no_worse = 1, better = 0;

			if (j == i || b->state != TUNE_RAN || b->viol > 0)
				continue;
			for (size_t k = 0; k < pb->n_obj; k++) {
				double va = pb->obj[k].maximize ? -a->obj[k] : a->obj[k];
				double vb = pb->obj[k].maximize ? -b->obj[k] : b->obj[k];

				no_worse &= vb <= va;
				better |= vb < va;
			}
			/* of two equal points, the first evaluated stays */
			dominated = no_worse && (better || j < i);
		}
		if (!dominated)
			idx[n++] = i;
	}
	for (size_t i = 1; i < n; i++) /* few points: insertion sort by objective 0 */
		for (size_t j = i; j > 0 && s->pts[idx[j]].obj[0] < s->pts[idx[j - 1]].obj[0];
		     j--) {
			size_t t = idx[j];

			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	return n;
}

/* The index of the point at @x, or -1. */
static long find(const struct tune_search *s, const double *x)
{
	for (size_t i = 0; i < s->n; i++)
		if (!memcmp(s->pts[i].x, x, s->pb->n_params * sizeof(*x)))
			return (long)i;
	return -1;
}

/* Record a new incumbent when the best point changed. */
static void track(struct tune_search *s)
{
	long b = tune_best(s);

	if (b >= 0 && (!s->n_path || s->path[s->n_path - 1] != (size_t)b))
		s->path[s->n_path++] = (size_t)b;
}

/*
 * Evaluate the points @xs (@n of them, n_params values each) that were not
 * evaluated before, within the budget: 0, or the evaluator's error. Sets
 * s->exhausted when the budget cut the batch short.
 */
static int evaluate(struct tune_search *s, const double *xs, size_t n)
{
	const struct tune_problem *pb = s->pb;
	size_t first = s->n, fresh = 0;
	int err;

	if (s->n + n > s->cap) {
		size_t cap = s->cap * 2 > s->n + n ? s->cap * 2 : s->n + n + 16;
		struct tune_point *p = realloc(s->pts, cap * sizeof(*p));
		size_t *path = p ? realloc(s->path, cap * sizeof(*path)) : NULL;

		if (p)
			s->pts = p;
		if (!p || !path)
			return -ENOMEM;
		s->path = path;
		s->cap = cap;
	}
	for (size_t i = 0; i < n; i++) {
		const double *x = xs + i * pb->n_params;
		int again = find(s, x) >= 0;

		for (size_t j = first; j < s->n && !again; j++)
			again = !memcmp(s->pts[j].x, x, pb->n_params * sizeof(*x));
		if (again)
			continue;
		if (s->runs + (fresh + 1) * pb->n_seeds > pb->budget) {
			s->exhausted = 1;
			break;
		}
		memset(&s->pts[s->n], 0, sizeof(s->pts[s->n]));
		memcpy(s->pts[s->n].x, x, pb->n_params * sizeof(*x));
		s->pts[s->n].id = s->n + 1;
		s->n++;
		fresh++;
	}
	if (!fresh)
		return 0;
	if ((err = s->eval(s->ctx, &s->pts[first], fresh)))
		return err;
	for (size_t i = first; i < s->n; i++) {
		/* the objective that is a varied key is its value, whatever ran */
		for (size_t k = 0; k < pb->n_obj; k++)
			if (pb->obj[k].m.param >= 0)
				s->pts[i].obj[k] = s->pts[i].x[pb->obj[k].m.param];
		s->runs += s->pts[i].runs;
	}
	track(s);
	return 0;
}

/* Is feasibility a step in the key over every point that ran? */
static void check_monotone(struct tune_search *s, int want_low)
{
	const struct tune_param *p = &s->pb->params[0];
	double lowest_ok = INFINITY, highest_ok = -INFINITY;

	for (size_t i = 0; i < s->n; i++) {
		if (tune_feasible(&s->pts[i])) {
			lowest_ok = fmin(lowest_ok, s->pts[i].x[0]);
			highest_ok = fmax(highest_ok, s->pts[i].x[0]);
		}
	}
	for (size_t i = 0; i < s->n && s->monotone; i++) {
		const struct tune_point *q = &s->pts[i];
		int broken = want_low ? q->x[0] > lowest_ok : q->x[0] < highest_ok;
		char v[64], w[64];

		if (tune_feasible(q) || q->state == TUNE_REFUSED || !broken)
			continue;
		s->monotone = 0;
		sweep_value_format(p->fam, (uint64_t)q->x[0], q->x[0], v, sizeof(v));
		sweep_value_format(p->fam, (uint64_t)(want_low ? lowest_ok : highest_ok),
				   want_low ? lowest_ok : highest_ok, w, sizeof(w));
		snprintf(s->note, sizeof(s->note),
			 "the constraints are not monotone in %s: met at %s but not at %s; the "
			 "answer is a local one",
			 p->key, w, v);
	}
}

/*
 * Points per round to cut a bracket @width grains wide: up to @batch (run
 * at once), as long as finishing takes no more than the @left points the
 * budget allows (k points per round cut the bracket k + 1 ways); 0 when
 * the budget allows none.
 */
static size_t sections(size_t batch, double width, size_t left)
{
	for (size_t k = batch < left ? batch : left; k > 1; k--) {
		double rounds = ceil(log(width) / log((double)k + 1) - 1e-9);

		if ((double)k * rounds <= (double)left)
			return k;
	}
	return left ? 1 : 0;
}

/* Bisection of the one key: the smallest (or largest) value meeting the
 * constraints. */
static int bisect(struct tune_search *s)
{
	const struct tune_problem *pb = s->pb;
	const struct tune_param *p = &pb->params[0];
	int want_low = !pb->obj[0].maximize;
	double ends[2] = {want_low ? p->hi : p->lo, want_low ? p->lo : p->hi};
	double good, bad, *xs;
	long gi, bi;
	int err;

	s->method = "bisection";
	s->monotone = 1;
	/* the scenario's own value is an end of the bracket: the good one when
	 * it meets the constraints, else the bad one */
	if (s->base >= 0 && s->pts[s->base].state != TUNE_REFUSED)
		ends[tune_feasible(&s->pts[s->base]) ? 0 : 1] = s->pts[s->base].x[0];
	/* the end that should meet the constraints first, then the other */
	if ((err = evaluate(s, ends, pb->batch > 1 ? 2 : 1)))
		return err;
	gi = find(s, &ends[0]);
	if (gi < 0 || !tune_feasible(&s->pts[gi])) {
		snprintf(s->note, sizeof(s->note),
			 "the constraints are not met at the range's %s end: no value of the "
			 "range meets them if they are monotone in %s",
			 want_low ? "high" : "low", p->key);
		return 0;
	}
	if (find(s, &ends[1]) < 0 && (err = evaluate(s, &ends[1], 1)))
		return err;
	bi = find(s, &ends[1]);
	if (bi < 0) /* the budget allowed one point */
		return 0;
	if (tune_feasible(&s->pts[bi])) {
		check_monotone(s, want_low);
		return 0;
	}
	good = ends[0];
	bad = ends[1];
	if (!(xs = calloc(pb->batch, sizeof(*xs))))
		return -ENOMEM;
	while (fabs(good - bad) > p->grain && !s->exhausted) {
		size_t m = 0, left = (pb->budget - s->runs) / pb->n_seeds;
		size_t k = sections(pb->batch, fabs(good - bad) / p->grain, left);

		for (size_t i = 1; i <= k; i++) {
			double v = bad + (good - bad) * (double)i / (double)(k + 1);

			v = sweep_family_integral(p->fam) ? (want_low ? floor(v) : ceil(v)) : v;
			if (v != bad && v != good && (!m || v != xs[m - 1]))
				xs[m++] = v;
		}
		if (!k) {
			s->exhausted = 1;
			break;
		}
		if (!m && sweep_family_integral(p->fam)) /* one grain apart */
			break;
		if (!m) {
			s->exhausted = 1;
			break;
		}
		if ((err = evaluate(s, xs, m)))
			break;
		/* from the bad side: the first point that meets them is the new good */
		for (size_t i = 0; i < m; i++) {
			long j = find(s, &xs[i]);

			if (j < 0)
				break;
			if (tune_feasible(&s->pts[j])) {
				good = xs[i];
				break;
			}
			bad = xs[i];
		}
	}
	free(xs);
	check_monotone(s, want_low);
	if (!err && s->exhausted && fabs(good - bad) > p->grain) {
		char g[64], b[64];

		sweep_value_format(p->fam, (uint64_t)good, good, g, sizeof(g));
		sweep_value_format(p->fam, (uint64_t)bad, bad, b, sizeof(b));
		snprintf(s->note + strlen(s->note), sizeof(s->note) - strlen(s->note),
			 "%sthe budget ran out with the answer between %s (not met) and %s (met)",
			 *s->note ? "; " : "", b, g);
	}
	return err;
}

/* ---- the simplex ---- */

struct simplex_ctx {
	struct tune_search *s;
	int err;
};

/* The unit point @u (clamped into [0, 1]) as values, into @x. */
static void unit_to_x(const struct tune_problem *pb, const gsl_vector *u, double *x)
{
	for (size_t i = 0; i < pb->n_params; i++)
		x[i] = tune_from_unit(&pb->params[i], gsl_vector_get(u, i));
}

static double simplex_f(const gsl_vector *u, void *arg)
{
	struct simplex_ctx *c = arg;
	struct tune_search *s = c->s;
	double x[TUNE_MAX_PARAMS];
	long i;

	unit_to_x(s->pb, u, x);
	if ((i = find(s, x)) < 0 && !c->err && !s->exhausted) {
		c->err = evaluate(s, x, 1);
		i = find(s, x);
	}
	return i < 0 ? TUNE_INFEASIBLE * 1e50 : tune_score(s, &s->pts[i]);
}

/* Scale two objectives by what the grid saw, so that each weighs alike. */
static void set_norm(struct tune_search *s)
{
	for (size_t k = 0; k < s->pb->n_obj; k++) {
		double lo = INFINITY, hi = -INFINITY;

		for (size_t i = 0; i < s->n; i++) {
			double v = s->pb->obj[k].maximize ? -s->pts[i].obj[k] : s->pts[i].obj[k];

			if (!tune_feasible(&s->pts[i]))
				continue;
			lo = fmin(lo, v);
			hi = fmax(hi, v);
		}
		s->norm_lo[k] = isfinite(lo) ? lo : 0;
		s->norm_span[k] = isfinite(hi) && hi > lo ? hi - lo : 1;
	}
}

/*
 * Did the grid see no key move anything (tune_judge: no key with an
 * effect, every one without)? Then the simplex has nothing to follow: the
 * search stops and says so.
 */
static int flat(struct tune_search *s)
{
	struct tune_verdict v;
	size_t len, ran = 0;

	tune_judge(s, &v);
	for (size_t i = 0; i < s->n; i++)
		ran += s->pts[i].state == TUNE_RAN;
	for (size_t i = 0; i < s->pb->n_params; i++)
		if (v.effect[i] != 0)
			return 0;
	s->flat = 1;
	len = strlen(s->note);
	snprintf(s->note + len, sizeof(s->note) - len,
		 "%sno key moved the objective or the constraints over the %zu points run: the "
		 "search stops there",
		 len ? "; " : "", ran);
	return 1;
}

/* Grid points per parameter: about a third of the budget's points. */
static size_t grid_size(const struct tune_problem *pb)
{
	size_t points = pb->budget / pb->n_seeds, g = 1;

	while (1) {
		size_t n = 1;

		for (size_t i = 0; i < pb->n_params && n <= points; i++)
			n *= g + 1;
		if (3 * n > points + 3 || n > points)
			return g;
		g++;
	}
}

static int coarse_grid(struct tune_search *s, size_t g)
{
	const struct tune_problem *pb = s->pb;
	size_t n = 1, d = pb->n_params;
	double *xs;
	int err;

	for (size_t i = 0; i < d; i++)
		n *= g;
	if (!(xs = calloc(n * d, sizeof(*xs))))
		return -ENOMEM;
	for (size_t p = 0; p < n; p++) {
		size_t q = p;

		for (size_t i = d; i-- > 0; q /= g)
			xs[p * d + i] = tune_from_unit(
			    &pb->params[i], g > 1 ? (double)(q % g) / (double)(g - 1) : 0.5);
	}
	err = 0;
	for (size_t p = 0; p < n && !err && !s->exhausted; p += pb->batch)
		err = evaluate(s, xs + p * d, n - p < pb->batch ? n - p : pb->batch);
	free(xs);
	return err;
}

/*
 * With several keys and the scenario's own point run: that point again
 * with one key at a time moved to the end of its range further from it
 * (on the search's scale), so that each key is seen to move something or
 * not (tune_judge) whatever the budget left for the grid.
 */
static int screen(struct tune_search *s)
{
	const struct tune_problem *pb = s->pb;
	size_t d = pb->n_params;
	double xs[TUNE_MAX_PARAMS * TUNE_MAX_PARAMS];
	int err = 0;

	if (s->base < 0 || d < 2)
		return 0;
	for (size_t i = 0; i < d; i++) {
		const struct tune_param *p = &pb->params[i];
		double *x = xs + i * d;

		memcpy(x, s->pts[s->base].x, d * sizeof(*x));
		x[i] = tune_to_unit(p, x[i]) < 0.5 ? p->hi : p->lo;
	}
	for (size_t i = 0; i < d && !err && !s->exhausted; i += pb->batch)
		err = evaluate(s, xs + i * d, d - i < pb->batch ? d - i : pb->batch);
	/* an end the scenario refuses (kmin above kmax): the other end */
	for (size_t i = 0, m = 0; i < d && !err; i++) {
		long k = find(s, xs + i * d);
		const struct tune_param *p = &pb->params[i];

		if (k >= 0 && s->pts[k].state == TUNE_REFUSED) {
			memmove(xs + m * d, xs + i * d, d * sizeof(*xs));
			xs[m * d + i] = xs[m * d + i] == p->hi ? p->lo : p->hi;
			m++;
		}
		if ((i == d - 1 && m) || m == pb->batch) {
			err = s->exhausted ? 0 : evaluate(s, xs, m);
			m = 0;
		}
	}
	return err;
}

static int simplex(struct tune_search *s)
{
	const struct tune_problem *pb = s->pb;
	size_t d = pb->n_params, g = grid_size(pb), stalls = 0;
	struct simplex_ctx c = {.s = s};
	gsl_multimin_function fn = {.f = simplex_f, .n = d, .params = &c};
	gsl_multimin_fminimizer *m;
	gsl_vector *u, *step;
	double h = 0.5 / (double)g, tol = 1;
	int err;

	s->method = "simplex";
	if ((err = screen(s)) || (err = coarse_grid(s, g)))
		return err;
	set_norm(s);
	if (flat(s))
		return 0;
	/* the simplex is done when it is smaller than the finest grain */
	for (size_t i = 0; i < d; i++) {
		const struct tune_param *p = &pb->params[i];
		double gr = p->log ? log1p(p->grain / p->lo) / log(p->hi / p->lo)
				   : p->grain / (p->hi - p->lo);

		tol = fmin(tol, gr);
	}
	/* no finer than a hundredth of a range: below that a run's noise wins */
	tol = fmax(tol, 0.01);
	m = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, d);
	u = gsl_vector_alloc(d);
	step = gsl_vector_alloc(d);
	if (!m || !u || !step) {
		err = -ENOMEM;
		goto out;
	}
	while (!s->exhausted && !c.err && h >= tol && stalls < 3) {
		long best = tune_best(s);
		size_t before = s->n;

		for (size_t i = 0; i < d; i++) {
			double ui =
			    best >= 0 ? tune_to_unit(&pb->params[i], s->pts[best].x[i]) : 0.5;

			gsl_vector_set(u, i, ui);
			/* from the top end of a range the first step goes down */
			gsl_vector_set(step, i, ui + h > 1 ? -h : h);
		}
		if (gsl_multimin_fminimizer_set(m, &fn, u, step))
			break;
		for (int it = 0; it < 1000 && !s->exhausted && !c.err; it++) {
			if (gsl_multimin_fminimizer_iterate(m))
				break;
			if (gsl_multimin_fminimizer_size(m) < tol / 2)
				break;
		}
		stalls = s->n == before ? stalls + 1 : 0;
		h /= 2;
	}
	err = c.err;
out:
	gsl_vector_free(step);
	gsl_vector_free(u);
	if (m)
		gsl_multimin_fminimizer_free(m);
	return err;
}

int tune_run(struct tune_search *s)
{
	if (s->pb->n_seeds == 0 || s->pb->batch == 0)
		return -EINVAL;
	/* two objectives are summed unscaled until the grid has given a scale */
	for (size_t k = 0; k < 2; k++)
		if (!(s->norm_span[k] > 0))
			s->norm_span[k] = 1;
	s->base = -1;
	/* the scenario's own point first: what any answer must beat */
	if (s->has_base) {
		double x[TUNE_MAX_PARAMS];
		int err;

		for (size_t i = 0; i < s->pb->n_params; i++)
			x[i] = tune_snap(&s->pb->params[i], s->base_x[i]);
		if ((err = evaluate(s, x, 1)))
			return err;
		s->base = find(s, x);
	}
	return tune_bisects(s->pb) ? bisect(s) : simplex(s);
}

/*
 * Objective @k of @a against @b seed by seed (both ran the same seeds
 * first): does the mean difference stand further from 0 than half the
 * range of the differences (any difference at all with one seed)? With
 * the same ECMP draw or RED draws on both sides, the seeds' own spread
 * cancels out.
 */
static int paired_moved(const struct tune_point *a, const struct tune_point *b, size_t k)
{
	size_t n = a->runs < b->runs ? a->runs : b->runs;
	double sum = 0, lo = INFINITY, hi = -INFINITY, mean;

	n = n < TUNE_PAIRED ? n : TUNE_PAIRED;
	if (!n)
		n = 1; /* an objective that is a key: no run needed */
	for (size_t i = 0; i < n; i++) {
		double d = a->seed_obj[i][k] - b->seed_obj[i][k];

		sum += d;
		lo = fmin(lo, d);
		hi = fmax(hi, d);
	}
	mean = sum / (double)n;
	return fabs(mean) > (hi - lo) / 2 + 1e-9 * fmax(fabs(a->obj[k]), fabs(b->obj[k]));
}

/* Do @a and @b (both ran) differ on an objective that is not a key (seed
 * by seed) or on the constraints? */
static int moved(const struct tune_problem *pb, const struct tune_point *a,
		 const struct tune_point *b)
{
	if (fabs(a->viol - b->viol) > 1e-12 * fmax(fabs(a->viol), fabs(b->viol)))
		return 1;
	for (size_t k = 0; k < pb->n_obj; k++)
		if (pb->obj[k].m.param < 0 && paired_moved(a, b, k))
			return 1;
	return 0;
}

/* Does @a dominate @b on the objectives (no worse on each, better on one)? */
static int dominates(const struct tune_problem *pb, const struct tune_point *a,
		     const struct tune_point *b)
{
	int better = 0;

	for (size_t k = 0; k < pb->n_obj; k++) {
		double va = pb->obj[k].maximize ? -a->obj[k] : a->obj[k];
		double vb = pb->obj[k].maximize ? -b->obj[k] : b->obj[k];

		if (va > vb)
			return 0;
		better |= va < vb;
	}
	return better;
}

void tune_judge(const struct tune_search *s, struct tune_verdict *v)
{
	const struct tune_problem *pb = s->pb;
	const struct tune_point *base = s->base >= 0 ? &s->pts[s->base] : NULL;
	int any_effect = 0;

	memset(v, 0, sizeof(*v));
	v->best = tune_best(s);
	v->rec = -1;
	for (size_t i = 0; i < pb->n_params; i++)
		v->effect[i] = -1;
	for (size_t k = 0; k < pb->n_obj; k++) /* the key the user minimises matters */
		if (pb->obj[k].m.param >= 0)
			v->effect[pb->obj[k].m.param] = 1;
	for (size_t a = 0; a < s->n; a++) {
		const struct tune_point *pa = &s->pts[a];

		if (pa->state != TUNE_RAN && pa->state != TUNE_UNFINISHED)
			continue;
		for (size_t b = a + 1; b < s->n; b++) {
			const struct tune_point *pb_ = &s->pts[b];
			size_t differ = 0, key = 0;

			if (pb_->state != TUNE_RAN && pb_->state != TUNE_UNFINISHED)
				continue;
			for (size_t i = 0; i < pb->n_params && differ < 2; i++)
				if (s->pts[a].x[i] != s->pts[b].x[i]) {
					differ++;
					key = i;
				}
			if (differ != 1 || v->effect[key] == 1)
				continue;
			/* a key that leaves flows unfinished moves what can be measured */
			v->effect[key] = pa->state != pb_->state ||
					 pa->unfinished != pb_->unfinished ||
					 (pa->state == TUNE_RAN && moved(pb, pa, pb_));
		}
	}
	for (size_t i = 0; i < pb->n_params; i++)
		any_effect |= v->effect[i] != 0;
	v->base_ok = base && tune_feasible(base);
	if (v->best < 0 || !tune_feasible(&s->pts[v->best]))
		return;
	if (!v->base_ok) {
		v->rec = v->best;
	} else if (!any_effect) {
		return;
	} else {
		/* the lowest score of the points better than the base (on both
		 * objectives with two) that change a key that moves something */
		for (size_t i = 0; i < s->n; i++) {
			const struct tune_point *p = &s->pts[i];
			int changes = 0;

			for (size_t k = 0; k < pb->n_params; k++)
				changes |= v->effect[k] != 0 && p->x[k] != base->x[k];
			if (!changes || !tune_feasible(p) ||
			    !(pb->n_obj == 1 ? tune_score(s, p) < tune_score(s, base)
					     : dominates(pb, p, base)))
				continue;
			if (v->rec < 0 || tune_score(s, p) < tune_score(s, &s->pts[v->rec]))
				v->rec = (long)i;
		}
	}
	if (v->rec < 0 || !base || base->state != TUNE_RAN)
		return;
	for (size_t k = 0; k < pb->n_obj; k++) {
		v->gain[k] = s->pts[v->rec].obj[k] - base->obj[k];
		if (pb->obj[k].m.param < 0 && !paired_moved(&s->pts[v->rec], base, k))
			v->within_spread = 1;
	}
}

void tune_search_free(struct tune_search *s)
{
	free(s->pts);
	free(s->path);
	s->pts = NULL;
	s->path = NULL;
	s->n = s->cap = s->n_path = 0;
}
