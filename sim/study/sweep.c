/*
 * rocesim sweep: run a scenario over a grid (or a zip) of values of its
 * keys and over seeds, each run isolated in a child `rocesim run`, and
 * gather the results into tables (sweep_impl.h says how the parts fit).
 *
 * Everything is checked before anything runs: the axes, the seeds, and
 * every point loaded with its overrides as `rocesim run` would load it; a
 * bad one refuses the whole sweep with that point's one-line error (exit
 * 2). The sweep folder is then locked as a run's is (outdir.h).
 *
 * Under mpirun (sweep_mpi.c) rank 0 alone reads the command line, checks,
 * locks and prints; it broadcasts go (the folder, -j, --progress) or the
 * exit code, and the other ranks read the spec from DIR/sweep.json, run
 * their share and end with rank 0's exit code.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/run/par_mpi.h"
#include "sim/study/sweep_impl.h"
#include "sim/config/scenario.h"
#include "sim/engine/textfile.h"
#include "sim/engine/textsafe.h"
#include "sim/run/outdir.h"

/* This process's place under mpirun (rank 0 of 1 otherwise). */
static struct sweep_mpi mpi = {0, 1};

/* What rank 0 tells the others once it has checked the sweep. */
struct sweep_go {
	int go; /* run your share; else end with rc */
	int rc;
	unsigned jobs; /* -j, or 0: each rank its machine's share of cores */
	int progress;
	char dir[OUTDIR_PATH]; /* absolute */
};
/* Rank 0 has told the others (go or stop); it told them go: they wait for
 * the exit code at the end, after a stop they wait for nothing more. */
static int told, go_sent;

/* Rank 0: no run under mpirun (bad input, --slurm, --collect, ...): the
 * others end with @rc, and say nothing. */
static void send_stop(int rc)
{
	struct sweep_go g = {.rc = rc};

	if (mpi.size > 1 && !mpi.rank && !told) {
		told = 1;
		sweep_mpi_bcast(&mpi, &g, sizeof(g));
	}
}

static int input_error(const struct diag *d)
{
	fputs("rocesim: ", stderr);
	diag_print(d, stderr);
	return ROCESIM_EXIT_INPUT;
}

