/*
 * fluid.png: the DCQCN fluid model (`rocesim fluid -o DIR`: fluid.json and
 * a fluid-<port>.csv trajectory per bottleneck) beside the packet model
 * when a run wrote into the same folder. Per bottleneck, two panels: the
 * queue against time with the fixed point dashed, and the rate of a flow
 * (the fluid Rc; the packet model's mean Rc over the QPs of the flows
 * that cross the port, from qp_rates.csv). The packet queue of the port
 * comes from timeseries.csv, summed over its priorities. The time axis is
 * the fluid model's run (the span both models are compared on), whole and
 * its last fifth.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/plot/plot_impl.h"

#define FLUID_PANELS 4 /* bottlenecks drawn, two panels each */
#define FLUID_PRIOS 8  /* priorities a timeseries.csv row may name */

/* One bottleneck of fluid.json and its three series. */
struct fneck {
	const char *port;  /* borrowed from fluid.json */
	const char *peer;  /* after the ':' of @port */
	const json_t *ids; /* "flow_ids", or NULL: the flows to @peer */
	long flows;
	double fixq, fixr; /* fixed point queue (bytes), rate (b/s); < 0: none */
	double amp, period;
	double qtop, rtop; /* settled queue (bytes) and rate (Gb/s) maxima */
	int osc;
	const char *verdict;	     /* "verdict" (converges, unsure, settling), or NULL */
	struct series fl;	     /* t_us: queue bytes, Rc Gb/s */
	struct series pq;	     /* t_us: packet queue bytes over the priorities */
	double pq_prio[FLUID_PRIOS]; /* each priority's queue at its last row */
	struct series pr;	     /* t_us: sum of the QPs' Rc, their count */
};

/* One line for what is wrong in fluid.json at bottlenecks[@i].@key. */
static int bad(const char *path, size_t i, const char *key, const char *want)
{
	fprintf(stderr, "rocesim: %s: bottlenecks[%zu].%s: expected %s\n", path, i, key, want);
	return -1;
}

/* Read the bottlenecks of @j (fluid.json at @path) into @k, at most @max. */
static int read_necks(const char *path, const json_t *j, struct fneck *k, size_t max, size_t *n,
		      size_t *more)
{
	const json_t *arr = json_object_get(j, "bottlenecks"), *b;
	size_t i;

	if (!json_is_array(arr)) {
		fprintf(stderr, "rocesim: %s: bottlenecks: expected a list\n", path);
		return -1;
	}
	*n = 0;
	json_array_foreach(arr, i, b) {
		const json_t *fx = json_object_get(b, "fixed_point"), *ids;
		const char *port = json_string_value(json_object_get(b, "port"));
		struct fneck *e = &k[*n];

		if (!json_is_object(b))
			return bad(path, i, "", "an object");
		if (!port || !strchr(port, ':'))
			return bad(path, i, "port", "a port name (switch:peer)");
		if (!json_is_integer(json_object_get(b, "flows")))
			return bad(path, i, "flows", "a number of flows");
		if (!json_is_null(fx) && !json_is_object(fx))
			return bad(path, i, "fixed_point", "an object or null");
		ids = json_object_get(b, "flow_ids");
		if (ids && !json_is_array(ids))
			return bad(path, i, "flow_ids", "a list of flow ids");
		if (*n == max)
			continue;
		e->port = port;
		e->peer = strchr(port, ':') + 1;
		e->ids = ids;
		e->flows = (long)json_integer_value(json_object_get(b, "flows"));
		e->fixq = plot__json_num(fx, "queue_bytes", -1);
		e->fixr = plot__json_num(fx, "rate_bps", -1);
		e->osc = json_is_true(json_object_get(b, "oscillates"));
		e->verdict = json_string_value(json_object_get(b, "verdict"));
		e->amp = plot__json_num(b, "amplitude_bytes", 0);
		e->period = plot__json_num(b, "period_us", 0);
		e->qtop = fmax(e->fixq,
			       plot__json_num(json_object_get(b, "settled"), "queue_max_bytes", 0));
		e->rtop = fmax(e->fixr, 0) / 1e9;
		(*n)++;
	}
	*more = json_array_size(arr) - *n;
	return 0;
}

