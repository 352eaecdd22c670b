/*
 * slowdown.png of `rocesim plot`: FCT slowdown against flow size, from
 * summary.fct_slowdown of results.json (per size bucket, the p50, p95 and
 * p99 of the flows' FCT over their ideal FCT). A bucket stands at the
 * median size of its finished flows (flows[]), or at the geometric middle
 * of its bounds when flows[] has none of them; the size axis is
 * logarithmic with a tick at each decade in its unit, the bounds between
 * buckets dashed.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/plot/plot_impl.h"

/* One bucket of summary.fct_slowdown that holds finished flows. */
struct sd_bucket {
	double lo, hi; /* bytes; hi 0: no upper bound */
	double x;      /* where it is drawn */
	double p50, p95, p99;
	long n;
	const char *label; /* borrowed from results.json */
};

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The median size of the finished flows of @flows in [@lo, @hi) (@hi 0: no
 * bound), with @v as scratch room for all of them; -1 when there is none.
 */
static double sd_median(const json_t *flows, double lo, double hi, double *v)
{
	const json_t *fl;
	size_t i, k = 0;

	json_array_foreach(flows, i, fl) {
		double b = plot__json_num(fl, "bytes", -1);

		if (json_is_number(json_object_get(fl, "fct_us")) && b >= lo && (hi <= 0 || b < hi))
			v[k++] = b;
	}
	if (!k)
		return -1;
	qsort(v, k, sizeof(*v), dbl_cmp);
	return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

/* Where bucket @b stands without flows: the geometric middle of its bounds. */
static double sd_middle(const struct sd_bucket *b)
{
	if (b->lo > 0 && b->hi > 0)
		return sqrt(b->lo * b->hi);
	if (b->hi > 0)
		return b->hi / sqrt(10);
	return (b->lo > 0 ? b->lo : 1) * sqrt(10);
}

/* @v bytes as a tick label: "100 KB". */
static void sd_size(double v, char *buf, size_t size)
{
	static const char *const unit[] = {"B", "KB", "MB", "GB", "TB"};
	int u = 0;

	while (u < 4 && v >= 1000) {
		v /= 1000;
		u++;
	}
	snprintf(buf, size, "%g %s", v, unit[u]);
}

/*
 * The buckets of @sum's fct_slowdown that hold finished flows, into a new
 * array (*@out, to free); their count, or -1 when out of memory.
 */
static long sd_buckets(const json_t *res, const json_t *a, struct sd_bucket **out)
{
	const json_t *flows = json_object_get(res, "flows"), *o;
	size_t nf = json_array_size(flows), i;
	double *scratch = malloc((nf ? nf : 1) * sizeof(*scratch));
	struct sd_bucket *b = calloc(json_array_size(a) + 1, sizeof(*b));
	long n = 0;

	if (!scratch || !b) {
		free(scratch);
		free(b);
		return -1;
	}
	json_array_foreach(a, i, o) {
		struct sd_bucket *q = &b[n];

		q->n = (long)plot__json_num(o, "n", 0);
		if (q->n <= 0 || !json_is_number(json_object_get(o, "p50")) ||
		    !json_is_number(json_object_get(o, "p95")) ||
		    !json_is_number(json_object_get(o, "p99")))
			continue;
		q->lo = plot__json_num(o, "min_bytes", 0);
		q->hi = plot__json_num(o, "max_bytes", 0);
		q->p50 = plot__json_num(o, "p50", 0);
		q->p95 = plot__json_num(o, "p95", 0);
		q->p99 = plot__json_num(o, "p99", 0);
		q->label = json_string_value(json_object_get(o, "bucket"));
		q->x = sd_median(flows, q->lo, q->hi, scratch);
		if (q->x <= 0)
			q->x = sd_middle(q);
		n++;
	}
	free(scratch);
	*out = b;
	return n;
}

/* The data file and the axes' variables of the @n buckets @b into @v. */
static int sd_write(const struct plot *p, const struct sd_bucket *b, long n, struct buf *v)
{
	double xmin = b[0].x, xmax = b[0].x, ymin = b[0].p50, ymax = b[0].p99, xlo, xhi;
	char path[PLOT_PATH], label[32];
	struct buf ticks = {0}, bounds = {0};
	long flows = 0;
	FILE *f = tmp_open(p, "slowdown.dat", path, sizeof(path));

	if (!f)
		return -1;
	for (long i = 0; i < n; i++) {
		fprintf(f, "%.10g %.3f %.3f %.3f %ld \"", b[i].x, b[i].p50, b[i].p95, b[i].p99,
			b[i].n);
		for (const char *c = b[i].label ? b[i].label : "?"; *c; c++)
			fputc(*c == '"' ? '\'' : *c, f);
		fputs("\"\n", f);
		xmin = fmin(xmin, b[i].x);
		xmax = fmax(xmax, b[i].x);
		ymin = fmin(ymin, fmin(b[i].p50, fmin(b[i].p95, b[i].p99)));
		ymax = fmax(ymax, fmax(b[i].p50, fmax(b[i].p95, b[i].p99)));
		flows += b[i].n;
	}
	if (tmp_close(f, path))
		return -1;
	/* whole decades around the points, with room on either side */
	xlo = pow(10, floor(log10(xmin / 1.5)));
	xhi = pow(10, ceil(log10(xmax * 1.5)));
	for (double d = xlo; d <= xhi * 1.001; d *= 10) {
		sd_size(d, label, sizeof(label));
		buf_printf(&ticks, "%s\"%s\" %.10g", ticks.len ? ", " : "", label, d);
	}
	for (long i = 0; i < n; i++)
		for (int k = 0; k < 2; k++) {
			double e = k ? b[i].hi : b[i].lo;

			/* each bound once: a bucket's upper bound is the next one's lower */
			if (e > xlo && e < xhi && (k || !i || e != b[i - 1].hi))
				buf_printf(&bounds, "%s%.10g", bounds.len ? " " : "", e);
		}
	buf_str(v, "data", path);
	buf_int(v, "n", n);
	buf_int(v, "nflows", flows);
	buf_num(v, "xlo", xlo);
	buf_num(v, "xhi", xhi);
	buf_str(v, "xticks", ticks.s ? ticks.s : "");
	buf_str(v, "bounds", bounds.s ? bounds.s : "");
	/* a log scale when the tail is more than 20 times the median */
	buf_int(v, "logy", ymin > 0 && ymax / ymin > 20);
	buf_num(v, "ylo", ymin > 0 && ymax / ymin > 20 ? pow(10, floor(log10(ymin))) : 0);
	buf_num(v, "yhi", ymax);
	v->oom |= ticks.oom || bounds.oom;
	free(ticks.s);
	free(bounds.s);
	return 0;
}

int plot_slowdown(const struct plot *p)
{
	const json_t *sum = json_object_get(p->res, "summary");
	const json_t *load = json_object_get(sum, "offered_load");
	struct sd_bucket *b = NULL;
	struct buf v = {0};
	long n = sd_buckets(p->res, json_object_get(sum, "fct_slowdown"), &b);
	int err = -1;

	if (n < 0) {
		fprintf(stderr, "rocesim: out of memory\n");
		return -1;
	}
	if (!n) {
		fprintf(stderr,
			"rocesim: no finished flow in summary.fct_slowdown of %s/results.json: "
			"slowdown.png skipped\n",
			p->outdir);
		plot__drop_old(p, "slowdown", NULL);
		free(b);
		return 0;
	}
	if (!sd_write(p, b, n, &v)) {
		if (json_is_number(load))
			buf_num(&v, "load", 100 * json_number_value(load));
		err = plot__draw(p, "slowdown", &v);
	}
	free(v.s);
	free(b);
	return err;
}
