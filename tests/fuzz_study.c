/*
 * libFuzzer harness for the readers of a sweep's and a tune's folder:
 * sweep.json (sweep_spec_load of sim/study/sweep_spec.c, which `sweep`
 * resumes, `sweep --task` and `--collect` read), the scenario's `sweep:`
 * section (sweep_spec_from_scenario, the same file's other reader), and
 * tune.json and tune.csv (plot_tune__load and plot_tune__worst of
 * sim/plot/plot_tune_read.c, which `plot` reads a tune's folder with). The
 * input "A" or "A\0B" is written into a scratch folder as sweep.json,
 * scenario.yaml and tune.json (A) and tune.csv (B; none without a NUL
 * byte), beside an overlay ov.yaml (an empty A: no sweep.json and no
 * tune.json at all), and read by each reader in turn:
 *
 *   sweep.json     a spec loaded must give the same sweep.json again when
 *                  written and loaded (sweep_spec_json), and again when
 *                  written as sweep.task.json (sweep_spec_task_json) and
 *                  loaded, with its points in range and the overrides of
 *                  each
 *   scenario.yaml  its sweep: section, with the command line's flags unset
 *                  and, for a length a multiple of 4, all set; a section
 *                  read is completed as `sweep` does (seeds, --set, --with,
 *                  --variant, with refusals too) and must round-trip
 *                  through sweep.json the same way
 *   tune.json      a tune loaded must have its points, the best, current
 *                  and recommended points in range; then tune.csv is read
 *                  for each constraint
 *
 * A refusal must carry a one-line message (the diag of sweep_spec.c; the
 * single line on stderr of plot_tune_read.c, caught in memory), a
 * success keep what the readers promise. Crashes, leaks, UB and broken
 * promises (abort) are the findings; refusals are expected. Sweeps of more
 * than 1,000 runs are checked but not written back (the writer takes
 * seconds for the million runs a spec may hold).
 *
 * A last line "#failalloc N" (or "N+") makes the N-th allocation (and
 * every later one) of each reader call fail (tests/fuzz/oom.h): it must
 * then refuse (sweep_spec.c with -ENOMEM; plot_tune_read.c says "out of
 * memory" and returns -1 as for any refusal). The line is stripped before
 * the input is written.
 *
 * Not part of the meson build (it needs clang's -fsanitize=fuzzer): `make
 * fuzz` builds it with every library source below the command line and the
 * few files of sim/study and sim/plot it needs (tests/fuzz/run.sh; `tests/fuzz/run.sh
 * study` runs this one alone). A crash, leak or timeout is kept in
 * build-fuzz/study/findings/; replay it with `build-fuzz/study/fuzz_study FILE`.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FUZZ_NAME "fuzz_study"

#include "sim/plot/plot_impl.h"
#include "sim/study/sweep_impl.h"
#include "tests/fuzz/harness.h"
#include "tests/fuzz/oom.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_WRITTEN 1000 /* runs of a spec written back */

static char dir[4096], sweep_json[4200], task_json[4200], scenario[4200], tune_json[4200],
    tune_csv[4200], overlay[4200], missing[4200];

static void cleanup(void)
{
	unlink(sweep_json);
	unlink(task_json);
	unlink(scenario);
	unlink(tune_json);
	unlink(tune_csv);
	unlink(overlay);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_scratch(dir, sizeof(dir), "study");
	snprintf(sweep_json, sizeof(sweep_json), "%s/sweep.json", dir);
	snprintf(task_json, sizeof(task_json), "%s/sweep.task.json", dir);
	snprintf(scenario, sizeof(scenario), "%s/scenario.yaml", dir);
	snprintf(tune_json, sizeof(tune_json), "%s/tune.json", dir);
	snprintf(tune_csv, sizeof(tune_csv), "%s/tune.csv", dir);
	snprintf(overlay, sizeof(overlay), "%s/ov.yaml", dir);
	snprintf(missing, sizeof(missing), "%s/missing.yaml", dir);
	atexit(cleanup);
	return 0;
}

static void check_diag(int err, const struct diag *d)
{
	char line[1200];

	/* ydoc.c says -EEXIST for a duplicate key */
	fuzz_check(err < 0, "a negative error");
	fuzz_check(d->msg[0] || err == -ENOMEM, "a refusal carries a message (-ENOMEM need not)");
	diag_str(d, line, sizeof(line));
	fuzz_check(!strchr(line, '\n'), "the error is one line");
}