/* The trajectory DIR/fluid-<port>.csv of @k (':' and '/' as '-'). */
static int read_trajectory(const struct plot *p, struct fneck *k)
{
	static const char *const names[] = {"t_us", "queue_bytes", "rc_gbps"};
	char name[NAME_MAX_LEN + 16], path[PLOT_PATH];
	int col[3], r, err = 0;
	struct csv c;

	snprintf(name, sizeof(name), "fluid-%s.csv", k->port);
	for (char *ch = name; *ch; ch++)
		if (*ch == ':' || *ch == '/')
			*ch = '-';
	if (plot__join(path, sizeof(path), p->outdir, name))
		return -1;
	r = csv_open(&c, path, names, col, 3);
	if (r == 0)
		fprintf(stderr, "rocesim: %s: missing (fluid.json names port %s)\n", path, k->port);
	if (r <= 0)
		return -1;
	while (!err && (r = csv_next(&c)) > 0) {
		double t, q, rc;

		if (csv_num(&c, col[0], &t) || csv_num(&c, col[1], &q) || csv_num(&c, col[2], &rc))
			err = -1;
		else if (series_add_pt(&k->fl, t, q, rc, 0))
			err = -ENOMEM;
	}
	if (err == -ENOMEM)
		fprintf(stderr, "rocesim: out of memory reading %s\n", path);
	csv_close(&c);
	return err || r < 0 ? -1 : 0;
}

/* Add @v at time @t to @s: summed with the last point when it has that time. */
static int add_at(struct series *s, double t, double v)
{
	if (s->n && s->pt[s->n - 1].t == t) {
		s->pt[s->n - 1].a += v;
		s->pt[s->n - 1].b += 1;
		return 0;
	}
	return series_add_pt(s, t, v, 1, 0);
}

/*
 * Bottleneck @k's queue, all priorities, now that priority @prio holds @q
 * at @t: a row holds its value until the next row of its priority (the
 * default timeseries.csv writes only changes).
 */
static int set_prio_queue(struct fneck *k, double t, long prio, double q)
{
	double sum = 0;

	k->pq_prio[prio] = q;
	for (int i = 0; i < FLUID_PRIOS; i++)
		sum += k->pq_prio[i];
	if (k->pq.n && k->pq.pt[k->pq.n - 1].t == t) {
		k->pq.pt[k->pq.n - 1].a = sum;
		return 0;
	}
	return series_add_pt(&k->pq, t, sum, 1, 0);
}

/* The packet queue of each bottleneck's port from timeseries.csv; 0 when none. */
static int read_packet_queues(const struct plot *p, struct fneck *k, size_t n)
{
	static const char *const names[] = {"time_us", "port", "priority", "queue_bytes"};
	char path[PLOT_PATH];
	int col[4], r, err = 0;
	struct csv c;

	if (plot__join(path, sizeof(path), p->outdir, "timeseries.csv"))
		return -1;
	r = csv_open(&c, path, names, col, 4);
	if (r <= 0)
		return r;
	while (!err && (r = csv_next(&c)) > 0) {
		const char *port = csv_str(&c, col[1]);
		double t, prio, q;

		if (!port) {
			err = -1;
			break;
		}
		for (size_t i = 0; i < n && !err; i++) {
			if (strcmp(port, k[i].port))
				continue;
			if (csv_num(&c, col[0], &t) || csv_num(&c, col[2], &prio) ||
			    csv_num(&c, col[3], &q) || prio < 0 || prio >= FLUID_PRIOS)
				err = -1;
			else if (set_prio_queue(&k[i], t, (long)prio, q))
				err = -ENOMEM;
		}
	}
	if (err == -ENOMEM)
		fprintf(stderr, "rocesim: out of memory reading %s\n", path);
	csv_close(&c);
	return err || r < 0 ? -1 : 1;
}

/* Does flow @id to @dst cross bottleneck @k? */
static int crosses(const struct fneck *k, long id, const char *dst)
{
	size_t i;
	const json_t *v;

	if (!k->ids)
		return !strcmp(dst, k->peer);
	json_array_foreach(k->ids, i, v)
		if (json_integer_value(v) == id)
			return 1;
	return 0;
}

