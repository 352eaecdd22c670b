/*
 * rocesim tune, behind its options (sim/cli/tune_args.c): reads the ranges,
 * objectives and constraints, checks them against the scenario (the ends
 * of every range loaded as `rocesim run` would load them), locks the tune
 * folder, then lets the search (tune_search.c) ask for points; each point
 * runs as a sweep's point does, once per seed, through sweep_run_all, and
 * its metrics are read back from each run's results.json. The reports are
 * tune_report.c's.
 *
 * Under mpirun every rank reads the command line and follows the same
 * search: the search depends only on the results, which every rank reads
 * from the shared folder once a batch has run. Each batch's runs are
 * shared among the ranks as a sweep's are; rank 0 alone locks the folder,
 * prints and writes the reports.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/run/par_mpi.h"
#include "sim/study/tune_impl.h"
#include "sim/config/scenario.h"
#include "sim/engine/sha256.h"
#include "sim/engine/textfile.h"
#include "sim/engine/textsafe.h"
#include "sim/run/outdir.h"
#include "sim/run/results.h"
#include "sim/readers/topo_read.h"

/* Rank 0 speaks for the job; the others say nothing. */
static struct sweep_mpi mpi = {0, 1};

static int input_error(const struct diag *d)
{
	if (!mpi.rank) {
		fputs("rocesim: ", stderr);
		diag_print(d, stderr);
	}
	return ROCESIM_EXIT_INPUT;
}

static int no_memory(void)
{
	fputs("rocesim: out of memory\n", stderr);
	return ROCESIM_EXIT_INPUT;
}

char *tune_key_value(const char *key, const char *value)
{
	size_t len = strlen(key) + strlen(value) + 2;
	char *kv = malloc(len);

	if (kv)
		snprintf(kv, len, "%s=%s", key, value);
	return kv;
}

/* The scenario with every parameter at its low (@hi 0) or high end; 0, or
 * the error printed and the exit code. A whole number range of a key that
 * takes fractions (a probability) is searched as a real range. */
static int check_ends(struct tune_ctx *c, int hi, struct scenario **keep)
{
	char *sets[TUNE_MAX_PARAMS + TUNE_MAX_SETS] = {0}, buf[64];
	size_t n = c->pb.n_params + c->n_fixed;
	struct diag d = {0};
	int err = 0;

	for (size_t i = 0; i < c->pb.n_params && !err; i++) {
		struct tune_param *p = &c->pb.params[i];

		tune_format(p, hi ? p->hi : p->lo, buf, sizeof(buf));
		if (!(sets[i] = tune_key_value(p->key, buf)))
			err = -ENOMEM;
	}
	for (size_t f = 0; f < c->n_fixed && !err; f++)
		if (!(sets[c->pb.n_params + f] = strdup(c->fixed[f])))
			err = -ENOMEM;
	if (!err)
		err = sweep_load_point(c->sp.scenario, NULL, sets, n, keep, &d);
	for (size_t i = 0; !err && !hi && i < c->pb.n_params; i++) {
		struct tune_param *p = &c->pb.params[i];
		char *was = sets[i];
		struct diag ignore = {0};

		if (p->fam != SWEEP_FAM_INT)
			continue;
		snprintf(buf, sizeof(buf), "%.10g", p->lo + 0.5);
		if (!(sets[i] = tune_key_value(p->key, buf))) {
			sets[i] = was;
			err = -ENOMEM;
			break;
		}
		if (!sweep_load_point(c->sp.scenario, NULL, sets, n, NULL, &ignore)) {
			p->fam = SWEEP_FAM_REAL;
			p->grain = (p->hi - p->lo) / 1000;
		}
		free(sets[i]);
		sets[i] = was;
	}
	for (size_t i = 0; i < n; i++)
		free(sets[i]);
	if (err == -ENOMEM) {
		if (keep) {
			scn_free(*keep);
			*keep = NULL;
		}
		return no_memory();
	}
	if (err) {
		char line[1200];

		if (!mpi.rank)
			fprintf(stderr, "rocesim: tune: every key at its %s end: %s\n",
				hi ? "high" : "low", diag_str(&d, line, sizeof(line)));
		return ROCESIM_EXIT_INPUT;
	}
	return 0;
}

/* ---- the scenario's own point ---- */

