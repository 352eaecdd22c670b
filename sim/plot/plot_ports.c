/*
 * The pictures of the switch ports: queues.png (egress queue and ingress PG
 * occupancy of the hottest ports, with the ECN and PFC thresholds) and
 * pfc.png (when each port was paused, storms and the watchdog).
 */
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/plot/plot_impl.h"

#define PFC_ROWS 48 /* ports drawn in pfc.png */

/* ---- queues.png --------------------------------------------------------- */

struct hot {
	const char *port;
	double bytes;
	size_t order; /* position in results.json: ties keep it */
};

static int hot_cmp(const void *a, const void *b)
{
	const struct hot *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The rank of @port among the @n hottest, or -1. */
static int hot_rank(const struct hot *h, int n, const char *port)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(h[i].port, port))
			return i;
	return -1;
}

/*
 * Collect the switch ports of results.json into @eg (by max_queue_bytes)
 * and @in (by the largest PG peak), hottest first, keeping those above 0;
 * their counts in @neg, @nin (at most @top each).
 */
static int hottest(const json_t *res, int top, struct hot **eg, int *neg, struct hot **in, int *nin)
{
	size_t n = 0, k = 0, i, j;
	const json_t *sw, *port;
	struct hot *a, *b;

	json_array_foreach(json_object_get(res, "switches"), i, sw)
		n += json_array_size(json_object_get(sw, "ports"));
	a = calloc(n ? n : 1, sizeof(*a));
	b = calloc(n ? n : 1, sizeof(*b));
	if (!a || !b) {
		free(a);
		free(b);
		fprintf(stderr, "rocesim: out of memory\n");
		return -1;
	}
	json_array_foreach(json_object_get(res, "switches"), i, sw) {
		json_array_foreach(json_object_get(sw, "ports"), j, port) {
			const char *name = json_string_value(json_object_get(port, "name"));
			const json_t *pg;
			size_t g;

			if (!name)
				continue;
			a[k] = (struct hot){name, plot__json_num(port, "max_queue_bytes", 0), k};
			b[k] = (struct hot){name, 0, k};
			json_array_foreach(json_object_get(port, "pgs"), g, pg) {
				double v = plot__json_num(pg, "peak_bytes", 0);

				if (v > b[k].bytes)
					b[k].bytes = v;
			}
			k++;
		}
	}
	qsort(a, k, sizeof(*a), hot_cmp);
	qsort(b, k, sizeof(*b), hot_cmp);
	for (*neg = 0; *neg < top && (size_t)*neg < k && a[*neg].bytes > 0; (*neg)++)
		;
	for (*nin = 0; *nin < top && (size_t)*nin < k && b[*nin].bytes > 0; (*nin)++)
		;
	*eg = a;
	*in = b;
	return 0;
}

/* Drop the series below 1% of the set's peak, order the rest by port rank. */
static double keep_visible(struct series_set *set)
{
	double max = 0;
	size_t k = 0;

	for (size_t i = 0; i < set->n; i++)
		if (set->s[i].peak > max)
			max = set->s[i].peak;
	for (size_t i = 0; i < set->n; i++) {
		if (set->s[i].peak > 0 && set->s[i].peak >= max / 100)
			set->s[k++] = set->s[i];
		else
			free(set->s[i].pt);
	}
	set->n = k;
	/* few series: insertion sort by (rank, priority) */
	for (size_t i = 1; i < set->n; i++) {
		struct series s = set->s[i];
		size_t j = i;

		while (j > 0 && (set->s[j - 1].rank > s.rank ||
				 (set->s[j - 1].rank == s.rank && set->s[j - 1].id > s.id))) {
			set->s[j] = set->s[j - 1];
			j--;
		}
		set->s[j] = s;
	}
	return max;
}