/* The seeds: --seed-list, --seeds N or the scenario's (from @base). */
static int by_seed(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* A seed given twice (in a sorted copy: a list may hold a million). */
static int twice_seed(const struct sweep_spec *sp, const char *where, struct diag *d)
{
	uint64_t *v;
	int err = 0;

	if (sp->n_seeds < 2)
		return 0;
	if (!(v = malloc(sp->n_seeds * sizeof(*v))))
		return -ENOMEM;
	memcpy(v, sp->seeds, sp->n_seeds * sizeof(*v));
	qsort(v, sp->n_seeds, sizeof(*v), by_seed);
	for (size_t i = 1; i < sp->n_seeds && !err; i++) {
		if (v[i] == v[i - 1]) {
			diag_set(d, where, 0, "", "seed %llu is given twice",
				 (unsigned long long)v[i]);
			err = -EINVAL;
		}
	}
	free(v);
	return err;
}

static int make_seeds(struct sweep_spec *sp, const struct sweep_args *a, uint64_t base,
		      struct diag *d)
{
	if (a->seed_list) {
		free(sp->seeds);
		sp->seeds = NULL;
		sp->n_seeds = 0;
		for (const char *p = a->seed_list;; p++) {
			unsigned long long v;
			char *end;
			uint64_t *s;

			errno = 0;
			v = strtoull(p, &end, 10);
			if (p == end || (*end && *end != ',') || errno || *p == '-' || *p == '+' ||
			    *p == ' ') {
				diag_set(d, "--seed-list", 0, "", "\"%s\" is not a list of seeds",
					 a->seed_list);
				return -EINVAL;
			}
			if (!(s = realloc(sp->seeds, (sp->n_seeds + 1) * sizeof(*s))))
				return -ENOMEM;
			sp->seeds = s;
			sp->seeds[sp->n_seeds++] = v;
			p = end;
			if (!*p)
				break;
		}
	} else if (a->seeds || !sp->seeds) {
		size_t n = a->seeds ? (size_t)a->seeds : sp->seed_count ? sp->seed_count : 1;

		free(sp->seeds);
		sp->n_seeds = 0;
		if (base <= INT64_MAX && n - 1 > (uint64_t)INT64_MAX - base) {
			diag_set(d, a->seeds ? "--seeds" : sp->scenario, 0, "",
				 "seed %llu is above 2^63-1 (counting %zu seeds from %llu)",
				 (unsigned long long)base + n - 1, n, (unsigned long long)base);
			sp->seeds = NULL;
			return -EINVAL;
		}
		if (!(sp->seeds = calloc(n, sizeof(*sp->seeds))))
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			sp->seeds[sp->n_seeds++] = base + i;
	}
	/* sweep.json and point.json record seeds as signed 64-bit integers */
	for (size_t i = 0; i < sp->n_seeds; i++) {
		if (sp->seeds[i] > INT64_MAX) {
			diag_set(d, a->seed_list ? "--seed-list" : sp->scenario, 0, "",
				 "seed %llu is above 2^63-1, the largest a sweep records",
				 (unsigned long long)sp->seeds[i]);
			return -EINVAL;
		}
	}
	return twice_seed(sp, a->seed_list ? "--seed-list" : sp->scenario, d);
}

/* Does @dir hold the spec of another sweep (another scenario or other axes)? */
static int other_sweep(const struct sweep_spec *sp, const char *dir, char *why, size_t size)
{
	char path[OUTDIR_PATH + 32];
	json_t *j, *axes, *ax;
	size_t i;
	int other = 0;

	snprintf(path, sizeof(path), "%s/sweep.json", dir);
	if (access(path, F_OK))
		return 0;
	j = json_load_file(path, 0, NULL);
	axes = json_object_get(j, "axes");
	if (!j || !json_is_array(axes)) {
		snprintf(why, size, "a sweep.json that cannot be read");
		json_decref(j);
		return 1;
	}
	if (!txt_json_is(json_object_get(json_object_get(j, "scenario"), "path"), sp->scenario)) {
		snprintf(why, size, "the sweep of another scenario");
		other = 1;
	}
	if (!other && json_is_string(json_object_get(j, "model")) != (sp->fluid != 0)) {
		snprintf(why, size, "the sweep of another model (--model)");
		other = 1;
	}
	if (!other && json_array_size(axes) != sp->n_axes)
		other = 1;
	json_array_foreach(axes, i, ax) {
		if (other || i >= sp->n_axes)
			break;
		other = !json_is_string(json_object_get(ax, "key")) ||
			strcmp(json_string_value(json_object_get(ax, "key")), sp->axes[i].key);
	}
	if (other && !*why)
		snprintf(why, size, "the sweep of other axes");
	json_decref(j);
	return other;
}

/* Remove the temporaries of a sweep that was killed while writing its files. */
static void remove_temporaries(const char *dir)
{
	static const char *const names[] = {".sweep.json.", ".sweep.csv.", ".summary.csv."};
	DIR *dp = opendir(dir);
	struct dirent *e;

	while (dp && (e = readdir(dp))) {
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			size_t len = strlen(names[i]);

			if (!strncmp(e->d_name, names[i], len) && strlen(e->d_name) == len + 6) {
				char path[OUTDIR_PATH + 300];

				snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
				unlink(path);
			}
		}
	}
	if (dp)
		closedir(dp);
}

/* The runs of @sp, point after point, each point's variants in order and
 * each variant's seeds in order; NULL when out of memory. */
/* Run @i of @sp (points outermost, then variants, then seeds) into @r. */
static void make_run(const struct sweep_spec *sp, size_t i, struct sweep_run *r)
{
	size_t nv = sweep_spec_variants(sp), s = i % sp->n_seeds, v = i / sp->n_seeds % nv,
	       p = i / sp->n_seeds / nv;

	memset(r, 0, sizeof(*r));
	r->point = p;
	r->variant = v;
	r->seed = sp->seeds[s];
	sweep_spec_id(sp, p, v, sp->seeds[s], r->id);
	if (sp->refused && sp->refused[p * nv + v]) {
		r->status = SWEEP_REFUSED;
		snprintf(r->error, sizeof(r->error), "%s", sp->refused[p * nv + v]);
	}
}

static struct sweep_run *make_runs(const struct sweep_spec *sp)
{
	struct sweep_run *runs = calloc(sweep_spec_runs(sp), sizeof(*runs));

