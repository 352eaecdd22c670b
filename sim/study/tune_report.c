/*
 * tune reports: DIR/tune.csv (one row per run, and one per point the
 * scenario refused), DIR/tune.json (the problem, the best point with its
 * metrics, the search path, every point, and with two objectives the
 * Pareto front) and the answer on stdout, with the scenario fragment to
 * paste and, for a key whose value came from a config file, the field of
 * that file to change.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/study/tune_impl.h"
#include "sim/config/scenario.h"
#include "sim/engine/textsafe.h"

static const char *const op_text[] = {"==", "<=", ">=", "<", ">"};

const char *tune_unit(const struct tune_param *p)
{
	switch (p->fam) {
	case SWEEP_FAM_SIZE:
		return "B";
	case SWEEP_FAM_RATE:
		return "bps";
	case SWEEP_FAM_TIME:
		return "ps";
	case SWEEP_FAM_LENGTH:
		return "mm";
	default:
		return "";
	}
}

/* The name of slot @k: objective k, then the constraints' metrics. */
static const char *slot_name(const struct tune_problem *pb, size_t k)
{
	return k < pb->n_obj ? pb->obj[k].m.name : pb->cons[k - pb->n_obj].m.name;
}

/* Is slot @k the first to name its metric (a metric is shown once)? */
static int first_slot(const struct tune_problem *pb, size_t k)
{
	for (size_t j = 0; j < k; j++)
		if (!strcmp(slot_name(pb, j), slot_name(pb, k)))
			return 0;
	return 1;
}

static void csv_number(FILE *f, double v)
{
	if (isnan(v))
		return;
	if (v == floor(v) && fabs(v) < 1e15)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.10g", v);
}

static void write_csv(const struct tune_ctx *c, FILE *f)
{
	const struct tune_problem *pb = &c->pb;
	size_t slots = pb->n_obj + pb->n_cons;

	fputs("id,point,seed", f);
	for (size_t i = 0; i < pb->n_params; i++)
		fprintf(f, ",%s", pb->params[i].key);
	fputs(",status", f);
	for (size_t k = 0; k < slots; k++)
		if (first_slot(pb, k) &&
		    (k >= pb->n_obj ? pb->cons[k - pb->n_obj].m.param < 0 : pb->obj[k].m.param < 0))
			fprintf(f, ",%s", slot_name(pb, k));
	fputs(",feasible,error\n", f);
	for (size_t r = 0; r < c->n_rows; r++) {
		const struct tune_row *row = &c->rows[r];
		const struct tune_point *pt = &c->search.pts[row->point];

		fprintf(f, "%s,%zu,", row->id, row->point + 1);
		if (strcmp(row->status, "refused"))
			fprintf(f, "%llu", (unsigned long long)row->seed);
		for (size_t i = 0; i < pb->n_params; i++) {
			fputc(',', f);
			csv_number(f, pt->x[i]);
		}
		fprintf(f, ",%s", row->status);
		for (size_t k = 0; k < slots; k++) {
			if (!first_slot(pb, k) ||
			    (k >= pb->n_obj ? pb->cons[k - pb->n_obj].m.param >= 0
					    : pb->obj[k].m.param >= 0))
				continue;
			fputc(',', f);
			csv_number(f, row->vals[k]);
		}
		fprintf(f, ",%s,", pt->state == TUNE_RAN && pt->viol == 0 ? "yes" : "no");
		if (*row->error) { /* quoted, quotes doubled */
			fputc('"', f);
			for (const char *p = row->error; *p; p++)
				fputs(*p == '"' ? "\"\"" : (char[]){*p, 0}, f);
			fputc('"', f);
		}
		fputc('\n', f);
	}
}

static json_t *values_json(const struct tune_problem *pb, const struct tune_point *pt)
{
	json_t *v = json_object();

	for (size_t i = 0; i < pb->n_params; i++)
		json_object_set_new(v, pb->params[i].key,
				    sweep_family_integral(pb->params[i].fam)
					? json_integer((json_int_t)llround(pt->x[i]))
					: json_real(pt->x[i]));
	return v;
}

/* The id of point @pt as the runs name it ("p012"). */
static void point_id(const struct tune_ctx *c, const struct tune_point *pt, char *buf, size_t size)
{
	snprintf(buf, size, "p%0*zu", c->sp.id_width, pt->id);
}

