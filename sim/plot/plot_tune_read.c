/*
 * Reading a tune's folder for `rocesim plot` (plot_tune.c draws it):
 * TUNEDIR/tune.json, checked as it is read (one line naming the file and
 * the key path when something is missing or of the wrong kind), and the
 * values of a constraint's metric per run from tune.csv.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/plot/plot_impl.h"

#define TN_WHOLE ((size_t)-1) /* tn_bad: the whole list, not one entry */

/* Say what is wrong with entry @i of @where (TN_WHOLE: with @where); -1. */
static int tn_bad(const struct tn_plot *t, const char *what, const char *where, size_t i)
{
	if (i != TN_WHOLE)
		fprintf(stderr, "rocesim: %s: %s[%zu]: %s\n", t->path, where, i, what);
	else
		fprintf(stderr, "rocesim: %s: %s: %s\n", t->path, where, what);
	return -1;
}

/* The index of the key @name, or -1. */
int plot_tune__param_of(const struct tn_plot *t, const char *name)
{
	for (size_t i = 0; i < t->n_par; i++)
		if (!strcmp(t->par[i].key, name))
			return (int)i;
	return -1;
}

static int tn_load_params(struct tn_plot *t)
{
	const json_t *a = json_object_get(t->j, "params");

	if (!json_is_array(a) || !json_array_size(a))
		return tn_bad(t, "expected a list of at least one varied key", "params", TN_WHOLE);
	if (json_array_size(a) > TN_MAX_KEYS)
		return tn_bad(t, "more varied keys than tune takes (8)", "params", TN_WHOLE);
	t->n_par = json_array_size(a);
	for (size_t i = 0; i < t->n_par; i++) {
		const json_t *o = json_array_get(a, i);
		struct tn_param *q = &t->par[i];
		const char *scale = json_string_value(json_object_get(o, "scale"));

		q->key = json_string_value(json_object_get(o, "key"));
		q->unit = json_string_value(json_object_get(o, "unit"));
		if (!q->key || !q->unit || !json_is_number(json_object_get(o, "lo")) ||
		    !json_is_number(json_object_get(o, "hi")) || !scale ||
		    (strcmp(scale, "log") && strcmp(scale, "linear")))
			return tn_bad(t, "expected {key, lo, hi, unit, scale: log|linear}",
				      "params", i);
		q->lo = json_number_value(json_object_get(o, "lo"));
		q->hi = json_number_value(json_object_get(o, "hi"));
		q->axis.log = !strcmp(scale, "log") && q->lo > 0;
	}
	return 0;
}

static int tn_load_goals(struct tn_plot *t)
{
	const json_t *a = json_object_get(t->j, "objectives"), *c;

	if (!json_is_array(a) || !json_array_size(a) || json_array_size(a) > 2)
		return tn_bad(t, "expected a list of one or two objectives", "objectives",
			      TN_WHOLE);
	t->n_obj = json_array_size(a);
	for (size_t k = 0; k < t->n_obj; k++) {
		const json_t *o = json_array_get(a, k);

		t->obj[k] = json_string_value(json_object_get(o, "metric"));
		t->goal[k] = json_string_value(json_object_get(o, "goal"));
		if (!t->obj[k] || !t->goal[k])
			return tn_bad(t, "expected {metric, goal}", "objectives", k);
		t->obj_par[k] = plot_tune__param_of(t, t->obj[k]);
	}
	c = json_object_get(t->j, "constraints");
	if (c && !json_is_array(c))
		return tn_bad(t, "expected a list", "constraints", TN_WHOLE);
	t->n_cons = json_array_size(c);
	t->cons = calloc(t->n_cons + 1, sizeof(*t->cons));
	if (!t->cons)
		return tn_bad(t, "out of memory", "constraints", TN_WHOLE);
	for (size_t i = 0; i < t->n_cons; i++) {
		const json_t *o = json_array_get(c, i);
		struct tn_cons *q = &t->cons[i];

		q->metric = json_string_value(json_object_get(o, "metric"));
		q->op = json_string_value(json_object_get(o, "op"));
		if (!q->metric || !q->op || !json_is_number(json_object_get(o, "value")))
			return tn_bad(t, "expected {metric, op, value}", "constraints", i);
		q->value = json_number_value(json_object_get(o, "value"));
	}
	return 0;
}

/* Point @o of list @list (index @i) into @q. */
static int tn_load_point(struct tn_plot *t, const json_t *o, const char *list, size_t i,
			 struct tn_point *q)
{
	static const char *const states[] = {"ran", "refused", "failed", "unfinished"};
	const json_t *vals = json_object_get(o, "values"), *m = json_object_get(o, "metrics");
	const char *state = json_string_value(json_object_get(o, "state"));
	char what[TN_LABEL + 64];
	size_t k;

