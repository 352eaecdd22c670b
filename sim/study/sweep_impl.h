/*
 * rocesim sweep, inside: the spec (axes, seeds) and its points
 * (sweep_axes.c, sweep_spec.c), the scenario's digest (sim/engine/sha256.h),
 * running the points as child processes (sweep_run.c), the tables
 * (sweep_tables.c), the split across MPI ranks (sweep_mpi.c) and the
 * Slurm job array (sweep_slurm.c); sim/cli/sweep.c is the verb that joins
 * them.
 *
 * A point is one combination of axis values; a run is a point with one
 * variant and one seed, in points/<id>/ where <id> is "p" + the point's
 * number from 1, zero-padded to at least three digits, + "-" + the
 * variant's name when the sweep has variants, + "-s" + the seed
 * ("p003-s2", "p003-spines-3-s2"). In a grid the first axis is the
 * outermost (the last one changes fastest); with --zip point i takes the
 * i-th value of every axis. Runs go point by point, each point's variants
 * in order (base first), each variant's seeds in order.
 */
#ifndef ROCESIM_SWEEP_IMPL_H
#define ROCESIM_SWEEP_IMPL_H

#include <jansson.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/engine/diag.h"
#include "sim/engine/exit_codes.h"
#include "sim/engine/sha256.h"

#define SWEEP_MAX_VALUES 10000 /* values of one axis */
#define SWEEP_MAX_RUNS 1000000 /* points x seeds */
#define SLURM_MAX_ARRAY 1001   /* slurm.conf(5) MaxArraySize's default */
#define SWEEP_ID_SIZE 80
/* a variant's name, at most 31 characters */
#define SWEEP_VARIANT_NAME 32
#define SWEEP_PATH 4400 /* a path in the sweep folder */

/* One --vary: a scenario key and the values it takes, as given to --set. */
struct sweep_axis {
	char *key;
	char **values;
	size_t n;
};

/* A variant (--variant NAME=OVERLAY): every point runs once with the
 * overlay merged onto the scenario; "base" (no overlay) is implied first. */
struct sweep_variant {
	char *name;
	char *path;	 /* the overlay as the runs are given it; NULL: none */
	char sha256[65]; /* of the overlay's bytes, in hex ("" without one) */
};

struct sweep_spec {
	char *scenario;	 /* the path as given */
	char sha256[65]; /* of the scenario file's bytes, in hex */
	char *name;	 /* the scenario's name */
	struct sweep_axis *axes;
	size_t n_axes;
	int zip;
	uint64_t *seeds; /* a list (--seed-list), or NULL until sweep.c expands... */
	size_t n_seeds;
	size_t seed_count; /* ...this many from the scenario's seed (--seeds N) */
	size_t n_points;   /* combinations of axis values (1 with no axis) */
	int id_width;	   /* digits of the point number in ids */
	char *owned;	   /* the scenario path when loaded from sweep.json */
	/* the variants, base first; none given: n_variants 0, the base alone */
	struct sweep_variant *variants;
	size_t n_variants;
	int fluid; /* --model fluid: each point is `rocesim fluid`, not `run` */
	/* --with: overlays every run takes before its variant's (name "with") */
	struct sweep_variant *withs;
	size_t n_withs;
	/* --set: overrides every run takes before its point's */
	char **sets;
	size_t n_sets;
	/* per point and variant (point x variants + variant): why the
	 * scenario's checks refuse it (one line), or NULL; NULL: none refused */
	char **refused;
};

/* How a run of the sweep ended. */
enum sweep_status {
	SWEEP_NOT_RUN,	  /* not started (the sweep was interrupted first) */
	SWEEP_OK,	  /* exit 0 */
	SWEEP_EXPECT,	  /* exit 1: the run worked, an expect: gate failed */
	SWEEP_FAILED,	  /* any other exit, or a signal */
	SWEEP_SKIPPED_OK, /* finished by an earlier sweep (resumed), exit 0 or 1 then */
	SWEEP_REFUSED	  /* its point is refused by the scenario's checks: never run */
};