	for (size_t i = 0; runs && i < sweep_spec_runs(sp); i++)
		make_run(sp, i, &runs[i]);
	return runs;
}

/* The rocesim executable's path into @self (OUTDIR_PATH); 0 or the exit code. */
static int find_self(char *self)
{
	if (sweep_self_path(self, OUTDIR_PATH)) {
		fprintf(stderr, "rocesim: cannot find the rocesim executable: %s\n",
			strerror(errno));
		return ROCESIM_EXIT_INPUT;
	}
	return 0;
}

static int busy_error(const char *dir, const struct outdir *od, int err)
{
	if (err == -EBUSY)
		fprintf(stderr,
			"rocesim: %s is in use by another run or sweep (pid %ld): wait for it to "
			"end or give another -o\n",
			sweep_term(dir), (long)od->holder);
	else
		fprintf(stderr, "rocesim: cannot write in %s: %s\n", od->where, strerror(-err));
	return ROCESIM_EXIT_INPUT;
}

/*
 * A sweep.json other than @text in @dir: its tables (sweep.csv,
 * summary.csv) are of that sweep, and would sit beside the new sweep.json
 * if this one were killed before writing its own; removed (the runs stay,
 * and the tables are written again at the end, or by --collect).
 */
static void drop_stale_tables(const char *dir, const char *text)
{
	char path[OUTDIR_PATH + 32], *old = NULL;
	size_t len;

	snprintf(path, sizeof(path), "%s/sweep.json", dir);
	if (textfile_read(path, &old, &len) || (len == strlen(text) && !memcmp(old, text, len))) {
		free(old);
		return;
	}
	free(old);
	snprintf(path, sizeof(path), "%s/sweep.csv", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/summary.csv", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sweep.task.json", dir);
	unlink(path);
}

/*
 * Lock @dir into @od (outdir_close it), refuse a folder that holds another
 * sweep, and write sweep.json there. 0, or the error printed and the exit
 * code.
 */
static int prepare_folder(const struct sweep_spec *sp, const char *dir, struct outdir *od)
{
	json_t *spec = sweep_spec_json(sp);
	char why[128] = "", *text = spec ? json_dumps(spec, JSON_INDENT(2)) : NULL;
	int err, rc = ROCESIM_EXIT_INPUT;

	json_decref(spec);
	if (!text) {
		fputs("rocesim: out of memory\n", stderr);
		return ROCESIM_EXIT_INPUT;
	}
	if ((err = outdir_open(od, dir))) {
		rc = busy_error(dir, od, err);
		goto out;
	}
	if (other_sweep(sp, dir, why, sizeof(why))) {
		fprintf(stderr,
			"rocesim: %s holds %s (sweep.json): give another -o or remove the folder\n",
			sweep_term(dir), why);
		goto out;
	}
	remove_temporaries(dir);
	drop_stale_tables(dir, text);
	rc = ROCESIM_EXIT_IO;
	if ((err = sweep_write_file(dir, "sweep.json", text, strlen(text), 1))) {
		fprintf(stderr, "rocesim: cannot write %s/sweep.json: %s\n", sweep_term(dir),
			strerror(-err));
		goto out;
	}
	rc = 0;
out:
	free(text);
	return rc;
}

static void sweep_dir(const struct sweep_spec *sp, const struct sweep_args *a, char *dir)
{
	if (a->runs.outdir)
		snprintf(dir, OUTDIR_PATH, "%s", a->runs.outdir);
	else
		snprintf(dir, OUTDIR_PATH, "out/%s-sweep", sp->name);
}

/* @dir/sweep.task.json, what each array task reads; 0 or the exit code. */
static int write_task_spec(const struct sweep_spec *sp, const char *dir)
{
	json_t *spec = sweep_spec_task_json(sp);
	char *text = spec ? json_dumps(spec, JSON_INDENT(2)) : NULL;
	int err;

	json_decref(spec);
	if (!text) {
		fputs("rocesim: out of memory\n", stderr);
		return ROCESIM_EXIT_INPUT;
	}
	err = sweep_write_file(dir, "sweep.task.json", text, strlen(text), 1);
	free(text);
	if (err) {
		fprintf(stderr, "rocesim: cannot write %s/sweep.task.json: %s\n", sweep_term(dir),
			strerror(-err));
		return ROCESIM_EXIT_IO;
	}
	return 0;
}

