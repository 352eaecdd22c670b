/*
 * The C interface (rocesim.h) over the layers below it: a scenario is its
 * file, overlays and keys, loaded again whole at each change so that every
 * change is checked as `rocesim run` checks its command line; a run builds
 * the fabric from a fresh load (sim_init takes the scenario it runs) and
 * keeps its results as the document results.json holds. A check is
 * sim/lint's and a comparison sim/study's, their findings and rows lent
 * out as they are.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/api/rocesim.h"
#include "sim/config/scenario.h"
#include "sim/engine/diag.h"
#include "sim/lint/lint.h"
#include "sim/study/compare_impl.h"
#include "sim/run/results.h"
#include "sim/run/sim.h"

struct rs_scenario {
	char *path;
	char **overlays; /* --with, in order */
	size_t n_overlays;
	char **sets; /* --set, in order */
	size_t n_sets;
	struct scenario *scn; /* the last load that succeeded */
};

struct rs_results {
	json_t *doc;	 /* results.json */
	const char *end; /* end_name: static */
};

const char *rs_version(void)
{
	return ROCESIM_VERSION;
}

/* @d into @err (when given); returns @code. */
static int fail(rs_error *err, const struct diag *d, int code)
{
	char line[sizeof(err->text)];

	if (!err)
		return code;
	memset(err, 0, sizeof(*err));
	if (code == -ENOMEM && !d->msg[0]) {
		snprintf(err->text, sizeof(err->text), "out of memory");
		return code;
	}
	snprintf(err->file, sizeof(err->file), "%s", d->file);
	err->line = d->line;
	snprintf(err->key, sizeof(err->key), "%s", d->path);
	snprintf(err->text, sizeof(err->text), "%s", diag_str(d, line, sizeof(line)));
	return code;
}

/* A fresh load of @s's file, overlays and keys into *@out. */
static int load(const rs_scenario *s, struct scenario **out, struct diag *d)
{
	const struct scn_load_opts o = {.overlays = (const char *const *)s->overlays,
					.n_overlays = s->n_overlays,
					.sets = (const char *const *)s->sets,
					.n_sets = s->n_sets};

	memset(d, 0, sizeof(*d));
	return scn_load_with(s->path, &o, out, d);
}

