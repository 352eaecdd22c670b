/*
 * rocesim tune, inside: the problem (the varied keys and their ranges,
 * the objectives, the constraints), the search over it (tune_search.c:
 * bisection for one key under a monotone constraint, else a coarse grid
 * then GSL's Nelder-Mead simplex), the command line (tune_args.c), the
 * runs of each point through the sweep's machinery and the reports
 * (tune.c, tune_report.c).
 *
 * A point is one value per varied key; it runs once per seed, as a sweep's
 * point does (points/<id>/, id "p" + its number from 1 + "-s" + the seed).
 * Points are numbered in the order the search asks for them, and the
 * search depends only on the results: a tune run again into its folder
 * asks for the same points, finds their runs finished and resumes.
 */
#ifndef ROCESIM_TUNE_IMPL_H
#define ROCESIM_TUNE_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/study/sweep_impl.h"

#define TUNE_MAX_PARAMS 8
#define TUNE_MAX_SETS 64 /* --set KEY=VALUE, fixed for every run */
#define TUNE_MAX_CONSTRAINTS 32
#define TUNE_METRIC 96
#define TUNE_PAIRED 16 /* seeds a point keeps its objectives of, to pair with another's */
#define TUNE_MAX_BUDGET 100000
/* the score of a point that breaks a constraint: above any objective */
#define TUNE_INFEASIBLE 1e200
/* the violation given to a point that could not run or was refused */
#define TUNE_VIOL_FAILED 1e9
/* the violation of a point whose flows did not all finish, per share of
 * flows not done: above any constraint's, below a failed run's */
#define TUNE_VIOL_UNFINISHED 1e6

enum tune_op { TUNE_EQ, TUNE_LE, TUNE_GE, TUNE_LT, TUNE_GT };

/* A varied key: its range in the base unit (B, bit/s, ps, mm, or plain). */
struct tune_param {
	char *key;
	enum sweep_family fam;
	double lo, hi;
	double grain; /* 1 for whole numbers of the base unit, else (hi - lo) / 1000 */
	int log;      /* searched on a log scale: lo > 0 and hi > 10 lo */
};

/* What an objective or a constraint names: a summary metric, or a varied key. */
struct tune_metric {
	char name[TUNE_METRIC];
	int param; /* the varied key's index, or -1 */
};

struct tune_objective {
	struct tune_metric m;
	int maximize;
};

struct tune_constraint {
	struct tune_metric m;
	enum tune_op op;
	double value;
	char text[200]; /* "lossless_drops == 0", as given */
};

/* The metrics of `rocesim fluid`'s results.json (summary.fluid.*). NULL-terminated. */
extern const char *const tune_fluid_metrics[];
extern const char *const tune_training_metrics[];

struct tune_problem {
	struct tune_param params[TUNE_MAX_PARAMS];
	size_t n_params;
	struct tune_objective obj[2];
	size_t n_obj;
	struct tune_constraint cons[TUNE_MAX_CONSTRAINTS];
	size_t n_cons;
	size_t n_seeds;
	size_t budget; /* runs: points x seeds */
	size_t batch;  /* points the evaluator may run at once (>= 1) */
	int fluid;     /* points run `rocesim fluid`: only fluid.* metrics */
};

enum tune_state {
	TUNE_RAN,	/* every seed ran and gave its metrics */
	TUNE_REFUSED,	/* the scenario refuses these values: not run */
	TUNE_FAILED,	/* a run failed */
	TUNE_UNFINISHED /* flows a metric needs did not finish by `stop`: not measured */
};

/* One evaluated point. */
struct tune_point {
	double x[TUNE_MAX_PARAMS];	 /* the values, base unit, on the grain */
	double obj[2];			 /* the objectives, mean over the seeds */
	double lo[2], hi[2];		 /* the objectives' lowest and highest seed */
	double seed_obj[TUNE_PAIRED][2]; /* the objectives of the first seeds, in order */
	double viol;			 /* worst seed's summed relative violation; 0: feasible */
	double unfinished; /* TUNE_UNFINISHED: the worst seed's share of flows not done */
	enum tune_state state;
	size_t id;   /* from 1, in the order of evaluation */
	size_t runs; /* runs it took (0 when refused) */
};

/*
 * Evaluate @n points (their x set; @first_id the id of the first, the
 * others following): fill obj, viol, state and runs of each. 0, or a
 * negative errno that stops the search.
 */
typedef int (*tune_eval_fn)(void *ctx, struct tune_point *pts, size_t n);

