/*
 * The pictures of what the hosts saw: rates.png (DCQCN Rc, Rt and alpha of
 * the first QPs), flows.png (completion time of every flow) and ranks.png
 * (when each rank of a collective had all its data).
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/plot/plot_impl.h"

#define RATE_QPS 8     /* QPs drawn in rates.png */
#define FLOW_LABELS 40 /* flows.png labels each bar up to this many flows */
#define COLL_PANELS 4  /* collectives drawn in ranks.png, one panel each */

/* ---- rates.png ---------------------------------------------------------- */

/* Read qp_rates.csv: the series of the RATE_QPS smallest flow ids. */
static int read_rates(const char *path, struct series_set *set, long *more)
{
	static const char *const names[] = {"time_us", "flow",	  "src",  "dst",
					    "rc_gbps", "rt_gbps", "alpha"};
	unsigned char *seen = NULL;
	size_t nseen = 0, distinct = 0;
	int col[7], r, err = 0;
	struct csv c;

	r = csv_open(&c, path, names, col, 7);
	if (r <= 0)
		return r;
	while (!err && (r = csv_next(&c)) > 0) {
		const char *src = csv_str(&c, col[2]), *dst = csv_str(&c, col[3]);
		double t, id, rc, rt, alpha;
		struct series *s = NULL;
		char key[NAME_MAX_LEN];
		size_t far = 0;

		if (!src || !dst || csv_num(&c, col[0], &t) || csv_num(&c, col[1], &id) ||
		    csv_num(&c, col[4], &rc) || csv_num(&c, col[5], &rt) ||
		    csv_num(&c, col[6], &alpha)) {
			err = -1;
			break;
		}
		if (id < 0 || id >= 1 << 30) {
			fprintf(stderr, "rocesim: %s:%lu: flow %.0f is out of range\n", path,
				c.lineno, id);
			err = -1;
			break;
		}
		if ((size_t)id >= nseen) {
			size_t n = ((size_t)id + 1) * 2;
			unsigned char *b = realloc(seen, n);

			if (!b) {
				err = -ENOMEM;
				break;
			}
			memset(b + nseen, 0, n - nseen);
			seen = b;
			nseen = n;
		}
		distinct += !seen[(size_t)id];
		seen[(size_t)id] = 1;
		for (size_t i = 0; i < set->n && !s; i++)
			if (set->s[i].id == (long)id)
				s = &set->s[i];
		if (!s && set->n == RATE_QPS) {
			/* a smaller id evicts the largest one kept */
			for (size_t i = 1; i < set->n; i++)
				if (set->s[i].id > set->s[far].id)
					far = i;
			if (set->s[far].id < (long)id)
				continue;
			free(set->s[far].pt);
			set->s[far] = set->s[--set->n];
		}
		if (!s) {
			snprintf(key, sizeof(key), "%s->%s", src, dst);
			s = set_get(set, key, (long)id, 0);
		}
		err = s ? series_add_pt(s, t, rc, rt, alpha) : -ENOMEM;
	}
	if (err == -ENOMEM)
		fprintf(stderr, "rocesim: out of memory reading %s\n", path);
	csv_close(&c);
	free(seen);
	*more = (long)(distinct - set->n);
	return err || r < 0 ? -1 : 1;
}

