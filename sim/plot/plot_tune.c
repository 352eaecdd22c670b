/*
 * `rocesim plot TUNEDIR`: the points a tune evaluated. From TUNEDIR/tune.json
 * (the varied keys and their ranges, the objectives, the constraints, every
 * point with its state and objectives, the path of incumbents, the best
 * point, the Pareto front) and, when a picture shows a constraint's metric,
 * tune.csv (one row per run), as plot_tune_read.c reads them, it draws with
 * plots/tune.gp:
 *
 *   tune.png        one key: the objective against the key (the first
 *                   constraint's metric when the objective is the key
 *                   itself, as in "the smallest headroom without a drop"),
 *                   with the constraints' limits on that metric; two keys
 *                   or more: the first two keys as x and y, a dot per point,
 *                   the search path through the incumbents in order
 *   tune-front.png  two objectives: objective 1 against objective 2 for
 *                   every feasible point, the Pareto front as a line
 *
 * Points that meet every constraint and points that break one are drawn in
 * two styles, the best point (the closest when none is feasible) is marked,
 * and points the scenario refused are not drawn. A key's axis is on a log
 * scale when tune searched it on one, in a readable unit (KB, us, Gbps, m)
 * of the base unit tune.json gives its values in.
 *
 * With seeds, an objective is the mean over the seeds (as tune.json has it)
 * and a constraint's metric the worst seed's value (the one furthest on the
 * wrong side of the limit: tune requires every seed to meet it).
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/plot/plot_impl.h"
#include "sim/study/tune_impl.h"

#define TN_MAX_LIMITS 4 /* constraint lines drawn on one metric */

/* ---- axes --------------------------------------------------------------- */

/*
 * The unit for a value @v of base unit @base ("B", "bps", "ps", "mm"): the
 * largest of its multiples not above @v; its divisor and @name ("KB"), or 1
 * and "" for a plain number.
 */
static double tn_unit_for(const char *base, double v, const char **name)
{
	static const struct {
		const char *base;
		double div[4];
		const char *name[4];
	} units[] = {
	    {"B", {1e9, 1e6, 1e3, 1}, {"GB", "MB", "KB", "B"}},
	    {"bps", {1e9, 1e6, 1e3, 1}, {"Gbps", "Mbps", "Kbps", "bps"}},
	    {"ps", {1e9, 1e6, 1e3, 1}, {"ms", "us", "ns", "ps"}},
	    {"mm", {1e6, 1e3, 1, 1}, {"km", "m", "mm", "mm"}},
	};

	for (size_t u = 0; u < sizeof(units) / sizeof(*units); u++) {
		int k;

		if (strcmp(base, units[u].base))
			continue;
		for (k = 0; k < 3 && fabs(v) < units[u].div[k]; k++)
			;
		*name = units[u].name[k];
		return units[u].div[k];
	}
	*name = "";
	return 1;
}

/* The unit of an axis of key @q whose values reach @v; its divisor, the label. */
static double tn_unit(const struct tn_param *q, double v, char *label, size_t size)
{
	const char *name;
	double div = tn_unit_for(q->unit, v, &name);

	if (*name)
		snprintf(label, size, "%s (%s)", q->key, name);
	else
		snprintf(label, size, "%s", q->key);
	return div;
}

/*
 * The axis of key @q over its whole range. On a log scale the values stay
 * in the base unit and each tick says its own unit ("100 KB", "1 MB": one
 * unit for the whole axis would write 1 B as 1e-06 MB): at each decade, or
 * at 1, 2 and 5 of each when the range spans less than three.
 */