/* A run: one point with one variant and one seed. */
struct sweep_run {
	size_t point;	/* from 0 */
	size_t variant; /* from 0; 0 without variants */
	uint64_t seed;
	char id[SWEEP_ID_SIZE];
	enum sweep_status status;
	int exit_code, sig; /* as the run ended (sig: the signal, or 0) */
	int resumed;	    /* skipped: an earlier sweep finished it */
	char error[256];    /* first line of its stderr when it failed; why refused */
	/* run again although it had finished: why its inputs differ ("" if not) */
	char stale[160];
};

/* ---- sweep_axes.c ---- */

/* The kinds of value a range takes. */
enum sweep_family {
	SWEEP_FAM_INT,
	SWEEP_FAM_REAL,
	SWEEP_FAM_SIZE,	  /* bytes */
	SWEEP_FAM_RATE,	  /* bit/s */
	SWEEP_FAM_TIME,	  /* ps */
	SWEEP_FAM_LENGTH, /* mm */
	SWEEP_FAM_PERCENT /* a fraction, written as a percentage */
};
/* "whole number", "number", "size", ... by family. */
extern const char *const sweep_family_name[];

/* A value of a range: its kind and its value (integral kinds in .u, else .r;
 * .r also holds integral values as doubles). */
struct sweep_end {
	enum sweep_family fam;
	uint64_t u;
	double r;
};

/* Whole numbers of the base unit (all but SWEEP_FAM_REAL and _PERCENT)? */
int sweep_family_integral(enum sweep_family fam);
/* What @s is into @e; -EINVAL with @d set (file @where, @line, path @key)
 * when it is none of the kinds a range takes. */
int sweep_value_parse(const char *where, int line, const char *key, const char *s,
		      struct sweep_end *e, struct diag *d);
/* @u (integral kinds) or @r written as a value --set takes, in the largest
 * unit that keeps it exact ("150KB", "2500ns"). */
int sweep_value_format(enum sweep_family fam, uint64_t u, double r, char *buf, size_t size);

/*
 * Parse one axis "KEY=V1,V2,..." / "KEY=LO..HI:N" / "KEY=LO..HI:xF" into
 * @ax (sweep_axis_free it). Ranges of sizes, rates, times and lengths give
 * whole numbers of the base unit, written back in the largest unit that
 * keeps them exact ("150KB", "2500ns", "300m"). Returns 0, -EINVAL with @d
 * set (file @where, line @line, path the key), or -ENOMEM.
 */
int sweep_axis_parse(const char *where, int line, const char *arg, struct sweep_axis *ax,
		     struct diag *d);
/* The values of @spec ("V1,V2" or a range) for @key into @ax, as above. */
int sweep_axis_values(const char *where, int line, const char *key, const char *spec,
		      struct sweep_axis *ax, struct diag *d);
void sweep_axis_free(struct sweep_axis *ax);

/* ---- sweep_spec.c ---- */

/* Set n_points and id_width from the axes; -EINVAL (@d set) when --zip
 * axes differ in length or the sweep is too large. */
int sweep_spec_points(struct sweep_spec *sp, struct diag *d);
/* Variants per point: n_variants, or 1 (the base) without any. */
size_t sweep_spec_variants(const struct sweep_spec *sp);
/* Runs of the sweep: points x variants x seeds. */
size_t sweep_spec_runs(const struct sweep_spec *sp);
/*
 * Add variant @name with the overlay @path (NULL: none) to @sp, reading
 * the overlay's digest. A first variant brings the implied base before it,
 * unless it is named "base" itself: a "base" given replaces the implied
 * one and stays first. 0, -EINVAL with @d set (@where, @line: what gave
 * it; a name not of letters, digits, - and _, given twice, an overlay that
 * cannot be read) or -ENOMEM.
 */
int sweep_spec_add_variant(struct sweep_spec *sp, const char *name, const char *path,
			   const char *where, int line, struct diag *d);
/*
 * Add the overlay @path (--with) that every run of @sp takes before its
 * variant's, reading its digest. 0, -EINVAL with @d set (it cannot be
 * read) or -ENOMEM.
 */
int sweep_spec_add_with(struct sweep_spec *sp, const char *path, struct diag *d);
/*
 * Add the override @set ("KEY=VALUE", --set) that every run of @sp takes
 * before its point's. 0, -EINVAL with @d set (KEY is also an axis) or
 * -ENOMEM.
 */
