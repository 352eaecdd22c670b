/*
 * rocesim calibrate (calibrate.h): the scenario run as it is (the
 * residuals before), the keys' ranges checked by loading the scenario at
 * both ends, then tune's search (tune_search.c) over the ranges with an
 * evaluator that runs each point in this process and scores its counters
 * against the measured ones; then what the points say: the fitted values,
 * the residuals after, which keys are at a bound or moved nothing, how
 * loosely each is determined.
 */
#include "sim/study/calibrate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/config/scenario.h"
#include "sim/run/results.h"
#include "sim/run/sim.h"

struct cal_ctx {
	const struct cal_args *a;
	struct cal_result *r;
	struct cc_measured m;
	uint64_t seed0;
	size_t n_rows;
	int *use;     /* rows paired in the scenario's own run: the compared counters */
	size_t *grp;  /* each used row's sum (r->counters) */
	double *sum;  /* scratch: a simulated value per sum */
	double *own;  /* the scenario's own run's simulated values */
	double **sim; /* per point (by id - 1): its simulated values, NULL when not run */
	size_t cap_sim;
	struct diag *d;
};

/* The scenario with the fitted keys at @x (NULL: as it is), the fixed keys
 * and seed @seed (0: its own), loaded into *@out. */
static int cal_load(struct cal_ctx *c, const double *x, uint64_t seed, struct scenario **out,
		    struct diag *d)
{
	const struct tune_problem *pb = &c->r->pb;
	char *sets[TUNE_MAX_PARAMS + TUNE_MAX_SETS + 1] = {0}, buf[64];
	size_t n = 0;
	int err = 0;

	for (size_t i = 0; x && i < pb->n_params && !err; i++) {
		tune_format(&pb->params[i], x[i], buf, sizeof(buf));
		if (!(sets[n++] = tune_key_value(pb->params[i].key, buf)))
			err = -ENOMEM;
	}
	for (size_t f = 0; f < c->a->n_sets && !err; f++)
		if (!(sets[n++] = strdup(c->a->sets[f])))
			err = -ENOMEM;
	if (seed && !err) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)seed);
		if (!(sets[n++] = tune_key_value("seed", buf)))
			err = -ENOMEM;
	}
	if (err)
		diag_set(d, "", 0, "", "out of memory");
	else
		err = scn_load(c->a->scenario, (const char *const *)sets, n, out, d);
	for (size_t i = 0; i < n; i++)
		free(sets[i]);
	return err;
}

/* Run @s (taken) in this process, nothing written, into *@res. */
static int cal_sim(struct scenario *s, json_t **res, struct diag *d)
{
	struct sim sim;
	int err;

	*res = NULL;
	s->out.sample = 0; /* no time series: nothing is written */
	if ((err = sim_init(&sim, s, d))) {
		sim_fini(&sim);
		return err;
	}
	if ((err = sim_run(&sim, NULL, NULL, NULL, 0)))
		diag_set(d, "", 0, "", "the run failed: %s", strerror(-err));
	else if (!(*res = res_build(&sim)))
		err = -ENOMEM;
	sim_fini(&sim);
	return err;
}

/*
 * The point @x (NULL: the scenario as it is) run on every seed, its
 * counters paired, into @v (c->n_rows values, the mean over the seeds; NAN
 * where a run did not pair one) and, on the first run, @t (cc_free it).
 * 0; -EINVAL with @d when the scenario refuses the values or cannot run;
 * -ENOMEM.
 */
static int cal_point(struct cal_ctx *c, const double *x, double *v, struct cc_table *t,
		     struct diag *d)
{
	size_t seeds = c->r->seeds;
	int err = 0;

