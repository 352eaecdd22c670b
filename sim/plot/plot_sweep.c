/*
 * `rocesim plot SWEEPDIR`: a sweep's main metrics against its first axis.
 * Reads SWEEPDIR/sweep.json (the axes, zip, the seeds) and summary.csv (a
 * row per point: the axes, an optional variant column, then M.mean and
 * M.ci95 for each metric M), and draws with plots/sweep.gp one picture per
 * metric, sweep-<metric>.png: the mean over the seeds against the first
 * axis, one line per value of the other axes (per combination when there
 * are more than two, none when the axes are zipped) and per variant, the
 * 95% confidence interval as error bars when there are several seeds.
 *
 * The first axis is placed by value when its values all parse with one of
 * the units parsers (size, rate, time, length, fraction, in that order) or
 * as plain numbers, on a log scale when they span more than a factor 10
 * (and are all above 0); otherwise its values are categories in the sweep's
 * order. Ticks are labelled in units for people, three significant digits
 * ("26.7 KB" for 26667B, "2.5 us", "100 Gb/s", "300 m", "20%"); plain
 * numbers and categories as written. The y axis is in the metric's unit
 * (B, KB, MB, GB; us, ms, s; GB/s), named in its label.
 *
 * The error bars: with 3 seeds or more the 95% confidence interval of the
 * mean; with 2 the lowest and highest seed (a 95% interval from 2 seeds is
 * 12.7 standard deviations wide, t(0.975, 1), and says little). The y range
 * holds the seeds' values (min to max at every point), so that a wide
 * interval is cut at the frame instead of flattening the lines.
 *
 * A metric is drawn when summary.csv has it and its mean is not the same at
 * every point; one that is (PFC quiet everywhere, no drops) is named on one
 * line of stderr with its value instead, and a picture of it left by an
 * earlier plot is removed. When no metric has a value anywhere (every run
 * failed), one line says that there is nothing to draw. With error bars,
 * sweep.gp sets the lines a little apart on x so that bars do not overlap.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/plot/plot_impl.h"
#include "sim/engine/units.h"

#define TITLE_LEN 256

static const char *const sweep_metrics[] = {"pfc_pause_frames",
					    "pfc_paused_time_us",
					    "lossless_drops",
					    "ecn_marked_packets",
					    "max_queue_bytes",
					    "fct_us.p99",
					    "collective.completion_time_us",
					    "collective.busbw_GBps",
					    NULL};

/* One axis of sweep.json: its key, its values as written, their places. */
struct sw_axis {
	const char *key; /* borrowed from the spec */
	size_t n;
	const char **val; /* borrowed from the spec */
	double *x;
	int col;  /* its column in summary.csv */
	int kind; /* how its values were placed: sw_parse's kind, -1 categories */
};

struct sw_pt {
	double x, y, err, lo, hi; /* lo, hi: the lowest and highest seed */
};

/* A line of a picture: the points sharing the values of the other axes. */
struct sw_line {
	char title[TITLE_LEN];
	struct sw_pt *pt;
	size_t n, cap;
};

struct sw_plot {
	struct plot *p;
	json_t *spec;
	struct sw_axis *axis;
	size_t naxes;
	int zip, logx, variant_col;
	long seeds;
	struct plot_table tab;
	char summary[PLOT_PATH];
};

/* ---- sweep.json and the axes -------------------------------------------- */

/*
 * Parse @s as kind @kind (0 size, 1 rate, 2 time, 3 length, 4 fraction,
 * 5 a plain number) into @x; 0 when it is one.
 */
static int sw_parse(int kind, const char *s, double *x)
{
	uint64_t u = 0;
	simtime_t ps = 0;
	char *end;
	int err;

	switch (kind) {
	case 0:
		err = units_size(s, &u);
		*x = (double)u;
		return err;
	case 1:
		err = units_rate(s, &u);
		*x = (double)u;
		return err;
	case 2:
		err = units_time(s, &ps);
		*x = (double)ps;
		return err;
	case 3:
		err = units_length(s, &u);
		*x = (double)u;
		return err;
	case 4:
		return units_fraction(s, x);
	default:
		errno = 0;
		*x = strtod(s, &end);
		return end == s || *end || errno || !isfinite(*x) ? -1 : 0;
	}
}