/* The value at key path @key ("switch.ecn.kmin") of @eff, or NULL. */
static const json_t *eff_value(const json_t *eff, const char *key)
{
	char buf[160], *part, *save = NULL;
	const json_t *v = eff;

	snprintf(buf, sizeof(buf), "%s", key);
	for (part = strtok_r(buf, ".", &save); part && v; part = strtok_r(NULL, ".", &save))
		v = json_object_get(v, part);
	return json_is_number(v) ? v : NULL;
}

/*
 * The scenario's own value of every varied key (with the --set keys
 * applied), as `rocesim check --json` gives them in "effective" (and
 * stop), into
 * c->search.base_x, clamped into the ranges; c->base_note says which were
 * outside. When a key's value is not there (a key check does not show, or
 * a value computed per port), the scenario's own point is not run and the
 * note says why. 0, or -ENOMEM.
 */
static int base_values(struct tune_ctx *c)
{
	struct scenario *s = NULL;
	struct topo *t = NULL;
	struct diag d = {0};
	json_t *eff = NULL;
	size_t len = 0;
	int err;

	err = scn_load(c->sp.scenario, (const char *const *)c->fixed, c->n_fixed, &s, &d);
	if (!err && !(err = topo_build(&s->topo, &t, &d)))
		err = scn_resolve(s, t, &d);
	if (!err && !(eff = res_effective(s, t)))
		err = -ENOMEM;
	/* the scenario's own keys that effective does not hold */
	if (!err && json_object_set_new(eff, "stop", json_integer((json_int_t)s->stop)))
		err = -ENOMEM;
	topo_free(t);
	scn_free(s);
	if (err == -ENOMEM)
		return err;
	c->search.has_base = !err;
	for (size_t i = 0; i < c->pb.n_params && c->search.has_base; i++) {
		const struct tune_param *p = &c->pb.params[i];
		const json_t *v = eff_value(eff, p->key);
		double x = v ? json_number_value(v) : NAN;
		char was[64], now[64];

		if (!v) {
			snprintf(
			    c->base_note, sizeof(c->base_note),
			    "the scenario's own %s is not known to tune (`rocesim check --json` "
			    "does not show it): its own point is not run, and the answer is not "
			    "compared with it",
			    p->key);
			c->search.has_base = 0;
			break;
		}
		c->search.base_x[i] = tune_snap(p, x);
		if (c->search.base_x[i] == x || len >= sizeof(c->base_note))
			continue;
		tune_format(p, x, was, sizeof(was));
		tune_format(p, c->search.base_x[i], now, sizeof(now));
		len += (size_t)snprintf(
		    c->base_note + len, sizeof(c->base_note) - len,
		    "%sthe scenario's %s %s is %s the range: its point runs at %s", len ? "; " : "",
		    p->key, was, x < p->lo || x > p->hi ? "outside" : "off the grain of", now);
	}
	json_decref(eff);
	return 0;
}

/* ---- evaluating points ---- */

static struct tune_row *new_row(struct tune_ctx *c)
{
	if (c->n_rows == c->cap_rows) {
		size_t cap = c->cap_rows ? 2 * c->cap_rows : 64;
		struct tune_row *r = realloc(c->rows, cap * sizeof(*r));

		if (!r)
			return NULL;
		c->rows = r;
		c->cap_rows = cap;
	}
	memset(&c->rows[c->n_rows], 0, sizeof(c->rows[0]));
	return &c->rows[c->n_rows++];
}