	for (size_t i = 0; i < c->n_rows; i++)
		v[i] = 0;
	for (size_t k = 0; k < seeds && !err; k++) {
		struct scenario *s = NULL;
		struct cc_table tk, *tt = k == 0 && t ? t : &tk;
		json_t *res = NULL;

		if ((err = cal_load(c, x, seeds > 1 ? c->seed0 + k : 0, &s, d)))
			break;
		err = cal_sim(s, &res, d);
		c->r->runs++;
		if (!err)
			err = cc_pair(&c->m, res, c->a->scenario, tt, d);
		json_decref(res);
		if (err) {
			if (tt == &tk)
				cc_free(&tk);
			break;
		}
		for (size_t i = 0; i < c->n_rows && i < tt->n; i++)
			v[i] = tt->rows[i].state == CC_PAIRED && !isnan(v[i])
				   ? v[i] + tt->rows[i].simulated / (double)seeds
				   : NAN;
		if (tt == &tk)
			cc_free(&tk);
	}
	return err;
}

/* The sums of @v (per row) into c->sum, per r->counters entry; NAN for a
 * sum one of whose counters a run did not pair. */
static void cal_sums(const struct cal_ctx *c, const double *v)
{
	for (size_t g = 0; g < c->r->n_counters; g++)
		c->sum[g] = 0;
	for (size_t i = 0; i < c->n_rows; i++)
		if (c->use[i])
			c->sum[c->grp[i]] += v[i];
}

/* The residual of sum @g at simulated value @s. */
static double cal_res(const struct cal_ctx *c, size_t g, double s)
{
	return log((s + CC_FLOOR) / (c->r->counters[g].measured + CC_FLOOR));
}

/* The objective of @v: the mean square residual of the sums (a sum a run
 * did not pair weighs as a residual of ln 10^3). */
static double cal_objective(const struct cal_ctx *c, const double *v)
{
	double sum = 0;

	cal_sums(c, v);
	for (size_t g = 0; g < c->r->n_counters; g++) {
		double r = isnan(c->sum[g]) ? log(1e3) : cal_res(c, g, c->sum[g]);

		sum += r * r;
	}
	return c->r->n_counters ? sum / (double)c->r->n_counters : 0;
}