static json_t *point_json(const struct tune_ctx *c, const struct tune_point *pt, int metrics)
{
	const struct tune_problem *pb = &c->pb;
	static const char *const state[] = {"ran", "refused", "failed", "unfinished"};
	json_t *j = json_object(), *m = json_object();
	char id[SWEEP_ID_SIZE];

	point_id(c, pt, id, sizeof(id));
	json_object_set_new(j, "id", json_string(id));
	json_object_set_new(j, "values", values_json(pb, pt));
	json_object_set_new(j, "state", json_string(state[pt->state]));
	json_object_set_new(j, "feasible", json_boolean(tune_feasible(pt)));
	if (pt->state == TUNE_RAN) {
		for (size_t k = 0; k < pb->n_obj; k++)
			json_object_set_new(m, pb->obj[k].m.name, json_real(pt->obj[k]));
		json_object_set_new(j, "violation", json_real(pt->viol));
		if (pt->runs > 1) { /* the objectives' lowest and highest seed */
			json_t *sp = json_object();

			for (size_t k = 0; k < pb->n_obj; k++)
				if (pb->obj[k].m.param < 0)
					json_object_set_new(
					    sp, pb->obj[k].m.name,
					    json_pack("[f,f]", pt->lo[k], pt->hi[k]));
			json_object_set_new(j, "spread", sp);
		}
	}
	if (pt->state == TUNE_UNFINISHED)
		json_object_set_new(j, "unfinished_share", json_real(pt->unfinished));
	json_object_set_new(j, "runs", json_integer((json_int_t)pt->runs));
	/* the best point: every metric named, mean over its seeds */
	for (size_t r = 0; metrics && r < c->n_rows; r++) {
		const struct tune_row *row = &c->rows[r];
		size_t seeds = 0;

		if (row->point != pt->id - 1 || !strcmp(row->status, "refused") ||
		    !strcmp(row->status, "failed"))
			continue;
		/* a value some seed did not measure is null, never a mean of the others */
		for (size_t k = 0; k < pb->n_obj + pb->n_cons; k++) {
			double sum = 0;

			seeds = 0;
			for (size_t q = r; q < c->n_rows && c->rows[q].point == row->point;
			     q++, seeds++)
				sum += c->rows[q].vals[k];
			json_object_set_new(m, slot_name(pb, k),
					    isnan(sum) ? json_null()
						       : json_real(sum / (double)seeds));
		}
		break;
	}
	json_object_set_new(j, "metrics", m);
	return j;
}

static json_t *problem_json(const struct tune_ctx *c)
{
	const struct tune_problem *pb = &c->pb;
	json_t *j = json_object(), *sc = json_object(), *params = json_array(),
	       *objs = json_array(), *cons = json_array(), *seeds = json_array();

	json_object_set_new(sc, "path", txt_json(c->sp.scenario));
	json_object_set_new(sc, "sha256", json_string(c->sp.sha256));
	json_object_set_new(j, "scenario", sc);
	for (size_t i = 0; i < pb->n_params; i++) {
		const struct tune_param *p = &pb->params[i];
		json_t *o = json_object();

		json_object_set_new(o, "key", json_string(p->key));
		json_object_set_new(o, "lo", json_real(p->lo));
		json_object_set_new(o, "hi", json_real(p->hi));
		json_object_set_new(o, "unit", json_string(tune_unit(p)));
		json_object_set_new(o, "grain", json_real(p->grain));
		json_object_set_new(o, "scale", json_string(p->log ? "log" : "linear"));
		json_array_append_new(params, o);
	}
	json_object_set_new(j, "params", params);
	for (size_t k = 0; k < pb->n_obj; k++) {
		json_t *o = json_object();

		json_object_set_new(o, "metric", json_string(pb->obj[k].m.name));
		json_object_set_new(o, "goal",
				    json_string(pb->obj[k].maximize ? "maximize" : "minimize"));
		json_array_append_new(objs, o);
	}
	json_object_set_new(j, "objectives", objs);
	for (size_t i = 0; i < pb->n_cons; i++) {
		json_t *o = json_object();

		json_object_set_new(o, "metric", json_string(pb->cons[i].m.name));
		json_object_set_new(o, "op", json_string(op_text[pb->cons[i].op]));
		json_object_set_new(o, "value", json_real(pb->cons[i].value));
		json_object_set_new(o, "text", json_string(pb->cons[i].text));
		json_array_append_new(cons, o);
	}
	json_object_set_new(j, "constraints", cons);
	for (size_t i = 0; i < pb->n_seeds; i++)
		json_array_append_new(seeds, json_integer((json_int_t)c->sp.seeds[i]));
	json_object_set_new(j, "seeds", seeds);
	json_object_set_new(j, "budget", json_integer((json_int_t)pb->budget));
	return j;
}