/* Read timeseries.csv: the series of the hottest egress and ingress ports. */
static int read_timeseries(const char *path, const struct hot *eg, int neg, const struct hot *in,
			   int nin, struct series_set *qs, struct series_set *pgs)
{
	static const char *const names[] = {"time_us",	   "port",     "priority",
					    "queue_bytes", "pg_bytes", "headroom_bytes"};
	int col[6], r, err = 0;
	struct csv c;

	r = csv_open(&c, path, names, col, 6);
	if (r <= 0)
		return r;
	while (!err && (r = csv_next(&c)) > 0) {
		const char *port = csv_str(&c, col[1]);
		double t, prio, q, pg, hr;
		int re, ri;

		if (!port) {
			err = -1;
			break;
		}
		re = hot_rank(eg, neg, port);
		ri = hot_rank(in, nin, port);
		if (re < 0 && ri < 0)
			continue;
		if (csv_num(&c, col[0], &t) || csv_num(&c, col[2], &prio) ||
		    csv_num(&c, col[3], &q) || csv_num(&c, col[4], &pg) ||
		    csv_num(&c, col[5], &hr)) {
			err = -1;
			break;
		}
		if (re >= 0) {
			struct series *s = set_get(qs, port, (long)prio, re);

			err = s ? series_add_pt(s, t, q, 0, 0) : -ENOMEM;
		}
		if (!err && ri >= 0) {
			struct series *s = set_get(pgs, port, (long)prio, ri);

			err = s ? series_add_pt(s, t, pg, hr, 0) : -ENOMEM;
		}
		if (err == -ENOMEM)
			fprintf(stderr, "rocesim: out of memory reading %s\n", path);
	}
	csv_close(&c);
	return err || r < 0 ? -1 : 1;
}

/* Title variables PREFIX1.. of a set of port series: "sw0:h8 prio 3". */
static void series_titles(struct buf *v, const char *prefix, const struct series_set *set)
{
	char var[32], title[NAME_MAX_LEN + 32];

	for (size_t i = 0; i < set->n; i++) {
		snprintf(var, sizeof(var), "%s%zu", prefix, i + 1);
		snprintf(title, sizeof(title), "%s prio %ld", set->s[i].key, set->s[i].id);
		buf_str(v, var, title);
	}
}

/*
 * A threshold of switch port @port: its own (config.ports), its switch's
 * (config.switches, the switch named before the ':'), or config's; -1
 * when none (or null: off, or dynamic).
 */
static double port_threshold(const json_t *res, const char *port, const char *key)
{
	const json_t *cfg = json_object_get(res, "config"), *o, *v;
	const char *colon = strchr(port, ':');

	o = json_object_get(json_object_get(cfg, "ports"), port);
	if (!o && colon)
		o = json_object_getn(json_object_get(cfg, "switches"), port,
				     (size_t)(colon - port));
	if (!o || !(v = json_object_get(o, key)))
		return plot__threshold(res, key);
	return json_is_number(v) && json_number_value(v) >= 0 ? json_number_value(v) : -1;
}

#define THR_MAX 4 /* distinct thresholds drawn on a panel */

/* The distinct values of the thresholds @keys (one or two) over the ports of @set. */
struct thr {
	double v[THR_MAX][2];
	char who[THR_MAX][NAME_MAX_LEN + 16]; /* "leaf0:h1", "leaf0:h1 +2" */
	int ports[THR_MAX];
	int n;
};

static void thr_collect(const json_t *res, const struct series_set *set, const char *const *keys,
			int nkeys, struct thr *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < set->n; i++) {
		double v[2] = {-1, -1};
		int k = 0;

		if (i && !strcmp(set->s[i].key, set->s[i - 1].key))
			continue; /* a port's priorities are in a row */
		for (int j = 0; j < nkeys; j++)
			v[j] = port_threshold(res, set->s[i].key, keys[j]);
		while (k < t->n && (t->v[k][0] != v[0] || t->v[k][1] != v[1]))
			k++;
		if (k == THR_MAX)
			continue;
		if (k == t->n) {
			t->v[k][0] = v[0];
			t->v[k][1] = v[1];
			snprintf(t->who[k], sizeof(t->who[k]), "%s", set->s[i].key);
			t->n++;
		}
		t->ports[k]++;
	}
	for (int k = 0; k < t->n; k++)
		if (t->ports[k] > 1) {
			size_t len = strlen(t->who[k]);

			snprintf(t->who[k] + len, sizeof(t->who[k]) - len, " +%d", t->ports[k] - 1);
		}
}

/*
 * The threshold lines of a panel: one set (the ports shown agree, or none
 * is shown: config's) as @names, else each set as @names with a number and
 * PREFIXwhoN, the ports it is for, and PREFIXn.
 */
