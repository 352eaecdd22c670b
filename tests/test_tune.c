/*
 * rocesim tune: the search against functions known by hand (a step that
 * bisection must find to the grain, a non-monotone step it must report, a
 * constrained bowl the simplex must solve no worse than a 6 x 6 grid, two
 * objectives and their Pareto front, the budget), then the verb through
 * the built rocesim (ROCESIM_BIN): the smallest headroom of a 2:1 incast
 * over 2 km checked one grain below, an ECN tune within 5% of the 6 x 6
 * grid a sweep gives, resume, an infeasible search (exit 1), a training
 * job's iteration time as the objective, and bad input (exit 2, one line,
 * nothing run).
 */
#include <criterion/criterion.h>
#include <glob.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include "proc.h"
#include "sim/study/tune_impl.h"

static void setup(void)
{
	ts_proc_setup("tune");
}

TestSuite(tune, .init = setup, .fini = ts_proc_teardown, .timeout = 600);

/* ---- the search on known functions ---- */

/* A synthetic evaluator: f gives the objective and constraint values of a
 * point; every call counted. */
struct fake {
	const struct tune_problem *pb;
	void (*f)(const double *x, double *vals);
	size_t calls, points, max_batch;
};

static int fake_eval(void *arg, struct tune_point *pts, size_t n)
{
	struct fake *fk = arg;
	double vals[TUNE_SLOTS];

	fk->calls++;
	fk->points += n;
	fk->max_batch = n > fk->max_batch ? n : fk->max_batch;
	for (size_t i = 0; i < n; i++) {
		for (size_t s = 0; s < fk->pb->n_seeds; s++) {
			fk->f(pts[i].x, vals);
			tune_fold(fk->pb, &pts[i], s, vals);
		}
		pts[i].state = TUNE_RAN;
		pts[i].runs = fk->pb->n_seeds;
	}
	return 0;
}

static struct tune_problem one_key(double lo, double hi, size_t budget, size_t batch)
{
	struct tune_problem pb = {.n_params = 1, .n_obj = 1, .n_cons = 1, .n_seeds = 1};

	pb.params[0] = (struct tune_param){
	    .key = "switch.pfc.headroom", .fam = SWEEP_FAM_SIZE, .lo = lo, .hi = hi, .grain = 1};
	pb.obj[0].m = (struct tune_metric){.name = "switch.pfc.headroom", .param = 0};
	pb.cons[0] = (struct tune_constraint){
	    .m = {.name = "lossless_drops", .param = -1}, .op = TUNE_EQ, .value = 0};
	pb.budget = budget;
	pb.batch = batch;
	return pb;
}

/* drops until 141372 B of headroom, none from there on */
static void step_at_141372(const double *x, double *vals)
{
	vals[0] = x[0];
	vals[1] = x[0] < 141372 ? 1190 * (141372 - x[0]) / 141372 + 1 : 0;
}

Test(tune, bisection_finds_the_step_to_the_byte)
{
	for (size_t batch = 1; batch <= 8; batch *= 2) {
		struct tune_problem pb = one_key(1, 1000000, 30, batch);
		struct fake fk = {.pb = &pb, .f = step_at_141372};
		struct tune_search s = {.pb = &pb, .eval = fake_eval, .ctx = &fk};
		long b;

		cr_assert_eq(tune_run(&s), 0);
		b = tune_best(&s);
		cr_assert_geq(b, 0);
		cr_expect_eq(s.pts[b].x[0], 141372, "batch %zu: %g", batch, s.pts[b].x[0]);
		cr_expect_eq(s.pts[b].viol, 0);
		cr_expect_leq(s.runs, 30, "batch %zu: %zu runs", batch, s.runs);
		cr_expect_leq(fk.max_batch, batch);
		cr_expect_str_eq(s.method, "bisection");
		cr_expect(s.monotone);
		/* one byte less was run, and breaks the constraint */
		{
			double below = 141371;
			int seen = 0;

			for (size_t i = 0; i < s.n; i++)
				if (s.pts[i].x[0] == below)
					seen = s.pts[i].viol > 0;
			cr_expect(seen, "batch %zu: 141371 B not evaluated", batch);
		}
		if (batch == 1) /* both ends, then one halving per byte of log2(1e6) */
			cr_expect_leq(s.runs, 22, "%zu runs", s.runs);
		tune_search_free(&s);
	}
}

/* kmax: pauses above 700 KB, none below: the largest kmax without a pause */
static void pauses_above_700k(const double *x, double *vals)
{
	vals[0] = x[0];
	vals[1] = x[0] > 700000 ? 3 : 0;
}

Test(tune, bisection_maximizes_too)
{
	struct tune_problem pb = one_key(100000, 4000000, 100, 1);
	struct fake fk = {.pb = &pb, .f = pauses_above_700k};
	struct tune_search s = {.pb = &pb, .eval = fake_eval, .ctx = &fk};

	pb.obj[0].maximize = 1;
	cr_assert_eq(tune_run(&s), 0);
	cr_expect_eq(s.pts[tune_best(&s)].x[0], 700000);
	tune_search_free(&s);
}

/* feasible from 200000 on but for a hole around 500000: not monotone */
static void two_windows(const double *x, double *vals)
{
	vals[0] = x[0];
	vals[1] = x[0] < 200000 || (x[0] > 450000 && x[0] < 550000) ? 1 : 0;
}

Test(tune, bisection_says_when_the_constraint_is_not_monotone)
{
	/* three points a round (at a quarter, a half, three quarters): the hole is seen */
	struct tune_problem pb = one_key(1, 1000000, 100, 3);
	struct fake fk = {.pb = &pb, .f = two_windows};
	struct tune_search s = {.pb = &pb, .eval = fake_eval, .ctx = &fk};

	cr_assert_eq(tune_run(&s), 0);
	cr_expect_not(s.monotone);
	cr_expect(strstr(s.note, "not monotone") != NULL, "%s", s.note);
	tune_search_free(&s);
}

Test(tune, bisection_without_a_feasible_end_stops_at_once)
{
	struct tune_problem pb = one_key(1, 100000, 100, 1);
	struct fake fk = {.pb = &pb, .f = step_at_141372};
	struct tune_search s = {.pb = &pb, .eval = fake_eval, .ctx = &fk};
	long b;

	cr_assert_eq(tune_run(&s), 0);
	b = tune_best(&s);
	cr_expect_eq(s.n, 1, "%zu points", s.n);
	cr_expect_gt(s.pts[b].viol, 0);
	cr_expect(strstr(s.note, "not met at the range's high end") != NULL, "%s", s.note);
	tune_search_free(&s);
}

Test(tune, bisection_stops_at_the_budget_with_the_bracket)
{
	struct tune_problem pb = one_key(1, 1000000, 10, 1);
	struct fake fk = {.pb = &pb, .f = step_at_141372};
	struct tune_search s = {.pb = &pb, .eval = fake_eval, .ctx = &fk};

	cr_assert_eq(tune_run(&s), 0);
	cr_expect_eq(s.runs, 10);
	cr_expect(s.exhausted);
	cr_expect(strstr(s.note, "budget ran out") != NULL, "%s", s.note);
	/* the best is feasible, above the true step */
	cr_expect_geq(s.pts[tune_best(&s)].x[0], 141372);
	tune_search_free(&s);
}