static json_t *tune_json(const struct tune_ctx *c)
{
	const struct tune_search *s = &c->search;
	json_t *j = problem_json(c), *pts = json_array(), *path = json_array();
	long b = tune_best(s);
	struct tune_verdict v;

	tune_judge(s, &v);
	json_object_set_new(j, "seed_dependent", json_boolean(c->seed_dependent));
	json_object_set_new(j, "seed_note", json_string(c->seed_note));
	json_object_set_new(j, "current",
			    s->base >= 0 ? point_json(c, &s->pts[s->base], 1) : json_null());
	json_object_set_new(j, "current_note", json_string(c->base_note));
	json_object_set_new(j, "recommendation", tune_verdict_json(c, &v));

	json_object_set_new(j, "method", json_string(s->method ? s->method : "none"));
	json_object_set_new(j, "runs", json_integer((json_int_t)s->runs));
	json_object_set_new(j, "points_evaluated", json_integer((json_int_t)s->n));
	json_object_set_new(j, "budget_exhausted", json_boolean(s->exhausted));
	if (!strcmp(s->method ? s->method : "", "bisection"))
		json_object_set_new(j, "monotone", json_boolean(s->monotone));
	json_object_set_new(j, "note", json_string(s->note));
	json_object_set_new(
	    j, "feasible",
	    json_boolean(b >= 0 && s->pts[b].state == TUNE_RAN && s->pts[b].viol == 0));
	json_object_set_new(j, "best", b >= 0 ? point_json(c, &s->pts[b], 1) : json_null());
	for (size_t i = 0; i < s->n_path; i++)
		json_array_append_new(path, point_json(c, &s->pts[s->path[i]], 0));
	json_object_set_new(j, "path", path);
	for (size_t i = 0; i < s->n; i++)
		json_array_append_new(pts, point_json(c, &s->pts[i], 0));
	json_object_set_new(j, "points", pts);
	if (c->pb.n_obj == 2) {
		size_t *idx = calloc(s->n + 1, sizeof(*idx)), n = idx ? tune_front(s, idx) : 0;
		json_t *front = json_array();

		for (size_t i = 0; i < n; i++)
			json_array_append_new(front, point_json(c, &s->pts[idx[i]], 0));
		json_object_set_new(j, "front", front);
		free(idx);
	}
	return j;
}

int tune_write(const struct tune_ctx *c, const struct scenario *s)
{
	json_t *j = tune_json(c);
	char *text = j ? json_dumps(j, JSON_INDENT(2)) : NULL, *csv = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	(void)s;
	json_decref(j);
	if (!text || !(f = open_memstream(&csv, &len))) {
		free(text);
		return -ENOMEM;
	}
	write_csv(c, f);
	err = fclose(f) ? -ENOMEM : 0;
	if (!err)
		err = sweep_write_file(c->dir, "tune.csv", csv, len, 0);
	if (!err) {
		size_t n = strlen(text);

		text[n] = '\n'; /* the NUL: json_dumps ends without a newline */
		err = sweep_write_file(c->dir, "tune.json", text, n + 1, 1);
		text[n] = '\0';
	}
	free(csv);
	free(text);
	return err;
}

/* The value in the unit a config file writes it in: bytes, bit/s, a
 * percentage for fractions, else the number. */
static void config_value(const struct tune_param *p, double v, char *buf, size_t size)
{
	if (p->fam == SWEEP_FAM_PERCENT)
		snprintf(buf, size, "%.10g", v * 100);
	else if (sweep_family_integral(p->fam))
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.10g", v);
}