struct tune_search {
	const struct tune_problem *pb;
	tune_eval_fn eval;
	void *ctx;
	struct tune_point *pts; /* every point evaluated, in order */
	size_t n, cap;
	size_t runs;  /* runs taken */
	size_t *path; /* the incumbents, in order (indices into pts) */
	size_t n_path;
	const char *method;		 /* "bisection" or "simplex" */
	int monotone;			 /* bisection: feasibility monotone on every point (1) */
	int exhausted;			 /* the budget ran out */
	int flat;			 /* the grid saw no key move anything: search stopped */
	char note[512];			 /* what the search has to say (monotonicity, budget) */
	double norm_lo[2], norm_span[2]; /* two objectives: the scale of each */
	/* the scenario's own values (clamped into the ranges), run first when
	 * known (has_base); base: its index in pts once run, else -1 */
	double base_x[TUNE_MAX_PARAMS];
	int has_base;
	long base;
};

/*
 * What a search comes to: whether each key moves anything, and the point
 * to recommend against the scenario's own.
 */
struct tune_verdict {
	long best; /* tune_best: the lowest score, or -1 */
	long rec;  /* the point to recommend, or -1: keep the current values */
	/* per key: 1 moves the objective or a constraint between two points
	 * that differ in it alone (the objective: the mean of the seed-by-seed
	 * differences further from 0 than half their range); 0 no pair of
	 * points showed it move; -1 no such pair was run (not known) */
	int effect[TUNE_MAX_PARAMS];
	double gain[2]; /* rec's objectives minus the base's (rec >= 0, base run) */
	/* the gain is within the spread of its seed-by-seed differences: their
	 * mean is no further from 0 than half their range */
	int within_spread;
	int base_ok; /* the base point ran and meets every constraint */
};

/* ---- tune_search.c ---- */

/* @v rounded to @p's grain (whole units) and kept in [lo, hi]. */
double tune_snap(const struct tune_param *p, double v);
/* @u in [0, 1] to a value of @p (log or linear), snapped; and back. */
double tune_from_unit(const struct tune_param *p, double u);
double tune_to_unit(const struct tune_param *p, double v);
/* Does value @m meet @op @c? Its relative violation (0 when it does). */
double tune_violation(enum tune_op op, double m, double c);
/*
 * Fold seed number @seed's values into @pt: @vals[k] is objective k, then
 * @vals[n_obj + c] constraint c's metric. Seed 0 first.
 */
void tune_fold(const struct tune_problem *pb, struct tune_point *pt, size_t seed,
	       const double *vals);
/* A point that ran (every seed) and meets every constraint? */
int tune_feasible(const struct tune_point *p);
/* Lower is better: the objective (negated when maximised, both scaled with
 * two), or TUNE_INFEASIBLE x (1 + violation). */
double tune_score(const struct tune_search *s, const struct tune_point *pt);
/* Bisection applies: one key, one objective that is the key itself. */
int tune_bisects(const struct tune_problem *pb);
/* Search: fills s->pts, path, method, note. 0 or the evaluator's error. */
int tune_run(struct tune_search *s);
/* The best point: the lowest score, feasible first; -1 when none ran. */
long tune_best(const struct tune_search *s);
/* The Pareto front of the feasible points over two objectives into @idx
 * (s->n entries), by the first objective; how many. */
size_t tune_front(const struct tune_search *s, size_t *idx);
/* What the points evaluated say (struct tune_verdict). */
void tune_judge(const struct tune_search *s, struct tune_verdict *v);
void tune_search_free(struct tune_search *s);

/* ---- the runs and the reports (tune.c, tune_report.c) ---- */

/* The metrics a point's runs give: the objectives, then the constraints. */
#define TUNE_SLOTS (2 + TUNE_MAX_CONSTRAINTS)

/* One run of a point (or a refused point: seed 0, no run), for tune.csv. */
struct tune_row {
	size_t point; /* index into the search's points */
	uint64_t seed;
	char id[SWEEP_ID_SIZE];
	const char *status; /* "ok", "expect-failed", "failed", "refused", "unsure" */
	double vals[TUNE_SLOTS];
	char error[200];
};