static double thr_vars(struct buf *b, const json_t *res, const struct thr *t,
		       const char *const *keys, const char *const *names, int nkeys,
		       const char *prefix)
{
	char var[32];
	double max = 0;

	if (t->n <= 1) {
		for (int j = 0; j < nkeys; j++) {
			double v = t->n ? t->v[0][j] : plot__threshold(res, keys[j]);

			if (v >= 0)
				buf_num(b, names[j], v);
			max = v > max ? v : max;
		}
		return max;
	}
	buf_int(b, prefix, t->n);
	for (int k = 0; k < t->n; k++) {
		for (int j = 0; j < nkeys; j++) {
			snprintf(var, sizeof(var), "%s%d", names[j], k + 1);
			buf_num(b, var, t->v[k][j]);
			max = t->v[k][j] > max ? t->v[k][j] : max;
		}
		snprintf(var, sizeof(var), "%swho%d", prefix, k + 1);
		buf_str(b, var, t->who[k]);
	}
	return max;
}

int plot_queues(const struct plot *p)
{
	static const char *const ekeys[] = {"ecn_kmin", "ecn_kmax"}, *const enames[] = {"kmin",
											"kmax"};
	static const char *const xkeys[] = {"pfc_xoff"}, *const xnames[] = {"xoff"};
	struct thr te, tx;
	char csv[PLOT_PATH], qpath[PLOT_PATH], pgpath[PLOT_PATH], hrpath[PLOT_PATH];
	struct series_set qs = {0}, pgs = {0};
	double max, pgmax, hdrm = 0, tmax;
	struct hot *eg = NULL, *in = NULL;
	struct buf v = {0};
	int neg, nin, r, err = -1;

	if (plot__join(csv, sizeof(csv), p->outdir, "timeseries.csv"))
		return -1;
	if (hottest(p->res, p->top, &eg, &neg, &in, &nin))
		return -1;
	r = read_timeseries(csv, eg, neg, in, nin, &qs, &pgs);
	if (r < 0)
		goto out;
	if (r == 0) {
		fprintf(stderr, "rocesim: no %s (output.sample was 0): queues.png skipped\n", csv);
		plot__drop_old(p, "queues", NULL);
		err = 0;
		goto out;
	}
	max = keep_visible(&qs);
	pgmax = keep_visible(&pgs);
	if (pgmax > max)
		max = pgmax;
	for (size_t i = 0; i < pgs.n; i++)
		if (pgs.s[i].peak_b > hdrm)
			hdrm = pgs.s[i].peak_b;
	/* each port's own thresholds: the ports shown may differ (a config per switch) */
	thr_collect(p->res, &qs, ekeys, 2, &te);
	thr_collect(p->res, &pgs, xkeys, 1, &tx);
	for (int k = 0; k < te.n; k++)
		max = te.v[k][1] > max ? te.v[k][1] : max;
	for (int k = 0; k < tx.n; k++)
		max = tx.v[k][0] > max ? tx.v[k][0] : max;
	if (!te.n && (tmax = plot__threshold(p->res, "ecn_kmax")) > max)
		max = tmax;
	if (!tx.n && (tmax = plot__threshold(p->res, "pfc_xoff")) > max)
		max = tmax;
	if (plot__write_blocks(p, "queues-q.dat", &qs, 0, qpath, sizeof(qpath)) ||
	    plot__write_blocks(p, "queues-pg.dat", &pgs, 0, pgpath, sizeof(pgpath)) ||
	    plot__write_blocks(p, "queues-hr.dat", &pgs, 1, hrpath, sizeof(hrpath)))
		goto out;
	buf_str(&v, "qdata", qpath);
	buf_int(&v, "qn", (long)qs.n);
	series_titles(&v, "qt", &qs);
	buf_str(&v, "pgdata", pgpath);
	buf_str(&v, "hrdata", hrpath);
	buf_int(&v, "pgn", (long)pgs.n);
	series_titles(&v, "pgt", &pgs);
	buf_int(&v, "hdrm", hdrm > 0);
	buf_int(&v, "ntop", p->top);
	buf_str(&v, "unit", max >= 1e6 ? "MB" : "KB");
	buf_num(&v, "scale", max >= 1e6 ? 1e6 : 1e3);
	thr_vars(&v, p->res, &te, ekeys, enames, 2, "nk");
	thr_vars(&v, p->res, &tx, xkeys, xnames, 1, "nx");
	err = plot__draw(p, "queues", &v);
out:
	free(v.s);
	set_free(&qs);
	set_free(&pgs);
	free(eg);
	free(in);
	return err;
}