static struct tune_problem two_keys(size_t budget)
{
	struct tune_problem pb = {.n_params = 2, .n_obj = 1, .n_cons = 1, .n_seeds = 1};

	pb.params[0] = (struct tune_param){.key = "switch.ecn.kmin",
					   .fam = SWEEP_FAM_SIZE,
					   .lo = 5000,
					   .hi = 500000,
					   .grain = 1,
					   .log = 1};
	pb.params[1] = (struct tune_param){.key = "switch.ecn.kmax",
					   .fam = SWEEP_FAM_SIZE,
					   .lo = 20000,
					   .hi = 2000000,
					   .grain = 1,
					   .log = 1};
	pb.obj[0].m = (struct tune_metric){.name = "fct_us.max", .param = -1};
	pb.cons[0] = (struct tune_constraint){
	    .m = {.name = "pfc_pause_frames", .param = -1}, .op = TUNE_EQ, .value = 0};
	pb.budget = budget;
	pb.batch = 2;
	return pb;
}

/* A bowl in log space (best at kmin 60 KB, kmax 900 KB) cut by pauses
 * above kmax 700 KB: the best lies on the cut. */
static void bowl(const double *x, double *vals)
{
	double a = log(x[0] / 60000), b = log(x[1] / 900000);

	vals[0] = 1500 + 100 * (a * a + b * b);
	vals[1] = x[1] > 700000 ? 10 : 0;
}

/* The best of a 6 x 6 log grid over the ranges of @pb on @f. */
static double grid6(const struct tune_problem *pb, void (*f)(const double *, double *))
{
	double best = INFINITY, x[2], vals[TUNE_SLOTS];

	for (int i = 0; i < 6; i++) {
		for (int j = 0; j < 6; j++) {
			x[0] = round(pb->params[0].lo *
				     pow(pb->params[0].hi / pb->params[0].lo, i / 5.0));
			x[1] = round(pb->params[1].lo *
				     pow(pb->params[1].hi / pb->params[1].lo, j / 5.0));
			f(x, vals);
			if (vals[1] == 0 && vals[0] < best)
				best = vals[0];
		}
	}
	return best;
}

Test(tune, simplex_beats_a_six_by_six_grid_in_36_runs)
{
	struct tune_problem pb = two_keys(36);
	struct fake fk = {.pb = &pb, .f = bowl};
	struct tune_search s = {.pb = &pb, .eval = fake_eval, .ctx = &fk};
	long b;

	cr_assert_eq(tune_run(&s), 0);
	cr_expect_str_eq(s.method, "simplex");
	cr_expect_leq(s.runs, 36);
	b = tune_best(&s);
	cr_assert_geq(b, 0);
	cr_expect_eq(s.pts[b].viol, 0);
	cr_expect_leq(s.pts[b].obj[0], grid6(&pb, bowl), "tune %g, grid %g", s.pts[b].obj[0],
		      grid6(&pb, bowl));
	/* every point on the grain: whole bytes, in range */
	for (size_t i = 0; i < s.n; i++)
		for (int k = 0; k < 2; k++) {
			cr_expect_eq(s.pts[i].x[k], round(s.pts[i].x[k]));
			cr_expect(s.pts[i].x[k] >= pb.params[k].lo &&
				  s.pts[i].x[k] <= pb.params[k].hi);
		}
	/* no point evaluated twice */
	for (size_t i = 0; i < s.n; i++)
		for (size_t j = i + 1; j < s.n; j++)
			cr_expect(memcmp(s.pts[i].x, s.pts[j].x, 2 * sizeof(double)));
	tune_search_free(&s);
}

/* Seeds: the mean is the objective, a constraint broken by one seed breaks
 * the point. */
static size_t calls;
static void noisy(const double *x, double *vals)
{
	calls++;
	vals[0] = x[0] + (calls % 2 ? 10 : -10);
	vals[1] = x[0] < 300 && calls % 3 == 0 ? 1 : 0;
}

Test(tune, seeds_average_the_objective_and_every_seed_must_meet_the_constraints)
{
	struct tune_problem pb = {
	    .n_params = 1, .n_obj = 1, .n_cons = 1, .n_seeds = 3, .budget = 3, .batch = 1};
	struct tune_point pt = {.x = {100}};
	double vals[TUNE_SLOTS];

	pb.cons[0] = (struct tune_constraint){.m = {.param = -1}, .op = TUNE_EQ, .value = 0};
	calls = 0;
	for (size_t s = 0; s < 3; s++) {
		noisy(pt.x, vals);
		tune_fold(&pb, &pt, s, vals);
	}
	cr_expect_float_eq(pt.obj[0], (110 + 90 + 110) / 3.0, 1e-9);
	cr_expect_gt(pt.viol, 0); /* the third seed paused */
}

Test(tune, violations_are_relative_to_the_limit)
{
	cr_expect_eq(tune_violation(TUNE_EQ, 0, 0), 0);
	cr_expect_float_eq(tune_violation(TUNE_EQ, 5, 0), 5, 1e-12);
	cr_expect_float_eq(tune_violation(TUNE_LE, 150, 100), 0.5, 1e-12);
	cr_expect_eq(tune_violation(TUNE_LE, 100, 100), 0);
	cr_expect_gt(tune_violation(TUNE_LT, 100, 100), 0);
	cr_expect_float_eq(tune_violation(TUNE_GE, 50, 100), 0.5, 1e-12);
	cr_expect_gt(tune_violation(TUNE_GT, 100, 100), 0);
	cr_expect_eq(tune_violation(TUNE_GT, 101, 100), 0);
	cr_expect_eq(tune_violation(TUNE_LE, NAN, 1), TUNE_VIOL_FAILED);
}

Test(tune, scales_are_log_over_a_decade_and_values_snap_to_the_grain)
{
	struct tune_param lin = {.fam = SWEEP_FAM_SIZE, .lo = 100, .hi = 900, .grain = 1};
	struct tune_param lg = {
	    .fam = SWEEP_FAM_TIME, .lo = 1000, .hi = 1000000, .grain = 1, .log = 1};

	cr_expect_eq(tune_from_unit(&lin, 0.5), 500);
	cr_expect_eq(tune_from_unit(&lin, 0.3333), 367); /* 366.64 rounded */
	cr_expect_eq(tune_from_unit(&lin, -1), 100);
	cr_expect_eq(tune_from_unit(&lin, 2), 900);
	cr_expect_eq(tune_from_unit(&lg, 0.5), 31623); /* sqrt(1e3 * 1e6) */
	cr_expect_float_eq(tune_to_unit(&lg, 31622.7766), 0.5, 1e-9);
	cr_expect_eq(tune_snap(&lin, 99), 100);
}

/* two objectives: a trade-off x against 1/x, every point on the front */
static void tradeoff(const double *x, double *vals)
{
	vals[0] = x[0];
	vals[1] = 1e6 / x[0];
	vals[2] = 0;
}

