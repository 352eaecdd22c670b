/*
 * tune's verdict: what the search comes to against the scenario's own
 * values. The recommendation (tune_judge: a point better than the
 * scenario's own on the objective while meeting every constraint, or
 * "keep the current values"), the keys that moved nothing, the gain with
 * its seed-by-seed (paired) 95% interval when the points ran on several
 * seeds, the keys that sit on an end of their range, and what `rocesim
 * check` says of the answer (run as `rocesim check --json` with the
 * answer's values set).
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/study/tune_impl.h"

void tune_format(const struct tune_param *p, double v, char *buf, size_t size)
{
	sweep_value_format(p->fam, sweep_family_integral(p->fam) ? (uint64_t)llround(v) : 0, v, buf,
			   size);
}

/* Ends with @suffix? */
static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/*
 * The unit @metric's value @v reads best in: its divisor and name ("ms"),
 * or 1 and "" for a count or a plain number.
 */
static double metric_unit(const char *metric, double v, const char **unit)
{
	double a = fabs(v);

	*unit = "";
	if (ends_with(metric, "_us") || !strncmp(metric, "fct_us.", 7)) {
		*unit = a >= 1e6 ? "s" : a >= 1e3 ? "ms" : "us";
		return a >= 1e6 ? 1e6 : a >= 1e3 ? 1e3 : 1;
	}
	if (ends_with(metric, "_bytes")) {
		*unit = a >= 1e9 ? "GB" : a >= 1e6 ? "MB" : a >= 1e3 ? "KB" : "B";
		return a >= 1e9 ? 1e9 : a >= 1e6 ? 1e6 : a >= 1e3 ? 1e3 : 1;
	}
	if (ends_with(metric, "_bps")) {
		*unit = "Gbps";
		return 1e9;
	}
	if (ends_with(metric, "_GBps"))
		*unit = "GB/s";
	else if (ends_with(metric, "_per_s"))
		*unit = "/s";
	return 1;
}