static void tn_param_axis(struct tn_param *q)
{
	double top = fabs(q->hi) > fabs(q->lo) ? fabs(q->hi) : fabs(q->lo);
	struct buf b = {0};

	q->axis.scale = tn_unit(q, top, q->axis.label, sizeof(q->axis.label));
	if (!q->axis.log)
		return;
	q->axis.scale = 1;
	snprintf(q->axis.label, sizeof(q->axis.label), "%s", q->key);
	for (int e = (int)floor(log10(q->lo)); e <= (int)ceil(log10(q->hi)); e++) {
		static const double mult[] = {1, 2, 5};

		for (int m = 0; m < (q->hi / q->lo < 1000 ? 3 : 1); m++) {
			double v = mult[m] * pow(10, e), div;
			const char *name;

			if (v < q->lo || v > q->hi)
				continue;
			div = tn_unit_for(q->unit, v, &name);
			buf_printf(&b, "%s\"%.6g%s%s\" %.10g", b.len ? ", " : "", v / div,
				   *name ? " " : "", name, v);
		}
	}
	if (b.oom) { /* gnuplot's own ticks then */
		free(b.s);
		return;
	}
	q->ticks = b.s;
	q->axis.ticks = b.s;
}

/* The axis of a metric (or of a key, when @metric names one) whose values reach @hi. */
static void tn_metric_axis(const struct tn_plot *t, const char *metric, double hi, const char *note,
			   struct tn_axis *a)
{
	int k = plot_tune__param_of(t, metric);

	if (k >= 0) {
		*a = t->par[k].axis;
	} else {
		a->log = 0;
		a->ticks = NULL;
		plot__metric_unit(metric, hi, a->label, sizeof(a->label), &a->scale);
	}
	if (note && *note) {
		size_t len = strlen(a->label);

		snprintf(a->label + len, sizeof(a->label) - len, ", %s", note);
	}
}

/* ---- the data files ------------------------------------------------------- */

struct tn_xy {
	double x, y, z; /* z: a colour's value, or NAN */
};

struct tn_set {
	struct tn_xy *v;
	size_t n, cap;
};

static int tn_add(struct tn_set *s, double x, double y)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 32;
		struct tn_xy *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = (struct tn_xy){x, y, NAN};
	return 0;
}

/* Add (@x, @y) coloured by @z. */
static int tn_add3(struct tn_set *s, double x, double y, double z)
{
	if (tn_add(s, x, y))
		return -ENOMEM;
	s->v[s->n - 1].z = z;
	return 0;
}

static int tn_by_x(const void *a, const void *b)
{
	const struct tn_xy *p = a, *q = b;

	return (p->x > q->x) - (p->x < q->x);
}

/* Sort @s by x (an empty set has no array: qsort must not see it). */
static void tn_sort(struct tn_set *s)
{
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), tn_by_x);
}

static int tn_by_value(const void *a, const void *b)
{
	const double *p = a, *q = b;

	return (*p > *q) - (*p < *q);
}

/*
 * Write @s as "x y" lines (@vectors: "x y dx dy", one arrow from each point
 * to the next) into the temporary folder as @name; its path as gnuplot
 * variable @var and its count as @count.
 */
static int tn_write(const struct tn_plot *t, const struct tn_set *s, const char *name, int vectors,
		    struct buf *vars, const char *var, const char *count)
{
	char path[PLOT_PATH];
	size_t n = vectors && s->n ? s->n - 1 : s->n;
	FILE *f = tmp_open(t->p, name, path, sizeof(path));

	if (!f)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (vectors)
			fprintf(f, "%.10g %.10g %.10g %.10g\n", s->v[i].x, s->v[i].y,
				s->v[i + 1].x - s->v[i].x, s->v[i + 1].y - s->v[i].y);
		else if (!isnan(s->v[i].z))
			fprintf(f, "%.10g %.10g %.10g\n", s->v[i].x, s->v[i].y, s->v[i].z);
		else
			fprintf(f, "%.10g %.10g\n", s->v[i].x, s->v[i].y);
	}
	if (tmp_close(f, path))
		return -1;
	buf_str(vars, var, path);
	buf_int(vars, count, (long)n);
	return 0;
}

/*
 * Axis @a as gnuplot variables @pre lo, @pre hi (the range, from @lo to @hi
 * in the base unit, with a little room), log@pre and @pre scale.
 */