/*
 * Place the values of @a on the x axis: by the first parser that takes them
 * all, else as categories 1..n. Returns 1 when placed by value.
 */
static int sw_place(struct sw_axis *a)
{
	for (int kind = 0; kind <= 5; kind++) {
		size_t i;

		for (i = 0; i < a->n; i++)
			if (sw_parse(kind, a->val[i], &a->x[i]))
				break;
		if (i == a->n) {
			a->kind = kind;
			return 1;
		}
	}
	a->kind = -1;
	for (size_t i = 0; i < a->n; i++)
		a->x[i] = (double)(i + 1);
	return 0;
}

/* @v over the steps of 1000 from @base: "26.7 KB" (@units from the base up). */
static void sw_scaled(double v, double step, const char *const *units, size_t n, char *buf,
		      size_t size)
{
	size_t u = 0;
	int dec;

	while (u + 1 < n && fabs(v) >= step)
		v /= step, u++;
	dec = fabs(v) >= 100 || v == floor(v) ? 0 : fabs(v) >= 10 ? 1 : 2;
	snprintf(buf, size, "%.*f %s", dec, v, units[u]);
	/* "2.50 us" -> "2.5 us" */
	for (char *dot = strchr(buf, '.'), *sp = strchr(buf, ' ');
	     dot && sp && sp > dot + 1 && sp[-1] == '0';) {
		memmove(sp - 1, sp, strlen(sp) + 1);
		sp--;
		if (sp[-1] == '.') {
			memmove(sp - 1, sp, strlen(sp) + 1);
			break;
		}
	}
}

/* The tick label of value @i of @a in units for people into @buf. */
static void sw_tick(const struct sw_axis *a, size_t i, char *buf, size_t size)
{
	static const char *const sizes[] = {"B", "KB", "MB", "GB", "TB"};
	static const char *const rates[] = {"b/s", "Kb/s", "Mb/s", "Gb/s", "Tb/s"};
	static const char *const times[] = {"ps", "ns", "us", "ms", "s"};
	static const char *const lengths[] = {"mm", "m", "km"};
	double x = a->x[i];

	switch (a->kind) {
	case 0:
		sw_scaled(x, 1000, sizes, 5, buf, size);
		return;
	case 1:
		sw_scaled(x, 1000, rates, 5, buf, size);
		return;
	case 2:
		sw_scaled(x, 1000, times, 5, buf, size);
		return;
	case 3:
		if (x >= 1000)
			sw_scaled(x / 1000, 1000, lengths + 1, 2, buf, size);
		else
			sw_scaled(x, 1000, lengths, 1, buf, size);
		return;
	case 4:
		snprintf(buf, size, "%.3g%%", 100 * x);
		return;
	default:
		snprintf(buf, size, "%s", a->val[i]);
	}
}

/* The unit of @metric for an axis whose values reach @hi: its label
 * "max_queue_bytes (MB)" into @label and the scale into *@scale. */
static void sw_unit(const char *metric, double hi, char *label, size_t size, double *scale)
{
	size_t len = strlen(metric);
	const char *unit = NULL;

	*scale = 1;
	hi = fabs(hi);
	if (len > 6 && !strcmp(metric + len - 6, "_bytes")) {
		*scale = hi >= 1e9 ? 1e9 : hi >= 1e6 ? 1e6 : hi >= 1e3 ? 1e3 : 1;
		unit = hi >= 1e9 ? "GB" : hi >= 1e6 ? "MB" : hi >= 1e3 ? "KB" : "B";
	} else if (strstr(metric, "_us.") || (len > 3 && !strcmp(metric + len - 3, "_us"))) {
		*scale = hi >= 1e6 ? 1e6 : hi >= 1e3 ? 1e3 : 1;
		unit = hi >= 1e6 ? "s" : hi >= 1e3 ? "ms" : "us";
	} else if (len > 5 && !strcmp(metric + len - 5, "_GBps")) {
		unit = "GB/s";
	} else if (len > 6 && !strcmp(metric + len - 6, "_per_s")) {
		unit = "per s";
	}
	if (unit)
		snprintf(label, size, "%s (%s)", metric, unit);
	else
		snprintf(label, size, "%s", metric);
}