static int series_id_cmp(const void *a, const void *b)
{
	const struct series *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int plot_rates(const struct plot *p)
{
	char csv[PLOT_PATH], path[PLOT_PATH], var[32], title[NAME_MAX_LEN + 32];
	struct series_set set = {0};
	struct buf v = {0};
	long more = 0;
	int r, err = -1;

	if (plot__join(csv, sizeof(csv), p->outdir, "qp_rates.csv"))
		return -1;
	r = read_rates(csv, &set, &more);
	if (r < 0)
		goto out;
	if (r == 0) {
		fprintf(stderr,
			"rocesim: no %s (DCQCN off or output.sample 0): rates.png skipped\n", csv);
		plot__drop_old(p, "rates", NULL);
		err = 0;
		goto out;
	}
	if (set.n)
		qsort(set.s, set.n, sizeof(*set.s), series_id_cmp);
	if (plot__write_blocks(p, "rates-rc.dat", &set, 0, path, sizeof(path)))
		goto out;
	buf_str(&v, "rc", path);
	if (plot__write_blocks(p, "rates-rt.dat", &set, 1, path, sizeof(path)))
		goto out;
	buf_str(&v, "rt", path);
	if (plot__write_blocks(p, "rates-alpha.dat", &set, 2, path, sizeof(path)))
		goto out;
	buf_str(&v, "alpha", path);
	buf_int(&v, "n", (long)set.n);
	buf_int(&v, "more", more);
	for (size_t i = 0; i < set.n; i++) {
		snprintf(var, sizeof(var), "t%zu", i + 1);
		snprintf(title, sizeof(title), "flow %ld %s", set.s[i].id, set.s[i].key);
		buf_str(&v, var, title);
	}
	err = plot__draw(p, "rates", &v);
out:
	free(v.s);
	set_free(&set);
	return err;
}

/* ---- flows.png ---------------------------------------------------------- */

struct fct {
	long id;
	double us;  /* completion time, or how long it ran when not done */
	double pct; /* of the bytes received */
	int done;
	const char *src, *dst;
};

/* Completed flows first, fastest first; then those not done. */
static int fct_cmp(const void *a, const void *b)
{
	const struct fct *x = a, *y = b;

	if (x->done != y->done)
		return y->done - x->done;
	if (x->us != y->us)
		return x->us < y->us ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* @s for a gnuplot data file: no quote, no comment sign, no blank. */
static void data_word(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == '"' || *s == '#' || *s == ' ' || *s == '\t' ? '_' : *s, f);
}

int plot_flows(const struct plot *p)
{
	const json_t *flows = json_object_get(p->res, "flows"), *fl;
	const json_t *pct = json_object_get(json_object_get(p->res, "summary"), "fct_us");
	size_t n = json_array_size(flows), i, ndone = 0;
	char path[PLOT_PATH];
	struct buf v = {0};
	struct fct *a;
	int err = -1;
	FILE *f;

	if (!n) {
		fprintf(stderr, "rocesim: no flows in %s/results.json: flows.png skipped\n",
			p->outdir);
		plot__drop_old(p, "flows", NULL);
		return 0;
	}
	a = calloc(n, sizeof(*a));
	if (!a) {
		fprintf(stderr, "rocesim: out of memory\n");
		return -1;
	}
	json_array_foreach(flows, i, fl) {
		const json_t *fct = json_object_get(fl, "fct_us");
		double start = plot__json_num(fl, "start_us", 0);

		a[i].id = (long)plot__json_num(fl, "id", (double)i);
		a[i].done = json_is_number(fct);
		a[i].us = a[i].done ? json_number_value(fct)
				    : (p->end_us > start ? p->end_us - start : 0);
		a[i].pct =
		    plot__json_num(fl, "bytes", 0) > 0
			? 100.0 * plot__json_num(fl, "received", 0) / plot__json_num(fl, "bytes", 0)
			: 100.0;
		a[i].src = json_string_value(json_object_get(fl, "src"));
		a[i].dst = json_string_value(json_object_get(fl, "dst"));
		ndone += (size_t)a[i].done;
	}
	qsort(a, n, sizeof(*a), fct_cmp);
	f = tmp_open(p, "flows.dat", path, sizeof(path));
	if (!f)
		goto out;
	for (i = 0; i < n; i++) {
		fprintf(f, "%zu %.3f %d \"f%ld ", i, a[i].us, a[i].done, a[i].id);
		data_word(f, a[i].src ? a[i].src : "?");
		fputs("->", f);
		data_word(f, a[i].dst ? a[i].dst : "?");
		fprintf(f, "\" %.1f\n", a[i].pct);
	}
	if (tmp_close(f, path))
		goto out;
	buf_str(&v, "data", path);
	buf_int(&v, "n", (long)n);
	buf_int(&v, "ndone", (long)ndone);
	buf_int(&v, "labels", n <= FLOW_LABELS);
	if (json_is_number(json_object_get(pct, "p50")))
		buf_num(&v, "p50", json_number_value(json_object_get(pct, "p50")));
	if (json_is_number(json_object_get(pct, "p99")))
		buf_num(&v, "p99", json_number_value(json_object_get(pct, "p99")));
	err = plot__draw(p, "flows", &v);
out:
	free(v.s);
	free(a);
	return err;
}

/* ---- ranks.png ---------------------------------------------------------- */

/*
 * The collectives of results.json: summary.collectives, or the one
 * summary.collective of a results.json that has no list.
 */
static size_t collectives(const json_t *res, const json_t **list, const json_t **one)
{
	const json_t *sum = json_object_get(res, "summary");

	*list = json_object_get(sum, "collectives");
	*one = json_object_get(sum, "collective");
	if (json_array_size(*list))
		return json_array_size(*list);
	*list = NULL;
	return json_is_object(*one) ? 1 : 0;
}

/*
 * Write the ranks of collective @c as a data block of "rank us done last"
 * lines (last: 1 for the ranks that had their data last, when the ranks
 * differ by 1% or more: less is no straggler), the variables of panel @k
 * into @v.
 */
static void ranks_panel(FILE *f, struct buf *v, const json_t *c, size_t k)
{
	const json_t *done = json_object_get(c, "rank_done_us"), *t;
	const json_t *times = json_object_get(c, "iteration_times_us");
	const char *op = json_string_value(json_object_get(c, "op"));
	double iters = plot__json_num(c, "iterations", 1),
	       idone = plot__json_num(c, "iterations_done", 0);
	double slow = -1, fast = -1, busbw = plot__json_num(c, "busbw_GBps", -1), line = -1;
	size_t n = json_array_size(done), i, ndone = 0, nslow = 0, slowest = 0;
	char var[32], title[256], label[128];
	int mark;

	json_array_foreach(done, i, t) {
		if (!json_is_number(t))
			continue;
		ndone++;
		if (fast < 0 || json_number_value(t) < fast)
			fast = json_number_value(t);
		if (json_number_value(t) > slow) {
			slow = json_number_value(t);
			slowest = i;
			nslow = 0;
		}
		nslow += json_number_value(t) == slow;
	}
	mark = nslow < ndone && slow - fast >= slow / 100;
	json_array_foreach(done, i, t) {
		int ok = json_is_number(t);
		double us = ok ? json_number_value(t) : 0;

		fprintf(f, "%zu %.3f %d %d\n", i, us, ok, ok && mark && us == slow);
	}
	fputs("\n\n", f);
	/* the time the last iteration took, when it completed */
	if (idone >= iters && idone > 0) {
		t = json_array_get(times, json_array_size(times) - 1);
		line = json_is_number(t) ? json_number_value(t)
					 : plot__json_num(c, "completion_time_us", -1);
	}
	snprintf(title, sizeof(title), "%s of %g MB over %zu ranks, busbw ", op ? op : "collective",
		 plot__json_num(c, "bytes", 0) / 1e6, n);
	if (busbw >= 0)
		snprintf(title + strlen(title), sizeof(title) - strlen(title), "%.3g GB/s", busbw);
	else
		snprintf(title + strlen(title), sizeof(title) - strlen(title), "n/a");
	if (idone < iters)
		snprintf(title + strlen(title), sizeof(title) - strlen(title),
			 "; iteration %.0f of %.0f, not done at the end", idone + 1, iters);
	else if (iters > 1)
		snprintf(title + strlen(title), sizeof(title) - strlen(title),
			 "; the last of %.0f iterations", iters);
	snprintf(var, sizeof(var), "t%zu", k);
	buf_str(v, var, title);
	snprintf(var, sizeof(var), "r%zu", k);
	buf_int(v, var, (long)n);
	snprintf(var, sizeof(var), "nn%zu", k);
	buf_int(v, var, (long)(n - ndone));
	snprintf(var, sizeof(var), "bt%zu", k);
	if (ndone && !mark && fast == slow)
		snprintf(label, sizeof(label), "had all its data, all at %.1f us", slow);
	else if (ndone && !mark)
		snprintf(label, sizeof(label), "had all its data, all within %.1f to %.1f us", fast,
			 slow);
	else
		snprintf(label, sizeof(label), "had all its data");
	buf_str(v, var, label);
	if (mark) {
		snprintf(var, sizeof(var), "sl%zu", k);
		if (nslow == 1)
			snprintf(label, sizeof(label), "last: rank %zu at %.1f us", slowest, slow);
		else
			snprintf(label, sizeof(label), "last: %zu ranks at %.1f us", nslow, slow);
		buf_str(v, var, label);
	}
	/*
	 * When the ranks differ by less than half the time, the y axis starts
	 * below the first rank, at a round number, so that the differences show.
	 */
	if (mark && fast > slow / 2) {
		double step = pow(10, floor(log10(slow - fast)));

		snprintf(var, sizeof(var), "y%zu", k);
		buf_num(v, var, floor((fast - (slow - fast) / 2) / step) * step);
	}
	if (line >= 0) {
		snprintf(var, sizeof(var), "l%zu", k);
		buf_num(v, var, line);
		snprintf(var, sizeof(var), "ll%zu", k);
		snprintf(label, sizeof(label), "%s took %.1f us",
			 iters > 1 ? "the iteration" : "the collective", line);
		buf_str(v, var, label);
	}
}

int plot_ranks(const struct plot *p)
{
	const json_t *list, *one;
	size_t n = collectives(p->res, &list, &one), shown = n < COLL_PANELS ? n : COLL_PANELS;
	char path[PLOT_PATH];
	struct buf v = {0};
	int err = -1;
	FILE *f;

	if (!n) {
		fprintf(stderr, "rocesim: no collective in %s/results.json: ranks.png skipped\n",
			p->outdir);
		plot__drop_old(p, "ranks", NULL);
		return 0;
	}
	for (size_t i = 0; i < shown; i++) {
		const json_t *c = list ? json_array_get(list, i) : one;

		if (!json_is_array(json_object_get(c, "rank_done_us"))) {
			fprintf(stderr,
				"rocesim: no rank_done_us in the collectives of %s/results.json "
				"(written by an older rocesim): ranks.png skipped\n",
				p->outdir);
			plot__drop_old(p, "ranks", NULL);
			return 0;
		}
	}
	f = tmp_open(p, "ranks.dat", path, sizeof(path));
	if (!f)
		return -1;
	for (size_t i = 0; i < shown; i++)
		ranks_panel(f, &v, list ? json_array_get(list, i) : one, i + 1);
	if (tmp_close(f, path))
		goto out;
	buf_str(&v, "data", path);
	buf_int(&v, "n", (long)shown);
	buf_int(&v, "more", (long)(n - shown));
	err = plot__draw(p, "ranks", &v);
out:
	free(v.s);
	return err;
}