int sweep_spec_add_set(struct sweep_spec *sp, const char *set, struct diag *d);
/* The value index of each axis for point @p into @idx (n_axes entries). */
void sweep_spec_index(const struct sweep_spec *sp, size_t p, size_t *idx);
/* The id of point @p with variant @v and @seed into @buf (SWEEP_ID_SIZE). */
void sweep_spec_id(const struct sweep_spec *sp, size_t p, size_t v, uint64_t seed, char *buf);
/* The overrides of point @p, "KEY=VALUE" each, into @sets (n_axes new
 * strings: sweep_sets_free them). 0 or -ENOMEM. */
int sweep_spec_sets(const struct sweep_spec *sp, size_t p, char **sets);
void sweep_sets_free(char **sets, size_t n);
/*
 * Read the `sweep:` section of the scenario @text (@len bytes; nothing when
 * it has none) into @sp: vary (a mapping of KEY: "V1,V2" or "LO..HI:N", or
 * KEY: a list of values), zip (true or false), seeds (a count, or a list),
 * variants (a mapping of NAME: OVERLAY, paths relative to the scenario's
 * folder). What the command line gave (@have_vary, @have_zip, @have_seeds,
 * @have_variants) wins.
 */
int sweep_spec_from_scenario(struct sweep_spec *sp, const char *text, size_t len, int have_vary,
			     int have_zip, int have_seeds, int have_variants, struct diag *d);
/* sweep.json's content: the whole spec and every point. New reference. */
json_t *sweep_spec_json(const struct sweep_spec *sp);
/*
 * sweep.task.json's content: what an array task of --slurm reads, the
 * spec of sweep.json without its point list (the points follow from the
 * axes), the refused points alone with their "index", and "n_points": a
 * few KB where sweep.json of a million runs is hundreds of MB. New
 * reference.
 */
json_t *sweep_spec_task_json(const struct sweep_spec *sp);
/*
 * The spec a sweep wrote in @dir/sweep.json into @sp (sweep_spec_free it):
 * 0, -EINVAL with @d set (no spec there, or one rocesim did not write), or
 * -ENOMEM.
 */
int sweep_spec_load(const char *dir, struct sweep_spec *sp, struct diag *d);
/* The same from @dir/@name: sweep.json, or sweep.task.json. */
int sweep_spec_load_file(const char *dir, const char *name, struct sweep_spec *sp, struct diag *d);
void sweep_spec_free(struct sweep_spec *sp);

/* ---- sweep_inputs.c ---- */

/* What a run of a point and variant is given besides its seed. */
struct sweep_point_args {
	const char **overlays; /* the sweep's --with, then the variant's */
	size_t n_overlays;
	const char **sets; /* the sweep's --set, then the point's (axis_sets) */
	size_t n_sets;
	char **axis_sets; /* the point's, owned */
	size_t n_axis_sets;
};
/* The overlays and overrides of point @p with variant @v into @pa
 * (sweep_point_args_free it; room for one more set, the seed). 0 or -ENOMEM. */
int sweep_point_args(const struct sweep_spec *sp, size_t p, size_t v, struct sweep_point_args *pa);
void sweep_point_args_free(struct sweep_point_args *pa);
/*
 * Load the scenario @file as `rocesim run` would, with the overlays
 * @overlays (@n_overlays, in order) and the @n overrides @sets
 * ("KEY=VALUE"): the topology built and the workload resolved on it. 0,
 * -EINVAL with @d set, or -ENOMEM; with @keep, the scenario into *@keep
 * (scn_free it).
 */
struct scenario;
int sweep_load_point_with(const char *file, const char *const *overlays, size_t n_overlays,
			  const char *const *sets, size_t n, struct scenario **keep,
			  struct diag *d);
/* The same with one overlay @overlay (NULL: none). */
int sweep_load_point(const char *file, const char *overlay, char *const *sets, size_t n,
		     struct scenario **keep, struct diag *d);
/*
 * The provenance a run of point @p, variant @v and @seed would record in
 * its results.json if it started now (the version, the scenario's and
 * every input file's SHA-256, the overlays, the overrides, the seed): a
 * new reference, or NULL when the point does not load now or memory ran
 * out.
 */