/* The seeds of sweep.json: a list or a count. */
static long sw_seeds(const json_t *spec)
{
	const json_t *seeds = json_object_get(spec, "seeds");

	return json_is_array(seeds)	? (long)json_array_size(seeds)
	       : json_is_integer(seeds) ? (long)json_integer_value(seeds)
					: 1;
}

/*
 * A sweep of variants and no axis (what-if: the same scenario with other
 * overlays): the variants are the x axis, as categories in their order.
 */
static int sw_variants_axis(struct sw_plot *s, const char *path)
{
	const json_t *vars = json_object_get(s->spec, "variants");
	struct sw_axis *a;

	s->naxes = 1;
	s->axis = calloc(1, sizeof(*s->axis));
	if (!s->axis)
		goto out_oom;
	a = &s->axis[0];
	a->key = "variant";
	a->n = json_array_size(vars);
	a->val = calloc(a->n, sizeof(*a->val));
	a->x = calloc(a->n, sizeof(*a->x));
	if (!a->val || !a->x)
		goto out_oom;
	for (size_t k = 0; k < a->n; k++) {
		a->val[k] = json_string_value(json_object_get(json_array_get(vars, k), "name"));
		if (!a->val[k]) {
			fprintf(stderr, "rocesim: %s: variants[%zu].name: not a string\n", path, k);
			return -1;
		}
	}
	s->seeds = sw_seeds(s->spec);
	return 0;

out_oom:
	fprintf(stderr, "rocesim: out of memory reading %s\n", path);
	return -1;
}

/* Load sweep.json's axes, zip and seeds; -1 after saying what is wrong. */
static int sw_load_spec(struct sw_plot *s, const char *path)
{
	const json_t *axes;
	json_error_t je;

	s->spec = json_load_file(path, 0, &je);
	if (!s->spec) {
		fprintf(stderr, "rocesim: %s:%d: %s\n", path, je.line, je.text);
		return -1;
	}
	axes = json_object_get(s->spec, "axes");
	if (json_is_array(axes) && !json_array_size(axes) &&
	    json_array_size(json_object_get(s->spec, "variants")) > 1)
		return sw_variants_axis(s, path);
	if (!json_is_array(axes) || !json_array_size(axes)) {
		fprintf(stderr, "rocesim: %s: axes: expected a list of at least one axis\n", path);
		return -1;
	}
	s->naxes = json_array_size(axes);
	s->axis = calloc(s->naxes, sizeof(*s->axis));
	if (!s->axis)
		goto out_oom;
	for (size_t i = 0; i < s->naxes; i++) {
		const json_t *ax = json_array_get(axes, i);
		const json_t *vals = json_object_get(ax, "values");
		struct sw_axis *a = &s->axis[i];

		a->key = json_string_value(json_object_get(ax, "key"));
		if (!a->key || !json_is_array(vals) || !json_array_size(vals)) {
			fprintf(stderr, "rocesim: %s: axes[%zu]: expected {key, values}\n", path,
				i);
			return -1;
		}
		a->n = json_array_size(vals);
		a->val = calloc(a->n, sizeof(*a->val));
		a->x = calloc(a->n, sizeof(*a->x));
		if (!a->val || !a->x)
			goto out_oom;
		for (size_t k = 0; k < a->n; k++) {
			a->val[k] = json_string_value(json_array_get(vals, k));
			if (!a->val[k]) {
				fprintf(stderr,
					"rocesim: %s: axes[%zu].values[%zu]: not a string\n", path,
					i, k);
				return -1;
			}
		}
	}
	s->zip = json_is_true(json_object_get(s->spec, "zip"));
	s->seeds = sw_seeds(s->spec);
	return 0;

out_oom:
	fprintf(stderr, "rocesim: out of memory reading %s\n", path);
	return -1;
}