/* tune_eval_fn: each point run, its objective folded as every seed's. */
static int cal_eval(void *arg, struct tune_point *pts, size_t n)
{
	struct cal_ctx *c = arg;
	const struct tune_problem *pb = &c->r->pb;

	for (size_t k = 0; k < n; k++) {
		struct tune_point *pt = &pts[k];
		size_t id = pt->id - 1;
		struct diag ignore = {0};
		double obj;
		int err;

		if (id >= c->cap_sim) {
			size_t cap = 2 * id + 16;
			double **v = realloc(c->sim, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			memset(v + c->cap_sim, 0, (cap - c->cap_sim) * sizeof(*v));
			c->sim = v;
			c->cap_sim = cap;
		}
		if (!(c->sim[id] = calloc(c->n_rows + 1, sizeof(double))))
			return -ENOMEM;
		pt->runs = c->r->seeds;
		if ((err = cal_point(c, pt->x, c->sim[id], NULL, &ignore))) {
			free(c->sim[id]);
			c->sim[id] = NULL;
			if (err == -ENOMEM)
				return err;
			pt->state = TUNE_REFUSED;
			pt->runs = 0;
			continue;
		}
		pt->state = TUNE_RAN;
		obj = cal_objective(c, c->sim[id]);
		tune_fold(pb, pt, 0, &obj);
		for (size_t s = 1; s < pt->runs && s < TUNE_PAIRED; s++)
			pt->seed_obj[s][0] = obj;
	}
	return 0;
}

/*
 * The grain of key @k of a range in a unit (ps, B, bit/s): the finest step
 * the scenario takes, 1, 10^3, 10^6 or 10^9 base units (a cc_params time
 * is whole microseconds), so that the search proposes only values it
 * takes. 0 or -ENOMEM.
 */
static int cal_grain(struct cal_ctx *c, size_t k)
{
	struct tune_param *p = &c->r->pb.params[k];
	double x[TUNE_MAX_PARAMS];

	if (p->fam == SWEEP_FAM_INT || !sweep_family_integral(p->fam))
		return 0;
	for (size_t i = 0; i < c->r->pb.n_params; i++)
		x[i] = c->r->pb.params[i].lo;
	for (double g = 1; g <= 1e9; g *= 1e3) {
		struct scenario *s = NULL;
		struct diag ignore = {0};
		int err;

		if (fmod(p->lo, g) != 0 || fmod(p->hi, g) != 0 || p->lo + g >= p->hi)
			break;
		x[k] = p->lo + g;
		err = cal_load(c, x, 0, &s, &ignore);
		scn_free(s);
		if (err == -ENOMEM)
			return err;
		if (!err) {
			p->grain = g;
			return 0;
		}
	}
	return 0;
}

/* --fit into the problem; each range's ends loaded to see that the key
 * takes them. */
static int cal_problem(struct cal_ctx *c, struct diag *d)
{
	struct tune_problem *pb = &c->r->pb;
	int err;

	if (!c->a->n_fits) {
		diag_set(d, "--fit", 0, "", "no key to fit: give --fit KEY=LO..HI");
		return -EINVAL;
	}
	if (c->a->n_fits > TUNE_MAX_PARAMS) {
		diag_set(d, "--fit", 0, "", "at most %d keys", TUNE_MAX_PARAMS);
		return -EINVAL;
	}
	for (size_t i = 0; i < c->a->n_fits; i++) {
		if ((err = tune_range_parse("--fit", c->a->fits[i], &pb->params[i], d)))
			return err;
		pb->n_params++;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(pb->params[j].key, pb->params[i].key)) {
				diag_set(d, "--fit", 0, pb->params[i].key, "fitted twice");
				return -EINVAL;
			}
		for (size_t f = 0; f < c->a->n_sets; f++) {
			size_t len = strcspn(c->a->sets[f], "=");

			if (strlen(pb->params[i].key) == len &&
			    !strncmp(pb->params[i].key, c->a->sets[f], len)) {
				diag_set(d, "--set", 0, pb->params[i].key,
					 "is fitted: it cannot be set too");
				return -EINVAL;
			}
		}
	}
	for (int hi = 0; hi < 2; hi++) {
		double x[TUNE_MAX_PARAMS];
		struct scenario *s = NULL;

		for (size_t i = 0; i < pb->n_params; i++)
			x[i] = hi ? pb->params[i].hi : pb->params[i].lo;
		err = cal_load(c, x, 0, &s, d);
		scn_free(s);
		if (err) {
			size_t len = strlen(d->msg);

			if (!strcmp(d->file, "--set")) /* the fitted keys are set as --set */
				snprintf(d->file, sizeof(d->file), "--fit");
			snprintf(d->msg + len, sizeof(d->msg) - len,
				 " (the scenario with every fitted key at its %s end)",
				 hi ? "high" : "low");
			return err;
		}
	}
	for (size_t i = 0; i < pb->n_params; i++)
		if ((err = cal_grain(c, i)))
			return err;
	pb->n_obj = 1;
	snprintf(pb->obj[0].m.name, sizeof(pb->obj[0].m.name), "calibrate.residual");
	pb->obj[0].m.param = -1;
	pb->n_seeds = c->r->seeds;
	pb->budget = c->a->budget ? c->a->budget : CAL_DEFAULT_BUDGET;
	pb->batch = 1;
	if (pb->budget < 2 * pb->n_seeds) {
		diag_set(d, "--budget", 0, "", "%zu runs cannot run two points of %zu seeds",
			 pb->budget, pb->n_seeds);
		return -EINVAL;
	}
	return 0;
}

/* The sum of @w's counter: its kind and name (and queue), "" when none. */
static void cal_sum_of(const struct cc_row *w, char *key, size_t size)
{
	const char *q = w->kind == MC_QUEUESTAT ? strrchr(w->scope, ' ') : NULL;

	snprintf(key, size, "%s %s%s", mc_kind_name((enum mc_kind)w->kind), w->name, q ? q : "");
}