/* ---- pfc.png ------------------------------------------------------------ */

/* A port and priority of the PFC timeline. */
struct pfc_row {
	char port[NAME_MAX_LEN];
	long prio;
	double since; /* paused since, or < 0 */
};

/* Rows found by (port, priority) through an open-addressing hash. */
struct pfc_rows {
	struct pfc_row *row;
	size_t n, cap;
	int32_t *slot; /* row index + 1, 0 empty */
	size_t nslot;
};

static uint64_t row_hash(const char *port, long prio)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)prio;

	for (const char *c = port; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	return h;
}

static int rows_grow(struct pfc_rows *r)
{
	size_t nslot = r->nslot ? r->nslot * 2 : 64;
	int32_t *slot = calloc(nslot, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < r->n; i++) {
		size_t k = row_hash(r->row[i].port, r->row[i].prio) & (nslot - 1);

		while (slot[k])
			k = (k + 1) & (nslot - 1);
		slot[k] = (int32_t)i + 1;
	}
	free(r->slot);
	r->slot = slot;
	r->nslot = nslot;
	return 0;
}

/* The row of (@port, @prio): its index, made when missing if @make; -1 none, -2 no memory. */
static long rows_get(struct pfc_rows *r, const char *port, long prio, int make)
{
	size_t k;

	if (r->n + 1 > r->nslot / 2 && rows_grow(r))
		return -2;
	k = row_hash(port, prio) & (r->nslot - 1);
	while (r->slot[k]) {
		const struct pfc_row *x = &r->row[r->slot[k] - 1];

		if (x->prio == prio && !strcmp(x->port, port))
			return r->slot[k] - 1;
		k = (k + 1) & (r->nslot - 1);
	}
	if (!make)
		return -1;
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct pfc_row *row;

		if (r->n >= INT32_MAX - 1)
			return -2;
		row = realloc(r->row, cap * sizeof(*row));
		if (!row)
			return -2;
		r->row = row;
		r->cap = cap;
	}
	snprintf(r->row[r->n].port, sizeof(r->row[0].port), "%s", port);
	r->row[r->n].prio = prio;
	r->row[r->n].since = -1;
	r->slot[k] = (int32_t)r->n + 1;
	return (long)r->n++;
}

/* The data files of pfc.png: paused bars, storm and watchdog marks. */
struct pfc_out {
	FILE *bars, *storm, *wd;
	char bars_path[PLOT_PATH], storm_path[PLOT_PATH], wd_path[PLOT_PATH];
	long nbars, nstorm, nwd;
};

/* Take one PFC event of row @i at @t into the data files. */
static void pfc_event(struct pfc_rows *r, struct pfc_out *o, long i, double t, const char *ev)
{
	struct pfc_row *x = &r->row[i];
	int shown = i < PFC_ROWS;

	if (!strcmp(ev, "paused")) {
		if (x->since < 0)
			x->since = t;
	} else if (!strcmp(ev, "unpaused")) {
		if (x->since >= 0 && shown) {
			fprintf(o->bars, "%.6f %ld %.6f\n", x->since, i, t);
			o->nbars++;
		}
		x->since = -1;
	} else if (!strcmp(ev, "storm") && shown) {
		fprintf(o->storm, "%.6f %ld\n", t, i);
		o->nstorm++;
	} else if (!strncmp(ev, "watchdog_", 9) && shown) {
		fprintf(o->wd, "%.6f %ld %d\n", t, i, strcmp(ev, "watchdog_trigger") ? 1 : 0);
		o->nwd++;
	}
}