/* The packet model's QP rates from qp_rates.csv, summed per bottleneck and time. */
static int read_packet_rates(const struct plot *p, struct fneck *k, size_t n)
{
	static const char *const names[] = {"time_us", "flow", "dst", "rc_gbps"};
	char path[PLOT_PATH];
	int col[4], r, err = 0;
	struct csv c;

	if (plot__join(path, sizeof(path), p->outdir, "qp_rates.csv"))
		return -1;
	r = csv_open(&c, path, names, col, 4);
	if (r <= 0)
		return r;
	while (!err && (r = csv_next(&c)) > 0) {
		const char *dst = csv_str(&c, col[2]);
		double t, id, rc;

		if (!dst || csv_num(&c, col[0], &t) || csv_num(&c, col[1], &id) ||
		    csv_num(&c, col[3], &rc)) {
			err = -1;
			break;
		}
		for (size_t i = 0; i < n && !err; i++)
			if (crosses(&k[i], (long)id, dst) && add_at(&k[i].pr, t, rc))
				err = -ENOMEM;
	}
	if (err == -ENOMEM)
		fprintf(stderr, "rocesim: out of memory reading %s\n", path);
	csv_close(&c);
	return err || r < 0 ? -1 : 1;
}

/*
 * Write @s as "t_ms value" lines into the temporary folder: @what 0 the
 * fluid queue (KB), 1 the fluid Rc, 2 the packet queue (KB), 3 the mean
 * packet Rc. Sets variable @var to the file, or '' when @s is empty.
 */
static int write_series(const struct plot *p, struct buf *v, const char *var,
			const struct series *s, int what)
{
	char name[32], path[PLOT_PATH];
	FILE *f;

	if (!s->n) {
		buf_str(v, var, "");
		return 0;
	}
	snprintf(name, sizeof(name), "%s.dat", var);
	if (!(f = tmp_open(p, name, path, sizeof(path))))
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		const struct pt *q = &s->pt[i];
		double y = what == 0 || what == 2 ? q->a / 1e3 : what == 1 ? q->b : q->a / q->b;

		fprintf(f, "%.6f %.6g\n", q->t / 1e3, y);
	}
	if (tmp_close(f, path))
		return -1;
	buf_str(v, var, path);
	return 0;
}

/* The last time of @s in us, or 0. */
static double last_t(const struct series *s)
{
	return s->n ? s->pt[s->n - 1].t : 0;
}

/*
 * The largest value of @s from time @from on: value a (@mean 0) or a / b
 * (@mean 1), and the largest of all into *@all.
 */
static double max_from(const struct series *s, double from, int mean, double *all)
{
	double m = 0;

	for (size_t i = 0; i < s->n; i++) {
		double y = mean ? s->pt[i].a / s->pt[i].b : s->pt[i].a;

		*all = fmax(*all, y);
		if (s->pt[i].t >= from)
			m = fmax(m, y);
	}
	return m;
}

/*
 * The y axes' tops: what the flows settle to (the fixed point, the last
 * 40% of each model's run) with room above, so that the start's peak (a
 * queue of megabytes, line rate) does not flatten what follows; 0 when
 * nothing needs cutting. The fluid Rc's range is its .b column.
 */
static void axis_tops(struct fneck *k, double *qtop, double *rtop, double *qpeak)
{
	double qall = 0, rall = 0, q = k->qtop, r = k->rtop;
	struct series rc = k->fl;
	double fend = 0.6 * last_t(&k->fl), pend = 0.6 * last_t(&k->pq);

	q = fmax(q, max_from(&k->fl, fend, 0, &qall));
	q = fmax(q, max_from(&k->pq, pend, 0, &qall));
	for (size_t i = 0; i < rc.n; i++)
		if (rc.pt[i].t >= fend)
			r = fmax(r, rc.pt[i].b);
	for (size_t i = 0; i < rc.n; i++)
		rall = fmax(rall, rc.pt[i].b);
	r = fmax(r, max_from(&k->pr, 0.6 * last_t(&k->pr), 1, &rall));
	*qpeak = qall;
	*qtop = q > 0 && qall > 2 * q ? 1.5 * q : 0;
	*rtop = r > 0 && rall > 2 * r ? 1.5 * r : 0;
}