/* --slurm: the spec and the job array written, nothing run. */
static int slurm_sweep(const struct sweep_spec *sp, const struct sweep_args *a)
{
	struct outdir od = {.lock_fd = -1};
	char dir[OUTDIR_PATH], self[OUTDIR_PATH];
	int err, rc;

	sweep_dir(sp, a, dir);
	if ((rc = find_self(self)) || (rc = sweep_slurm_paths_ok(sp, dir, self)) ||
	    (rc = prepare_folder(sp, dir, &od)))
		goto out;
	if ((rc = write_task_spec(sp, dir)))
		goto out;
	if (sweep_spec_runs(sp) > SLURM_MAX_ARRAY)
		fprintf(stderr,
			"rocesim: sweep --slurm: %zu runs are past Slurm's default MaxArraySize "
			"(%d): submit them in chunks, as %s/sweep.sbatch says\n",
			sweep_spec_runs(sp), SLURM_MAX_ARRAY, sweep_term(dir));
	if ((err = sweep_slurm_write(sp, dir, self, a->mem, a->runs.quiet ? NULL : stdout))) {
		fprintf(stderr, "rocesim: cannot write %s/sweep.sbatch: %s\n", sweep_term(dir),
			strerror(-err));
		rc = ROCESIM_EXIT_IO;
	}
out:
	outdir_close(&od);
	return rc;
}

/*
 * Run the runs of @runs (@n) that are this rank's, then (under mpirun)
 * gather every rank's on rank 0. 0 or a negative errno, as sweep_run_all.
 */
static int run_share(const struct sweep_spec *sp, struct sweep_run *runs, size_t n,
		     const struct sweep_exec *x)
{
	struct sweep_run *mine;
	size_t m = 0;
	int err, sig;

	if (mpi.size < 2)
		return sweep_run_all(sp, runs, n, x);
	if (!(mine = calloc(n / (size_t)mpi.size + 1, sizeof(*mine))))
		par_mpi_abort(ROCESIM_EXIT_IO);
	for (size_t i = (size_t)mpi.rank; i < n; i += (size_t)mpi.size)
		mine[m++] = runs[i];
	err = sweep_run_all(sp, mine, m, x);
	for (size_t i = (size_t)mpi.rank, k = 0; i < n; i += (size_t)mpi.size)
		runs[i] = mine[k++];
	free(mine);
	sig = sweep_stop_flag ? (int)sweep_stop_sig : 0;
	sweep_mpi_gather(&mpi, runs, n, &err, &sig);
	if (sig) {
		sweep_stop_sig = sig;
		sweep_stop_flag = 1;
	}
	return err;
}

/* Rank 0, the sweep checked and sweep.json written: the others may go. */
static int send_go(const struct sweep_args *a, const char *dir)
{
	struct sweep_go g = {.go = 1,
			     .jobs = a->runs.jobs_given ? (unsigned)a->runs.jobs : 0,
			     .progress = a->runs.progress};
	char *abs;

	if (mpi.size < 2)
		return 0;
	if (!(abs = realpath(dir, NULL)) || strlen(abs) >= sizeof(g.dir)) {
		fprintf(stderr, "rocesim: %s: %s\n", sweep_term(dir),
			abs ? "path too long" : strerror(errno));
		free(abs);
		send_stop(ROCESIM_EXIT_IO);
		return ROCESIM_EXIT_IO;
	}
	snprintf(g.dir, sizeof(g.dir), "%s", abs);
	free(abs);
	told = go_sent = 1;
	sweep_mpi_bcast(&mpi, &g, sizeof(g));
	return 0;
}

/* "30 points x 1 seed" (with variants "10 points x 2 variants x 3 seeds")
 * into @buf. */
static void shape(const struct sweep_spec *sp, char *buf, size_t size)
{
	if (sp->n_variants)
		snprintf(buf, size, "%zu point%s x %zu variants x %zu seed%s", sp->n_points,
			 sp->n_points == 1 ? "" : "s", sp->n_variants, sp->n_seeds,
			 sp->n_seeds == 1 ? "" : "s");
	else
		snprintf(buf, size, "%zu point%s x %zu seed%s", sp->n_points,
			 sp->n_points == 1 ? "" : "s", sp->n_seeds, sp->n_seeds == 1 ? "" : "s");
}