static void tn_range(struct buf *vars, const char *pre, double lo, double hi,
		     const struct tn_axis *a)
{
	int log = a->log && lo > 0;
	char name[16];
	double pad;

	lo /= a->scale;
	hi /= a->scale;
	if (log) {
		pad = hi > lo ? pow(hi / lo, 0.05) : 2;
		lo /= pad;
		hi *= pad;
	} else if (hi > lo) {
		/* from just below 0 when nothing is below 0: 0 clear of the
		 * border, and no negative tick */
		pad = (hi - lo) * 0.05;
		lo = lo >= 0 && lo - pad < 0 ? -(hi - lo) * 0.04 : lo - pad;
		hi += pad;
	} else {
		pad = lo ? fabs(lo) * 0.1 : 1;
		lo -= pad;
		hi += pad;
	}
	snprintf(name, sizeof(name), "%slo", pre);
	buf_num(vars, name, lo);
	snprintf(name, sizeof(name), "%shi", pre);
	buf_num(vars, name, hi);
	snprintf(name, sizeof(name), "log%s", pre);
	buf_int(vars, name, log);
	snprintf(name, sizeof(name), "%sscale", pre);
	buf_num(vars, name, a->scale);
	snprintf(name, sizeof(name), "%slabel", pre);
	buf_str(vars, name, a->label);
	snprintf(name, sizeof(name), "%sticks", pre);
	buf_str(vars, name, a->ticks ? a->ticks : "");
}

/* The value @v of key @q as the pictures' titles give it, in its unit ("150 KB"). */
static void tn_value(const struct tn_param *q, double v, char *buf, size_t size)
{
	const char *name;
	double div = tn_unit_for(q->unit, v, &name);

	if (*name)
		snprintf(buf, size, "%.7g %s", v / div, name);
	else
		snprintf(buf, size, "%.7g", v);
}

#define TN_TITLE_WIDTH 105 /* characters a title line holds at 1000 px */
#define TN_TITLE_LINES 8

/*
 * Line @text of a title cut into lines of at most TN_TITLE_WIDTH
 * characters at ", " or "; " (else a space), as gnuplot variables hl1..,
 * counted in *@n.
 */
static void tn_title_line(struct buf *vars, const char *text, int *n)
{
	size_t len = strlen(text);

	while (len && *n < TN_TITLE_LINES) {
		size_t cut = len;
		char name[8], line[TN_TITLE_WIDTH + 1];

		if (len > TN_TITLE_WIDTH) {
			cut = 0;
			for (size_t i = TN_TITLE_WIDTH - 1; i > TN_TITLE_WIDTH / 2 && !cut; i--)
				if ((text[i] == ',' || text[i] == ';') && text[i + 1] == ' ')
					cut = i + 1;
			for (size_t i = TN_TITLE_WIDTH - 1; i > 0 && !cut; i--)
				if (text[i] == ' ')
					cut = i;
			cut = cut ? cut : TN_TITLE_WIDTH;
		}
		snprintf(line, sizeof(line), "%.*s", (int)cut, text);
		snprintf(name, sizeof(name), "hl%d", ++*n);
		buf_str(vars, name, line);
		text += cut;
		len -= cut;
		while (*text == ' ')
			text++, len--;
	}
}

/* Point @q's values of the keys, "kmin 150 KB, kmax 1.2 MB", onto @b;
 * with @from, as changes from it ("kmax 1.2 MB -> 2 MB"), keys alike left out. */
static void tn_values(const struct tn_plot *t, const struct tn_point *q,
		      const struct tn_point *from, struct buf *b)
{
	int first = 1;

	for (size_t k = 0; k < t->n_par; k++) {
		char v[64], w[64];

		if (from && from->x[k] == q->x[k])
			continue;
		tn_value(&t->par[k], q->x[k], v, sizeof(v));
		if (from) {
			tn_value(&t->par[k], from->x[k], w, sizeof(w));
			buf_printf(b, "%s%s %s -> %s", first ? "" : ", ", t->par[k].key, w, v);
		} else {
			buf_printf(b, "%s%s %s", first ? "" : ", ", t->par[k].key, v);
		}
		first = 0;
	}
}

/* Point @q's objectives that are not keys, ", collective.completion_time_us 4.566 ms". */
static void tn_objectives(const struct tn_plot *t, const struct tn_point *q, struct buf *b)
{
	for (size_t k = 0; k < t->n_obj && q->state == TN_RAN; k++) {
		char v[48];

		if (t->obj_par[k] >= 0)
			continue;
		tune_metric_format(t->obj[k], q->obj[k], v, sizeof(v));
		buf_printf(b, ", %s %s", t->obj[k], v);
	}
}