Test(tune, two_objectives_give_a_pareto_front)
{
	struct tune_problem pb = {
	    .n_params = 1, .n_obj = 2, .n_cons = 1, .n_seeds = 1, .budget = 20, .batch = 4};
	struct fake fk = {.pb = &pb, .f = tradeoff};
	struct tune_search s = {.pb = &pb, .eval = fake_eval, .ctx = &fk};
	size_t idx[64], n;

	pb.params[0] =
	    (struct tune_param){.fam = SWEEP_FAM_INT, .lo = 1, .hi = 1000, .grain = 1, .log = 1};
	pb.obj[0].m = (struct tune_metric){.name = "a", .param = -1};
	pb.obj[1].m = (struct tune_metric){.name = "b", .param = -1};
	pb.cons[0] = (struct tune_constraint){.m = {.param = -1}, .op = TUNE_EQ, .value = 0};
	cr_assert_eq(tune_run(&s), 0);
	n = tune_front(&s, idx);
	cr_expect_eq(n, s.n, "front %zu of %zu", n, s.n);
	for (size_t i = 1; i < n; i++)
		cr_expect_lt(s.pts[idx[i - 1]].obj[0], s.pts[idx[i]].obj[0]);
	tune_search_free(&s);
}

/* two objectives, feasible from x = 5 on: a point breaking the
 * constraint is never an incumbent once a feasible one is known */
static void tradeoff_above_5(const double *x, double *vals)
{
	vals[0] = x[0];
	vals[1] = 1e6 / x[0];
	vals[2] = x[0] < 5 ? 1 : 0;
}

Test(tune, the_path_of_two_objectives_holds_no_infeasible_point_after_a_feasible_one)
{
	struct tune_problem pb = {
	    .n_params = 1, .n_obj = 2, .n_cons = 1, .n_seeds = 1, .budget = 20, .batch = 4};
	struct fake fk = {.pb = &pb, .f = tradeoff_above_5};
	struct tune_search s = {.pb = &pb, .eval = fake_eval, .ctx = &fk};
	int seen_feasible = 0;

	pb.params[0] =
	    (struct tune_param){.fam = SWEEP_FAM_INT, .lo = 1, .hi = 1000, .grain = 1, .log = 1};
	pb.obj[0].m = (struct tune_metric){.name = "a", .param = -1};
	pb.obj[1].m = (struct tune_metric){.name = "b", .param = -1};
	pb.cons[0] = (struct tune_constraint){.m = {.param = -1}, .op = TUNE_EQ, .value = 0};
	cr_assert_eq(tune_run(&s), 0);
	/* the first incumbent is the best of the first batch of four */
	cr_assert_geq(s.n, 4);
	for (size_t i = 0; i < 4; i++)
		if (s.pts[i].viol == 0)
			cr_expect_eq(s.pts[s.path[0]].viol, 0,
				     "first incumbent x %g breaks the "
				     "constraint while x %g of its batch meets it",
				     s.pts[s.path[0]].x[0], s.pts[i].x[0]);
	for (size_t i = 0; i < s.n_path; i++) {
		int ok = s.pts[s.path[i]].viol == 0;

		cr_expect(ok || !seen_feasible, "path step %zu (x %g) breaks the constraint", i,
			  s.pts[s.path[i]].x[0]);
		seen_feasible |= ok;
	}
	cr_expect_eq(s.pts[tune_best(&s)].viol, 0);
	tune_search_free(&s);
}

/* ---- the scenario's own point, keys without effect, seeds, unfinished runs ---- */

/* A bowl whose bottom is at kmin 60 KB, kmax 900 KB, no constraint broken. */
static void bowl_free(const double *x, double *vals)
{
	double a = log(x[0] / 60000), b = log(x[1] / 900000);

	vals[0] = 1500 + 100 * (a * a + b * b);
	vals[1] = 0;
}

Test(tune, the_scenario_s_own_point_runs_first_and_an_answer_beats_it)
{
	struct tune_problem pb = two_keys(20);
	struct fake fk = {.pb = &pb, .f = bowl_free};
	struct tune_search s = {.pb = &pb, .eval = fake_eval, .ctx = &fk};
	struct tune_verdict v;

	s.has_base = 1;
	s.base_x[0] = 150000;
	s.base_x[1] = 1200000;
	cr_assert_eq(tune_run(&s), 0);
	cr_expect_eq(s.base, 0);
	cr_expect_eq(s.pts[0].x[0], 150000);
	cr_expect_eq(s.pts[0].x[1], 1200000);
	/* then each key alone at its far end: both are seen to move the bowl */
	cr_expect_eq(s.pts[1].x[0], 5000);
	cr_expect_eq(s.pts[1].x[1], 1200000);
	cr_expect_eq(s.pts[2].x[0], 150000);
	cr_expect_eq(s.pts[2].x[1], 20000);
	tune_judge(&s, &v);
	cr_expect_eq(v.effect[0], 1);
	cr_expect_eq(v.effect[1], 1);
	cr_assert_geq(v.rec, 0);
	cr_expect_lt(s.pts[v.rec].obj[0], s.pts[0].obj[0]);
	cr_expect_lt(v.gain[0], 0);
	tune_search_free(&s);
}

Test(tune, an_answer_no_better_than_the_scenario_s_own_is_keep_the_current_values)
{
	struct tune_problem pb = two_keys(30);
	struct fake fk = {.pb = &pb, .f = bowl_free};
	struct tune_search s = {.pb = &pb, .eval = fake_eval, .ctx = &fk};
	struct tune_verdict v;

	/* the scenario already sits at the bottom of the bowl */
	s.has_base = 1;
	s.base_x[0] = 60000;
	s.base_x[1] = 900000;
	cr_assert_eq(tune_run(&s), 0);
	tune_judge(&s, &v);
	cr_expect(v.base_ok);
	cr_expect_eq(v.best, 0, "best p%zu at %g", s.pts[v.best].id, s.pts[v.best].obj[0]);
	cr_expect_eq(v.rec, -1);
	for (size_t i = 1; i < s.n; i++)
		cr_expect_geq(s.pts[i].obj[0], s.pts[0].obj[0]);
	tune_search_free(&s);
}

Test(tune, values_outside_a_range_are_clamped_into_it)
{
	struct tune_problem pb = two_keys(6);
	struct fake fk = {.pb = &pb, .f = bowl_free};
	struct tune_search s = {.pb = &pb, .eval = fake_eval, .ctx = &fk};

	s.has_base = 1;
	s.base_x[0] = 1000;    /* below 5 KB */
	s.base_x[1] = 8000000; /* above 2 MB */
	cr_assert_eq(tune_run(&s), 0);
	cr_expect_eq(s.pts[0].x[0], 5000);
	cr_expect_eq(s.pts[0].x[1], 2000000);
	tune_search_free(&s);
}

/* kmin moves nothing; kmax moves the objective */
static void only_kmax(const double *x, double *vals)
{
	vals[0] = 1000 + x[1] / 1000;
	vals[1] = 0;
}

/* nothing moves anything: the completion time of a fabric that never marks */
static void nothing_moves(const double *x, double *vals)
{
	(void)x;
	vals[0] = 1290.587;
	vals[1] = 0;
}