/* How many runs ran, were reused and were refused, and why finished runs
 * ran again, on @out. */
static void print_counts(const struct sweep_spec *sp, const struct sweep_run *runs, size_t n,
			 FILE *out)
{
	size_t reused = 0, refused = 0, stale = 0, failed = 0, not_run = 0;
	const char *why = NULL;
	char what[160];

	for (size_t i = 0; i < n; i++) {
		reused += runs[i].resumed;
		refused += runs[i].status == SWEEP_REFUSED;
		failed += runs[i].status == SWEEP_FAILED;
		not_run += runs[i].status == SWEEP_NOT_RUN;
		if (runs[i].stale[0] && !runs[i].resumed) {
			stale++;
			why = why ? why : runs[i].stale;
		}
	}
	shape(sp, what, sizeof(what));
	fprintf(out, "  runs       %zu (%s): %zu ran, %zu reused", n, what,
		n - reused - refused - not_run, reused);
	if (failed)
		fprintf(out, ", %zu failed", failed);
	if (refused)
		fprintf(out, ", %zu refused", refused);
	if (not_run)
		fprintf(out, ", %zu not run", not_run);
	fputc('\n', out);
	if (stale)
		fprintf(out, "  rerun      %zu finished before with other inputs (%s)\n", stale,
			why);
}

static int run_sweep(struct sweep_spec *sp, const struct sweep_args *a)
{
	struct outdir od = {.lock_fd = -1};
	struct sweep_run *runs = NULL;
	struct sweep_exec x = {0};
	char dir[OUTDIR_PATH], self[OUTDIR_PATH];
	size_t n = sweep_spec_runs(sp), failed = 0, finished = 0;
	int err, rc;

	sweep_dir(sp, a, dir);
	if ((rc = find_self(self)))
		return rc;
	if (!(runs = make_runs(sp))) {
		fputs("rocesim: out of memory\n", stderr);
		return ROCESIM_EXIT_INPUT;
	}
	sweep_catch_signals();
	if ((rc = prepare_folder(sp, dir, &od)) || (rc = send_go(a, dir)))
		goto out;
	rc = ROCESIM_EXIT_IO;
	x.self = self;
	x.run_main = par_mpi_launched() ? NULL : a->runs.run_main;
	x.dir = dir;
	x.jobs = (unsigned)a->runs.jobs;
	x.progress = a->runs.progress;
	x.stop = &sweep_stop_flag;
	err = run_share(sp, runs, n, &x);
	if (err)
		fprintf(stderr, "rocesim: the sweep stopped: %s\n", strerror(-err));
	for (size_t i = 0; i < n; i++) {
		failed += runs[i].status == SWEEP_FAILED;
		finished += runs[i].status != SWEEP_NOT_RUN && runs[i].status != SWEEP_FAILED;
	}
	if ((err = sweep_tables(sp, runs, n, dir, a->runs.quiet ? NULL : stdout))) {
		fprintf(stderr, "rocesim: cannot write the tables in %s: %s\n", sweep_term(dir),
			strerror(-err));
		goto out;
	}
	if (!a->runs.quiet) {
		print_counts(sp, runs, n, stdout);
		printf("  tables     %s/sweep.csv, %s/summary.csv\n", sweep_term(dir),
		       sweep_term(dir));
	}
	if (err)
		goto out;
	if (sweep_stop_flag) {
		fprintf(
		    stderr,
		    "rocesim: sweep interrupted by %s: %zu of %zu runs finished and kept in %s; "
		    "run the same sweep again to resume\n",
		    sweep_stop_sig == SIGINT	? "SIGINT"
		    : sweep_stop_sig == SIGTERM ? "SIGTERM"
						: "SIGHUP",
		    finished, n, sweep_term(dir));
		rc = 128 + sweep_stop_sig;
		goto out;
	}
	if (failed)
		fprintf(stderr,
			"rocesim: %zu of %zu runs failed (status and error in %s/sweep.csv)\n",
			failed, n, sweep_term(dir));
	rc = failed ? ROCESIM_EXIT_FOUND : 0;
out:
	outdir_close(&od);
	free(runs);
	return rc;
}

/* The spec in @dir/@name (sweep.json, sweep.task.json) into @sp; 0, or
 * the error printed and exit 2. */