static void sw_free(struct sw_plot *s)
{
	for (size_t i = 0; s->axis && i < s->naxes; i++) {
		free(s->axis[i].val);
		free(s->axis[i].x);
	}
	free(s->axis);
	plot__table_free(&s->tab);
	json_decref(s->spec);
}

/* ---- one picture per metric --------------------------------------------- */

static void sw_lines_free(struct sw_line *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(l[i].pt);
	free(l);
}

/* The title of the line of row @r: its variant and the other axes' values. */
static void sw_line_title(const struct sw_plot *s, const struct plot_row *r, char *out, size_t size)
{
	size_t len = 0;

	out[0] = '\0';
	if (s->variant_col >= 0 && s->variant_col < r->n)
		len += (size_t)snprintf(out, size, "%s", r->f[s->variant_col]);
	for (size_t a = 1; !s->zip && a < s->naxes && len < size; a++)
		len += (size_t)snprintf(out + len, size - len, "%s%s", len ? ", " : "",
					s->axis[a].col < r->n ? r->f[s->axis[a].col] : "");
}

/* What the line titles are values of ("" for a single line). */
static void sw_key_title(const struct sw_plot *s, char *out, size_t size)
{
	size_t len = 0;

	out[0] = '\0';
	if (s->variant_col >= 0)
		len += (size_t)snprintf(out, size, "variant");
	for (size_t a = 1; !s->zip && a < s->naxes && len < size; a++)
		len += (size_t)snprintf(out + len, size - len, "%s%s", len ? ", " : "",
					s->axis[a].key);
}

static int sw_line_add(struct sw_line *l, const struct sw_pt *pt)
{
	size_t k;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct sw_pt *pt = realloc(l->pt, cap * sizeof(*pt));

		if (!pt)
			return -ENOMEM;
		l->pt = pt;
		l->cap = cap;
	}
	/* kept sorted by x: the axis's values need not be in order */
	for (k = l->n; k > 0 && l->pt[k - 1].x > pt->x; k--)
		l->pt[k] = l->pt[k - 1];
	l->pt[k] = *pt;
	l->n++;
	return 0;
}

/* The place on the x axis of row @r; -1 (said) when its value is not the sweep's. */
static int sw_row_x(const struct sw_plot *s, const struct plot_row *r, double *x)
{
	const struct sw_axis *a = &s->axis[0];
	const char *v = plot__table_field(&s->tab, r, a->col);

	if (!v)
		return -1;
	for (size_t i = 0; i < a->n; i++) {
		if (!strcmp(a->val[i], v)) {
			*x = a->x[i];
			return 0;
		}
	}
	fprintf(stderr, "rocesim: %s:%lu: %s: \"%s\" is not one of the values in sweep.json\n",
		s->tab.path, r->lineno, a->key, v);
	return -1;
}

/* The number in field @col of row @r into *@v (@dflt when empty or no
 * such column); -1 (said) when it is not a number. */
static int sw_num(const struct sw_plot *s, const struct plot_row *r, int col, double dflt,
		  double *v)
{
	const char *f = col >= 0 ? plot__table_field(&s->tab, r, col) : NULL;
	char *end;

	*v = dflt;
	if (!f || !*f)
		return 0;
	errno = 0;
	*v = strtod(f, &end);
	if (end == f || *end || errno) {
		fprintf(stderr, "rocesim: %s:%lu: \"%s\" is not a number\n", s->tab.path, r->lineno,
			f);
		return -1;
	}
	return 0;
}