/*
 * What the pictures share, as title lines hl1..hlN (nhl): the scenario
 * and the problem, the search, then what tune chose and why: the answer
 * with what it changes from the scenario's own values and the gain, or
 * "keep the current values", and the keys that moved nothing
 * (@undrawn_failed: the failed points are not drawn).
 */
static void tn_titles(const struct tn_plot *t, int undrawn_failed, struct buf *vars)
{
	struct buf b = {0};
	int n = 0;
	const struct tn_point *cur = t->cur >= 0 ? &t->pt[t->cur] : NULL;

	buf_printf(&b, "%s:", t->name);
	for (size_t k = 0; k < t->n_obj; k++)
		buf_printf(&b, "%s %s %s", k ? " and" : "", t->goal[k], t->obj[k]);
	for (size_t i = 0; i < t->n_cons; i++)
		buf_printf(&b, "%s%s %s %.10g", i ? ", " : " subject to ", t->cons[i].metric,
			   t->cons[i].op, t->cons[i].value);
	tn_title_line(vars, b.s ? b.s : "", &n);
	b.len = 0;
	buf_printf(&b, "%s, %zu point%s, %zu seed%s", t->method, t->n_pt, t->n_pt == 1 ? "" : "s",
		   t->seeds, t->seeds == 1 ? "" : "s");
	if (t->refused)
		buf_printf(&b, "; %zu refused by the scenario, not drawn", t->refused);
	if (t->failed && undrawn_failed)
		buf_printf(&b, "; %zu failed, not drawn", t->failed);
	tn_title_line(vars, b.s, &n);
	b.len = 0;
	if (t->rec >= 0 && cur) {
		const struct tn_point *r = &t->pt[t->rec];

		buf_printf(&b, t->rec == t->best ? "best %s, the answer: " : "answer %s: ", r->id);
		tn_values(t, r, cur, &b);
		for (size_t k = 0; k < t->n_obj && r->state == TN_RAN; k++) {
			char v[48], w[48];

			if (t->obj_par[k] >= 0)
				continue;
			tune_range_format(t->obj[k], cur->obj[k], r->obj[k], w, v, sizeof(v));
			if (cur->state != TN_RAN)
				buf_printf(&b,
					   "; %s %s (the current values do not meet every "
					   "constraint)",
					   t->obj[k], v);
			else
				buf_printf(&b, "; %s %s -> %s (%+.1f%%)", t->obj[k], w, v,
					   cur->obj[k]
					       ? 100 * (r->obj[k] - cur->obj[k]) / fabs(cur->obj[k])
					       : 0.0);
		}
	} else if (t->keep && cur) {
		buf_printf(&b, "keep the current values (%s: ", cur->id);
		tn_values(t, cur, NULL, &b);
		tn_objectives(t, cur, &b);
		buf_printf(&b, "): no point found is better");
	} else if (t->best >= 0) {
		const struct tn_point *q = &t->pt[t->best];

		buf_printf(&b, "%s %s%s: ", q->feasible ? "best" : "closest", q->id,
			   q->feasible ? "" : " (no point meets every constraint)");
		tn_values(t, q, NULL, &b);
		tn_objectives(t, q, &b);
	}
	tn_title_line(vars, b.len ? b.s : "no point ran", &n);
	b.len = 0;
	if (t->no_effect && json_array_size(t->no_effect)) {
		size_t i;
		json_t *k;

		buf_printf(&b, "no effect over its range, left as it is:");
		json_array_foreach(t->no_effect, i, k)
			buf_printf(&b, "%s %s", i ? "," : "",
				   json_string_value(k) ? json_string_value(k) : "?");
		tn_title_line(vars, b.s, &n);
	}
	buf_int(vars, "nhl", n);
	buf_int(vars, "feasible", t->best >= 0 && t->pt[t->best].feasible);
	buf_int(vars, "keep", t->keep);
	buf_int(vars, "answer", t->rec >= 0 && t->rec != t->best);
	free(b.s);
}

/* The point the pictures ring: the answer, else the current values kept,
 * else the best (or closest) point; -1 when none ran. */