/* A tune under way: the problem, the sweep its points run as, the rows. */
struct tune_ctx {
	struct tune_problem pb;
	struct sweep_spec sp; /* zip axes, one value per point so far */
	struct sweep_exec x;
	struct tune_search search;
	struct tune_row *rows;
	size_t n_rows, cap_rows;
	size_t n_unsure;		/* fluid runs with no verdict (unsure, settling): failed */
	char missing[SWEEP_PATH + 512]; /* a metric a run did not give: the error */
	const char *dir;
	/* --set: after the varied keys, axes of one value repeated per point */
	char *const *fixed;
	size_t n_fixed;
	int rank, ranks; /* under mpirun */
	size_t slots;	 /* runs at once: -j x ranks */
	/* seeds: without --seeds, the first batch runs on 3 (probe) and the
	 * rest on 1 unless a metric moved from one seed to the next */
	int probe, probed, seed_dependent;
	char seed_note[400];
	/* the scenario's own values: what tune says of them (outside a range,
	 * not known) */
	char base_note[600];
	/* `rocesim check` on the recommendation: its findings, or NULL */
	json_t *check;
	char check_error[300];
};

/*
 * The problem of @a into c->pb (and its --set into c->fixed): 0, -EINVAL
 * with @d set, or -ENOMEM. @ranks: MPI ranks sharing each batch.
 */
struct tune_args;
int tune_problem_build(struct tune_ctx *c, const struct tune_args *a, int ranks, struct diag *d);
/*
 * "KEY=LO..HI" (option @where says it) into @p: the range in the key's
 * base unit, searched on a log scale over a decade. 0, -EINVAL with @d (not
 * a range, ends of two kinds, LO not below HI), -ENOMEM; @p->key is then
 * the caller's to free.
 */
int tune_range_parse(const char *where, const char *arg, struct tune_param *p, struct diag *d);
/* "KEY=VALUE", allocated; NULL when out of memory. */
char *tune_key_value(const char *key, const char *value);
/* The scenario fragment of the keys of @pb that @mask holds, at @x: keys
 * "a.b.c" as nested YAML, a key with an index as a --set line. */
void tune_fragment(const struct tune_problem *pb, const double *x, const int *mask, FILE *out);
/* @v of parameter @p as --set takes it ("150KB"), into @buf (64). */
void tune_format(const struct tune_param *p, double v, char *buf, size_t size);
/* Value @v of summary metric @metric in a unit people read ("4.566 ms",
 * "1.15 MB", "12 frames" as "12"), into @buf. */
void tune_metric_format(const char *metric, double v, char *buf, size_t size);
/* @lo and @hi of @metric as tune_metric_format writes them, with as many
 * digits as tell them apart, into @a and @b (@size each). */
void tune_range_format(const char *metric, double lo, double hi, char *a, char *b, size_t size);
/* The base unit a parameter's values are in: "B", "bps", "ps", "mm" or "". */
const char *tune_unit(const struct tune_param *p);
/* Write DIR/tune.csv and DIR/tune.json; 0 or a negative errno. */
int tune_write(const struct tune_ctx *c, const struct scenario *s);
/* The best point, its metrics and what to paste, on @out. */
void tune_print(const struct tune_ctx *c, const struct scenario *s, FILE *out);

/* ---- tune_verdict.c ---- */

/*
 * Objective (or constraint) slot @k of point index @a minus point index @b,
 * seed by seed: the mean of the differences and the half width of its 95%
 * interval (Student's t), over the @n seeds both ran. 0, or -1 when fewer
 * than two seeds pair up.
 */
int tune_paired(const struct tune_ctx *c, size_t a, size_t b, size_t k, double *mean, double *half,
		size_t *n);
/* Run `rocesim check --json` (@self) on the recommendation, if any: its
 * errors and warnings into c->check, or why not into c->check_error. */
void tune_check(struct tune_ctx *c, const char *self);
/* The verdict's lines: keys without effect, keep or change, the gain and
 * its interval, range ends, check's findings. */
void tune_print_verdict(const struct tune_ctx *c, const struct tune_verdict *v, FILE *out);
/* tune.json's "recommendation". */
json_t *tune_verdict_json(const struct tune_ctx *c, const struct tune_verdict *v);

/* ---- the verb (tune_args.c reads the command line, tune.c runs it) ---- */

struct tune_args {
	struct study_runs runs;
	const char *scenario;
	char **vary, **subject_to;
	size_t n_vary, n_subject_to;
	const char *obj[2];
	int maximize[2];
	size_t n_obj;
	unsigned long long seeds, budget;
	int seeds_given;
};

/*
 * `rocesim tune` with its arguments: @verb (sim/cli's options) alone, or under
 * mpirun on every rank, each following the same search (rank 0 speaks
 * for all). The exit code.
 */
int tune__launch(int argc, char **argv,
		 int (*verb)(int argc, char **argv, long local_ranks, sweep_main_fn run_main),
		 sweep_main_fn run_main);
/* The problem from @a, checked against the scenario; then the search. */
int tune__main(const struct tune_args *a);

#endif