/*
 * Gather the lines of @metric (mean, ci95, min and max in columns @mcol,
 * @ccol, @mincol, @maxcol) into @lines/@nlines, the lowest and highest
 * seed's value into *@lo, *@hi. Returns 0, or 1 when the metric has no
 * value at any point, or -1 (said).
 */
static int sw_gather(const struct sw_plot *s, const int *cols, struct sw_line **lines,
		     size_t *nlines, double *lo, double *hi)
{
	const int mcol = cols[0], ccol = cols[1], mincol = cols[2], maxcol = cols[3];
	struct sw_line *l = NULL;
	size_t n = 0, cap = 0;
	int any = 0;

	for (size_t i = 0; i < s->tab.n; i++) {
		const struct plot_row *r = &s->tab.row[i];
		char title[TITLE_LEN], *end;
		const char *m = plot__table_field(&s->tab, r, mcol),
			   *c = plot__table_field(&s->tab, r, ccol);
		double x, y, err = 0;
		struct sw_pt pt;
		size_t k;

		if (!m || !c)
			goto out_fail;
		if (!*m)
			continue; /* no run of this point has results */
		errno = 0;
		y = strtod(m, &end);
		if (end == m || *end || errno) {
			fprintf(stderr, "rocesim: %s:%lu: \"%s\" is not a number\n", s->tab.path,
				r->lineno, m);
			goto out_fail;
		}
		if (*c) {
			err = strtod(c, &end);
			if (end == c || *end) {
				fprintf(stderr, "rocesim: %s:%lu: \"%s\" is not a number\n",
					s->tab.path, r->lineno, c);
				goto out_fail;
			}
		}
		if (sw_row_x(s, r, &x) || sw_num(s, r, mincol, y, &pt.lo) ||
		    sw_num(s, r, maxcol, y, &pt.hi))
			goto out_fail;
		pt.x = x;
		pt.y = y;
		pt.err = err;
		if (!any || pt.lo < *lo)
			*lo = pt.lo;
		if (!any || pt.hi > *hi)
			*hi = pt.hi;
		any = 1;
		sw_line_title(s, r, title, sizeof(title));
		for (k = 0; k < n && strcmp(l[k].title, title); k++)
			;
		if (k == n) {
			if (n == cap) {
				size_t ncap = cap ? cap * 2 : 8;
				struct sw_line *nl = realloc(l, ncap * sizeof(*nl));

				if (!nl)
					goto out_oom;
				l = nl;
				cap = ncap;
			}
			memset(&l[n], 0, sizeof(l[n]));
			snprintf(l[n].title, sizeof(l[n].title), "%s", title);
			n++;
		}
		if (sw_line_add(&l[k], &pt))
			goto out_oom;
	}
	*lines = l;
	*nlines = n;
	return any ? 0 : 1;

out_oom:
	fprintf(stderr, "rocesim: out of memory reading %s\n", s->tab.path);
out_fail:
	sw_lines_free(l, n);
	return -1;
}

/* Draw sweep-@metric from @lines; -1 (said) on a failure. */
/*
 * The picture of @metric, "sweep-<metric>", with the characters a file
 * name should not have spelt out: a slowdown bucket "<10KB" gives
 * "sweep-fct_slowdown.lt10KB.p99", ">=10MB" "...ge10MB...".
 */
static void sw_pic(const char *metric, char *pic, size_t size)
{
	size_t n = (size_t)snprintf(pic, size, "sweep-");

	for (const char *c = metric; *c && n + 3 < size; c++) {
		if (isalnum((unsigned char)*c) || strchr("._-", *c)) {
			pic[n++] = *c;
		} else if (*c == '<' || *c == '>') {
			pic[n++] = *c == '<' ? 'l' : 'g';
			pic[n++] = c[1] == '=' ? 'e' : 't';
			c += c[1] == '=';
		} else {
			pic[n++] = '_';
		}
	}
	pic[n] = '\0';
}