/* The counters of @t (the scenario's own run) summed over nodes and ports
 * into r->counters; the nodes checked against the run's. */
static int cal_counters(struct cal_ctx *c, const struct cc_table *t, struct diag *d)
{
	struct cal_result *r = c->r;

	for (size_t i = 0; i < t->n; i++) {
		const struct cc_row *w = &t->rows[i];

		if (w->state == CC_NO_NODE) {
			diag_set(d, w->file, 0, "",
				 "%s is no host or switch of %s: name the files for the scenario's "
				 "nodes (or map them in map.yaml)",
				 w->node, c->a->scenario);
			return -EINVAL;
		}
	}
	if (!t->paired) {
		diag_set(d, c->a->measured, 0, "",
			 "no counter pairs with a counter of %s's hosts and switches (ports named "
			 "as the run names them, or by their peer)",
			 c->a->scenario);
		return -EINVAL;
	}
	if (!(r->counters = calloc(t->paired, sizeof(*r->counters))) ||
	    !(c->use = calloc(t->n + 1, sizeof(*c->use))) ||
	    !(c->grp = calloc(t->n + 1, sizeof(*c->grp))) ||
	    !(c->sum = calloc(t->paired, sizeof(*c->sum))))
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		const struct cc_row *w = &t->rows[i];
		struct cal_counter *k;
		char key[160];
		size_t g;

		if (w->state != CC_PAIRED) {
			r->not_compared++;
			continue;
		}
		cal_sum_of(w, key, sizeof(key));
		for (g = 0; g < r->n_counters && strcmp(r->counters[g].name, key); g++)
			;
		k = &r->counters[g];
		if (g == r->n_counters) {
			r->n_counters++;
			snprintf(k->name, sizeof(k->name), "%s", key);
			snprintf(k->first, sizeof(k->first), "%s%s%s", w->node,
				 w->scope[0] ? " " : "", w->scope);
		}
		c->use[i] = 1;
		c->grp[i] = g;
		k->n++;
		k->measured += w->measured;
	}
	return 0;
}

/* Residuals of @v (per row) into the sums' before (@after 0) or after side;
 * the root mean square residual. */
static double cal_side(struct cal_ctx *c, const double *v, int after)
{
	double sum = 0, worst = 0;
	size_t n = c->r->n_counters;

	cal_sums(c, v);
	for (size_t g = 0; g < n; g++) {
		struct cal_counter *q = &c->r->counters[g];
		double res = isnan(c->sum[g]) ? NAN : cal_res(c, g, c->sum[g]);

		*(after ? &q->after : &q->before) = c->sum[g];
		*(after ? &q->res_after : &q->res_before) = res;
		sum += isnan(res) ? log(1e3) * log(1e3) : res * res;
		if (after && fabs(res) > worst)
			worst = fabs(res);
	}
	if (after)
		c->r->worst_after = worst;
	return n ? sqrt(sum / (double)n) : 0;
}

/* What the points say of each key: the fitted value, its bound, its
 * effect, the values of the points nearly as good. */
static void cal_judge(struct cal_ctx *c)
{
	struct cal_result *r = c->r;
	const struct tune_problem *pb = &r->pb;
	const struct tune_point *best = &r->search.pts[r->best];
	struct tune_verdict v;

	tune_judge(&r->search, &v);
	for (size_t i = 0; i < pb->n_params; i++) {
		struct cal_key *k = &r->keys[i];
		double u = tune_to_unit(&pb->params[i], best->x[i]);

		k->value = best->x[i];
		k->at_bound = u <= CAL_AT_BOUND ? -1 : u >= 1 - CAL_AT_BOUND ? 1 : 0;
		k->effect = v.effect[i];
		k->near_lo = k->near_hi = best->x[i];
		for (size_t p = 0; p < r->search.n; p++) {
			const struct tune_point *q = &r->search.pts[p];

			if (q->state != TUNE_RAN || q->obj[0] > best->obj[0] * CAL_NEAR + 1e-6)
				continue;
			k->near_lo = fmin(k->near_lo, q->x[i]);
			k->near_hi = fmax(k->near_hi, q->x[i]);
		}
	}
}