static long tn_chosen(const struct tn_plot *t)
{
	return t->rec >= 0 ? t->rec : t->keep && t->cur >= 0 ? t->cur : t->best;
}

/* ---- tune.png with one key ---------------------------------------------- */

/*
 * The metric tune.png shows against a single key: the first objective that
 * is not the key, else the first constraint on a metric, else the key.
 * Its values (@y, NAN where none), its name and a note for the axis.
 */
static int tn_one_key_metric(struct tn_plot *t, double *y, const char **metric, char *note,
			     size_t size)
{
	*note = '\0';
	for (size_t k = 0; k < t->n_obj; k++) {
		if (t->obj_par[k] >= 0)
			continue;
		*metric = t->obj[k];
		for (size_t i = 0; i < t->n_pt; i++)
			y[i] = t->pt[i].state == TN_RAN ? t->pt[i].obj[k] : NAN;
		if (t->seeds > 1)
			snprintf(note, size, "mean over %zu seeds", t->seeds);
		return 0;
	}
	for (size_t c = 0; c < t->n_cons; c++) {
		if (plot_tune__param_of(t, t->cons[c].metric) >= 0)
			continue;
		*metric = t->cons[c].metric;
		if (t->seeds > 1)
			snprintf(note, size, "worst of %zu seeds", t->seeds);
		if (plot_tune__worst(t, &t->cons[c], y))
			return -1;
		for (size_t i = 0; i < t->n_pt; i++) /* a failed point: not all its seeds */
			if (t->pt[i].state != TN_RAN)
				y[i] = NAN;
		return 0;
	}
	*metric = t->obj[0];
	for (size_t i = 0; i < t->n_pt; i++)
		y[i] = t->pt[i].state == TN_RAN ? t->pt[i].x[0] : NAN;
	return 0;
}

/* The distance from @a to @b on key @q's axis. */
static double tn_dist(const struct tn_param *q, double a, double b)
{
	return q->axis.log && a > 0 && b > 0 ? fabs(log(a / b)) : fabs(a - b);
}

/* A step of 1, 2 or 5 times a power of ten that cuts @span in at most 4. */
static double tn_step(double span)
{
	double raw = span / 4, mag = pow(10, floor(log10(raw))), f = raw / mag;

	return mag * (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10);
}

/*
 * A bisection ends with its points a grain apart, one blot on an axis that
 * spans the whole range: when the points nearest to the best one (at @bx)
 * are closer together than a twentieth of the axis, tune.gp draws them
 * again in a panel of their own, on a linear axis in a unit of their span
 * ("zoom", then zx... and zy... as tn_range gives them, and "zxstep"),
 * with the y range of those points and of the limits @llo..@lhi (the
 * constraints' values on the metric; llo > lhi when none). -ENOMEM or 0.
 */