/* A spec read: what sweep_spec.h promises of it. */
static void check_spec(const struct sweep_spec *sp)
{
	size_t n = sp->zip && sp->n_axes ? sp->axes[0].n : 1;

	fuzz_check(sp->scenario != NULL, "a scenario");
	for (size_t a = 0; a < sp->n_axes; a++) {
		fuzz_check(sp->axes[a].key && sp->axes[a].n >= 1, "an axis has a key and values");
		for (size_t i = 0; i < sp->axes[a].n; i++)
			fuzz_check(sp->axes[a].values[i] != NULL, "an axis's values");
		if (!sp->zip)
			n *= sp->axes[a].n;
	}
	fuzz_check(sp->n_points == n && n >= 1, "the points of the axes");
	fuzz_check(sp->n_points * sweep_spec_variants(sp) * (sp->n_seeds ? sp->n_seeds : 1) <=
		       SWEEP_MAX_RUNS,
		   "at most SWEEP_MAX_RUNS runs");
	for (size_t v = 0; v < sp->n_variants; v++) {
		fuzz_check(sp->variants[v].name && sp->variants[v].name[0], "a variant has a name");
		fuzz_check(!v || sp->variants[v].path, "only the base may have no overlay");
		for (size_t w = 0; w < v; w++)
			fuzz_check(strcmp(sp->variants[v].name, sp->variants[w].name),
				   "variant names differ");
	}
	for (size_t w = 0; w < sp->n_withs; w++)
		fuzz_check(sp->withs[w].path && strlen(sp->withs[w].sha256) == 64,
			   "a --with overlay");
	for (size_t k = 0; k < sp->n_sets; k++)
		fuzz_check(strchr(sp->sets[k], '=') != NULL, "a --set is KEY=VALUE");
}

/* The overrides of the first points: KEY=VALUE of each axis. */
static void check_sets(const struct sweep_spec *sp, struct fuzz_oom *o)
{
	char *sets[sp->n_axes ? sp->n_axes : 1];
	int err, failed;

	for (size_t p = 0; p < sp->n_points && p < 64; p++) {
		fuzz_oom_arm(o);
		err = sweep_spec_sets(sp, p, sets);
		failed = fuzz_oom_disarm(o);
		fuzz_check(failed ? err == -ENOMEM : !err, "the overrides of a point");
		if (err)
			continue;
		for (size_t a = 0; a < sp->n_axes; a++)
			fuzz_check(!strncmp(sets[a], sp->axes[a].key, strlen(sp->axes[a].key)) &&
				       sets[a][strlen(sp->axes[a].key)] == '=',
				   "an override is KEY=VALUE");
		sweep_sets_free(sets, sp->n_axes);
	}
}

/*
 * Write @sp as sweep.task.json (what --slurm writes for its array tasks:
 * the spec without its point list, the refused points alone with their
 * index) and load it again: the spec of @full, its sweep.json.
 */
static void task_trip(const struct sweep_spec *sp, const json_t *full)
{
	struct sweep_spec again;
	struct diag d = {0};
	json_t *j = sweep_spec_task_json(sp), *k;
	char *text;
	int err;

	fuzz_check(j != NULL, "a task spec can be written");
	text = json_dumps(j, JSON_INDENT(2));
	fuzz_check(text != NULL, "a task spec can be written");
	fuzz_put(task_json, text, strlen(text));
	free(text);
	json_decref(j);
	err = sweep_spec_load_file(dir, "sweep.task.json", &again, &d);
	if (err) {
		char line[1200];

		fprintf(stderr, "fuzz_study: %s\n", diag_str(&d, line, sizeof(line)));
		fuzz_check(0, "the sweep.task.json written loads");
	}
	k = sweep_spec_json(&again);
	fuzz_check(k && json_equal(full, k), "the sweep.task.json loaded is the spec written");
	json_decref(k);
	sweep_spec_free(&again);
	unlink(task_json);
}

/*
 * Write @sp as sweep.json and load it again: the same sweep.json. Small
 * sweeps only (MAX_WRITTEN runs).
 */
static void round_trip(const struct sweep_spec *sp, struct fuzz_oom *o)
{
	struct sweep_spec again;
	struct diag d = {0};
	json_t *j, *k;
	char *text;
	int err, failed;

	if (sweep_spec_runs(sp) > MAX_WRITTEN)
		return;
	fuzz_oom_arm(o);
	j = sweep_spec_json(sp);
	failed = fuzz_oom_disarm(o);
	if (failed && !j)
		return; /* out of memory: said by the writer's NULL */
	fuzz_check(j != NULL, "a spec can be written");
	text = json_dumps(j, JSON_INDENT(2));
	fuzz_check(text != NULL, "a spec can be written");
	fuzz_put(sweep_json, text, strlen(text));
	free(text);
	err = sweep_spec_load(dir, &again, &d);
	if (err) {
		char line[1200];

		fprintf(stderr, "fuzz_study: %s\n", diag_str(&d, line, sizeof(line)));
		fuzz_check(0, "the sweep.json written loads");
	}
	k = sweep_spec_json(&again);
	fuzz_check(k && json_equal(j, k), "the sweep.json loaded is the one written");
	json_decref(k);
	sweep_spec_free(&again);
	task_trip(sp, j);
	json_decref(j);
}