	q->id = json_string_value(json_object_get(o, "id"));
	if (!q->id || !json_is_object(vals) || !state ||
	    !json_is_boolean(json_object_get(o, "feasible")))
		return tn_bad(t, "expected {id, values, state, feasible, metrics}", list, i);
	for (k = 0; k < 4 && strcmp(state, states[k]); k++)
		;
	if (k == 4) {
		snprintf(what, sizeof(what),
			 "state \"%s\" is none of ran, refused, failed, unfinished", state);
		return tn_bad(t, what, list, i);
	}
	q->state = (enum tn_state)k;
	q->feasible = json_is_true(json_object_get(o, "feasible"));
	for (k = 0; k < t->n_par; k++) {
		const json_t *v = json_object_get(vals, t->par[k].key);

		if (!json_is_number(v)) {
			snprintf(what, sizeof(what), "values: no number for %s", t->par[k].key);
			return tn_bad(t, what, list, i);
		}
		q->x[k] = json_number_value(v);
	}
	for (k = 0; k < t->n_obj && q->state == TN_RAN; k++) {
		const json_t *v = json_object_get(m, t->obj[k]);

		if (!json_is_number(v)) {
			snprintf(what, sizeof(what), "metrics: no number for %s (an objective)",
				 t->obj[k]);
			return tn_bad(t, what, list, i);
		}
		q->obj[k] = json_number_value(v);
	}
	return 0;
}

/* The scenario file's name, without its folder, as the pictures' name. */
static void tn_name(struct tn_plot *t)
{
	const char *path =
	    json_string_value(json_object_get(json_object_get(t->j, "scenario"), "path"));
	const char *slash = path ? strrchr(path, '/') : NULL;

	snprintf(t->name, sizeof(t->name), "%s", !path ? "tune" : slash ? slash + 1 : path);
}

/*
 * The list of points @name of tune.json into @pts, @n; an absent list is
 * empty unless @required.
 */
static int tn_load_list(struct tn_plot *t, const char *name, int required, struct tn_point **pts,
			size_t *n)
{
	const json_t *a = json_object_get(t->j, name);

	if ((a || required) && !json_is_array(a))
		return tn_bad(t, "expected a list of points", name, TN_WHOLE);
	*n = json_array_size(a);
	*pts = calloc(*n + 1, sizeof(**pts));
	if (!*pts)
		return tn_bad(t, "out of memory", name, TN_WHOLE);
	for (size_t i = 0; i < *n; i++)
		if (tn_load_point(t, json_array_get(a, i), name, i, &(*pts)[i]))
			return -1;
	return 0;
}

/* The index of the point @id (NULL: none), or -1. */
static long tn_point_id(const struct tn_plot *t, const char *id)
{
	for (size_t i = 0; id && i < t->n_pt; i++)
		if (!strcmp(t->pt[i].id, id))
			return (long)i;
	return -1;
}

/*
 * What tune made of the scenario's own point ("current") and its answer
 * ("recommendation"); a tune.json written before them has neither: the
 * pictures then show the best point alone.
 */
static int tn_load_verdict(struct tn_plot *t)
{
	const json_t *cur = json_object_get(t->j, "current"),
		     *rec = json_object_get(t->j, "recommendation"), *point;
	const char *id;

	t->cur = t->rec = -1;
	if (cur && !json_is_null(cur)) {
		id = json_string_value(json_object_get(cur, "id"));
		if ((t->cur = tn_point_id(t, id)) < 0)
			return tn_bad(t, "not the id of a point", "current.id", TN_WHOLE);
	}
	if (!rec)
		return 0;
	if (!json_is_object(rec))
		return tn_bad(t, "expected {keep, point, no_effect, ...}", "recommendation",
			      TN_WHOLE);
	t->keep = json_is_true(json_object_get(rec, "keep"));
	t->no_effect = json_object_get(rec, "no_effect");
	if (t->no_effect && !json_is_array(t->no_effect))
		return tn_bad(t, "expected a list of keys", "recommendation.no_effect", TN_WHOLE);
	point = json_object_get(rec, "point");
	if (point && !json_is_null(point) &&
	    (t->rec = tn_point_id(t, json_string_value(point))) < 0)
		return tn_bad(t, "not the id of a point", "recommendation.point", TN_WHOLE);
	return 0;
}