/* The YAML fragment of the fitted values. */
static int cal_fragment(struct cal_result *r)
{
	int mask[TUNE_MAX_PARAMS];
	size_t len = 0;
	FILE *f = open_memstream(&r->fragment, &len);

	if (!f)
		return -ENOMEM;
	/* a key that moved no counter is not determined: left out */
	for (size_t i = 0; i < r->pb.n_params; i++)
		mask[i] = r->keys[i].effect != 0;
	tune_fragment(&r->pb, r->search.pts[r->best].x, mask, f);
	return fclose(f) || !r->fragment ? -ENOMEM : 0;
}

/* The search, once the scenario's own run and the problem are known. */
static int cal_search(struct cal_ctx *c, struct diag *d)
{
	struct cal_result *r = c->r;
	int err;

	r->search.pb = &r->pb;
	r->search.eval = cal_eval;
	r->search.ctx = c;
	/* the scenario's own run counts against the budget */
	r->search.runs = r->seeds;
	if ((err = tune_run(&r->search)))
		return err;
	if ((r->best = tune_best(&r->search)) < 0 || r->search.pts[r->best].state != TUNE_RAN) {
		diag_set(d, c->a->scenario, 0, "",
			 "no point of the ranges could run: the scenario refuses them");
		return -EINVAL;
	}
	return 0;
}

int cal_run(const struct cal_args *a, struct cal_result *r, struct diag *d)
{
	struct cal_ctx c = {.a = a, .r = r, .d = d};
	struct cc_table t = {0};
	struct scenario *s = NULL;
	struct timespec t0, t1;
	int err;

	memset(r, 0, sizeof(*r));
	r->best = -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	snprintf(r->scenario, sizeof(r->scenario), "%s", a->scenario);
	snprintf(r->measured, sizeof(r->measured), "%s", a->measured);
	r->seeds = a->seeds ? a->seeds : 1;
	if (r->seeds > CAL_MAX_SEEDS) {
		diag_set(d, "--seeds", 0, "", "at most %d seeds", CAL_MAX_SEEDS);
		return -EINVAL;
	}
	if ((err = cc_measured_load(a->measured, &c.m, d)))
		goto out;
	/* the scenario as it is: its seed, and whether it loads at all */
	if ((err = cal_load(&c, NULL, 0, &s, d)))
		goto out;
	c.seed0 = s->seed;
	scn_free(s);
	if ((err = cal_problem(&c, d)))
		goto out;
	/* the scenario's own run: what pairs, and the residuals before */
	for (size_t i = 0; i < c.m.n; i++)
		c.n_rows += c.m.sets[i].n;
	if (!(c.own = calloc(c.n_rows + 1, sizeof(double))))
		goto oom;
	err = cal_point(&c, NULL, c.own, &t, d);
	if (err || (err = cal_counters(&c, &t, d)))
		goto out;
	r->rms_before = cal_side(&c, c.own, 0);
	if ((err = cal_search(&c, d)))
		goto out;
	cal_judge(&c);
	r->rms_after = cal_side(&c, c.sim[r->search.pts[r->best].id - 1], 1);
	r->poor = r->rms_after > CAL_POOR_RMS;
	err = cal_fragment(r);
	goto out;
oom:
	err = -ENOMEM;
out:
	if (err == -ENOMEM)
		diag_set(d, "", 0, "", "out of memory");
	cc_free(&t);
	for (size_t i = 0; i < c.cap_sim; i++)
		free(c.sim[i]);
	free(c.sim);
	free(c.own);
	free(c.use);
	free(c.grp);
	free(c.sum);
	cc_measured_free(&c.m);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->wall_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
	return err;
}