/* The input as sweep.json. */
static void sweep_file(const uint8_t *data, size_t size, struct fuzz_oom *o)
{
	struct sweep_spec sp;
	struct diag d = {0};
	int err, failed;

	if (size)
		fuzz_put(sweep_json, data, size);
	else
		unlink(sweep_json);
	fuzz_oom_arm(o);
	err = sweep_spec_load(dir, &sp, &d);
	failed = fuzz_oom_disarm(o);
	fuzz_oom_check(failed, err, &d, "sweep_spec_load");
	fuzz_check(err != -ENOMEM || failed, "out of memory only when an allocation failed");
	if (err) {
		check_diag(err, &d);
		fuzz_check(!sp.axes && !sp.variants && !sp.seeds && !sp.refused,
			   "a refusal leaves nothing to free");
		return;
	}
	check_spec(&sp);
	fuzz_check(sp.n_seeds >= 1 && strlen(sp.sha256) == 64 && sp.name, "a sweep.json's spec");
	check_sets(&sp, o);
	round_trip(&sp, o);
	sweep_spec_free(&sp);
}

/* One of the calls complete() makes: @err, -ENOMEM after an allocation failed. */
#define ARMED(o, call, ok, what)                                                                   \
	do {                                                                                       \
		int failed_;                                                                       \
                                                                                                   \
		memset(&d, 0, sizeof(d));                                                          \
		fuzz_oom_arm(o);                                                                   \
		err = (call);                                                                      \
		failed_ = fuzz_oom_disarm(o);                                                      \
		fuzz_check(failed_ ? err == -ENOMEM : (ok), what);                                 \
	} while (0)

/* What `sweep` adds to a spec from the scenario: refusals, then what holds. */
static void complete(struct sweep_spec *sp, struct fuzz_oom *o)
{
	struct diag d = {0};
	char set[300]; /* a key of the section has at most 159 bytes */
	int err;

	sp->name = strdup("fuzz");
	fuzz_check(sp->name != NULL, "memory for the name");
	memset(sp->sha256, 'a', 64);
	sp->sha256[64] = '\0';
	if (!sp->n_seeds) {
		size_t n = sp->seed_count ? sp->seed_count : 1;

		n = n < 16 ? n : 16;
		sp->seeds = calloc(n, sizeof(*sp->seeds));
		fuzz_check(sp->seeds != NULL, "memory for the seeds");
		for (size_t s = 0; s < n; s++)
			sp->seeds[sp->n_seeds++] = 1 + s;
	}
	if (sp->n_axes) {
		snprintf(set, sizeof(set), "%s=1", sp->axes[0].key);
		ARMED(o, sweep_spec_add_set(sp, set, &d), err == -EINVAL && d.msg[0],
		      "an axis given again with --set is refused");
	}
	ARMED(o, sweep_spec_add_set(sp, "switch.ecn.kmin=1KB", &d),
	      !err || (err == -EINVAL && d.msg[0]), "a --set, or an axis's key");
	ARMED(o, sweep_spec_add_with(sp, overlay, &d), !err, "a --with");
	ARMED(o, sweep_spec_add_with(sp, missing, &d), err == -EINVAL && d.msg[0],
	      "a --with that cannot be read is refused");
	ARMED(o, sweep_spec_add_variant(sp, "a b", overlay, "--variant", 0, &d),
	      err == -EINVAL && d.msg[0], "a variant name with a space is refused");
	ARMED(o, sweep_spec_add_variant(sp, "fz", missing, "--variant", 0, &d),
	      err == -EINVAL && d.msg[0], "a variant that cannot be read is refused");
	for (int i = 0; i < 2; i++)
		ARMED(o, sweep_spec_add_variant(sp, "fz", overlay, "--variant", 0, &d),
		      !err || (err == -EINVAL && d.msg[0]), "a --variant, or given twice");
	ARMED(o, sweep_spec_add_variant(sp, "base", overlay, "--variant", 0, &d),
	      !err || (err == -EINVAL && d.msg[0]), "base=FILE, or given twice");
}