/* Append point @pt's values to the zip axes: it becomes point pt->id - 1. */
static int add_point(struct tune_ctx *c, const struct tune_point *pt)
{
	for (size_t i = 0; i < c->pb.n_params; i++) {
		struct sweep_axis *ax = &c->sp.axes[i];
		char buf[64], **v = realloc(ax->values, (ax->n + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ax->values = v;
		tune_format(&c->pb.params[i], pt->x[i], buf, sizeof(buf));
		if (!(v[ax->n] = strdup(buf)))
			return -ENOMEM;
		ax->n++;
	}
	for (size_t f = 0; f < c->n_fixed; f++) {
		struct sweep_axis *ax = &c->sp.axes[c->pb.n_params + f];
		char **v = realloc(ax->values, (ax->n + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ax->values = v;
		if (!(v[ax->n] = strdup(strchr(c->fixed[f], '=') + 1)))
			return -ENOMEM;
		ax->n++;
	}
	c->sp.n_points++;
	return 0;
}

/* Does @metric count on every flow having finished (a collective's time,
 * a flow completion quantile)? */
static int needs_flows(const char *metric)
{
	return !strncmp(metric, "collective.", 11) || !strncmp(metric, "fct_us.", 7);
}

/*
 * The metrics of run @r (its results.json) into @vals; 0, 1 when flows a
 * metric needs did not finish by `stop` (their values NAN, the share of
 * flows not done in *@unfinished), -ENODATA (the error in c->missing), or
 * -ENOMEM. fct_us.* of a run where some flows did not finish is not
 * measured: a quantile of the finished ones would beat a run where all did.
 */
static int read_metrics(struct tune_ctx *c, const struct sweep_run *r, const struct tune_point *pt,
			double *vals, double *unfinished)
{
	char path[SWEEP_PATH + 64];
	json_t *j;
	size_t n = c->pb.n_obj + c->pb.n_cons;
	double flows = 0, done = 0;
	int partial, rc = 0;

	snprintf(path, sizeof(path), "%s/points/%s/results.json", c->dir, r->id);
	if (!(j = json_load_file(path, 0, NULL))) {
		snprintf(c->missing, sizeof(c->missing), "%s cannot be read", path);
		return -ENODATA;
	}
	partial =
	    !res_metric(j, "flows", &flows) && !res_metric(j, "flows_done", &done) && done < flows;
	*unfinished = partial ? (flows - done) / flows : 0;
	for (size_t k = 0; k < n; k++) {
		const struct tune_metric *m =
		    k < c->pb.n_obj ? &c->pb.obj[k].m : &c->pb.cons[k - c->pb.n_obj].m;
		int missing;

		if (m->param >= 0) {
			vals[k] = pt->x[m->param];
			continue;
		}
		missing = res_metric(j, m->name, &vals[k]) != 0;
		if (missing && !strncmp(m->name, "training.", 9) &&
		    json_is_object(json_object_get(json_object_get(j, "summary"), "training"))) {
			/* no iteration ended by stop: not measured, as a flow short of its end */
			vals[k] = NAN;
			*unfinished = 1;
			rc = 1;
		} else if (needs_flows(m->name) &&
			   (partial ||
			    (missing && json_is_object(json_object_get(
					    json_object_get(j, "summary"), "collective"))))) {
			vals[k] = NAN;
			*unfinished = partial ? *unfinished : 1;
			rc = 1;
		} else if (missing) {
			snprintf(c->missing, sizeof(c->missing),
				 "%s: the runs of %s give no %s (its workload does not measure it)",
				 path, c->sp.scenario, m->name);
			json_decref(j);
			return -ENODATA;
		}
	}
	json_decref(j);
	return rc;
}

/*
 * Does run @r, a fluid point, give no verdict: unsure (the model converges
 * but the packet model may drain the queue or swing there) or settling
 * (the flows short of the port at the end of its run)? Its numbers are the
 * fluid model's, but such a point is no answer: the reason into @why.
 */
static int fluid_no_verdict(const struct tune_ctx *c, const struct sweep_run *r, char *why,
			    size_t size)
{
	char path[SWEEP_PATH + 64];
	const char *v;
	json_t *j;
	int none = 0;

	if (!c->pb.fluid)
		return 0;
	snprintf(path, sizeof(path), "%s/points/%s/results.json", c->dir, r->id);
	j = json_load_file(path, 0, NULL);
	v = json_string_value(
	    json_object_get(json_object_get(json_object_get(j, "summary"), "fluid"), "verdict"));
	if (v && !strcmp(v, "unsure")) {
		snprintf(why, size,
			 "the fluid model's verdict is unsure (the packet model may drain the "
			 "queue or swing there): confirm with --model packet");
		none = 1;
	} else if (v && !strcmp(v, "settling")) {
		snprintf(why, size,
			 "the fluid model is still settling at the end of its run: no verdict; "
			 "confirm with --model packet");
		none = 1;
	}
	json_decref(j);
	return none;
}

/* The runs of @runs (@n), shared among the ranks; every rank then knows
 * how each ended. 0 or a negative errno. */
static int run_batch(struct tune_ctx *c, struct sweep_run *runs, size_t n)
{
	struct sweep_run *mine;
	size_t m = 0;
	int err, sig;

	if (mpi.size < 2)
		return sweep_run_all(&c->sp, runs, n, &c->x);
	if (!(mine = calloc(n / (size_t)mpi.size + 1, sizeof(*mine))))
		par_mpi_abort(ROCESIM_EXIT_IO);
	for (size_t i = (size_t)mpi.rank; i < n; i += (size_t)mpi.size)
		mine[m++] = runs[i];
	err = sweep_run_all(&c->sp, mine, m, &c->x);
	for (size_t i = (size_t)mpi.rank, k = 0; i < n; i += (size_t)mpi.size)
		runs[i] = mine[k++];
	free(mine);
	sig = sweep_stop_flag ? (int)sweep_stop_sig : 0;
	sweep_mpi_gather(&mpi, runs, n, &err, &sig);
	sweep_mpi_bcast(&mpi, runs, n * sizeof(*runs));
	if (sig) {
		sweep_stop_sig = sig;
		sweep_stop_flag = 1;
	}
	return err;
}

/* Two values of a metric alike (NAN: both not measured)? */
static int same(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

/*
 * After the first batch (the scenario's own point, when its values are
 * known), run on every seed of the probe: do the results depend on the
 * seed? If no metric of any point moved from one seed to the next, the
 * rest of the search runs one seed a point; else every point runs on the
 * same seeds, so that points are compared seed by seed.
 */
static void decide_seeds(struct tune_ctx *c, size_t first_row)
{
	const struct tune_problem *pb = &c->pb;
	size_t slots = pb->n_obj + pb->n_cons, runs = 0;
	double lo = INFINITY, hi = -INFINITY;
	int moved = 0;

	c->probed = 1;
	if (pb->n_seeds < 2) /* a budget of one run: nothing to compare */
		return;
	for (size_t r = first_row; r < c->n_rows; r++) {
		const struct tune_row *a = &c->rows[r];

		if (!strcmp(a->status, "refused") || !strcmp(a->status, "failed"))
			continue;
		runs++;
		for (size_t q = r + 1; q < c->n_rows && !moved; q++)
			for (size_t k = 0; k < slots && c->rows[q].point == a->point; k++)
				moved |= !same(a->vals[k], c->rows[q].vals[k]);
		if (a->point == c->rows[first_row].point && !isnan(a->vals[0])) {
			lo = fmin(lo, a->vals[0]);
			hi = fmax(hi, a->vals[0]);
		}
	}
	c->seed_dependent = moved;
	if (!runs)
		return;
	if (moved) {
		char a[48], b[48];

		tune_range_format(pb->obj[0].m.name, lo, hi, a, b, sizeof(a));
		snprintf(c->seed_note, sizeof(c->seed_note),
			 "the results depend on the seed (%s %s to %s over seeds %llu-%llu at the "
			 "first point): every point runs on the same %zu seeds, compared seed by "
			 "seed",
			 pb->obj[0].m.name, a, b, (unsigned long long)c->sp.seeds[0],
			 (unsigned long long)c->sp.seeds[pb->n_seeds - 1], pb->n_seeds);
		return;
	}
	snprintf(c->seed_note, sizeof(c->seed_note),
		 "the first point gave the same results on seeds %llu-%llu: one seed a point "
		 "from there on",
		 (unsigned long long)c->sp.seeds[0],
		 (unsigned long long)c->sp.seeds[pb->n_seeds - 1]);
	c->pb.n_seeds = 1;
	c->pb.batch = c->slots ? c->slots : 1;
}

static int evaluate(void *arg, struct tune_point *pts, size_t n)
{
	struct tune_ctx *c = arg;
	size_t n_seeds = c->pb.n_seeds, k = 0, rows_before = c->n_rows;
	struct sweep_run *runs = calloc(n * n_seeds, sizeof(*runs));
	int err = 0;

	if (!runs)
		return -ENOMEM;
	for (size_t i = 0; i < n && !err; i++) {
		struct tune_point *pt = &pts[i];
		size_t p = pt->id - 1;
		char *sets[TUNE_MAX_PARAMS + TUNE_MAX_SETS];
		struct diag d = {0};
		struct tune_row *row;

		if ((err = add_point(c, pt)) || (err = sweep_spec_sets(&c->sp, p, sets)))
			break;
		err = sweep_load_point(c->sp.scenario, NULL, sets, c->sp.n_axes, NULL, &d);
		sweep_sets_free(sets, c->sp.n_axes);
		if (err == -ENOMEM)
			break;
		if (!err) {
			for (size_t s = 0; s < n_seeds; s++, k++) {
				runs[k].point = p;
				runs[k].seed = c->sp.seeds[s];
				sweep_spec_id(&c->sp, p, 0, runs[k].seed, runs[k].id);
			}
			continue;
		}
		err = 0;
		pt->state = TUNE_REFUSED;
		pt->viol = TUNE_VIOL_FAILED;
		if (!(row = new_row(c))) {
			err = -ENOMEM;
			break;
		}
		row->point = p;
		row->status = "refused";
		snprintf(row->id, sizeof(row->id), "p%0*zu", c->sp.id_width, p + 1);
		for (size_t m = 0; m < TUNE_SLOTS; m++)
			row->vals[m] = NAN;
		diag_str(&d, row->error, sizeof(row->error));
	}
	if (!err && k)
		err = run_batch(c, runs, k);
	if (!err && sweep_stop_flag)
		err = -EINTR;
	for (size_t r = 0, i = 0; !err && r < k; r++) {
		struct tune_point *pt;
		struct tune_row *row = new_row(c);
		size_t seed = r % n_seeds;

		while (pts[i].id - 1 != runs[r].point)
			i++;
		pt = &pts[i];
		if (!row) {
			err = -ENOMEM;
			break;
		}
		row->point = pt->id - 1;
		row->seed = runs[r].seed;
		snprintf(row->id, sizeof(row->id), "%s", runs[r].id);
		for (size_t m = 0; m < TUNE_SLOTS; m++)
			row->vals[m] = NAN;
		pt->runs++;
		if (runs[r].status == SWEEP_FAILED || runs[r].status == SWEEP_NOT_RUN) {
			row->status = "failed";
			snprintf(row->error, sizeof(row->error), "%s", runs[r].error);
			pt->state = TUNE_FAILED;
		} else {
			double share = 0;

			row->status = runs[r].exit_code == 1 ? "expect-failed" : "ok";
			err = read_metrics(c, &runs[r], pt, row->vals, &share);
			if (!err && fluid_no_verdict(c, &runs[r], row->error, sizeof(row->error))) {
				/* its metrics stay in tune.csv; the point is no answer */
				row->status = "unsure";
				pt->state = TUNE_FAILED;
				c->n_unsure++;
			}
			if (err == 1) {
				err = 0;
				row->status = "unfinished";
				snprintf(row->error, sizeof(row->error),
					 "%.0f%% of the flows did not finish by stop: not measured",
					 100 * share);
				if (pt->state != TUNE_FAILED)
					pt->state = TUNE_UNFINISHED;
				pt->unfinished = fmax(pt->unfinished, share);
			}
		}
		if (!err)
			tune_fold(&c->pb, pt, seed, row->vals);
		if (pt->state == TUNE_FAILED)
			pt->viol = TUNE_VIOL_FAILED;
		if (!err && c->x.progress && !mpi.rank && seed == n_seeds - 1)
			fprintf(stderr, "tune: point %zu: %s\n", pt->id,
				pt->state == TUNE_UNFINISHED ? "flows not finished by stop"
				: !strcmp(row->status, "unsure")
				    ? "the fluid model is unsure: confirm with --model packet"
				: pt->state != TUNE_RAN ? "failed"
				: pt->viol > 0		? "constraints not met"
							: "constraints met");
	}
	free(runs);
	if (!err && c->probe && !c->probed)
		decide_seeds(c, rows_before);
	return err;
}

/* ---- the verb ---- */

/* The sweep the points run as: zip axes, the seeds, ids wide enough for
 * the budget. */
static int build_spec(struct tune_ctx *c, const struct scenario *s)
{
	struct sweep_spec *sp = &c->sp;

	if (!(sp->name = strdup(s->name)) ||
	    !(sp->axes = calloc(c->pb.n_params + c->n_fixed, sizeof(*sp->axes))) ||
	    !(sp->seeds = calloc(c->pb.n_seeds, sizeof(*sp->seeds))))
		return -ENOMEM;
	sp->n_axes = c->pb.n_params + c->n_fixed;
	sp->zip = 1;
	sp->fluid = c->pb.fluid;
	for (size_t i = 0; i < c->pb.n_params; i++)
		if (!(sp->axes[i].key = strdup(c->pb.params[i].key)))
			return -ENOMEM;
	for (size_t f = 0; f < c->n_fixed; f++)
		if (!(sp->axes[c->pb.n_params + f].key =
			  strndup(c->fixed[f], (size_t)(strchr(c->fixed[f], '=') - c->fixed[f]))))
			return -ENOMEM;
	for (size_t i = 0; i < c->pb.n_seeds; i++)
		sp->seeds[i] = s->seed + i;
	sp->n_seeds = c->pb.n_seeds;
	sp->id_width = 3;
	for (size_t m = 1000; m <= c->pb.budget; m *= 10)
		sp->id_width++;
	return 0;
}

/* Lock @dir and refuse a folder that holds a sweep or another scenario's
 * tune; 0 or the exit code (printed). */
static int prepare_folder(struct tune_ctx *c, const char *dir, struct outdir *od)
{
	char path[OUTDIR_PATH + 32];
	json_t *j;
	int err;

	if ((err = outdir_open(od, dir))) {
		if (err == -EBUSY)
			fprintf(stderr,
				"rocesim: %s is in use by another run, sweep or tune (pid %ld): "
				"wait for it to end or give another -o\n",
				sweep_term(dir), (long)od->holder);
		else
			fprintf(stderr, "rocesim: cannot write in %s: %s\n", od->where,
				strerror(-err));
		return ROCESIM_EXIT_INPUT;
	}
	snprintf(path, sizeof(path), "%s/sweep.json", dir);
	if (!access(path, F_OK)) {
		fprintf(stderr, "rocesim: %s holds a sweep: give another -o\n", sweep_term(dir));
		return ROCESIM_EXIT_INPUT;
	}
	snprintf(path, sizeof(path), "%s/tune.json", dir);
	if (!access(path, F_OK)) {
		const char *was;

		j = json_load_file(path, 0, NULL);
		was = json_string_value(json_object_get(json_object_get(j, "scenario"), "path"));
		if (!txt_json_is(json_object_get(json_object_get(j, "scenario"), "path"),
				 c->sp.scenario)) {
			fprintf(stderr,
				"rocesim: %s holds the tune of %s: give another -o or remove the "
				"folder\n",
				sweep_term(dir), was ? was : "another scenario");
			json_decref(j);
			return ROCESIM_EXIT_INPUT;
		}
		json_decref(j);
	}
	return 0;
}

static void free_ctx(struct tune_ctx *c)
{
	for (size_t i = 0; i < c->pb.n_params; i++)
		free(c->pb.params[i].key);
	sweep_spec_free(&c->sp);
	tune_search_free(&c->search);
	free(c->rows);
	json_decref(c->check);
}

int tune__main(const struct tune_args *a)
{
	struct tune_ctx c = {.sp = {.scenario = (char *)a->scenario}};
	struct outdir od = {.lock_fd = -1};
	struct scenario *s = NULL;
	char dir[OUTDIR_PATH], self[OUTDIR_PATH], *text = NULL;
	struct diag d = {0};
	size_t tlen;
	int err, rc = ROCESIM_EXIT_INPUT;

	c.rank = mpi.rank;
	c.ranks = mpi.size;
	if ((err = textfile_read(a->scenario, &text, &tlen))) {
		if (!mpi.rank)
			fprintf(stderr, "rocesim: %s: cannot read: %s\n", a->scenario,
				err == -ENOMEM ? "out of memory" : textfile_strerror(err));
		goto out;
	}
	sha256_hex(text, tlen, c.sp.sha256);
	if ((err = tune_problem_build(&c, a, mpi.size, &d))) {
		rc = err == -ENOMEM ? no_memory() : input_error(&d);
		goto out;
	}
	if ((rc = check_ends(&c, 1, NULL)) || (rc = check_ends(&c, 0, &s)))
		goto out;
	if (c.pb.fluid && fluid_screen_refusal(s)) {
		fprintf(stderr, "rocesim: %s: %s\n", c.sp.scenario, fluid_screen_refusal(s));
		rc = ROCESIM_EXIT_INPUT;
		goto out;
	}
	if (build_spec(&c, s)) {
		rc = no_memory();
		goto out;
	}
	if (a->runs.outdir)
		snprintf(dir, sizeof(dir), "%s", a->runs.outdir);
	else
		snprintf(dir, sizeof(dir), "out/%s-tune", s->name);
	if (sweep_self_path(self, sizeof(self))) {
		fprintf(stderr, "rocesim: cannot find the rocesim executable\n");
		goto out;
	}
	if (!mpi.rank)
		rc = prepare_folder(&c, dir, &od);
	if (mpi.size > 1) /* the others go on only if rank 0 could take the folder */
		sweep_mpi_bcast(&mpi, &rc, sizeof(rc));
	if (rc)
		goto out;
	sweep_catch_signals();
	c.dir = dir;
	c.x = (struct sweep_exec){.self = self,
				  .run_main = par_mpi_launched() ? NULL : a->runs.run_main,
				  .dir = dir,
				  .jobs = (unsigned)a->runs.jobs,
				  .progress = a->runs.progress && !mpi.rank,
				  .stop = &sweep_stop_flag};
	c.search = (struct tune_search){.pb = &c.pb, .eval = evaluate, .ctx = &c};
	if (base_values(&c)) {
		rc = no_memory();
		goto out;
	}
	err = tune_run(&c.search);
	rc = ROCESIM_EXIT_IO;
	if (err == -ENODATA) {
		if (!mpi.rank)
			fprintf(stderr, "rocesim: tune: %s\n", c.missing);
		rc = ROCESIM_EXIT_INPUT;
	} else if (err && err != -EINTR) {
		if (!mpi.rank)
			fprintf(stderr, "rocesim: the tune stopped: %s\n", strerror(-err));
	}
	if (!mpi.rank && !err)
		tune_check(&c, self);
	if (!mpi.rank && (err = tune_write(&c, s))) {
		fprintf(stderr, "rocesim: cannot write %s/tune.json or tune.csv: %s\n",
			sweep_term(dir), strerror(-err));
		goto out;
	}
	if (rc == ROCESIM_EXIT_INPUT)
		goto out;
	if (sweep_stop_flag) {
		if (!mpi.rank)
			fprintf(
			    stderr,
			    "rocesim: tune interrupted by %s: %zu runs kept in %s; run the same "
			    "tune again to resume\n",
			    sweep_stop_sig == SIGINT	? "SIGINT"
			    : sweep_stop_sig == SIGTERM ? "SIGTERM"
							: "SIGHUP",
			    c.search.runs, sweep_term(dir));
		rc = 128 + sweep_stop_sig;
		goto out;
	}
	if (!a->runs.quiet && !mpi.rank)
		tune_print(&c, s, stdout);
	{
		long b = tune_best(&c.search);

		rc = b >= 0 && c.search.pts[b].state == TUNE_RAN && c.search.pts[b].viol == 0
			 ? 0
			 : ROCESIM_EXIT_FOUND;
		if (rc && !mpi.rank)
			fprintf(stderr,
				"rocesim: tune: no point of %zu met every constraint%s (tune.json: "
				"the closest)\n",
				c.search.n, c.search.exhausted ? " within the budget" : "");
		if (c.n_unsure && !mpi.rank)
			fprintf(stderr,
				"rocesim: tune: %zu runs where the fluid model gives no verdict "
				"(tune.csv: status unsure) count as failed, not as met: confirm "
				"them with --model packet\n",
				c.n_unsure);
	}
out:
	outdir_close(&od);
	scn_free(s);
	free(text);
	free_ctx(&c);
	return rc;
}

int tune__launch(int argc, char **argv,
		 int (*verb)(int argc, char **argv, long local_ranks, sweep_main_fn run_main),
		 sweep_main_fn run_main)
{
	int rc, fd;

	if (!par_mpi_launched())
		return verb(argc, argv, 1, run_main);
	if (sweep_mpi_start(&mpi))
		return ROCESIM_EXIT_INPUT;
	/* every rank follows the same search: rank 0 says what any would */
	if (mpi.rank && (fd = open("/dev/null", O_WRONLY)) >= 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		close(fd);
	}
	rc = verb(argc, argv, mpi.size > 1 ? par_mpi_local_ranks() : 1, run_main);
	fflush(NULL);
	/* every rank ran the same search: rank 0's code is the job's */
	sweep_mpi_bcast(&mpi, &rc, sizeof(rc));
	par_mpi_finalize();
	return rc;
}