void cal_free(struct cal_result *r)
{
	for (size_t i = 0; i < r->pb.n_params; i++)
		free(r->pb.params[i].key);
	r->pb.n_params = 0;
	tune_search_free(&r->search);
	free(r->counters);
	free(r->fragment);
	r->counters = NULL;
	r->fragment = NULL;
	r->n_counters = 0;
}

/* A number for JSON: null when not finite. */
static json_t *cal_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

void cal_key_text(const struct cal_result *r, size_t i, struct cal_key_text *t)
{
	const struct tune_param *p = &r->pb.params[i];
	const struct cal_key *k = &r->keys[i];

	tune_format(p, k->value, t->value, sizeof(t->value));
	tune_format(p, p->lo, t->lo, sizeof(t->lo));
	tune_format(p, p->hi, t->hi, sizeof(t->hi));
	tune_format(p, k->near_lo, t->near_lo, sizeof(t->near_lo));
	tune_format(p, k->near_hi, t->near_hi, sizeof(t->near_hi));
}

static json_t *cal_key_json(const struct cal_result *r, size_t i)
{
	const struct tune_param *p = &r->pb.params[i];
	const struct cal_key *k = &r->keys[i];
	struct cal_key_text t;

	cal_key_text(r, i, &t);
	return json_pack("{s:s,s:s,s:f,s:s,s:s,s:s,s:s,s:s,s:s,s:o}", "key", p->key, "value",
			 t.value, "value_base_unit", k->value, "unit", tune_unit(p), "lo", t.lo,
			 "hi", t.hi, "near_lo", t.near_lo, "near_hi", t.near_hi, "bound",
			 k->at_bound < 0   ? "low"
			 : k->at_bound > 0 ? "high"
					   : "inside",
			 "moves_counters",
			 k->effect < 0 ? json_null() : json_boolean(k->effect > 0));
}

json_t *cal_json(const struct cal_result *r)
{
	json_t *keys = json_array(), *counters = json_array(), *root;
	int err = !keys || !counters;

	for (size_t i = 0; !err && i < r->pb.n_params; i++)
		err = json_array_append_new(keys, cal_key_json(r, i));
	for (size_t i = 0; !err && i < r->n_counters; i++) {
		const struct cal_counter *q = &r->counters[i];

		err = json_array_append_new(
		    counters,
		    json_pack("{s:s,s:I,s:s,s:f,s:o,s:o,s:o,s:o}", "counter", q->name, "summed",
			      (json_int_t)q->n, "first", q->first, "measured", q->measured,
			      "simulated_before", cal_num(q->before), "residual_before",
			      cal_num(q->res_before), "simulated_after", cal_num(q->after),
			      "residual_after", cal_num(q->res_after)));
	}
	if (err) {
		json_decref(keys);
		json_decref(counters);
		return NULL;
	}
	root = json_pack(
	    "{s:s,s:s,s:o,s:{s:s,s:f,s:s},s:f,s:f,s:f,s:b,s:I,s:I,s:I,s:f,s:o,s:s,s:I}", "scenario",
	    r->scenario, "measured", r->measured, "fitted", keys, "objective", "residual",
	    "ln((simulated + floor) / (measured + floor))", "floor", CC_FLOOR, "weights",
	    "1 per counter summed over nodes and ports", "rms_before", r->rms_before, "rms_after",
	    r->rms_after, "worst_after", r->worst_after, "poor_fit", r->poor, "runs",
	    (json_int_t)r->runs, "seeds", (json_int_t)r->seeds, "points", (json_int_t)r->search.n,
	    "wall_s", r->wall_s, "counters", counters, "fragment", r->fragment ? r->fragment : "",
	    "not_compared", (json_int_t)r->not_compared);
	return root;
}