int plot_fluid(const struct plot *p, int only)
{
	struct fneck k[FLUID_PANELS] = {0};
	char path[PLOT_PATH], var[32], txt[256];
	size_t n = 0, more = 0;
	double end = 0, qtop, rtop, qpeak;
	struct buf v = {0};
	json_error_t je;
	json_t *j = NULL;
	int err = -1, packet = 0;

	if (plot__join(path, sizeof(path), p->outdir, "fluid.json"))
		return -1;
	if (access(path, F_OK)) {
		if (only) {
			fprintf(stderr,
				"rocesim: plot: %s has no fluid.json (written by `rocesim "
				"fluid -o DIR`)\n",
				p->outdir);
			return -1;
		}
		plot__drop_old(p, "fluid", NULL);
		return 0;
	}
	if (!(j = json_load_file(path, 0, &je))) {
		fprintf(stderr, "rocesim: %s:%d: %s\n", path, je.line, je.text);
		return -1;
	}
	if (!json_is_object(j)) {
		fprintf(stderr, "rocesim: %s: not a JSON object\n", path);
		goto out;
	}
	if (read_necks(path, j, k, FLUID_PANELS, &n, &more))
		goto out;
	for (size_t i = 0; i < n; i++)
		if (read_trajectory(p, &k[i]))
			goto out;
	if (!only) {
		int rq = read_packet_queues(p, k, n), rr = rq < 0 ? -1 : read_packet_rates(p, k, n);

		if (rq < 0 || rr < 0)
			goto out;
		packet = rq > 0;
	}
	buf_int(&v, "n", (long)n);
	buf_int(&v, "more", (long)more);
	buf_int(&v, "packet", packet);
	for (size_t i = 0; i < n; i++) {
		struct fneck *e = &k[i];
		int id = (int)i + 1;

		snprintf(var, sizeof(var), "port%d", id);
		buf_str(&v, var, e->port);
		snprintf(var, sizeof(var), "flows%d", id);
		buf_int(&v, var, e->flows);
		if (e->fixq >= 0) {
			snprintf(var, sizeof(var), "fixq%d", id);
			buf_num(&v, var, e->fixq / 1e3);
		}
		if (e->fixr >= 0) {
			snprintf(var, sizeof(var), "fixr%d", id);
			buf_num(&v, var, e->fixr / 1e9);
		}
		if (e->osc)
			snprintf(txt, sizeof(txt), "oscillates (amplitude %.0f KB, period %.2f ms)",
				 e->amp / 1e3, e->period / 1e3);
		else if (e->verdict && !strcmp(e->verdict, "unsure"))
			snprintf(txt, sizeof(txt),
				 "unsure (converges; the packet model may swing)");
		else
			snprintf(txt, sizeof(txt), "%s", e->verdict ? e->verdict : "converges");
		snprintf(var, sizeof(var), "state%d", id);
		buf_str(&v, var, txt);
		axis_tops(&k[i], &qtop, &rtop, &qpeak);
		snprintf(var, sizeof(var), "qtop%d", id);
		buf_num(&v, var, qtop / 1e3);
		snprintf(var, sizeof(var), "qpeak%d", id);
		buf_num(&v, var, qpeak / 1e3);
		snprintf(var, sizeof(var), "rtop%d", id);
		buf_num(&v, var, rtop);
		snprintf(var, sizeof(var), "fq%d", id);
		if (write_series(p, &v, var, &e->fl, 0))
			goto out;
		snprintf(var, sizeof(var), "fr%d", id);
		if (write_series(p, &v, var, &e->fl, 1))
			goto out;
		snprintf(var, sizeof(var), "pq%d", id);
		if (write_series(p, &v, var, &e->pq, 2))
			goto out;
		snprintf(var, sizeof(var), "pr%d", id);
		if (write_series(p, &v, var, &e->pr, 3))
			goto out;
		end = fmax(end, last_t(&e->fl));
	}
	buf_num(&v, "xmax_ms", end > 0 ? end / 1e3 : 1);
	err = plot__draw(p, "fluid", &v);
out:
	for (size_t i = 0; i < FLUID_PANELS; i++) {
		free(k[i].fl.pt);
		free(k[i].pq.pt);
		free(k[i].pr.pt);
	}
	json_decref(j);
	free(v.s);
	return err;
}