static int load_spec_file(const char *dir, const char *name, struct sweep_spec *sp)
{
	struct diag d = {0};
	int err = sweep_spec_load_file(dir, name, sp, &d);

	if (err == -ENOMEM)
		fputs("rocesim: out of memory\n", stderr);
	else if (err)
		input_error(&d);
	return err ? ROCESIM_EXIT_INPUT : 0;
}

static int load_spec(const char *dir, struct sweep_spec *sp)
{
	return load_spec_file(dir, "sweep.json", sp);
}

/* Has an overlay of @sp changed since @dir/sweep.json was written? 0, or
 * the error printed and the exit code. */
static int changed_overlay(const struct sweep_spec *sp, const char *dir)
{
	for (size_t v = 0; v < sp->n_variants + sp->n_withs; v++) {
		const struct sweep_variant *va =
		    v < sp->n_variants ? &sp->variants[v] : &sp->withs[v - sp->n_variants];
		char sha[65], *text;
		size_t len;
		int err;

		if (!va->path)
			continue;
		if ((err = textfile_read(va->path, &text, &len))) {
			fprintf(stderr, "rocesim: %s: cannot read: %s\n", va->path,
				err == -ENOMEM ? "out of memory" : textfile_strerror(err));
			return ROCESIM_EXIT_INPUT;
		}
		sha256_hex(text, len, sha);
		free(text);
		if (strcmp(sha, va->sha256)) {
			fprintf(stderr,
				"rocesim: %s (%s%s) has changed since %s/sweep.json was "
				"written: write the sweep again (--slurm)\n",
				va->path, va->name ? "variant " : "--with",
				va->name ? va->name : "", sweep_term(dir));
			return ROCESIM_EXIT_INPUT;
		}
	}
	return 0;
}

/* --task K DIR: run K of the sweep in DIR (as a Slurm array task). */
int sweep__task(const struct sweep_args *a)
{
	struct sweep_spec sp;
	struct sweep_run run;
	struct sweep_exec x = {.jobs = 1, .stop = &sweep_stop_flag};
	char self[OUTDIR_PATH], sha[65], *text = NULL, task_spec[OUTDIR_PATH + 32];
	size_t n, len;
	int err, rc;

	/* sweep.task.json (what --slurm writes for its tasks), or sweep.json */
	snprintf(task_spec, sizeof(task_spec), "%s/sweep.task.json", a->scenario);
	if ((rc = load_spec_file(a->scenario,
				 access(task_spec, F_OK) ? "sweep.json" : "sweep.task.json", &sp)))
		return rc;
	n = sweep_spec_runs(&sp);
	rc = ROCESIM_EXIT_INPUT;
	if (a->task >= n) {
		fprintf(stderr, "rocesim: --task %llu: %s holds %zu runs (tasks 0 to %zu)\n",
			a->task, a->scenario, n, n - 1);
		goto out;
	}
	if ((err = textfile_read(sp.scenario, &text, &len))) {
		fprintf(stderr, "rocesim: %s: cannot read: %s\n", sp.scenario,
			err == -ENOMEM ? "out of memory" : textfile_strerror(err));
		goto out;
	}
	sha256_hex(text, len, sha);
	if (strcmp(sha, sp.sha256)) {
		fprintf(stderr,
			"rocesim: %s has changed since %s/sweep.json was written: write the "
			"sweep again (--slurm)\n",
			sp.scenario, a->scenario);
		goto out;
	}
	if ((rc = changed_overlay(&sp, a->scenario)) || (rc = find_self(self)))
		goto out;
	make_run(&sp, a->task, &run);
	sweep_catch_signals();
	x.self = self;
	x.run_main = par_mpi_launched() ? NULL : a->runs.run_main;
	x.dir = a->scenario;
	x.progress = !a->runs.quiet;
	if ((err = sweep_run_all(&sp, &run, 1, &x))) {
		fprintf(stderr, "rocesim: run %s: %s\n", run.id, strerror(-err));
		rc = ROCESIM_EXIT_IO;
	} else if (sweep_stop_flag) {
		rc = 128 + sweep_stop_sig;
	} else {
		rc = run.status == SWEEP_FAILED ? ROCESIM_EXIT_FOUND : 0;
	}
out:
	free(text);
	sweep_spec_free(&sp);
	return rc;
}