/* @v in @metric's unit for @ref, with @prec significant digits. */
static void format_in(const char *metric, double v, double ref, int prec, char *buf, size_t size)
{
	const char *unit;
	double div = metric_unit(metric, ref, &unit);

	if (isnan(v))
		snprintf(buf, size, "not measured");
	else if (!*unit && v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.*g%s%s", prec, v / div, *unit ? " " : "", unit);
}

void tune_metric_format(const char *metric, double v, char *buf, size_t size)
{
	format_in(metric, v, v, 4, buf, size);
}

void tune_range_format(const char *metric, double lo, double hi, char *a, char *b, size_t size)
{
	int prec = 4;

	/* as many digits as tell them apart, both in the unit of @hi */
	do {
		format_in(metric, lo, hi, prec, a, size);
		format_in(metric, hi, hi, prec, b, size);
	} while (lo != hi && !strcmp(a, b) && ++prec <= 12);
}

/* The row of point index @p run on seed @seed, or NULL. */
static const struct tune_row *row_of(const struct tune_ctx *c, size_t p, uint64_t seed)
{
	for (size_t r = 0; r < c->n_rows; r++)
		if (c->rows[r].point == p && c->rows[r].seed == seed &&
		    strcmp(c->rows[r].status, "refused"))
			return &c->rows[r];
	return NULL;
}

/* The paired difference of point @a and @b's metric @k on seed @i into
 * *@d: 0, or -1 when one of the two was not measured there. */
static int paired_diff(const struct tune_ctx *c, size_t a, size_t b, size_t k, size_t i, double *d)
{
	const struct tune_row *ra = row_of(c, a, c->sp.seeds[i]);
	const struct tune_row *rb = row_of(c, b, c->sp.seeds[i]);

	if (!ra || !rb || isnan(ra->vals[k]) || isnan(rb->vals[k]))
		return -1;
	*d = ra->vals[k] - rb->vals[k];
	return 0;
}

int tune_paired(const struct tune_ctx *c, size_t a, size_t b, size_t k, double *mean, double *half,
		size_t *n)
{
	double d, sum = 0, ss = 0;

	/* two passes over the seeds (every one of them): the mean, then the
	 * squares about it */
	*n = 0;
	for (size_t i = 0; i < c->pb.n_seeds; i++)
		if (!paired_diff(c, a, b, k, i, &d)) {
			sum += d;
			(*n)++;
		}
	if (*n < 2)
		return -1;
	*mean = sum / (double)*n;
	for (size_t i = 0; i < c->pb.n_seeds; i++)
		if (!paired_diff(c, a, b, k, i, &d))
			ss += (d - *mean) * (d - *mean);
	*half = gsl_cdf_tdist_Pinv(0.975, (double)(*n - 1)) * sqrt(ss / (double)(*n - 1)) /
		sqrt((double)*n);
	return 0;
}

/* ---- rocesim check on the answer ---- */

/* "KEY=VALUE" of varied key @i at @pt into @buf. */
static void set_arg(const struct tune_ctx *c, const struct tune_point *pt, size_t i, char *buf,
		    size_t size)
{
	char v[64];

	tune_format(&c->pb.params[i], pt->x[i], v, sizeof(v));
	snprintf(buf, size, "%s=%s", c->pb.params[i].key, v);
}

void tune_check(struct tune_ctx *c, const char *self)
{
	struct tune_verdict v;
	const struct tune_point *pt;
	char *argv[8 + 2 * (TUNE_MAX_PARAMS + TUNE_MAX_SETS)], sets[TUNE_MAX_PARAMS][200];
	char *text = NULL;
	size_t n = 0, len = 0, cap = 0;
	int fd[2], status = -1;
	pid_t pid;
	json_t *j, *found = json_array();

	tune_judge(&c->search, &v);
	if (v.rec < 0 || !found) {
		json_decref(found);
		return;
	}
	pt = &c->search.pts[v.rec];
	argv[n++] = (char *)self;
	argv[n++] = "check";
	argv[n++] = (char *)c->sp.scenario;
	for (size_t f = 0; f < c->n_fixed; f++) {
		argv[n++] = "--set";
		argv[n++] = c->fixed[f];
	}
	for (size_t i = 0; i < c->pb.n_params; i++) {
		if (!v.effect[i])
			continue;
		set_arg(c, pt, i, sets[i], sizeof(sets[i]));
		argv[n++] = "--set";
		argv[n++] = sets[i];
	}
	argv[n++] = "--json";
	argv[n] = NULL;
	fflush(NULL);
	if (pipe(fd)) {
		snprintf(c->check_error, sizeof(c->check_error), "cannot run rocesim check: %s",
			 strerror(errno));
		json_decref(found);
		return;
	}
	if ((pid = fork()) < 0) {
		snprintf(c->check_error, sizeof(c->check_error), "cannot run rocesim check: %s",
			 strerror(errno));
		close(fd[0]);
		close(fd[1]);
		json_decref(found);
		return;
	}
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(fd[1], STDOUT_FILENO);
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		close(fd[0]);
		close(fd[1]);
		execv(self, argv);
		_exit(127);
	}
	close(fd[1]);
	while (1) {
		ssize_t got;

		if (len + 4096 > cap) {
			char *t = realloc(text, cap ? 2 * cap : 65536);

			if (!t)
				break;
			text = t;
			cap = cap ? 2 * cap : 65536;
		}
		got = read(fd[0], text + len, cap - len - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	j = text ? json_loadb(text, len, 0, NULL) : NULL;
	free(text);
	if (!json_is_array(json_object_get(j, "findings"))) {
		snprintf(c->check_error, sizeof(c->check_error),
			 "rocesim check could not check the answer (exit %d)",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		json_decref(j);
		json_decref(found);
		return;
	}
	{
		size_t i;
		json_t *f;

		json_array_foreach(json_object_get(j, "findings"), i, f) {
			const char *sev = json_string_value(json_object_get(f, "severity"));

			if (sev && (!strcmp(sev, "error") || !strcmp(sev, "warning")))
				json_array_append_new(
				    found, json_pack("{s:O?,s:O?,s:O?,s:O?}", "severity",
						     json_object_get(f, "severity"), "code",
						     json_object_get(f, "code"), "where",
						     json_object_get(f, "where"), "message",
						     json_object_get(f, "message")));
		}
	}
	json_decref(j);
	c->check = found;
}

/* ---- the verdict, on stdout and in tune.json ---- */

/* Is key @i of @pt at an end of its range? -1 the low end, 1 the high, 0 neither. */
static int at_edge(const struct tune_param *p, double x)
{
	return x <= p->lo ? -1 : x >= p->hi ? 1 : 0;
}

/* "+3.6% (4.566 ms -> 4.401 ms)" for objective @k from @b to @a. */
static void change_text(const struct tune_ctx *c, size_t k, const struct tune_point *a,
			const struct tune_point *b, char *buf, size_t size)
{
	const char *m = c->pb.obj[k].m.name;
	char va[48], vb[48];

	tune_range_format(m, b->obj[k], a->obj[k], vb, va, sizeof(va));
	if (b->obj[k] != 0)
		snprintf(buf, size, "%s %+.1f%% (%s -> %s)", m,
			 100 * (a->obj[k] - b->obj[k]) / fabs(b->obj[k]), vb, va);
	else
		snprintf(buf, size, "%s %s -> %s", m, vb, va);
}

void tune_print_verdict(const struct tune_ctx *c, const struct tune_verdict *v, FILE *out)
{
	const struct tune_problem *pb = &c->pb;
	const struct tune_search *se = &c->search;
	const struct tune_point *base = se->base >= 0 ? &se->pts[se->base] : NULL;
	char text[400], id[SWEEP_ID_SIZE];

	for (size_t i = 0; i < pb->n_params; i++) {
		char lo[64], hi[64];

		if (v->effect[i])
			continue;
		tune_format(&pb->params[i], pb->params[i].lo, lo, sizeof(lo));
		tune_format(&pb->params[i], pb->params[i].hi, hi, sizeof(hi));
		fprintf(out,
			"  no effect  %s: the objective and the constraints did not move over "
			"%s..%s%s: left as it is\n",
			pb->params[i].key, lo, hi,
			pb->n_seeds > 1 ? " (beyond the seeds' spread)" : "");
	}
	if (v->best < 0 || !tune_feasible(&se->pts[v->best]))
		return;
	if (v->rec < 0) {
		const struct tune_point *b = &se->pts[v->best];
		int flat = 1;

		for (size_t i = 0; i < pb->n_params; i++)
			flat &= v->effect[i] == 0;
		snprintf(id, sizeof(id), "p%0*zu", c->sp.id_width, b->id);
		if (flat) {
			fputs("  verdict    keep the current values: no varied key moves the "
			      "objective "
			      "or the constraints\n",
			      out);
		} else if (b == base || pb->n_obj != 1 || !base) {
			fputs("  verdict    keep the current values: no point found is better than "
			      "them while meeting every constraint\n",
			      out);
		} else {
			change_text(c, 0, b, base, text, sizeof(text));
			fprintf(
			    out,
			    "  verdict    keep the current values: the best point found, %s (%s), "
			    "%s\n",
			    id, text,
			    tune_score(se, b) < tune_score(se, base)
				? "changes only keys without effect"
				: "is not better");
		}
		return;
	}
	snprintf(id, sizeof(id), "p%0*zu", c->sp.id_width, se->pts[v->rec].id);
	if (!base) {
		fprintf(out, "  verdict    change to %s (the scenario's own point was not run)\n",
			id);
	} else if (!v->base_ok) {
		fprintf(out, "  verdict    change to %s: the current values %s\n", id,
			base->state == TUNE_UNFINISHED ? "leave flows unfinished by stop"
			: base->state == TUNE_RAN      ? "break a constraint"
						       : "do not run");
	} else {
		for (size_t k = 0; k < pb->n_obj; k++) {
			double mean, half;
			size_t n;

			if (pb->obj[k].m.param >= 0) {
				const struct tune_param *p = &pb->params[pb->obj[k].m.param];
				char a[64], b[64];

				tune_format(p, base->x[pb->obj[k].m.param], b, sizeof(b));
				tune_format(p, se->pts[v->rec].x[pb->obj[k].m.param], a, sizeof(a));
				fprintf(out, "  verdict    change to %s: %s %s -> %s\n", id, p->key,
					b, a);
				continue;
			}
			change_text(c, k, &se->pts[v->rec], base, text, sizeof(text));
			fprintf(out, "  verdict    change to %s: %s", id, text);
			if (pb->n_seeds > 1 && !tune_paired(c, se->pts[v->rec].id - 1, base->id - 1,
							    k, &mean, &half, &n)) {
				char a[48], b[48];

				tune_range_format(pb->obj[k].m.name, mean - half, mean + half, a, b,
						  sizeof(a));
				fprintf(out,
					"; seed by seed over %zu seeds, 95%% interval %s to %s", n,
					a, b);
				if (mean - half <= 0 && mean + half >= 0)
					fputs(" (holds 0)", out);
			}
			fputc('\n', out);
		}
		if (v->within_spread)
			fputs("  warning    the gain is within the seeds' spread: run more seeds "
			      "(--seeds) before acting on it\n",
			      out);
	}
	for (size_t i = 0; i < pb->n_params; i++) {
		int e = at_edge(&pb->params[i], se->pts[v->rec].x[i]);

		if (v->effect[i] && e)
			fprintf(out,
				"  edge       %s is at the range's %s end: the best may lie beyond "
				"it\n",
				pb->params[i].key, e < 0 ? "low" : "high");
	}
	if (*c->check_error)
		fprintf(out, "  check      %s\n", c->check_error);
	else if (c->check && !json_array_size(c->check))
		fputs("  check      rocesim check finds nothing to say of the answer\n", out);
	else if (c->check) {
		size_t i;
		json_t *f;

		json_array_foreach(c->check, i, f)
			fprintf(out, "  check      %s %s: %s\n",
				json_string_value(json_object_get(f, "code")),
				json_string_value(json_object_get(f, "severity")),
				json_string_value(json_object_get(f, "message")));
	}
}

json_t *tune_verdict_json(const struct tune_ctx *c, const struct tune_verdict *v)
{
	const struct tune_problem *pb = &c->pb;
	const struct tune_search *se = &c->search;
	json_t *j = json_object(), *vals = json_object(), *none = json_array(),
	       *edges = json_array(), *gain = json_object();
	char id[SWEEP_ID_SIZE];

	for (size_t i = 0; i < pb->n_params; i++)
		if (!v->effect[i])
			json_array_append_new(none, json_string(pb->params[i].key));
	json_object_set_new(j, "no_effect", none);
	json_object_set_new(
	    j, "keep",
	    json_boolean(v->rec < 0 && v->best >= 0 && tune_feasible(&se->pts[v->best])));
	if (v->rec < 0) {
		json_object_set_new(j, "point", json_null());
		json_decref(vals);
		json_decref(edges);
		json_decref(gain);
		return j;
	}
	snprintf(id, sizeof(id), "p%0*zu", c->sp.id_width, se->pts[v->rec].id);
	json_object_set_new(j, "point", json_string(id));
	for (size_t i = 0; i < pb->n_params; i++) {
		const struct tune_param *p = &pb->params[i];
		double x = se->pts[v->rec].x[i];

		if (!v->effect[i])
			continue;
		json_object_set_new(vals, p->key,
				    sweep_family_integral(p->fam)
					? json_integer((json_int_t)llround(x))
					: json_real(x));
		if (at_edge(p, x))
			json_array_append_new(edges, json_string(p->key));
	}
	json_object_set_new(j, "values", vals);
	json_object_set_new(j, "at_range_end", edges);
	if (se->base >= 0 && v->base_ok) {
		for (size_t k = 0; k < pb->n_obj; k++) {
			json_t *g = json_object();
			double mean, half;
			size_t n;

			json_object_set_new(g, "change", json_real(v->gain[k]));
			if (se->pts[se->base].obj[k] != 0)
				json_object_set_new(
				    g, "percent",
				    json_real(100 * v->gain[k] / fabs(se->pts[se->base].obj[k])));
			if (pb->n_seeds > 1 &&
			    !tune_paired(c, se->pts[v->rec].id - 1, (size_t)se->base, k, &mean,
					 &half, &n)) {
				json_object_set_new(g, "paired_seeds", json_integer((json_int_t)n));
				json_object_set_new(g, "ci95_low", json_real(mean - half));
				json_object_set_new(g, "ci95_high", json_real(mean + half));
			}
			json_object_set_new(gain, pb->obj[k].m.name, g);
		}
	}
	json_object_set_new(j, "gain", gain);
	json_object_set_new(j, "within_spread", json_boolean(v->within_spread));
	json_object_set_new(j, "check", c->check ? json_incref(c->check) : json_null());
	return j;
}