static int sw_draw(const struct sw_plot *s, const char *metric, const struct sw_line *lines,
		   size_t nlines, double lo, double hi)
{
	const struct sw_axis *a = &s->axis[0];
	char pic[64], name[80], path[PLOT_PATH], label[TITLE_LEN];
	struct buf vars = {0};
	double scale, pad;
	FILE *f;
	int err;

	sw_pic(metric, pic, sizeof(pic));
	snprintf(name, sizeof(name), "%s.dat", pic);
	f = tmp_open(s->p, name, path, sizeof(path));
	if (!f)
		return -1;
	for (size_t i = 0; i < nlines; i++) {
		if (i)
			fputs("\n\n", f);
		for (size_t k = 0; k < lines[i].n; k++)
			fprintf(f, "%.10g %.10g %.10g %.10g %.10g\n", lines[i].pt[k].x,
				lines[i].pt[k].y, lines[i].pt[k].err, lines[i].pt[k].lo,
				lines[i].pt[k].hi);
	}
	if (tmp_close(f, path))
		return -1;
	sw_unit(metric, fabs(hi) > fabs(lo) ? hi : lo, label, sizeof(label), &scale);
	buf_str(&vars, "data", path);
	buf_str(&vars, "metric", metric);
	buf_str(&vars, "ylabel", label);
	buf_num(&vars, "yscale", scale);
	buf_int(&vars, "ypos", lo >= 0);
	/* the seeds' values, a tenth of their span (or of the value) around */
	pad = hi > lo ? (hi - lo) / 10 : fabs(hi) > 0 ? fabs(hi) / 10 : 1;
	buf_num(&vars, "ylo", (lo >= 0 && lo - pad < 0 ? 0 : lo - pad) / scale);
	buf_num(&vars, "yhi", (hi + pad) / scale);
	buf_str(&vars, "xlabel", a->key);
	buf_int(&vars, "logx", s->logx);
	buf_int(&vars, "nx", (long)a->n);
	for (size_t i = 0; i < a->n; i++) {
		char tick[64];

		snprintf(name, sizeof(name), "xv%zu", i + 1);
		buf_num(&vars, name, a->x[i]);
		snprintf(name, sizeof(name), "xl%zu", i + 1);
		sw_tick(a, i, tick, sizeof(tick));
		buf_str(&vars, name, tick);
	}
	buf_int(&vars, "lines", (long)nlines);
	for (size_t i = 0; i < nlines; i++) {
		snprintf(name, sizeof(name), "t%zu", i + 1);
		buf_str(&vars, name, lines[i].title);
	}
	sw_key_title(s, label, sizeof(label));
	buf_str(&vars, "keytitle", label);
	buf_int(&vars, "seeds", s->seeds);
	err = plot__draw_as(s->p, "sweep", pic, &vars);
	free(vars.s);
	return err;
}

/* Find the columns of the axes and the variant, place the first axis. */
static int sw_columns(struct sw_plot *s)
{
	const struct sw_axis *a0 = &s->axis[0];
	double lo = 0, hi = 0;

	for (size_t i = 0; i < s->naxes; i++) {
		s->axis[i].col = plot__table_col(&s->tab, s->axis[i].key);
		if (s->axis[i].col < 0) {
			fprintf(stderr,
				"rocesim: %s: no column \"%s\" in the header (the axis of "
				"sweep.json)\n",
				s->tab.path, s->axis[i].key);
			return -1;
		}
	}
	/* the variants are the x axis when there is no other: no line each */
	s->variant_col = strcmp(a0->key, "variant") ? plot__table_col(&s->tab, "variant") : -1;
	if (!sw_place(&s->axis[0]))
		return 0;
	for (size_t i = 0; i < a0->n; i++) {
		if (!i || a0->x[i] < lo)
			lo = a0->x[i];
		if (!i || a0->x[i] > hi)
			hi = a0->x[i];
	}
	s->logx = lo > 0 && hi > 10 * lo;
	return 0;
}

/* Draw @metric against the first axis (or name it in @same when it does
 * not change); its picture from an earlier plot is removed otherwise. */