/* --collect DIR: the tables from what DIR holds, the missing runs named. */
int sweep__collect(const struct sweep_args *a)
{
	const char *dir = a->scenario;
	struct outdir od = {.lock_fd = -1};
	struct sweep_spec sp;
	struct sweep_run *runs = NULL;
	size_t n, failed = 0, missing = 0, finished = 0, refused = 0;
	int err, rc;

	if ((rc = load_spec(dir, &sp)))
		return rc;
	n = sweep_spec_runs(&sp);
	rc = ROCESIM_EXIT_INPUT;
	if (!(runs = make_runs(&sp))) {
		fputs("rocesim: out of memory\n", stderr);
		goto out;
	}
	if ((err = outdir_open(&od, dir))) {
		rc = busy_error(dir, &od, err);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (runs[i].status == SWEEP_REFUSED) /* by sweep.json: never run */
			continue;
		if (sweep_run_recorded(&sp, dir, &runs[i])) {
			fputs("rocesim: out of memory\n", stderr);
			goto out;
		}
		failed += runs[i].status == SWEEP_FAILED;
		missing += runs[i].status == SWEEP_NOT_RUN;
	}
	for (size_t i = 0; i < n; i++)
		refused += runs[i].status == SWEEP_REFUSED;
	finished = n - failed - missing - refused;
	rc = ROCESIM_EXIT_IO;
	if ((err = sweep_tables(&sp, runs, n, dir, a->runs.quiet ? NULL : stdout))) {
		fprintf(stderr, "rocesim: cannot write the tables in %s: %s\n", sweep_term(dir),
			strerror(-err));
		goto out;
	}
	if (!a->runs.quiet) {
		printf("  runs       %zu (%zu finished, %zu failed, %zu missing", n, finished,
		       failed, missing);
		if (refused)
			printf(", %zu refused", refused);
		printf(")\n  tables     %s/sweep.csv, %s/summary.csv\n", sweep_term(dir),
		       sweep_term(dir));
	}
	if (missing) {
		size_t shown = 0;

		fprintf(stderr, "rocesim: %zu of %zu runs missing (", missing, n);
		for (size_t i = 0; i < n && shown < 5; i++)
			if (runs[i].status == SWEEP_NOT_RUN)
				fprintf(stderr, "%s%s", shown++ ? ", " : "", runs[i].id);
		fprintf(stderr, "%s): collect again once they have run\n",
			missing > shown ? ", ..." : "");
	}
	if (failed)
		fprintf(stderr,
			"rocesim: %zu of %zu runs failed (status and error in %s/sweep.csv)\n",
			failed, n, sweep_term(dir));
	rc = missing || failed ? ROCESIM_EXIT_FOUND : 0;
out:
	outdir_close(&od);
	free(runs);
	sweep_spec_free(&sp);
	return rc;
}

