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

#include "sim/cli/sweep_impl.h"

#define TUNE_MAX_PARAMS 8
#define TUNE_MAX_SETS 64 /* --set KEY=VALUE, fixed for every run */
#define TUNE_MAX_CONSTRAINTS 32
#define TUNE_METRIC 96
#define TUNE_MAX_BUDGET 100000
/* the score of a point that breaks a constraint: above any objective */
#define TUNE_INFEASIBLE 1e200
/* the violation given to a point that could not run or was refused */
#define TUNE_VIOL_FAILED 1e9

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
	TUNE_RAN,     /* every seed ran and gave its metrics */
	TUNE_REFUSED, /* the scenario refuses these values: not run */
	TUNE_FAILED   /* a run failed, or lacked a metric */
};

/* One evaluated point. */
struct tune_point {
	double x[TUNE_MAX_PARAMS]; /* the values, base unit, on the grain */
	double obj[2];		   /* the objectives, mean over the seeds */
	double viol;		   /* worst seed's summed relative violation; 0: feasible */
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
	char note[512];			 /* what the search has to say (monotonicity, budget) */
	double norm_lo[2], norm_span[2]; /* two objectives: the scale of each */
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
void tune_search_free(struct tune_search *s);

/* ---- the runs and the reports (tune.c, tune_report.c) ---- */

/* The metrics a point's runs give: the objectives, then the constraints. */
#define TUNE_SLOTS (2 + TUNE_MAX_CONSTRAINTS)

/* One run of a point (or a refused point: seed 0, no run), for tune.csv. */
struct tune_row {
	size_t point; /* index into the search's points */
	uint64_t seed;
	char id[SWEEP_ID_SIZE];
	const char *status; /* "ok", "expect-failed", "failed", "refused" */
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
	char missing[SWEEP_PATH + 512]; /* a metric a run did not give: the error */
	const char *dir;
	/* --set: after the varied keys, axes of one value repeated per point */
	char *const *fixed;
	size_t n_fixed;
	int rank, ranks; /* under mpirun */
};

/*
 * The problem of @a into c->pb (and its --set into c->fixed): 0, -EINVAL
 * with @d set, or -ENOMEM. @ranks: MPI ranks sharing each batch.
 */
struct tune_args;
int tune_problem_build(struct tune_ctx *c, const struct tune_args *a, int ranks, struct diag *d);
/* @v of parameter @p as --set takes it ("150KB"), into @buf (64). */
void tune_format(const struct tune_param *p, double v, char *buf, size_t size);
/* The base unit a parameter's values are in: "B", "bps", "ps", "mm" or "". */
const char *tune_unit(const struct tune_param *p);
/* Write DIR/tune.csv and DIR/tune.json; 0 or a negative errno. */
int tune_write(const struct tune_ctx *c, const struct scenario *s);
/* The best point, its metrics and what to paste, on @out. */
void tune_print(const struct tune_ctx *c, const struct scenario *s, FILE *out);

/* ---- the verb (tune_args.c reads the command line, tune.c runs it) ---- */

struct tune_args {
	const char *scenario, *outdir;
	char **vary, **subject_to, **sets;
	size_t n_vary, n_subject_to, n_sets;
	const char *obj[2];
	int maximize[2];
	size_t n_obj;
	unsigned long long seeds, budget, jobs;
	int progress, quiet, jobs_given;
	int fluid; /* --model fluid */
};

/* The options of `rocesim tune`; runs what they ask; the exit code. */
int tune__verb(int argc, char **argv, long local_ranks);
/* The problem from @a, checked against the scenario; then the search. */
int tune__main(const struct tune_args *a);

#endif