void tune_fragment(const struct tune_problem *pb, const double *x, const int *mask, FILE *out)
{
	const char *prev = "";
	size_t order[TUNE_MAX_PARAMS], n_keys = 0;

	for (size_t i = 0; i < pb->n_params; i++)
		if (mask[i])
			order[n_keys++] = i;
	for (size_t i = 1; i < n_keys; i++) /* by key, so that prefixes meet */
		for (size_t j = i;
		     j > 0 && strcmp(pb->params[order[j]].key, pb->params[order[j - 1]].key) < 0;
		     j--) {
			size_t t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	fputs("paste into the scenario:\n", out);
	for (size_t n = 0; n < n_keys; n++) {
		const struct tune_param *p = &pb->params[order[n]];
		const char *k = p->key, *seg = k;
		char v[64];
		int depth = 0;

		tune_format(p, x[order[n]], v, sizeof(v));
		if (strchr(k, '[')) {
			fprintf(out, "  (--set %s=%s)\n", k, v);
			continue;
		}
		/* skip the segments this key shares with the previous one */
		while (1) {
			size_t len = strcspn(seg, ".");

			if (!seg[len] || strncmp(prev, k, (size_t)(seg - k) + len + 1))
				break;
			seg += len + 1;
			depth++;
		}
		while (1) {
			size_t len = strcspn(seg, ".");

			fprintf(out, "  %*s%.*s:", 2 * depth, "", (int)len, seg);
			if (!seg[len]) {
				fprintf(out, " %s\n", v);
				break;
			}
			fputc('\n', out);
			seg += len + 1;
			depth++;
		}
		prev = k;
	}
}

/* Where a key's value came from a config file: what to change there. */
static void print_origins(const struct tune_ctx *c, const struct tune_point *pt, const int *mask,
			  FILE *out)
{
	const struct tune_problem *pb = &c->pb;
	struct scenario *base = NULL;
	struct diag d = {0};

	/* the scenario as written: --set hides where a key came from */
	if (scn_load(c->sp.scenario, NULL, 0, &base, &d))
		return;
	for (size_t i = 0; i < pb->n_params; i++) {
		const struct scn_origin *o = scn_origin(base, pb->params[i].key);
		char v[64], table[192], *name, *field;

		if (!o || !mask[i])
			continue;
		config_value(&pb->params[i], pt->x[i], v, sizeof(v));
		fprintf(out, "%s comes from %s (%s", pb->params[i].key, o->via, o->file);
		if (o->line)
			fprintf(out, ", line %d", o->line);
		fputs("): ", out);
		snprintf(table, sizeof(table), "%s", o->key);
		name = strchr(table, '|');
		field = name ? strchr(name + 1, '|') : NULL;
		if (!strcmp(o->via, "switch.sonic") && field) {
			*name++ = '\0';
			*field++ = '\0';
			fprintf(out, "\"%s\": {\"%s\": {\"%s\": \"%s\"}}\n", table, name, field, v);
		} else if (!strcmp(o->via, "nic.cc_params")) {
			fprintf(out,
				"%s = %s (on the NIC: echo %s > "
				"/sys/kernel/debug/mlx5/<PCI>/cc_params/%s)\n",
				o->key, v, v, o->key);
		} else {
			fprintf(out, "set %s to %s\n", o->key, v);
		}
	}
	scn_free(base);
}

/* Point @pt's values and metrics, under the heading @what. */
static void print_point(const struct tune_ctx *c, const struct tune_point *pt, const char *what,
			const char *why, FILE *out)
{
	const struct tune_problem *pb = &c->pb;
	char id[SWEEP_ID_SIZE], v[64], w[64];

	point_id(c, pt, id, sizeof(id));
	fprintf(out, "  %-10s %s (%s)\n", what, id, why);
	for (size_t i = 0; i < pb->n_params; i++) {
		tune_format(&pb->params[i], pt->x[i], v, sizeof(v));
		fprintf(out, "    %-36s %s\n", pb->params[i].key, v);
	}
	if (pt->state == TUNE_UNFINISHED)
		fprintf(out, "    %-36s %.0f%% of the flows did not finish by stop: not measured\n",
			"(unfinished)", 100 * pt->unfinished);
	for (size_t k = 0; k < pb->n_obj && pt->state == TUNE_RAN; k++) {
		if (pb->obj[k].m.param >= 0)
			continue;
		tune_metric_format(pb->obj[k].m.name, pt->obj[k], v, sizeof(v));
		fprintf(out, "    %-36s %s (%s", pb->obj[k].m.name, v,
			pb->obj[k].maximize ? "maximized" : "minimized");
		if (pt->runs > 1 && pt->lo[k] != pt->hi[k]) {
			tune_range_format(pb->obj[k].m.name, pt->lo[k], pt->hi[k], v, w, sizeof(v));
			fprintf(out, ", mean of %zu seeds: %s to %s", pt->runs, v, w);
		} else if (pt->runs > 1) {
			fprintf(out, ", the same on %zu seeds", pt->runs);
		}
		fputs(")\n", out);
	}
	for (size_t i = 0; i < pb->n_cons; i++) {
		double worst = NAN;

		if (pb->cons[i].m.param >= 0)
			continue;
		for (size_t r = 0; r < c->n_rows; r++) {
			double x = c->rows[r].vals[pb->n_obj + i];

			if (c->rows[r].point == pt->id - 1 && !isnan(x) &&
			    (isnan(worst) ||
			     tune_violation(pb->cons[i].op, x, pb->cons[i].value) >=
				 tune_violation(pb->cons[i].op, worst, pb->cons[i].value)))
				worst = x;
		}
		tune_metric_format(pb->cons[i].m.name, worst, v, sizeof(v));
		fprintf(out, "    %-36s %s (%s %s %.6g: %s)\n", pb->cons[i].m.name, v,
			pb->cons[i].m.name, op_text[pb->cons[i].op], pb->cons[i].value,
			!isnan(worst) &&
				tune_violation(pb->cons[i].op, worst, pb->cons[i].value) == 0
			    ? "met"
			    : "not met");
	}
}

void tune_print(const struct tune_ctx *c, const struct scenario *s, FILE *out)
{
	const struct tune_problem *pb = &c->pb;
	const struct tune_search *se = &c->search;
	struct tune_verdict v;
	size_t ran = 0, refused = 0;
	int mask[TUNE_MAX_PARAMS];

	(void)s;
	tune_judge(se, &v);
	for (size_t i = 0; i < se->n; i++) {
		ran += se->pts[i].runs > 0;
		refused += se->pts[i].state == TUNE_REFUSED;
	}
	fprintf(out, "  method     %s, %zu run%s on %zu point%s (%zu seed%s a point", se->method,
		se->runs, se->runs == 1 ? "" : "s", ran, ran == 1 ? "" : "s", pb->n_seeds,
		pb->n_seeds > 1 ? "s" : "");
	if (se->n && se->pts[0].runs > pb->n_seeds)
		fprintf(out, ", the first on %zu", se->pts[0].runs);
	fprintf(out, "; budget %zu)", pb->budget);
	if (refused)
		fprintf(out, "; %zu point%s refused by the scenario, not run", refused,
			refused == 1 ? "" : "s");
	fputc('\n', out);
	if (*c->seed_note)
		fprintf(out, "  seeds      %s\n", c->seed_note);
	if (*c->base_note)
		fprintf(out, "  current    %s\n", c->base_note);
	if (*se->note)
		fprintf(out, "  note       %s\n", se->note);
	if (v.best < 0) {
		fputs("  best       none: no point ran\n", out);
		return;
	}
	if (se->base >= 0)
		print_point(c, &se->pts[se->base], "current", "the scenario's own values", out);
	if (v.best == se->base)
		fprintf(out, "  %-10s the current values\n",
			tune_feasible(&se->pts[v.best]) ? "best" : "closest");
	else
		print_point(
		    c, &se->pts[v.best], tune_feasible(&se->pts[v.best]) ? "best" : "closest",
		    tune_feasible(&se->pts[v.best])	       ? "meets every constraint"
		    : se->pts[v.best].state == TUNE_UNFINISHED ? "flows not finished by stop"
							       : "meets not every constraint",
		    out);
	if (v.rec >= 0 && v.rec != v.best)
		print_point(c, &se->pts[v.rec], "answer", "better than the current values on both",
			    out);
	if (pb->n_obj == 2) {
		size_t *idx = calloc(se->n + 1, sizeof(*idx)), n = idx ? tune_front(se, idx) : 0;

		fprintf(out, "  front      %zu point%s (tune.json: front)\n", n, n == 1 ? "" : "s");
		free(idx);
	}
	tune_print_verdict(c, &v, out);
	if (v.rec >= 0) {
		for (size_t i = 0; i < pb->n_params; i++)
			mask[i] = v.effect[i] != 0;
		tune_fragment(pb, se->pts[v.rec].x, mask, out);
		print_origins(c, &se->pts[v.rec], mask, out);
	}
	fprintf(out, "  files      %s/tune.json, %s/tune.csv\n", sweep_term(c->dir),
		sweep_term(c->dir));
}