/* The spec from the scenario and @a, every point checked; then run it. */
int sweep__main(const struct sweep_args *a)
{
	struct sweep_spec sp = {.scenario = (char *)a->scenario};
	struct scenario *base = NULL;
	struct diag d = {0};
	char *text = NULL;
	size_t len;
	int err, rc = ROCESIM_EXIT_INPUT;

	err = textfile_read(a->scenario, &text, &len);
	if (err) {
		if (err == -ENOMEM)
			fputs("rocesim: out of memory\n", stderr);
		else
			fprintf(stderr, "rocesim: %s: cannot read: %s\n", a->scenario,
				textfile_strerror(err));
		return ROCESIM_EXIT_INPUT;
	}
	sha256_hex(text, len, sp.sha256);
	for (size_t i = 0; i < a->n_vary; i++) {
		struct sweep_axis *axes = realloc(sp.axes, (i + 1) * sizeof(*axes));

		if (!axes) {
			err = -ENOMEM;
			goto fail;
		}
		sp.axes = axes;
		if ((err = sweep_axis_parse("--vary", 0, a->vary[i], &sp.axes[i], &d)))
			goto fail;
		sp.n_axes++;
		for (size_t j = 0; j < i; j++) {
			if (!strcmp(sp.axes[j].key, sp.axes[i].key)) {
				diag_set(&d, "--vary", 0, sp.axes[i].key, "varied twice");
				err = -EINVAL;
				goto fail;
			}
		}
	}
	for (size_t i = 0; i < a->n_variants; i++) {
		const char *eq = strchr(a->variants[i], '=');
		char name[SWEEP_VARIANT_NAME + 1];

		snprintf(name, sizeof(name), "%.*s",
			 (int)((size_t)(eq - a->variants[i]) < sizeof(name) - 1
				   ? (size_t)(eq - a->variants[i])
				   : sizeof(name) - 1),
			 a->variants[i]);
		if ((err = sweep_spec_add_variant(&sp, name, eq + 1, "--variant", 0, &d)))
			goto fail;
	}
	sp.zip = a->zip;
	sp.fluid = a->runs.fluid;
	err = sweep_spec_from_scenario(&sp, text, len, a->n_vary > 0, a->zip,
				       a->seeds || a->seed_list, a->n_variants > 0, &d);
	for (size_t i = 0; !err && i < a->n_withs; i++)
		err = sweep_spec_add_with(&sp, a->withs[i], &d);
	for (size_t i = 0; !err && i < a->runs.n_sets; i++)
		err = sweep_spec_add_set(&sp, a->runs.sets[i], &d);
	if (err || (err = sweep_spec_points(&sp, &d)))
		goto fail;
	/* the name and the first seed from the first point that loads: the
	 * scenario alone may be valid only with an axis or an overlay applied */
	if ((rc = sweep__check_points(&sp, &base)))
		goto out;
	if (!(sp.name = strdup(base->name))) {
		err = -ENOMEM;
		goto fail;
	}
	if ((err = make_seeds(&sp, a, base->seed, &d)) || (err = sweep_spec_points(&sp, &d)))
		goto fail;
	rc = a->slurm ? slurm_sweep(&sp, a) : run_sweep(&sp, a);
	goto out;
fail:
	if (err == -ENOMEM)
		fputs("rocesim: out of memory\n", stderr);
	else
		input_error(&d);
	rc = ROCESIM_EXIT_INPUT;
out:
	scn_free(base);
	free(text);
	sweep_spec_free(&sp);
	return rc;
}

/* A rank other than 0: wait for rank 0's word, run the share, end as it says. */
static int follow(void)
{
	struct sweep_go g;
	struct sweep_spec sp;
	struct sweep_run *runs;
	struct sweep_exec x = {0};
	char self[OUTDIR_PATH];
	int rc;

	sweep_mpi_bcast(&mpi, &g, sizeof(g));
	if (!g.go)
		return g.rc;
	/* rank 0 read the same folder: a failure here is this machine's */
	if (find_self(self) || load_spec(g.dir, &sp))
		par_mpi_abort(ROCESIM_EXIT_INPUT);
	if (!(runs = make_runs(&sp))) {
		fputs("rocesim: out of memory\n", stderr);
		par_mpi_abort(ROCESIM_EXIT_INPUT);
	}
	sweep_catch_signals();
	x.self = self;
	x.dir = g.dir;
	x.jobs = g.jobs ? g.jobs : sweep__default_jobs(par_mpi_local_ranks());
	x.progress = g.progress;
	x.stop = &sweep_stop_flag;
	rc = run_share(&sp, runs, sweep_spec_runs(&sp), &x);
	if (rc)
		fprintf(stderr, "rocesim: rank %d: the sweep stopped: %s\n", mpi.rank,
			strerror(-rc));
	free(runs);
	sweep_spec_free(&sp);
	sweep_mpi_bcast(&mpi, &rc, sizeof(rc));
	return rc;
}

int sweep__launch(int argc, char **argv,
		  int (*verb)(int argc, char **argv, long local_ranks, sweep_main_fn run_main),
		  sweep_main_fn run_main)
{
	int rc;

	if (!par_mpi_launched())
		return verb(argc, argv, mpi.size > 1 ? par_mpi_local_ranks() : 1, run_main);
	if (sweep_mpi_start(&mpi))
		return ROCESIM_EXIT_INPUT;
	if (mpi.rank) {
		rc = follow();
	} else {
		rc = verb(argc, argv, mpi.size > 1 ? par_mpi_local_ranks() : 1, run_main);
		fflush(NULL); /* before any rank's end lets mpirun stop this one */
		if (go_sent)
			sweep_mpi_bcast(&mpi, &rc, sizeof(rc));
		else
			send_stop(rc);
	}
	par_mpi_finalize();
	return rc;
}