Test(tune, a_key_that_moves_nothing_has_no_effect_and_a_flat_grid_stops)
{
	struct tune_problem pb = two_keys(60);
	struct fake fk = {.pb = &pb, .f = only_kmax};
	struct tune_search s = {.pb = &pb, .eval = fake_eval, .ctx = &fk};
	struct tune_verdict v;

	s.has_base = 1;
	s.base_x[0] = 150000;
	s.base_x[1] = 1200000;
	cr_assert_eq(tune_run(&s), 0);
	tune_judge(&s, &v);
	cr_expect_eq(v.effect[0], 0);
	cr_expect_eq(v.effect[1], 1);
	cr_assert_geq(v.rec, 0);
	cr_expect_eq(s.pts[v.rec].x[1], 20000);
	cr_expect_not(s.flat);
	tune_search_free(&s);

	fk = (struct fake){.pb = &pb, .f = nothing_moves};
	s = (struct tune_search){.pb = &pb, .eval = fake_eval, .ctx = &fk};
	s.has_base = 1;
	s.base_x[0] = 150000;
	s.base_x[1] = 1200000;
	cr_assert_eq(tune_run(&s), 0);
	tune_judge(&s, &v);
	cr_expect(s.flat);
	cr_expect(strstr(s.note, "no key moved") != NULL, "%s", s.note);
	cr_expect_eq(v.effect[0], 0);
	cr_expect_eq(v.effect[1], 0);
	cr_expect_eq(v.rec, -1);
	cr_expect(v.base_ok);
	/* the scenario's point, each key alone, then the grid: no simplex */
	cr_expect_lt(s.runs, 20, "%zu runs", s.runs);
	tune_search_free(&s);
}

/* Two points of one key, their objective per seed given: the judge pairs seeds. */
static void judge_pair(const double *a, const double *b, size_t seeds, struct tune_verdict *v)
{
	static struct tune_problem pb = {.n_params = 1, .n_obj = 1, .n_seeds = 3};
	static struct tune_point pts[2];
	struct tune_search s = {.pb = &pb, .pts = pts, .n = 2, .base = 0};

	pb.n_seeds = seeds;
	pb.obj[0].m = (struct tune_metric){.name = "collective.completion_time_us", .param = -1};
	memset(pts, 0, sizeof(pts));
	for (size_t p = 0; p < 2; p++) {
		pts[p].x[0] = p ? 400 : 5;
		pts[p].id = p + 1;
		pts[p].state = TUNE_RAN;
		pts[p].runs = seeds;
		for (size_t i = 0; i < seeds; i++)
			tune_fold(&pb, &pts[p], i, p ? &b[i] : &a[i]);
	}
	tune_judge(&s, v);
}

Test(tune, points_are_compared_seed_by_seed)
{
	/* the seeds move the time 2x, each seed 10 us faster at 400: an effect */
	const double base[] = {4566, 6014, 4384}, faster[] = {4556, 6004, 4374},
		     mixed[] = {4466, 6114, 4284};
	struct tune_verdict v;

	judge_pair(base, faster, 3, &v);
	cr_expect_eq(v.effect[0], 1);
	cr_expect_eq(v.rec, 1);
	cr_expect_float_eq(v.gain[0], -10, 1e-9);
	cr_expect_not(v.within_spread);
	/* a mean 33 us faster, but 100 us faster on two seeds and slower on one */
	judge_pair(base, mixed, 3, &v);
	cr_expect_eq(v.effect[0], 0);
	cr_expect_eq(v.rec, -1);
	/* one seed: any difference is an effect */
	judge_pair(base, faster, 1, &v);
	cr_expect_eq(v.effect[0], 1);
	cr_expect_eq(v.rec, 1);
}

Test(tune, a_point_with_more_flows_finished_is_closer)
{
	struct tune_problem pb = {.n_params = 1, .n_obj = 1, .n_seeds = 1};
	struct tune_search s = {.pb = &pb};
	struct tune_point seven = {.state = TUNE_UNFINISHED, .unfinished = 1.0 / 8, .obj = {NAN}};
	struct tune_point one = {.state = TUNE_UNFINISHED, .unfinished = 7.0 / 8, .obj = {NAN}};
	struct tune_point broken = {.state = TUNE_RAN, .viol = 3, .obj = {10}};
	struct tune_point failed = {.state = TUNE_FAILED, .viol = TUNE_VIOL_FAILED};
	struct tune_point pts[2];

	cr_expect_lt(tune_score(&s, &seven), tune_score(&s, &one));
	cr_expect_lt(tune_score(&s, &broken), tune_score(&s, &seven));
	cr_expect_lt(tune_score(&s, &one), tune_score(&s, &failed));
	cr_expect_not(tune_feasible(&seven));
	/* the best of the two is the one with 7 of 8 flows done, whatever order */
	pts[0] = one;
	pts[1] = seven;
	s.pts = pts;
	s.n = 2;
	cr_expect_eq(tune_best(&s), 1);
}

Test(tune, metrics_print_in_units)
{
	char a[48], b[48];

	tune_metric_format("collective.completion_time_us", 4566.09, a, sizeof(a));
	cr_expect_str_eq(a, "4.566 ms");
	tune_metric_format("fct_us.p99", 812.4, a, sizeof(a));
	cr_expect_str_eq(a, "812.4 us");
	tune_metric_format("max_queue_bytes", 1152230, a, sizeof(a));
	cr_expect_str_eq(a, "1.152 MB");
	tune_metric_format("pfc_pause_frames", 38, a, sizeof(a));
	cr_expect_str_eq(a, "38");
	tune_metric_format("fct_us.max", NAN, a, sizeof(a));
	cr_expect_str_eq(a, "not measured");
	/* digits enough to tell two values apart */
	tune_range_format("collective.completion_time_us", 1290.587, 1290.589, a, b, sizeof(a));
	cr_expect_str_eq(a, "1.290587 ms");
	cr_expect_str_eq(b, "1.290589 ms");
}

/* ---- the verb ---- */

static const char incast_2km[] = "name: hr\n"
				 "seed: 1\n"
				 "stop: 20ms\n"
				 "topology:\n"
				 "  kind: star\n"
				 "  hosts: 3\n"
				 "  link: {rate: 100Gbps, cable: 2km}\n"
				 "switch:\n"
				 "  buffer: {size: 32MB}\n"
				 "  pfc: {xoff: 200KB, xon_offset: 50KB, headroom: 165888}\n"
				 "  ecn: {enabled: false}\n"
				 "workload: {kind: incast, senders: 2, size: 2MB}\n"
				 "output: {sample: 0}\n";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert(f);
	fputs(text, f);
	fclose(f);
}