/* The input as a scenario with a sweep: section; @have: the command line's flags. */
static void scenario_section(const uint8_t *data, size_t size, int have, struct fuzz_oom *o)
{
	struct sweep_spec sp;
	struct diag d = {0};
	int err, failed;

	memset(&sp, 0, sizeof(sp));
	sp.scenario = scenario;
	fuzz_oom_arm(o);
	err = sweep_spec_from_scenario(&sp, (const char *)data, size, have, have, have, have, &d);
	if (!err)
		err = sweep_spec_points(&sp, &d);
	failed = fuzz_oom_disarm(o);
	fuzz_oom_check(failed, err, &d, "sweep_spec_from_scenario");
	fuzz_check(err != -ENOMEM || failed, "out of memory only when an allocation failed");
	if (err) {
		check_diag(err, &d);
	} else {
		check_spec(&sp);
		fuzz_check(!have || (!sp.n_axes && !sp.n_variants && !sp.n_seeds && !sp.seed_count),
			   "the command line's flags leave the section unread");
		complete(&sp, o);
		err = sweep_spec_points(&sp, &d);
		fuzz_check(!err || err == -EINVAL, "the points of the spec completed");
		if (!err) {
			check_spec(&sp);
			check_sets(&sp, o);
			round_trip(&sp, o);
		}
	}
	sp.scenario = NULL;
	sweep_spec_free(&sp);
}

static FILE *real_stderr;
static char *said;
static size_t said_len;

/* stderr into a memory stream (glibc's stderr is a variable): what
 * plot_tune_read.c says, while a sanitizer's report still goes to fd 2. */
static void catch_stderr(void)
{
	real_stderr = stderr;
	stderr = open_memstream(&said, &said_len);
	fuzz_check(stderr != NULL, "stderr can be caught");
}

/* What plot_tune_read.c said since catch_stderr: nothing (@ok), or one line "rocesim: ...". */
static void check_said(int ok)
{
	fclose(stderr);
	stderr = real_stderr;
	if (ok)
		fuzz_check(said_len == 0, "a success says nothing");
	else
		fuzz_check(!strncmp(said, "rocesim: ", 9) && said_len > 9 &&
			       strchr(said, '\n') == said + said_len - 1,
			   "a refusal says why, in one line");
	free(said);
	said = NULL;
}

static void check_points(const struct tn_point *pts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fuzz_check(pts[i].id != NULL, "a point has an id");
		fuzz_check(pts[i].state <= TN_UNFINISHED, "a point's state");
	}
}

/* The input as tune.json, and tune.csv if the input has one. */
static void tune_files(int have_csv, struct fuzz_oom *o)
{
	struct plot p = {.outdir = dir};
	struct tn_plot t = {.p = &p, .best = -1, .cur = -1, .rec = -1};
	int err, failed;

	snprintf(t.path, sizeof(t.path), "%s", tune_json);
	catch_stderr();
	fuzz_oom_arm(o);
	err = plot_tune__load(&t);
	failed = fuzz_oom_disarm(o);
	check_said(!err);
	fuzz_check(!failed || err, "a refusal after an allocation failed");
	if (err) {
		plot_tune__free(&t);
		return;
	}
	fuzz_check(t.n_par >= 1 && t.n_par <= TN_MAX_KEYS, "one to eight keys");
	fuzz_check(t.n_obj >= 1 && t.n_obj <= 2, "one or two objectives");
	fuzz_check(t.best < (long)t.n_pt && t.cur < (long)t.n_pt && t.rec < (long)t.n_pt,
		   "the best, current and recommended points are points");
	fuzz_check(t.refused + t.failed <= t.n_pt && t.seeds >= 1 && t.method, "the counts");
	check_points(t.pt, t.n_pt);
	check_points(t.route, t.n_route);
	check_points(t.front, t.n_front);
	for (size_t k = 0; k < t.n_par; k++)
		fuzz_check(t.par[k].key && t.par[k].unit, "a key has its name and unit");
	for (size_t c = 0; c < t.n_cons; c++) {
		double y[t.n_pt + 1];

		if (!have_csv)
			unlink(tune_csv);
		catch_stderr();
		fuzz_oom_arm(o);
		err = plot_tune__worst(&t, &t.cons[c], y);
		failed = fuzz_oom_disarm(o);
		check_said(!err);
		fuzz_check(!failed || err, "a refusal after an allocation failed");
	}
	plot_tune__free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul;
	struct fuzz_oom o;
	size_t a;

	size = fuzz_oom_strip(data, size, &o);
	nul = memchr(data, '\0', size);
	a = nul ? (size_t)(nul - data) : size;
	fuzz_put(overlay, "switch: {ecn: {kmin: 20KB}}\n", 28);
	/* an empty A: no sweep.json and no tune.json at all */
	sweep_file(data, a, &o);
	fuzz_put(scenario, data, a);
	scenario_section(data, a, 0, &o);
	if (a % 4 == 0)
		scenario_section(data, a, 1, &o);
	if (a)
		fuzz_put(tune_json, data, a);
	else
		unlink(tune_json);
	if (nul)
		fuzz_put(tune_csv, nul + 1, size - a - 1);
	tune_files(nul != NULL, &o);
	fuzz_oom_done(&o);
	return 0;
}