json_t *sweep_inputs(const struct sweep_spec *sp, size_t p, size_t v, uint64_t seed);
/* Why the provenance @old (NULL: none recorded) differs from @now (NULL:
 * the point does not load now), in a few words, into @buf. */
void sweep_inputs_why(const json_t *old, const json_t *now, char *buf, size_t size);

/* ---- sweep_run.c ---- */

/*
 * What runs a point in its child: `rocesim`'s own entry (argv as `rocesim
 * run ...` takes it; the exit code), called in the forked child with no
 * exec, so that a run starts without loading the program again; NULL:
 * exec @self (a sweep under mpirun, whose children must not carry its MPI).
 */
typedef int (*sweep_main_fn)(int argc, char **argv);

struct sweep_exec {
	const char *self;	/* the rocesim executable */
	sweep_main_fn run_main; /* the child's entry, or NULL: exec @self */
	const char *dir;	/* the sweep folder */
	unsigned jobs;		/* children at once */
	int progress;		/* a line on stderr per finished run */
	volatile int *stop;	/* set by a signal: start nothing more */
};

/*
 * Run every run of @runs (@n of them) not already finished (resume), at
 * most @x->jobs at once, each `rocesim run` in a child process of its own
 * (forked, then @x->run_main, or exec of @x->self).
 * Fills each run's status. Returns 0, or a negative errno when the sweep
 * itself could not go on (a folder that cannot be made, fork failing).
 */
int sweep_run_all(const struct sweep_spec *sp, struct sweep_run *runs, size_t n,
		  const struct sweep_exec *x);
/*
 * How run @r ended by what @dir/points/<id>/point.json says for the same
 * scenario digest, overrides and seed: finished (SWEEP_SKIPPED_OK, its exit
 * code), failed (its error), else SWEEP_NOT_RUN. 0 or -ENOMEM.
 */
int sweep_run_recorded(const struct sweep_spec *sp, const char *dir, struct sweep_run *r);
/* Forward @sig to the running children (async-signal-safe). */
void sweep_run_forward(int sig);
/* SIGINT, SIGTERM or SIGHUP (unless ignored) set these and are forwarded
 * to the running children: start nothing more, end with 128 + the signal. */
extern volatile sig_atomic_t sweep_stop_sig;
extern volatile int sweep_stop_flag;
void sweep_catch_signals(void);

/* ---- sweep_tables.c ---- */

/* Flatten the summary object @o under @prefix into @flat (path -> value;
 * true/false as 1/0, other kinds left out): 0 or -ENOMEM. */
int sweep_flatten(json_t *flat, const char *prefix, const json_t *o);

/*
 * Write sweep.csv and summary.csv into @dir (atomically: a temporary
 * renamed into place) from the runs' results.json, and print the table of
 * the main metrics on @out (NULL: none). Returns 0 or a negative errno.
 */
int sweep_tables(const struct sweep_spec *sp, const struct sweep_run *runs, size_t n,
		 const char *dir, FILE *out);
/*
 * Write @len bytes of @text as @dir/@name atomically (a temporary
 * @dir/.@name.XXXXXX renamed into place; on disk first when @sync). 0 or a
 * negative errno.
 */
int sweep_write_file(const char *dir, const char *name, const char *text, size_t len, int sync);

/* ---- sweep_mpi.c ---- */

/*
 * Under mpirun, run i of a sweep is rank (i mod size)'s. Rank 0 checks the
 * input, locks the folder, writes sweep.json and broadcasts go or the exit
 * code; each rank runs its share (its own -j children), then rank 0
 * gathers how each run ended and writes the tables. Without MPI built in
 * these are stubs of one rank. MPI is started, ended and aborted as a
 * parallel run does it (sim/run/par_mpi.h); only the sweep's collectives
 * are here.
 */
struct sweep_mpi {
	int rank, size;
};

/* A verb started by mpirun: MPI started (par_mpi.h) and @m filled, or why
 * it cannot be said on stderr (built without MPI: rank 0 alone says so);
 * 0 or -1. */