static double run_metric(const char *scn, const char *set, const char *metric)
{
	char out[300];
	struct ts_proc p;
	json_t *j;
	double v = NAN;

	snprintf(out, sizeof(out), "%s", ts_tmp("one"));
	ts_exec(&p, (const char *[]){"run", scn, "--set", set, "-o", out, "--quiet", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	snprintf(out + strlen(out), sizeof(out) - strlen(out), "/results.json");
	j = json_load_file(out, 0, NULL);
	cr_assert(j);
	v = json_number_value(json_object_get(json_object_get(j, "summary"), metric));
	json_decref(j);
	return v;
}

static json_t *load_tune(const char *dir)
{
	char path[300];
	json_t *j;

	snprintf(path, sizeof(path), "%s/tune.json", dir);
	j = json_load_file(path, 0, NULL);
	cr_assert(j, "%s", path);
	return j;
}

Test(tune, smallest_headroom_over_2km_is_exact_within_30_runs)
{
	char scn[300], dir[300], set[128];
	struct ts_proc p;
	json_t *j;
	json_int_t h;

	snprintf(scn, sizeof(scn), "%s", ts_tmp("hr.yaml"));
	snprintf(dir, sizeof(dir), "%s", ts_tmp("hr-tune"));
	write_file(scn, incast_2km);
	ts_exec(&p,
		(const char *[]){"tune", scn, "--vary", "switch.pfc.headroom=1B..1MB", "--minimize",
				 "switch.pfc.headroom", "--subject-to", "lossless_drops == 0",
				 "--budget", "30", "-j", "2", "-o", dir, NULL});
	cr_assert_eq(p.code, 0, "%s%s", p.out, p.err);
	cr_expect(strstr(p.out,
			 "paste into the scenario:\n  switch:\n    pfc:\n      headroom: ") != NULL,
		  "%s", p.out);
	cr_expect(strstr(p.out, "  check      HEADROOM_SHORT error: needs 287834 B") != NULL, "%s",
		  p.out);
	ts_proc_free(&p);
	j = load_tune(dir);
	cr_expect_str_eq(json_string_value(json_object_get(j, "method")), "bisection");
	cr_expect_leq(json_integer_value(json_object_get(j, "runs")), 30);
	cr_expect(json_is_true(json_object_get(j, "monotone")));
	h = json_integer_value(json_object_get(
	    json_object_get(json_object_get(j, "best"), "values"), "switch.pfc.headroom"));
	/* the scenario's own 165888 B ran first, and the answer goes through check,
	 * which wants the worst case (line rate for a round trip): about twice it */
	cr_expect_eq(
	    json_integer_value(json_object_get(
		json_object_get(json_object_get(j, "current"), "values"), "switch.pfc.headroom")),
	    165888);
	cr_expect_str_eq(
	    json_string_value(json_object_get(
		json_array_get(json_object_get(json_object_get(j, "recommendation"), "check"), 0),
		"code")),
	    "HEADROOM_SHORT");
	json_decref(j);
	/* what an exhaustive sweep at the grain says: h is the first value without a drop */
	snprintf(set, sizeof(set), "switch.pfc.headroom=%lld", (long long)h);
	cr_expect_eq(run_metric(scn, set, "lossless_drops"), 0);
	snprintf(set, sizeof(set), "switch.pfc.headroom=%lld", (long long)h - 1);
	cr_expect_gt(run_metric(scn, set, "lossless_drops"), 0, "at %lld B", (long long)h - 1);
	/* and it is the peak headroom the incast uses when it has plenty */
	cr_expect_eq(run_metric(scn, "switch.pfc.headroom=1MB", "max_headroom_bytes"), (double)h);
}

Test(tune, a_tune_run_again_resumes_without_running)
{
	char scn[300], dir[300], csv[320], *a, *b;
	struct ts_proc p;
	const char *args[] = {"tune",	      scn,
			      "--vary",	      "switch.pfc.headroom=100KB..200KB",
			      "--minimize",   "switch.pfc.headroom",
			      "--subject-to", "lossless_drops == 0",
			      "-j",	      "1",
			      "-o",	      dir,
			      "--progress",   NULL};

	snprintf(scn, sizeof(scn), "%s", ts_tmp("hr.yaml"));
	snprintf(dir, sizeof(dir), "%s", ts_tmp("resume"));
	write_file(scn, incast_2km);
	ts_exec(&p, args);
	cr_assert_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	snprintf(csv, sizeof(csv), "%s/tune.csv", dir);
	a = ts_slurp(csv);
	ts_exec(&p, args);
	cr_assert_eq(p.code, 0, "%s", p.err);
	/* every run skipped: none reported as it ends */
	cr_expect(strstr(p.err, "rocesim sweep: [") == NULL, "%s", p.err);
	ts_proc_free(&p);
	b = ts_slurp(csv);
	cr_expect_str_eq(a, b);
	free(a);
	free(b);
}

/* Runs of @dir that have finished (a results.json in points/<id>/). */
static size_t finished_runs(const char *dir)
{
	char pattern[400];
	glob_t g;
	size_t n;

	snprintf(pattern, sizeof(pattern), "%s/points/*/results.json", dir);
	if (glob(pattern, 0, NULL, &g))
		return 0;
	n = g.gl_pathc;
	globfree(&g);
	return n;
}

/*
 * A tune killed outright (SIGKILL) mid-search and run again at once
 * searches the points an uninterrupted tune searches: its runs died with
 * it (none left holding a point's folder, to be recorded as failed), and
 * the tables are the same bytes.
 */
Test(tune, a_tune_killed_by_sigkill_resumes_to_the_same_tables)
{
	char scn[300], ref[300], dir[300], csv[320], *a, *b;
	const char *args[] = {"tune",
			      scn,
			      "--vary",
			      "switch.pfc.headroom=100KB..200KB",
			      "--minimize",
			      "switch.pfc.headroom",
			      "--subject-to",
			      "lossless_drops == 0",
			      "-j",
			      "2",
			      "-o",
			      ref,
			      NULL};
	struct timespec nap = {0, 20000000};
	struct ts_child c;
	struct ts_proc p;
	size_t n = 0;

	snprintf(scn, sizeof(scn), "%s", ts_tmp("hr.yaml"));
	snprintf(ref, sizeof(ref), "%s", ts_tmp("unkilled"));
	snprintf(dir, sizeof(dir), "%s", ts_tmp("killed"));
	write_file(scn, incast_2km);
	ts_exec(&p, args);
	cr_assert_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	args[11] = dir;
	ts_spawn(&c, NULL, args);
	for (int i = 0; i < 3000 && (n = finished_runs(dir)) < 3; i++)
		nanosleep(&nap, NULL);
	cr_assert_geq(n, 3, "the tune did not start");
	kill(c.pid, SIGKILL);
	ts_wait(&c, &p);
	ts_proc_free(&p);
	ts_exec(&p, args);
	cr_assert_eq(p.code, 0, "(%d) %s", p.code, p.err);
	cr_expect(!strstr(p.err, "in use"), "%s", p.err);
	ts_proc_free(&p);
	snprintf(csv, sizeof(csv), "%s/tune.csv", ref);
	a = ts_slurp(csv);
	snprintf(csv, sizeof(csv), "%s/tune.csv", dir);
	b = ts_slurp(csv);
	cr_assert(a && b);
	cr_expect_str_eq(a, b);
	free(a);
	free(b);
}

Test(tune, no_feasible_point_exits_1_with_the_closest)
{
	char scn[300], dir[300];
	struct ts_proc p;
	json_t *j;

	snprintf(scn, sizeof(scn), "%s", ts_tmp("hr.yaml"));
	snprintf(dir, sizeof(dir), "%s", ts_tmp("none"));
	write_file(scn, incast_2km);
	ts_exec(&p, (const char *[]){"tune", scn, "--vary", "switch.pfc.headroom=10KB..50KB",
				     "--minimize", "switch.pfc.headroom", "--subject-to",
				     "lossless_drops == 0", "-o", dir, NULL});
	cr_expect_eq(p.code, 1, "%s", p.err);
	cr_expect(strstr(p.err, "no point of") != NULL, "%s", p.err);
	cr_expect(strstr(p.out, "closest") != NULL, "%s", p.out);
	ts_proc_free(&p);
	j = load_tune(dir);
	cr_expect(json_is_false(json_object_get(j, "feasible")));
	cr_expect(json_is_object(json_object_get(j, "best")));
	json_decref(j);
}

/* @usage: a usage error, its message followed by the usage text */
static void refused_as(const char *const *args, const char *want, int usage)
{
	struct ts_proc p;
	const char *nl;

	ts_exec(&p, args);
	cr_expect_eq(p.code, 2, "%s: exit %d: %s", want, p.code, p.err);
	cr_expect(strstr(p.err, want) != NULL, "want \"%s\" in: %s", want, p.err);
	nl = strchr(p.err, '\n');
	cr_expect(usage || (nl && !nl[1]), "one line: %s", p.err);
	ts_proc_free(&p);
}

static void refused(const char *const *args, const char *want)
{
	refused_as(args, want, 0);
}

Test(tune, bad_input_is_one_line_and_exit_2)
{
	char scn[300], dir[300];
	struct stat st;

	snprintf(scn, sizeof(scn), "%s", ts_tmp("hr.yaml"));
	snprintf(dir, sizeof(dir), "%s", ts_tmp("bad"));
	write_file(scn, incast_2km);
	refused((const char *[]){"tune", scn, "--vary", "switch.pfc.headroom=1B..1MB", "--minimize",
				 "lossles_drops", "-o", dir, NULL},
		"lossles_drops: unknown metric");
	refused((const char *[]){"tune", scn, "--vary", "switch.pfc.headroom=1B..1MB", "--minimize",
				 "switch.pfc.headroom", "--subject-to", "lossless_drops < 0", "-o",
				 dir, NULL},
		"can never hold");
	refused((const char *[]){"tune", scn, "--vary", "switch.pfc.headroom=1B..1MB", "--minimize",
				 "switch.pfc.headroom", "--subject-to",
				 "switch.pfc.headroom >= 2MB", "-o", dir, NULL},
		"can never hold in the key's range");
	refused((const char *[]){"tune", scn, "--vary", "switch.pfc.headroom=1us..5us",
				 "--minimize", "switch.pfc.headroom", "--subject-to",
				 "lossless_drops == 0", "-o", dir, NULL},
		"switch.pfc.headroom");
	refused((const char *[]){"tune", scn, "--vary", "switch.pfc.headroom=1MB..1KB",
				 "--minimize", "switch.pfc.headroom", "-o", dir, NULL},
		"LO must be below HI");
	refused((const char *[]){"tune", scn, "--vary", "switch.pfc.headroom=1KB..1MB:8",
				 "--minimize", "switch.pfc.headroom", "-o", dir, NULL},
		"is not a range LO..HI");
	refused((const char *[]){"tune", scn, "--vary", "switch.pfc.headroom=1KB..1MB",
				 "--minimize", "fct_us.p99", "--subject-to", "drops = 0", "-o", dir,
				 NULL},
		"is not 'METRIC OP VALUE'");
	refused_as((const char *[]){"tune", scn, "--minimize", "fct_us.p99", "-o", dir, NULL},
		   "tune needs a key to vary", 1);
	refused_as((const char *[]){"tune", scn, "--vary", "switch.pfc.headroom=1KB..1MB", "-o",
				    dir, NULL},
		   "tune needs an objective", 1);
	/* a metric the workload does not give: said once the first point ran */
	refused((const char *[]){"tune", scn, "--vary", "switch.pfc.headroom=100KB..1MB",
				 "--minimize", "collective.completion_time_us", "--budget", "4",
				 "-o", dir, NULL},
		"give no collective.completion_time_us");
	(void)st;
}

/* A 4:1 incast where kmax above about 800 KB lets the queue reach XOFF. */
static const char incast_4to1[] =
    "name: ecn4\n"
    "seed: 1\n"
    "stop: 50ms\n"
    "topology: {kind: star, hosts: 5, link: {rate: 100Gbps, cable: 2m}}\n"
    "switch:\n"
    "  buffer: {size: 32MB, per_port: 4MB}\n"
    "  lossless: [3]\n"
    "  pfc: {xoff: 300KB, xon_offset: 50KB, headroom: 1.6MB}\n"
    "  ecn: {kmin: 150KB, kmax: 1.2MB, pmax: 20%}\n"
    /* CNPs per QP: spaced per port, no point of the 6 x 6 grid keeps the
     * 4:1 incast under the 300 KB XOFF */
    "nic: {dcqcn: {byte_reset_unit: 64B, cnp_scope: qp}}\n"
    "workload: {kind: incast, senders: 4, size: 4MB}\n"
    "output: {sample: 0}\n";

Test(tune, ecn_tune_is_within_5_percent_of_a_six_by_six_grid_in_36_runs)
{
	char scn[300], dir[300], out[300], kmin[64], kmax[64];
	double best = INFINITY, got;
	struct ts_proc p;
	json_t *j, *b;
	int feasible_grid = 0;

	snprintf(scn, sizeof(scn), "%s", ts_tmp("ecn4.yaml"));
	snprintf(dir, sizeof(dir), "%s", ts_tmp("ecn4-tune"));
	write_file(scn, incast_4to1);
	for (int i = 0; i < 6; i++) {
		for (int k = 0; k < 6; k++) {
			long long a = llround(5000 * pow(100, i / 5.0)),
				  m = llround(20000 * pow(100, k / 5.0));
			json_t *r;
			double pauses, fct;

			if (a > m)
				continue;
			snprintf(out, sizeof(out), "%s", ts_tmp("grid"));
			snprintf(kmin, sizeof(kmin), "switch.ecn.kmin=%lld", a);
			snprintf(kmax, sizeof(kmax), "switch.ecn.kmax=%lld", m);
			ts_exec(&p, (const char *[]){"run", scn, "--set", kmin, "--set", kmax, "-o",
						     out, "--quiet", NULL});
			cr_assert_eq(p.code, 0, "%s", p.err);
			ts_proc_free(&p);
			snprintf(out + strlen(out), sizeof(out) - strlen(out), "/results.json");
			cr_assert(r = json_load_file(out, 0, NULL));
			pauses = json_number_value(
			    json_object_get(json_object_get(r, "summary"), "pfc_pause_frames"));
			fct = json_number_value(json_object_get(
			    json_object_get(json_object_get(r, "summary"), "fct_us"), "max"));
			json_decref(r);
			feasible_grid += pauses == 0;
			if (pauses == 0 && fct < best)
				best = fct;
		}
	}
	cr_assert_gt(feasible_grid, 0);
	ts_exec(&p, (const char *[]){"tune",	     scn,
				     "--vary",	     "switch.ecn.kmin=5KB..500KB",
				     "--vary",	     "switch.ecn.kmax=20KB..2MB",
				     "--minimize",   "fct_us.max",
				     "--subject-to", "pfc_pause_frames == 0",
				     "--budget",     "36",
				     "--seeds",	     "1",
				     "-j",	     "2",
				     "-o",	     dir,
				     "--quiet",	     NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	j = load_tune(dir);
	cr_expect_leq(json_integer_value(json_object_get(j, "runs")), 36);
	b = json_object_get(j, "best");
	got = json_number_value(json_object_get(json_object_get(b, "metrics"), "fct_us.max"));
	cr_expect(json_is_true(json_object_get(b, "feasible")));
	/* one seed's completion moves by about 5% from the next one's: the
	 * grid's best of 36 points is partly the luckiest draw */
	cr_expect_leq(got, best * 1.05, "tune %g us, 6 x 6 grid %g us", got, best);
	json_decref(j);
}

Test(tune, a_key_from_a_config_file_names_the_field_to_change)
{
	char dir[300];
	struct ts_proc p;

	snprintf(dir, sizeof(dir), "%s", ts_tmp("configs"));
	ts_exec(&p, (const char *[]){"tune", "experiments/configs-fixed.yaml", "--set",
				     "workload.size=1MB", "--vary", "switch.ecn.kmax=500KB..4MB",
				     "--vary", "nic.dcqcn.rp_ai_rate=1..100", "--minimize",
				     "switch.ecn.kmax", "--maximize", "nic.dcqcn.rp_ai_rate",
				     "--seeds", "1", "--budget", "8", "-o", dir, NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_expect(strstr(p.out, "switch.ecn.kmax comes from switch.sonic "
				"(experiments/configs/config_db-seed.json, line ") != NULL,
		  "%s", p.out);
	cr_expect(
	    strstr(p.out, "\"WRED_PROFILE\": {\"SEED_LOSSLESS\": {\"green_max_threshold\": \"") !=
		NULL,
	    "%s", p.out);
	cr_expect(strstr(p.out, "nic.dcqcn.rp_ai_rate comes from nic.cc_params") != NULL, "%s",
		  p.out);
	cr_expect(strstr(p.out, "/cc_params/rp_ai_rate)") != NULL, "%s", p.out);
	ts_proc_free(&p);
}

/* ---- the two cases of the issue, smaller ---- */

/* A string array of tune.json's @key. */
static int json_has_string(const json_t *a, const char *want)
{
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v)
		if (!strcmp(json_string_value(v), want))
			return 1;
	return 0;
}

Test(tune, ecn_thresholds_of_a_fabric_that_never_marks_have_no_effect)
{
	char dir[300];
	struct ts_proc p;
	json_t *j, *rec;

	/* the seed cluster's AllReduce never queues: no threshold can matter */
	snprintf(dir, sizeof(dir), "%s", ts_tmp("flat"));
	ts_exec(&p, (const char *[]){"tune", "experiments/seed-cluster.yaml", "--set",
				     "workload.size=1MB", "--vary", "switch.ecn.kmin=10KB..1MB",
				     "--vary", "switch.ecn.kmax=100KB..4MB", "--minimize",
				     "collective.completion_time_us", "--subject-to",
				     "pfc_pause_frames == 0", "--budget", "10", "-j", "2", "-o",
				     dir, NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_expect(strstr(p.out, "  no effect  switch.ecn.kmin: ") != NULL, "%s", p.out);
	cr_expect(strstr(p.out, "  no effect  switch.ecn.kmax: ") != NULL, "%s", p.out);
	cr_expect(strstr(p.out, "  verdict    keep the current values: no varied key moves") !=
		      NULL,
		  "%s", p.out);
	cr_expect(strstr(p.out, "paste into the scenario") == NULL, "%s", p.out);
	ts_proc_free(&p);
	j = load_tune(dir);
	rec = json_object_get(j, "recommendation");
	cr_expect(json_is_true(json_object_get(rec, "keep")));
	cr_expect(json_is_null(json_object_get(rec, "point")));
	cr_expect(json_has_string(json_object_get(rec, "no_effect"), "switch.ecn.kmin"));
	cr_expect(json_has_string(json_object_get(rec, "no_effect"), "switch.ecn.kmax"));
	/* the scenario's own point ran first, at its own values */
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(j, "current"), "id")),
			 "p001");
	cr_expect_eq(
	    json_integer_value(json_object_get(
		json_object_get(json_object_get(j, "current"), "values"), "switch.ecn.kmax")),
	    1200000);
	json_decref(j);
}

/* The mean over the seeds of @metric at point @id, from tune.csv @rows. */
static double csv_mean(const char *csv, const char *id, int col)
{
	char line[512], want[32];
	double sum = 0;
	int n = 0;
	FILE *f = fopen(csv, "r");

	cr_assert(f, "%s", csv);
	snprintf(want, sizeof(want), "%s-s", id);
	while (fgets(line, sizeof(line), f)) {
		char *field = line;

		if (strncmp(line, want, strlen(want)))
			continue;
		for (int c = 0; c < col && field; c++)
			field = strchr(field, ',') ? strchr(field, ',') + 1 : NULL;
		cr_assert(field);
		sum += strtod(field, NULL);
		n++;
	}
	fclose(f);
	cr_assert_gt(n, 0, "%s: no run of %s", csv, id);
	return sum / n;
}

Test(tune, the_dcqcn_recipe_never_recommends_worse_than_its_own_values)
{
	char dir[300], csv[320];
	struct ts_proc p;
	json_t *j, *rec, *cur;
	double own;

	snprintf(dir, sizeof(dir), "%s", ts_tmp("dcqcn"));
	ts_exec(&p, (const char *[]){"tune",
				     "experiments/tune/dcqcn-allreduce.yaml",
				     "--set",
				     "workload.size=4MB",
				     "--vary",
				     "nic.dcqcn.rp_ai_rate=1..400",
				     "--vary",
				     "nic.dcqcn.rp_hai_rate=10..2000",
				     "--vary",
				     "nic.dcqcn.rp_gd=4..15",
				     "--minimize",
				     "collective.completion_time_us",
				     "--subject-to",
				     "pfc_pause_frames == 0",
				     "--budget",
				     "24",
				     "-j",
				     "2",
				     "-o",
				     dir,
				     NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	/* ECMP: the time depends on the seed, and every point runs on the same 3 */
	cr_expect(strstr(p.out, "  seeds      the results depend on the seed") != NULL, "%s",
		  p.out);
	ts_proc_free(&p);
	j = load_tune(dir);
	cur = json_object_get(j, "current");
	rec = json_object_get(j, "recommendation");
	cr_expect(json_is_true(json_object_get(j, "seed_dependent")));
	cr_expect_eq(json_array_size(json_object_get(j, "seeds")), 3);
	/* the mlx5 defaults, run first on the 3 seeds */
	cr_expect_eq(json_integer_value(
			 json_object_get(json_object_get(cur, "values"), "nic.dcqcn.rp_ai_rate")),
		     5);
	cr_expect_eq(
	    json_integer_value(json_object_get(json_object_get(cur, "values"), "nic.dcqcn.rp_gd")),
	    11);
	cr_expect_eq(json_integer_value(json_object_get(cur, "runs")), 3);
	snprintf(csv, sizeof(csv), "%s/tune.csv", dir);
	own = csv_mean(csv, "p001", 7);
	cr_expect_float_eq(json_number_value(json_object_get(json_object_get(cur, "metrics"),
							     "collective.completion_time_us")),
			   own, 1e-6 * own);
	if (!json_is_null(json_object_get(rec, "point"))) {
		double got = csv_mean(csv, json_string_value(json_object_get(rec, "point")), 7);

		cr_expect_lt(got, own, "recommended %g us, the scenario's own %g us", got, own);
	} else {
		cr_expect(json_is_true(json_object_get(rec, "keep")));
	}
	json_decref(j);
}

Test(tune, a_point_whose_flows_did_not_finish_is_not_measured)
{
	/* 8 flows of 20 KB to 3.2 MB into one host: the shorter the stop, the
	 * fewer finish, and the max FCT of those that did is the smaller */
	static const char text[] =
	    "name: unf8\n"
	    "seed: 1\n"
	    "stop: 200us\n"
	    "topology: {kind: star, hosts: 9, link: {rate: 100Gbps, cable: 2m}}\n"
	    "switch: {ecn: {enabled: false}}\n"
	    "workload:\n"
	    "  kind: flows\n"
	    "  flows:\n"
	    "    - {src: h0, dst: h8, size: 20KB}\n"
	    "    - {src: h1, dst: h8, size: 50KB}\n"
	    "    - {src: h2, dst: h8, size: 100KB}\n"
	    "    - {src: h3, dst: h8, size: 200KB}\n"
	    "    - {src: h4, dst: h8, size: 400KB}\n"
	    "    - {src: h5, dst: h8, size: 800KB}\n"
	    "    - {src: h6, dst: h8, size: 1600KB}\n"
	    "    - {src: h7, dst: h8, size: 3200KB}\n"
	    "output: {sample: 0}\n";
	char scn[300], dir[300];
	struct ts_proc p;
	json_t *j, *pts, *pt;
	size_t i, unfinished = 0;

	snprintf(scn, sizeof(scn), "%s", ts_tmp("unf8.yaml"));
	snprintf(dir, sizeof(dir), "%s", ts_tmp("unf8"));
	write_file(scn, text);
	ts_exec(&p, (const char *[]){"tune", scn, "--vary", "stop=10us..5ms", "--minimize",
				     "fct_us.max", "--budget", "8", "-o", dir, NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_expect(strstr(p.out, "did not finish by stop: not measured") != NULL, "%s", p.out);
	cr_expect(strstr(p.out, "the current values leave flows unfinished by stop") != NULL, "%s",
		  p.out);
	ts_proc_free(&p);
	j = load_tune(dir);
	/* the answer finished every flow; no unfinished point carries a value */
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(j, "best"), "state")),
			 "ran");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(j, "current"), "state")),
			 "unfinished");
	cr_expect(json_is_null(json_object_get(
	    json_object_get(json_object_get(j, "current"), "metrics"), "fct_us.max")));
	pts = json_object_get(j, "points");
	json_array_foreach(pts, i, pt)
		if (!strcmp(json_string_value(json_object_get(pt, "state")), "unfinished")) {
			unfinished++;
			cr_expect(json_is_false(json_object_get(pt, "feasible")));
			cr_expect_not(json_is_number(
			    json_object_get(json_object_get(pt, "metrics"), "fct_us.max")));
		}
	cr_expect_geq(unfinished, 2);
	json_decref(j);
}

Test(tune, a_training_job_s_iteration_time_is_an_objective)
{
	/* dp 2 on a 100G star: 150 us of compute, then an 8 MB AllReduce of the
	 * gradients; by stop 200us no iteration has ended: not measured */
	static const char text[] =
	    "name: trn2\n"
	    "seed: 1\n"
	    "stop: 200us\n"
	    "topology: {kind: star, hosts: 2, link: {rate: 100Gbps, cable: 2m}}\n"
	    "workload:\n"
	    "  kind: training\n"
	    "  layout: {dp: 2}\n"
	    "  seq_len: 1024\n"
	    "  layers:\n"
	    "    - {forward: 50us, input_grad: 50us, weight_grad: 50us,\n"
	    "       weight_grad_coll: {op: allreduce, group: dp, size: 8MB}}\n"
	    "output: {sample: 0}\n";
	char scn[300], dir[300];
	struct ts_proc p;
	json_t *j;
	double best;

	snprintf(scn, sizeof(scn), "%s", ts_tmp("trn2.yaml"));
	snprintf(dir, sizeof(dir), "%s", ts_tmp("trn2"));
	write_file(scn, text);
	ts_exec(&p, (const char *[]){"tune", scn, "--vary", "stop=100us..20ms", "--minimize",
				     "training.iteration_time_us", "--subject-to",
				     "training.tokens_per_s > 0", "--budget", "6", "--seeds", "1",
				     "-o", dir, NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	j = load_tune(dir);
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(j, "current"), "state")),
			 "unfinished");
	cr_expect(
	    json_is_null(json_object_get(json_object_get(json_object_get(j, "current"), "metrics"),
					 "training.iteration_time_us")));
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(j, "best"), "state")),
			 "ran");
	/* 150 us of compute, and the AllReduce sends 8 MB a rank at 100G: 640 us at least */
	best = json_number_value(json_object_get(
	    json_object_get(json_object_get(j, "best"), "metrics"), "training.iteration_time_us"));
	cr_expect_gt(best, 150 + 640, "%g", best);
	cr_expect_lt(best, 2000, "%g", best);
	json_decref(j);
	/* a metric misspelt: refused, the training ones among those it lists */
	ts_exec(&p, (const char *[]){"tune", scn, "--vary", "stop=100us..20ms", "--minimize",
				     "training.iteration_s", "-o", dir, NULL});
	cr_expect_eq(p.code, 2);
	cr_expect(strstr(p.err, "training.iteration_time_us") != NULL, "%s", p.err);
	ts_proc_free(&p);
}