/* Load @s again; on success its scenario is the new one. */
static int reload(rs_scenario *s, rs_error *err)
{
	struct scenario *scn;
	struct diag d;
	int rc = load(s, &scn, &d);

	if (rc)
		return fail(err, &d, rc);
	scn_free(s->scn);
	s->scn = scn;
	return 0;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void rs_scenario_free(rs_scenario *s)
{
	if (!s)
		return;
	free(s->path);
	free_list(s->overlays, s->n_overlays);
	free_list(s->sets, s->n_sets);
	scn_free(s->scn);
	free(s);
}

/*
 * jansson's hash seed, made once before any object: two threads making
 * their first objects at once would race on it (jansson's documentation of
 * json_object_seed asks threaded programs to seed first).
 */
static pthread_once_t seeded = PTHREAD_ONCE_INIT;

static void seed_jansson(void)
{
	json_object_seed(0);
}

int rs_scenario_load(const char *path, rs_scenario **out, rs_error *err)
{
	const struct diag oom = {0};
	rs_scenario *s;
	int rc;

	/* every other call works on a scenario: seeded by then */
	pthread_once(&seeded, seed_jansson);
	s = calloc(1, sizeof(*s));

	if (!s || !(s->path = strdup(path))) {
		free(s);
		return fail(err, &oom, -ENOMEM);
	}
	if ((rc = reload(s, err))) {
		rs_scenario_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

/* Append a copy of @item to the list *@v of *@n; on a failed load, take it back. */
static int append_and_load(rs_scenario *s, char ***v, size_t *n, const char *item, rs_error *err)
{
	const struct diag oom = {0};
	char **grown = realloc(*v, (*n + 1) * sizeof(**v));
	int rc;

	if (!grown)
		return fail(err, &oom, -ENOMEM);
	*v = grown;
	if (!(grown[*n] = strdup(item)))
		return fail(err, &oom, -ENOMEM);
	(*n)++;
	if ((rc = reload(s, err))) {
		free(grown[--*n]);
		return rc;
	}
	return 0;
}

int rs_scenario_overlay(rs_scenario *s, const char *path, rs_error *err)
{
	return append_and_load(s, &s->overlays, &s->n_overlays, path, err);
}

int rs_scenario_set(rs_scenario *s, const char *assignment, rs_error *err)
{
	return append_and_load(s, &s->sets, &s->n_sets, assignment, err);
}

const char *rs_scenario_name(const rs_scenario *s)
{
	return s->scn->name;
}

/* @e as rocesim.h names it. */
static const char *end_name(enum sim_end e)
{
	switch (e) {
	case SIM_END_DONE:
		return "done";
	case SIM_END_STOP:
		return "stop";
	case SIM_END_EVENTS:
		return "events";
	case SIM_END_IDLE:
		return "idle";
	case SIM_END_DEADLOCK:
		return "deadlock";
	default:
		return "error"; /* an interrupt or a failed event: rs_run fails */
	}
}

/*
 * The results document of the finished @sim, as `rocesim run` writes it:
 * the run's own, then what produced it (provenance of the inputs as they
 * were loaded: @prov), the effective parameters and the gates.
 */
static json_t *results_of(const struct sim *sim, json_t *prov)
{
	json_t *res = res_build(sim);

	if (res && (json_object_set(res, "provenance", prov) ||
		    json_object_set_new(res, "effective", res_effective(sim->scn, sim->topo)) ||
		    res_add_expects(res, sim->scn) < 0)) {
		json_decref(res);
		return NULL;
	}
	return res;
}

/*
 * Run @sim as `rocesim run` does, the files it would write sent nowhere:
 * the time series' sampler is an event of the run (its last sample can be
 * the run's last event, its end time), so it samples as it would there.
 */
static int run_discarding(struct sim *sim)
{
	const struct scenario *s = sim->scn;
	int series = s->out.sample != 0, rates = series && s->nic.cc == NIC_CC_DCQCN;
	int pfc = s->out.pfc_events != 0, rc;
	FILE *null = series || pfc ? fopen("/dev/null", "w") : NULL;

	if ((series || pfc) && !null)
		return errno ? -errno : -EIO;
	rc = sim_run(sim, series ? null : NULL, rates ? null : NULL, pfc ? null : NULL, 0);
	if (null)
		fclose(null);
	return rc;
}

int rs_run(const rs_scenario *s, rs_results **out, rs_error *err)
{
	const struct diag oom = {0};
	struct scenario *scn;
	struct sim sim;
	struct diag d;
	json_t *prov = NULL;
	rs_results *r;
	int rc;

	if ((rc = load(s, &scn, &d)))
		return fail(err, &d, rc);
	if ((rc = sim_init(&sim, scn, &d))) {
		sim_fini(&sim);
		return fail(err, &d, rc);
	}
	/* the inputs' digests as they were loaded, not as they are after the run */
	prov = res_provenance(sim.scn,
			      &(struct res_prov_in){.overlays = (const char *const *)s->overlays,
						    .n_overlays = s->n_overlays,
						    .sets = (const char *const *)s->sets,
						    .n_sets = s->n_sets});
	r = calloc(1, sizeof(*r));
	rc = !prov || !r ? -ENOMEM : run_discarding(&sim);
	if (!rc && !(r->doc = results_of(&sim, prov)))
		rc = -ENOMEM;
	if (rc) {
		memset(&d, 0, sizeof(d));
		if (rc != -ENOMEM)
			diag_set(&d, "", 0, "", "the run failed at %.3f us simulated: %s",
				 simtime_to_us(sim.end_time), strerror(-rc));
		free(r);
		r = NULL;
	} else {
		r->end = end_name(sim.end);
	}
	json_decref(prov);
	sim_fini(&sim);
	if (rc)
		return fail(err, rc == -ENOMEM ? &oom : &d, rc);
	*out = r;
	return 0;
}

const char *rs_results_end(const rs_results *r)
{
	return r->end;
}

int rs_results_number(const rs_results *r, const char *name, double *out)
{
	return res_metric(r->doc, name, out);
}

char *rs_results_json(const rs_results *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	if (res_write_json(r->doc, f)) {
		fclose(f);
		free(text);
		return NULL;
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

void rs_results_free(rs_results *r)
{
	if (!r)
		return;
	json_decref(r->doc);
	free(r);
}

/* ---- checks ------------------------------------------------------------------ */

struct rs_findings {
	struct chk c;  /* the findings, owning their strings */
	rs_finding *f; /* the same, as the interface shows them */
	size_t errors; /* of them, errors */
};

int rs_check_file(const char *path, const char *const *overlays, size_t n_overlays,
		  const char *const *sets, size_t n_sets, rs_findings **out, rs_error *err)
{
	const struct chk_args a = {.scenario = path,
				   .withs = (const char **)overlays,
				   .n_withs = n_overlays,
				   .sets = (const char **)sets,
				   .n_sets = n_sets,
				   .max_cycles = CHK_MAX_CYCLES};
	struct scenario *scn = NULL;
	struct topo *t = NULL;
	struct topo_routes *r = NULL;
	struct diag d = {0};
	rs_findings *k;
	int rc;

	*out = NULL;
	if (!(k = calloc(1, sizeof(*k))))
		return fail(err, &d, -ENOMEM);
	seed_jansson();
	rc = chk_analyse(&a, &k->c, &scn, &t, &r, &d);
	topo_routes_free(r);
	topo_free(t);
	scn_free(scn);
	if (!rc && !(k->f = calloc(k->c.n + 1, sizeof(*k->f))))
		diag_set(&d, "", 0, "", "out of memory");
	if (rc || !k->f) {
		rc = strcmp(d.msg, "out of memory") ? -EINVAL : -ENOMEM;
		rs_findings_free(k);
		return fail(err, &d, rc);
	}
	for (size_t i = 0; i < k->c.n; i++) {
		const struct chk_finding *f = &k->c.f[i];

		k->f[i] = (rs_finding){.severity = chk_severity_name[f->severity],
				       .code = f->code,
				       .where = f->where,
				       .message = f->message,
				       .file = f->file,
				       .line = f->line,
				       .key = f->key};
		k->errors += f->severity == CHK_ERROR;
	}
	*out = k;
	return 0;
}

int rs_check(const rs_scenario *s, rs_findings **out, rs_error *err)
{
	return rs_check_file(s->path, (const char *const *)s->overlays, s->n_overlays,
			     (const char *const *)s->sets, s->n_sets, out, err);
}

size_t rs_findings_count(const rs_findings *c)
{
	return c->c.n;
}

size_t rs_findings_errors(const rs_findings *c)
{
	return c->errors;
}

const rs_finding *rs_findings_get(const rs_findings *c, size_t i)
{
	return i < c->c.n ? &c->f[i] : NULL;
}

void rs_findings_free(rs_findings *c)
{
	if (!c)
		return;
	chk_free(&c->c);
	free(c->f);
	free(c);
}

/* ---- comparisons --------------------------------------------------------------- */

struct rs_comparison {
	struct cmp_side b, n;
	struct cmp_result r;
	rs_compared *rows; /* r's rows, as the interface shows them */
};

int rs_compare(const char *base, const char *new_side, rs_comparison **out, rs_error *err)
{
	const struct cmp_opts o = {0};
	char why[CMP_ERR] = "";
	struct diag d = {0};
	rs_comparison *c;
	int rc;

	*out = NULL;
	if (!(c = calloc(1, sizeof(*c))))
		return fail(err, &d, -ENOMEM);
	seed_jansson();
	rc = cmp_side_load(base, &c->b, why, sizeof(why));
	if (!rc)
		rc = cmp_side_load(new_side, &c->n, why, sizeof(why));
	if (!rc)
		rc = cmp_compare(&c->b, &c->n, &o, &c->r, why, sizeof(why));
	if (!rc && !(c->rows = calloc(c->r.n + 1, sizeof(*c->rows))))
		rc = -ENOMEM;
	if (rc) {
		if (rc != -ENOMEM)
			diag_set(&d, "", 0, "", "%s", why);
		rs_comparison_free(c);
		return fail(err, &d, rc == -ENOMEM ? rc : -EINVAL);
	}
	for (size_t i = 0; i < c->r.n; i++) {
		const struct cmp_row *row = &c->r.rows[i];

		c->rows[i] = (rs_compared){.point = row->point,
					   .metric = row->metric,
					   .base_mean = row->n_base ? row->base : NAN,
					   .new_mean = row->n_new ? row->new : NAN,
					   .n_base = row->n_base,
					   .n_new = row->n_new,
					   .p = row->p,
					   .verdict = cmp_verdict_name(row->verdict),
					   .regression = cmp_is_regression(row)};
	}
	*out = c;
	return 0;
}

size_t rs_comparison_count(const rs_comparison *c)
{
	return c->r.n;
}

size_t rs_comparison_regressions(const rs_comparison *c)
{
	return c->r.regressions;
}

const rs_compared *rs_comparison_get(const rs_comparison *c, size_t i)
{
	return i < c->r.n ? &c->rows[i] : NULL;
}

void rs_comparison_free(rs_comparison *c)
{
	if (!c)
		return;
	cmp_result_free(&c->r);
	cmp_side_free(&c->b);
	cmp_side_free(&c->n);
	free(c->rows);
	free(c);
}