int plot_tune__load(struct tn_plot *t)
{
	const json_t *best, *seeds;
	const char *best_id;
	json_error_t je;

	if (access(t->path, F_OK)) {
		fprintf(stderr,
			"rocesim: plot: %s: %s (a tune writes it when it ends: run `rocesim tune` "
			"into this folder again)\n",
			t->path, errno == ENOENT ? "no such file" : strerror(errno));
		return -1;
	}
	t->j = json_load_file(t->path, 0, &je);
	if (!t->j) {
		if (je.line < 1)
			fprintf(stderr, "rocesim: %s: %s\n", t->path, je.text);
		else
			fprintf(stderr, "rocesim: %s:%d: %s\n", t->path, je.line, je.text);
		return -1;
	}
	if (!json_is_object(t->j)) {
		fprintf(stderr, "rocesim: %s: not a JSON object\n", t->path);
		return -1;
	}
	if (tn_load_params(t) || tn_load_goals(t) ||
	    tn_load_list(t, "points", 1, &t->pt, &t->n_pt) ||
	    tn_load_list(t, "path", 0, &t->route, &t->n_route) ||
	    tn_load_list(t, "front", t->n_obj == 2, &t->front, &t->n_front))
		return -1;
	best = json_object_get(t->j, "best");
	best_id = json_string_value(json_object_get(best, "id"));
	if (best && !json_is_null(best) && !best_id)
		return tn_bad(t, "expected a point or null", "best", TN_WHOLE);
	t->best = -1;
	for (size_t i = 0; i < t->n_pt; i++) {
		t->refused += t->pt[i].state == TN_REFUSED;
		t->failed += t->pt[i].state == TN_FAILED;
		if (best_id && !strcmp(t->pt[i].id, best_id))
			t->best = (long)i;
	}
	if (best_id && t->best < 0)
		return tn_bad(t, "not the id of a point", "best.id", TN_WHOLE);
	if (tn_load_verdict(t))
		return -1;
	seeds = json_object_get(t->j, "seeds");
	t->seeds = json_is_array(seeds) && json_array_size(seeds) ? json_array_size(seeds) : 1;
	t->method = json_string_value(json_object_get(t->j, "method"));
	if (!t->method)
		t->method = "search";
	tn_name(t);
	return 0;
}

void plot_tune__free(struct tn_plot *t)
{
	for (size_t k = 0; k < t->n_par; k++)
		free(t->par[k].ticks);
	free(t->cons);
	free(t->pt);
	free(t->route);
	free(t->front);
	json_decref(t->j);
}

/* ---- tune.csv ----------------------------------------------------------- */

/* How far @v is on the wrong side of constraint @c (the larger the worse). */
static double tn_excess(const struct tn_cons *c, double v)
{
	if (!strcmp(c->op, "=="))
		return fabs(v - c->value);
	if (c->op[0] == '<')
		return v - c->value;
	return c->value - v;
}

/* The number of point @id ("p012": 12, as tune.csv's column "point" gives it). */
static long tn_id_number(const char *id)
{
	return *id == 'p' ? strtol(id + 1, NULL, 10) : -1;
}

/* The index of the point numbered @n, or n_pt. */
static size_t tn_point_numbered(const struct tn_plot *t, long n)
{
	/* in order, as tune writes them */
	if (n >= 1 && (size_t)n <= t->n_pt && tn_id_number(t->pt[n - 1].id) == n)
		return (size_t)n - 1;
	for (size_t i = 0; i < t->n_pt; i++)
		if (tn_id_number(t->pt[i].id) == n)
			return i;
	return t->n_pt;
}

/*
 * The worst seed's value of constraint @c's metric at each point, from
 * tune.csv, into @y (NAN where no run gave one).
 */
int plot_tune__worst(struct tn_plot *t, const struct tn_cons *c, double *y)
{
	struct plot_table tab;
	int pcol, mcol, err = -1;

	for (size_t i = 0; i < t->n_pt; i++)
		y[i] = NAN;
	memset(&tab, 0, sizeof(tab));
	if (plot__join(t->csv, sizeof(t->csv), t->p->outdir, "tune.csv") ||
	    plot__table_read(&tab, t->csv,
			     "it holds the constraints' values: run `rocesim tune` into this "
			     "folder again to write it"))
		goto out;
	pcol = plot__table_col(&tab, "point");
	mcol = plot__table_col(&tab, c->metric);
	if (pcol < 0 || mcol < 0) {
		fprintf(stderr, "rocesim: %s: no column \"%s\" in the header\n", t->csv,
			pcol < 0 ? "point" : c->metric);
		goto out;
	}
	for (size_t r = 0; r < tab.n; r++) {
		/* a row too short is said once (plot__table_field says it) */
		const char *ps = plot__table_field(&tab, &tab.row[r], pcol),
			   *ms = ps ? plot__table_field(&tab, &tab.row[r], mcol) : NULL;
		char *end;
		double v;
		size_t i;
		long pn;

		if (!ps || !ms)
			goto out;
		errno = 0;
		pn = strtol(ps, &end, 10);
		i = end == ps || *end || errno ? t->n_pt : tn_point_numbered(t, pn);
		if (i == t->n_pt) {
			fprintf(stderr, "rocesim: %s:%lu: point \"%s\" is none of tune.json's\n",
				t->csv, tab.row[r].lineno, ps);
			goto out;
		}
		if (!*ms)
			continue; /* refused, or the run gave no value */
		v = strtod(ms, &end);
		if (end == ms || *end) {
			fprintf(stderr, "rocesim: %s:%lu: \"%s\" is not a number\n", t->csv,
				tab.row[r].lineno, ms);
			goto out;
		}
		if (isnan(y[i]) || tn_excess(c, v) > tn_excess(c, y[i]))
			y[i] = v;
	}
	err = 0;
out:
	plot__table_free(&tab);
	return err;
}