/* ---- the picture ---- */

/* The longest <text> of @svg, in characters. */
static size_t longest_text(const char *svg)
{
	size_t longest = 0;

	for (const char *t = strstr(svg, "<text>"); t; t = strstr(t + 1, "<text>")) {
		const char *end = strstr(t, "</text>");

		if (end && (size_t)(end - t - 6) > longest)
			longest = (size_t)(end - t - 6);
	}
	return longest;
}

Test(tune, the_picture_of_a_two_key_tune_colours_points_and_explains_its_answer)
{
	char scn[300], dir[300], path[400], *svg;
	struct ts_proc p;

	snprintf(scn, sizeof(scn), "%s", ts_tmp("ecn4.yaml"));
	snprintf(dir, sizeof(dir), "%s", ts_tmp("ecn4-plot"));
	write_file(scn, incast_4to1);
	ts_exec(&p, (const char *[]){"tune",	     scn,
				     "--vary",	     "switch.ecn.kmin=5KB..500KB",
				     "--vary",	     "switch.ecn.kmax=20KB..2MB",
				     "--minimize",   "fct_us.max",
				     "--subject-to", "pfc_pause_frames == 0",
				     "--budget",     "12",
				     "--seeds",	     "1",
				     "-j",	     "2",
				     "-o",	     dir,
				     "--quiet",	     NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"plot", dir, "--svg", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	snprintf(path, sizeof(path), "%s/tune.svg", dir);
	svg = ts_slurp(path);
	cr_assert(svg, "%s", path);
	/* the points that meet the constraints coloured by the objective, with its scale */
	cr_expect(strstr(svg, "coloured by the objective</text>") != NULL, "no colour key");
	cr_expect(strstr(svg, "<text>fct_us.max") != NULL, "no colour box label");
	/* the scenario's own point drawn, and what tune chose said in the title */
	cr_expect(strstr(svg, "<text>the scenario's own values</text>") != NULL,
		  "the current point is not drawn");
	cr_expect(strstr(svg, ", the answer: switch.ecn.") != NULL ||
		      strstr(svg, "<text>answer p0") != NULL ||
		      strstr(svg, "<text>keep the current values (p001: ") != NULL,
		  "the chosen point is not explained");
	/* values in units, never bytes by the million */
	cr_expect(strstr(svg, "150 KB") != NULL, "the current kmin is not in KB");
	cr_expect(strstr(svg, "150000 B") == NULL, "a value in bytes");
	cr_expect(strstr(svg, "<text>1 MB</text>") != NULL, "no tick in MB");
	/* every line of the title fits the picture */
	cr_expect_leq(longest_text(svg), 105, "a title line of %zu characters", longest_text(svg));
	free(svg);
}