static int tn_zoom(const struct tn_param *q, const struct tn_set *feas, const struct tn_set *inf,
		   double bx, double llo, double lhi, const struct tn_axis *ya, struct buf *vars)
{
	enum { NEAR = 8 };
	size_t n = feas->n + inf->n, near;
	double zlo = bx, zhi = bx, ylo = llo, yhi = lhi, *d;
	struct tn_axis za = {.log = 0, .ticks = NULL};

	if (n < 3 || !(q->hi > q->lo))
		return 0;
	d = malloc(n * sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		d[i] = tn_dist(q, i < feas->n ? feas->v[i].x : inf->v[i - feas->n].x, bx);
	/* the distance within which the NEAR nearest points lie */
	qsort(d, n, sizeof(*d), tn_by_value);
	near = n < NEAR ? n : NEAR;
	for (size_t i = 0; i < n; i++) {
		const struct tn_xy *v = i < feas->n ? &feas->v[i] : &inf->v[i - feas->n];

		if (tn_dist(q, v->x, bx) > d[near - 1])
			continue;
		zlo = v->x < zlo ? v->x : zlo;
		zhi = v->x > zhi ? v->x : zhi;
		ylo = v->y < ylo ? v->y : ylo;
		yhi = v->y > yhi ? v->y : yhi;
	}
	free(d);
	if (!(zhi > zlo) || tn_dist(q, zlo, zhi) > tn_dist(q, q->lo, q->hi) / 20)
		return 0;
	/* a unit in which the span is at least a few units */
	za.scale = tn_unit(q, (zhi - zlo) / 4, za.label, sizeof(za.label));
	buf_int(vars, "zoom", 1);
	tn_range(vars, "zx", zlo, zhi, &za);
	buf_num(vars, "zxstep", tn_step((zhi - zlo) / za.scale));
	tn_range(vars, "zy", ylo, yhi, ya);
	return 0;
}

static int tn_draw_one_key(struct tn_plot *t)
{
	struct tn_set feas = {0}, inf = {0}, best = {0}, cur = {0};
	struct buf vars = {0};
	struct tn_axis ya;
	const struct tn_param *q = &t->par[0];
	const char *metric;
	char note[64], name[16];
	double *y = calloc(t->n_pt + 1, sizeof(*y)), lo = 0, hi = 0, llo = INFINITY,
	       lhi = -INFINITY;
	size_t limits = 0, drawn = 0;
	int err = -1;

	if (!y)
		goto out_oom;
	if (tn_one_key_metric(t, y, &metric, note, sizeof(note)))
		goto out;
	for (size_t i = 0; i < t->n_pt; i++) {
		if (isnan(y[i]))
			continue;
		if (!drawn || y[i] < lo)
			lo = y[i];
		if (!drawn || y[i] > hi)
			hi = y[i];
		drawn++;
	}
	if (!drawn) {
		fprintf(stderr,
			"rocesim: plot: %s: no point has a value of %s: tune.png not drawn\n",
			t->path, metric);
		plot__drop_old(t->p, "tune", NULL);
		err = 0;
		goto out;
	}
	tn_metric_axis(t, metric, hi, note, &ya);
	/* the limits the constraints set on the metric, dashed lines */
	for (size_t c = 0; c < t->n_cons && limits < TN_MAX_LIMITS; c++) {
		char text[TN_LABEL];

		if (strcmp(t->cons[c].metric, metric))
			continue;
		llo = t->cons[c].value < llo ? t->cons[c].value : llo;
		lhi = t->cons[c].value > lhi ? t->cons[c].value : lhi;
		limits++;
		snprintf(name, sizeof(name), "lv%zu", limits);
		buf_num(&vars, name, t->cons[c].value / ya.scale);
		snprintf(name, sizeof(name), "lt%zu", limits);
		snprintf(text, sizeof(text), "%s %s %.10g", metric, t->cons[c].op,
			 t->cons[c].value);
		buf_str(&vars, name, text);
	}
	buf_int(&vars, "limits", (long)limits);
	lo = llo < lo ? llo : lo;
	hi = lhi > hi ? lhi : hi;
	for (size_t i = 0; i < t->n_pt; i++) {
		double x = t->pt[i].x[0];

		if (isnan(y[i]))
			continue;
		if ((t->pt[i].feasible ? tn_add(&feas, x, y[i]) : tn_add(&inf, x, y[i])) ||
		    ((long)i == tn_chosen(t) && tn_add(&best, x, y[i])) ||
		    ((long)i == t->cur && tn_add(&cur, x, y[i])))
			goto out_oom;
	}
	tn_sort(&feas);
	tn_sort(&inf);
	if (best.n && tn_zoom(q, &feas, &inf, best.v[0].x, llo, lhi, &ya, &vars))
		goto out_oom;
	buf_int(&vars, "mode", 1);
	tn_titles(t, 1, &vars);
	tn_range(&vars, "x", q->lo, q->hi, &q->axis);
	tn_range(&vars, "y", lo, hi, &ya);
	buf_int(&vars, "constrained", (long)t->n_cons);
	if (tn_write(t, &feas, "tune-feasible.dat", 0, &vars, "dfeas", "nfeas") ||
	    tn_write(t, &inf, "tune-infeasible.dat", 0, &vars, "dinf", "ninf") ||
	    tn_write(t, &best, "tune-best.dat", 0, &vars, "dbest", "nbest") ||
	    tn_write(t, &cur, "tune-current.dat", 0, &vars, "dcur", "ncur"))
		goto out;
	err = plot__draw_as(t->p, "tune", "tune", &vars);
	goto out;

out_oom:
	fprintf(stderr, "rocesim: out of memory drawing tune.png\n");
out:
	free(vars.s);
	free(feas.v);
	free(inf.v);
	free(best.v);
	free(cur.v);
	free(y);
	return err;
}

/* ---- tune.png with two keys or more ------------------------------------- */

/*
 * Colour by the first objective when it is not a key: its axis (the
 * colour box, "cb...") over the points that meet every constraint; 0, or
 * -1 when there is nothing to colour.
 */
static int tn_colour(const struct tn_plot *t, struct buf *vars)
{
	double lo = INFINITY, hi = -INFINITY;
	struct tn_axis a;

	if (t->obj_par[0] >= 0)
		return -1;
	for (size_t i = 0; i < t->n_pt; i++)
		if (t->pt[i].feasible && t->pt[i].state == TN_RAN) {
			lo = fmin(lo, t->pt[i].obj[0]);
			hi = fmax(hi, t->pt[i].obj[0]);
		}
	if (!isfinite(lo))
		return -1;
	tn_metric_axis(t, t->obj[0], fmax(fabs(lo), fabs(hi)),
		       t->seeds > 1 ? "mean over the seeds" : NULL, &a);
	buf_num(vars, "cblo", lo / a.scale);
	buf_num(vars, "cbhi", hi > lo ? hi / a.scale : lo / a.scale + 1);
	buf_num(vars, "cbscale", a.scale);
	buf_str(vars, "cblabel", a.label);
	buf_int(vars, "colour", 1);
	buf_int(vars, "cbmax", strcmp(t->goal[0], "maximize") == 0);
	return 0;
}

static int tn_draw_two_keys(struct tn_plot *t)
{
	struct tn_set feas = {0}, inf = {0}, fail = {0}, route = {0}, best = {0}, cur = {0};
	struct buf vars = {0};
	int err = -1, colour;

	colour = !tn_colour(t, &vars);
	for (size_t i = 0; i < t->n_pt; i++) {
		const struct tn_point *q = &t->pt[i];
		double x = q->x[0], y = q->x[1];

		if (q->state == TN_REFUSED)
			continue;
		if ((q->state == TN_FAILED || q->state == TN_UNFINISHED ? tn_add(&fail, x, y)
		     : q->feasible
			 ? (colour ? tn_add3(&feas, x, y, q->obj[0]) : tn_add(&feas, x, y))
			 : tn_add(&inf, x, y)) ||
		    ((long)i == tn_chosen(t) && tn_add(&best, x, y)) ||
		    ((long)i == t->cur && tn_add(&cur, x, y)))
			goto out_oom;
	}
	if (!feas.n && !inf.n && !fail.n) {
		fprintf(stderr, "rocesim: plot: %s: every point was refused: nothing to draw\n",
			t->path);
		plot__drop_old(t->p, "tune", NULL);
		err = 0;
		goto out;
	}
	for (size_t i = 0; i < t->n_route; i++)
		if (tn_add(&route, t->route[i].x[0], t->route[i].x[1]))
			goto out_oom;
	buf_int(&vars, "mode", 2);
	tn_titles(t, 0, &vars);
	tn_range(&vars, "x", t->par[0].lo, t->par[0].hi, &t->par[0].axis);
	tn_range(&vars, "y", t->par[1].lo, t->par[1].hi, &t->par[1].axis);
	buf_int(&vars, "keys", (long)t->n_par);
	buf_int(&vars, "constrained", (long)t->n_cons);
	if (tn_write(t, &feas, "tune-feasible.dat", 0, &vars, "dfeas", "nfeas") ||
	    tn_write(t, &inf, "tune-infeasible.dat", 0, &vars, "dinf", "ninf") ||
	    tn_write(t, &fail, "tune-failed.dat", 0, &vars, "dfail", "nfail") ||
	    tn_write(t, &route, "tune-path.dat", 1, &vars, "dpath", "npath") ||
	    tn_write(t, &best, "tune-best.dat", 0, &vars, "dbest", "nbest") ||
	    tn_write(t, &cur, "tune-current.dat", 0, &vars, "dcur", "ncur"))
		goto out;
	err = plot__draw_as(t->p, "tune", "tune", &vars);
	goto out;

out_oom:
	fprintf(stderr, "rocesim: out of memory drawing tune.png\n");
out:
	free(vars.s);
	free(feas.v);
	free(inf.v);
	free(fail.v);
	free(route.v);
	free(best.v);
	free(cur.v);
	return err;
}

/* ---- tune-front.png ----------------------------------------------------- */

static int tn_draw_front(struct tn_plot *t)
{
	struct tn_set feas = {0}, line = {0}, best = {0};
	struct tn_axis xa, ya;
	struct buf vars = {0};
	double lo[2] = {0, 0}, hi[2] = {0, 0};
	int err = -1;

	for (size_t i = 0; i < t->n_pt; i++) {
		const struct tn_point *q = &t->pt[i];

		if (!q->feasible || q->state != TN_RAN)
			continue;
		for (int k = 0; k < 2; k++) {
			lo[k] = !feas.n || q->obj[k] < lo[k] ? q->obj[k] : lo[k];
			hi[k] = !feas.n || q->obj[k] > hi[k] ? q->obj[k] : hi[k];
		}
		if (tn_add(&feas, q->obj[1], q->obj[0]))
			goto out_oom;
	}
	if (!feas.n) {
		fprintf(stderr,
			"rocesim: plot: %s: no point meets every constraint: tune-front.png not "
			"drawn\n",
			t->path);
		plot__drop_old(t->p, "tune-front", NULL);
		err = 0;
		goto out;
	}
	tn_metric_axis(t, t->obj[1], hi[1], t->seeds > 1 ? "mean over the seeds" : NULL, &xa);
	tn_metric_axis(t, t->obj[0], hi[0], t->seeds > 1 ? "mean over the seeds" : NULL, &ya);
	for (size_t i = 0; i < t->n_front; i++)
		if (t->front[i].state == TN_RAN &&
		    tn_add(&line, t->front[i].obj[1], t->front[i].obj[0]))
			goto out_oom;
	tn_sort(&line);
	if (tn_chosen(t) >= 0 && t->pt[tn_chosen(t)].feasible &&
	    tn_add(&best, t->pt[tn_chosen(t)].obj[1], t->pt[tn_chosen(t)].obj[0]))
		goto out_oom;
	buf_int(&vars, "mode", 3);
	tn_titles(t, 0, &vars);
	buf_str(&vars, "obj1", t->obj[0]);
	buf_str(&vars, "obj2", t->obj[1]);
	tn_range(&vars, "x", lo[1], hi[1], &xa);
	tn_range(&vars, "y", lo[0], hi[0], &ya);
	buf_int(&vars, "constrained", (long)t->n_cons);
	if (tn_write(t, &feas, "front-feasible.dat", 0, &vars, "dfeas", "nfeas") ||
	    tn_write(t, &line, "front-line.dat", 0, &vars, "dpath", "npath") ||
	    tn_write(t, &best, "front-best.dat", 0, &vars, "dbest", "nbest"))
		goto out;
	err = plot__draw_as(t->p, "tune", "tune-front", &vars);
	goto out;

out_oom:
	fprintf(stderr, "rocesim: out of memory drawing tune-front.png\n");
out:
	free(vars.s);
	free(feas.v);
	free(line.v);
	free(best.v);
	return err;
}

int plot_tune(struct plot *p)
{
	struct tn_plot t = {.p = p, .best = -1, .cur = -1, .rec = -1};
	int err = -1;

	if (plot__join(t.path, sizeof(t.path), p->outdir, "tune.json") || plot_tune__load(&t))
		goto out;
	p->name = t.name;
	for (size_t k = 0; k < t.n_par; k++)
		tn_param_axis(&t.par[k]);
	err = t.n_par == 1 ? tn_draw_one_key(&t) : tn_draw_two_keys(&t);
	if (!err && t.n_obj == 2)
		err = tn_draw_front(&t);
	else if (!err)
		plot__drop_old(p, "tune-front", NULL);
out:
	p->name = "tune"; /* t.name goes with t */
	plot_tune__free(&t);
	return err;
}