int sweep_mpi_start(struct sweep_mpi *m);
/* Rank 0's @len bytes at @buf to every rank. */
void sweep_mpi_bcast(const struct sweep_mpi *m, void *buf, size_t len);
/*
 * Once every rank has run its share of @runs (@n), give rank 0 every
 * run's outcome, and every rank the worst error (*@err, a negative errno)
 * and a signal that stopped a rank (*@sig, 0 if none).
 */
void sweep_mpi_gather(const struct sweep_mpi *m, struct sweep_run *runs, size_t n, int *err,
		      int *sig);

/* ---- sweep_slurm.c ---- */

/*
 * Write @dir/sweep.sbatch, a Slurm job array of one task per run, each
 * `@self sweep --task $SLURM_ARRAY_TASK_ID DIR` (absolute paths), its logs
 * in @dir/slurm/, @mem bytes of memory each (#SBATCH --mem; 0: none
 * asked); then say how to submit and collect on @out (NULL: not). 0 or a
 * negative errno.
 */
int sweep_slurm_write(const struct sweep_spec *sp, const char *dir, const char *self, uint64_t mem,
		      FILE *out);
/* Refuse (said, the exit code) the paths --slurm would write into a job
 * script that cannot be carried safely there; 0 when all can. */
int sweep_slurm_paths_ok(const struct sweep_spec *sp, const char *dir, const char *self);

/* ---- the verb (sweep_args.c reads the command line, sweep.c runs it) --- */

/*
 * What sweep and tune take alike from their command lines (sim/cli's
 * cli_runs_option parses it for both): keys every run is given, runs at
 * once, the folder, what is said, the model, and what runs a point.
 */
struct study_runs {
	char **sets; /* --set KEY=VALUE: every run */
	size_t n_sets;
	unsigned long long jobs; /* -j */
	int jobs_given;
	const char *outdir;	/* -o */
	int progress, quiet;	/* --progress, --quiet */
	int fluid;		/* --model fluid */
	sweep_main_fn run_main; /* what runs a point in its child (struct sweep_exec) */
};

struct sweep_args {
	struct study_runs runs;
	const char *scenario, *seed_list; /* scenario: the folder with --task, --collect */
	char **vary, **variants;
	size_t n_vary, n_variants;
	char **withs; /* --with OVERLAY: every run */
	size_t n_withs;
	unsigned long long seeds, task;
	uint64_t mem; /* --mem: bytes per Slurm task, 0: not given */
	int zip, slurm, collect, has_task;
};

/* sweep_self.c */
/*
 * The path of the rocesim executable running (/proc/self/exe) into @buf:
 * for rocesim-mpi, the rocesim beside it when there is one (the runs it
 * starts need no MPI). 0, or -1 when it cannot be read or does not fit.
 */
int sweep_self_path(char *buf, size_t size);
/*
 * @s as the terminal may show it (txt_term: control characters and bytes
 * that are not UTF-8 as \xNN), in one of four rotating static buffers:
 * for the paths a message prints, up to four in one call.
 */
const char *sweep_term(const char *s);

/*
 * sweep_check.c: load every point and variant of @sp as run would; the
 * refused ones into sp->refused with their reason (said on stderr), the
 * first that loads into *@base (scn_free it). 0, or ROCESIM_EXIT_INPUT (said)
 * when the scenario alone or every point is refused, or memory ran out.
 */
int sweep__check_points(struct sweep_spec *sp, struct scenario **base);
/* Why `sweep --model fluid` and `tune --model fluid` refuse @s (the fluid
 * model cannot stand in for the packet model there), or NULL. */
const char *fluid_screen_refusal(const struct scenario *s);
/* -j by default: this machine's online cores, shared among its @local_ranks. */
unsigned sweep__default_jobs(long local_ranks);
/*
 * `rocesim sweep` with its arguments: @verb (sim/cli's options) alone, or under
 * mpirun MPI started, @verb on rank 0 and the others running their share
 * of what it starts. The exit code.
 */
int sweep__launch(int argc, char **argv,
		  int (*verb)(int argc, char **argv, long local_ranks, sweep_main_fn run_main),
		  sweep_main_fn run_main);
/* A sweep from the scenario and @a; --task K DIR; --collect DIR. */
int sweep__main(const struct sweep_args *a);
int sweep__task(const struct sweep_args *a);
int sweep__collect(const struct sweep_args *a);

#endif