/* Read pfc_events.csv into the data files; 1 done, 0 no file, -1 error. */
static int read_pfc(const struct plot *p, const char *path, struct pfc_rows *r, struct pfc_out *o)
{
	static const char *const names[] = {"time_us", "port", "priority", "event"};
	int col[4], res, err = 0;
	struct csv c;

	res = csv_open(&c, path, names, col, 4);
	if (res <= 0)
		return res;
	while (!err && (res = csv_next(&c)) > 0) {
		const char *port = csv_str(&c, col[1]), *ev = csv_str(&c, col[3]);
		double t, prio;
		int make;
		long i;

		if (!port || !ev || csv_num(&c, col[0], &t) || csv_num(&c, col[2], &prio)) {
			err = -1;
			break;
		}
		make = !strcmp(ev, "paused") || !strcmp(ev, "storm");
		if (!make && strcmp(ev, "unpaused") && strncmp(ev, "watchdog_", 9))
			continue; /* xoff, refresh, xon, rx_pause, rx_resume */
		i = rows_get(r, port, (long)prio, make);
		if (i == -2) {
			fprintf(stderr, "rocesim: out of memory reading %s\n", path);
			err = -1;
		} else if (i >= 0) {
			pfc_event(r, o, i, t, ev);
		}
	}
	csv_close(&c);
	/* still paused at the end of the run */
	for (size_t i = 0; i < r->n && i < PFC_ROWS && !err; i++) {
		if (r->row[i].since >= 0) {
			fprintf(o->bars, "%.6f %zu %.6f\n", r->row[i].since, i,
				p->end_us > r->row[i].since ? p->end_us : r->row[i].since);
			o->nbars++;
		}
	}
	return err || res < 0 ? -1 : 1;
}

int plot_pfc(const struct plot *p)
{
	char csv[PLOT_PATH], var[32], label[NAME_MAX_LEN + 16];
	struct pfc_rows r = {0};
	struct pfc_out o = {0};
	struct buf v = {0};
	int res, err = -1, prios = 0;
	size_t shown;

	if (plot__join(csv, sizeof(csv), p->outdir, "pfc_events.csv"))
		return -1;
	if (access(csv, F_OK)) {
		fprintf(stderr,
			"rocesim: no %s (run with output.pfc_events: true): pfc.png skipped\n",
			csv);
		plot__drop_old(p, "pfc", NULL);
		return 0;
	}
	o.bars = tmp_open(p, "pfc-bars.dat", o.bars_path, sizeof(o.bars_path));
	o.storm = o.bars ? tmp_open(p, "pfc-storm.dat", o.storm_path, sizeof(o.storm_path)) : NULL;
	o.wd = o.storm ? tmp_open(p, "pfc-wd.dat", o.wd_path, sizeof(o.wd_path)) : NULL;
	res = o.wd ? read_pfc(p, csv, &r, &o) : -1;
	if (o.bars && tmp_close(o.bars, o.bars_path))
		res = -1;
	if (o.storm && tmp_close(o.storm, o.storm_path))
		res = -1;
	if (o.wd && tmp_close(o.wd, o.wd_path))
		res = -1;
	if (res < 0)
		goto out;
	shown = r.n < PFC_ROWS ? r.n : PFC_ROWS;
	for (size_t i = 1; i < shown; i++)
		if (r.row[i].prio != r.row[0].prio)
			prios = 1;
	buf_int(&v, "rows", (long)shown);
	buf_int(&v, "more", (long)(r.n - shown));
	for (size_t i = 0; i < shown; i++) {
		snprintf(var, sizeof(var), "r%zu", i + 1);
		if (prios)
			snprintf(label, sizeof(label), "%s prio %ld", r.row[i].port, r.row[i].prio);
		else
			snprintf(label, sizeof(label), "%s", r.row[i].port);
		buf_str(&v, var, label);
	}
	buf_str(&v, "bars", o.bars_path);
	buf_int(&v, "nbars", o.nbars);
	buf_str(&v, "storm", o.storm_path);
	buf_int(&v, "nstorm", o.nstorm);
	buf_str(&v, "wd", o.wd_path);
	buf_int(&v, "nwd", o.nwd);
	if (shown && !prios)
		buf_str(&v, "prio", (snprintf(label, sizeof(label), "%ld", r.row[0].prio), label));
	err = plot__draw(p, "pfc", &v);
out:
	free(v.s);
	free(r.row);
	free(r.slot);
	return err;
}