static int sw_metric(struct sw_plot *s, const char *metric, struct buf *same, int *drawn)
{
	char col[NAME_MAX_LEN], pic[128];
	struct sw_line *lines = NULL;
	size_t nlines = 0;
	double lo = 0, hi = 0;
	static const char *const stats[] = {"mean", "ci95", "min", "max"};
	int cols[4], got, err = 0;

	sw_pic(metric, pic, sizeof(pic));
	for (int i = 0; i < 4; i++) {
		snprintf(col, sizeof(col), "%s.%s", metric, stats[i]);
		cols[i] = plot__table_col(&s->tab, col);
	}
	if (cols[0] < 0 || cols[1] < 0) {
		plot__drop_old(s->p, pic, NULL);
		return 0;
	}
	got = sw_gather(s, cols, &lines, &nlines, &lo, &hi);
	if (got < 0) {
		err = -1;
	} else if (got > 0 || lo == hi) {
		plot__drop_old(s->p, pic, NULL);
		if (!got)
			buf_printf(same, "%s%s (%.10g)", same->len ? ", " : "", metric, lo);
	} else {
		err = sw_draw(s, metric, lines, nlines, lo, hi);
		(*drawn)++;
	}
	sw_lines_free(lines, nlines);
	return err;
}

/* The slowdown pictures of an earlier plot: its buckets may have been others. */
static void sw_drop_slowdown(const struct plot *p)
{
	DIR *d = opendir(p->outdir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char pic[NAME_MAX_LEN];

		if (!strncmp(e->d_name, "sweep-fct_slowdown.", 19) && len > 4 &&
		    len < sizeof(pic) &&
		    (!strcmp(e->d_name + len - 4, ".png") ||
		     !strcmp(e->d_name + len - 4, ".svg"))) {
			snprintf(pic, sizeof(pic), "%.*s", (int)(len - 4), e->d_name);
			plot__drop_old(p, pic, e->d_name + len - 3);
		}
	}
	closedir(d);
}

int plot_sweep(struct plot *p)
{
	struct sw_plot s = {.p = p, .variant_col = -1};
	struct buf same = {0};
	char path[PLOT_PATH];
	int err = -1, drawn = 0;

	if (plot__join(path, sizeof(path), p->outdir, "sweep.json") || sw_load_spec(&s, path))
		goto out;
	p->name = json_string_value(json_object_get(json_object_get(s.spec, "scenario"), "name"));
	if (!p->name)
		p->name = "sweep";
	if (plot__join(s.summary, sizeof(s.summary), p->outdir, "summary.csv") ||
	    plot__table_read(&s.tab, s.summary,
			     "the sweep has not written its tables yet: rerun `rocesim sweep` "
			     "into this folder") ||
	    sw_columns(&s))
		goto out;
	err = 0;
	for (int m = 0; sweep_metrics[m] && !err; m++)
		err = sw_metric(&s, sweep_metrics[m], &same, &drawn);
	/* FCT slowdown: the p99 of each size bucket the runs have */
	sw_drop_slowdown(p);
	for (int i = 0; i < s.tab.hdr.n && !err; i++) {
		const char *h = s.tab.hdr.f[i];
		size_t len = strlen(h);
		char metric[NAME_MAX_LEN];

		if (strncmp(h, "fct_slowdown.", 13) || len < 9 || len >= sizeof(metric) ||
		    strcmp(h + len - 9, ".p99.mean"))
			continue;
		snprintf(metric, sizeof(metric), "%.*s", (int)(len - 5), h);
		err = sw_metric(&s, metric, &same, &drawn);
	}
	if (!err && same.len)
		fprintf(stderr, "rocesim: plot: the same at every point, not drawn: %s\n", same.s);
	else if (!err && !drawn)
		fprintf(stderr,
			"rocesim: plot: %s: no main metric has a value at any point (did every "
			"run fail?): nothing to draw\n",
			s.summary);
	free(same.s);
out:
	sw_free(&s);
	return err;
}
