/*
 * sweep tables: what a sweep's runs found, side by side.
 *
 *   sweep.csv    one row per run (point, variant and seed): id, point,
 *                variant (only when the sweep has variants), seed, each
 *                axis value, status (ok, expect-failed, failed, refused,
 *                not-run), error (a failed run's first line of stderr, why a
 *                refused point is), then every
 *                metric of results.json's "summary", flattened with dots
 *                ("fct_us.p99"; the slowdown buckets by name,
 *                "fct_slowdown.1MB-10MB.p99"); true/false as 1/0, null and
 *                other lists left out.
 *   summary.csv  one row per point (and variant) over its seeds: point,
 *                variant (only when the sweep has variants), each axis value,
 *                runs (seeds with results), failed, refused (why the
 *                scenario's checks refuse the point, or empty), then for each numeric
 *                metric M: M.mean, M.std (sample), M.min, M.max and M.ci95,
 *                the half-width of the 95% confidence interval of the mean
 *                from Student's t distribution (t(0.975, n-1) x std /
 *                sqrt(n); empty below two seeds).
 *
 * Columns of metrics are the union over the runs in order of appearance;
 * numbers are printed with a fixed precision so that the same results give
 * the same bytes. The CSV files hold raw numbers (bytes, microseconds);
 * the table on stdout, for people, prints them in units ("1.15 MB",
 * "4.37 ms", "48.8 ± 1.0").
 */
#include <errno.h>
#include <fcntl.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/engine/textfile.h"
#include "sim/study/sweep_impl.h"

/* The metrics the table on stdout shows, when the runs have them. */
static const char *const main_metrics[] = {"pfc_pause_frames",
					   "pfc_paused_time_us",
					   "lossless_drops",
					   "drops",
					   "ecn_marked_packets",
					   "max_queue_bytes",
					   "fct_us.p99",
					   "collective.completion_time_us",
					   "collective.busbw_GBps",
					   "fluid.queue_bytes",
					   "fluid.converges",
					   "fluid.oscillates",
					   "fluid.unsure",
					   NULL};

int sweep_write_file(const char *dir, const char *name, const char *text, size_t len, int sync)
{
	char path[SWEEP_PATH];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return textfile_replace(path, text, len, sync);
}

/*
 * A list of objects named by their "bucket" (summary.fct_slowdown): each
 * under its name, "fct_slowdown.1MB-10MB.p99" (n, p50, p95, p99). Other
 * lists are left out.
 */
static int flatten_buckets(json_t *flat, const char *prefix, const json_t *a)
{
	size_t i;
	json_t *e;

	json_array_foreach((json_t *)a, i, e) {
		const char *name = json_string_value(json_object_get(e, "bucket"));
		const char *k;
		json_t *v;
		char path[256];

		if (!json_is_object(e) || !name)
			continue;
		json_object_foreach(e, k, v) {
			/* the bounds name the bucket; its flows and percentiles are metrics */
			if (!strcmp(k, "bucket") || !strcmp(k, "min_bytes") ||
			    !strcmp(k, "max_bytes") || !json_is_number(v))
				continue;
			if (snprintf(path, sizeof(path), "%s.%s.%s", prefix, name, k) >=
			    (int)sizeof(path))
				continue;
			if (json_object_set(flat, path, v))
				return -ENOMEM;
		}
	}
	return 0;
}

int sweep_flatten(json_t *flat, const char *prefix, const json_t *o)
{
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)o, k, v) {
		char path[256];

		snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", k);
		if (json_is_object(v)) {
			if (sweep_flatten(flat, path, v))
				return -ENOMEM;
		} else if (json_is_array(v)) {
			if (flatten_buckets(flat, path, v))
				return -ENOMEM;
		} else if (json_is_number(v) || json_is_string(v)) {
			if (json_object_set(flat, path, v))
				return -ENOMEM;
		} else if (json_is_boolean(v)) {
			if (json_object_set_new(flat, path, json_integer(json_is_true(v))))
				return -ENOMEM;
		}
	}
	return 0;
}

static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void print_value(FILE *f, const json_t *v)
{
	if (json_is_integer(v))
		fprintf(f, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		fprintf(f, "%.15g", json_real_value(v));
	else if (json_is_string(v))
		csv_field(f, json_string_value(v));
}

static void print_stat(FILE *f, double x)
{
	fprintf(f, ",%.10g", x == 0 ? 0.0 : x); /* no "-0" */
}

static const char *status_name(const struct sweep_run *r)
{
	switch (r->status) {
	case SWEEP_OK:
		return "ok";
	case SWEEP_EXPECT:
		return "expect-failed";
	case SWEEP_SKIPPED_OK:
		return r->exit_code ? "expect-failed" : "ok";
	case SWEEP_FAILED:
		return "failed";
	case SWEEP_REFUSED:
		return "refused";
	default:
		return "not-run";
	}
}

static int has_results(const struct sweep_run *r)
{
	return r->status == SWEEP_OK || r->status == SWEEP_EXPECT || r->status == SWEEP_SKIPPED_OK;
}

/* The tables' data: every run's flat summary, the union of metric names. */
struct tables {
	json_t **flat; /* per run; NULL when the run has no results */
	json_t *cols;  /* metric -> true when numeric in some run (insertion order) */
};

static int load(const struct sweep_run *runs, size_t n, const char *dir, struct tables *t)
{
	t->flat = calloc(n ? n : 1, sizeof(*t->flat));
	t->cols = json_object();
	if (!t->flat || !t->cols)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		char path[SWEEP_PATH];
		json_t *res, *sum, *v;
		const char *k;

		if (!has_results(&runs[i]))
			continue;
		snprintf(path, sizeof(path), "%s/points/%s/results.json", dir, runs[i].id);
		res = json_load_file(path, 0, NULL);
		sum = json_object_get(res, "summary");
		if (!json_is_object(sum)) {
			json_decref(res);
			continue;
		}
		t->flat[i] = json_object();
		if (!t->flat[i] || sweep_flatten(t->flat[i], "", sum)) {
			json_decref(res);
			return -ENOMEM;
		}
		json_decref(res);
		json_object_foreach(t->flat[i], k, v) {
			json_t *c = json_object_get(t->cols, k);

			if (!c || (json_is_false(c) && json_is_number(v)))
				if (json_object_set_new(t->cols, k,
							json_boolean(json_is_number(v))))
					return -ENOMEM;
		}
	}
	return 0;
}

static void tables_free(struct tables *t, size_t n)
{
	for (size_t i = 0; t->flat && i < n; i++)
		json_decref(t->flat[i]);
	free(t->flat);
	json_decref(t->cols);
}

static void axis_cells(FILE *f, const struct sweep_spec *sp, size_t p)
{
	size_t idx[sp->n_axes ? sp->n_axes : 1];

	sweep_spec_index(sp, p, idx);
	for (size_t a = 0; a < sp->n_axes; a++) {
		fputc(',', f);
		csv_field(f, sp->axes[a].values[idx[a]]);
	}
}

/* The axes' keys as header columns, each after a comma. */
static void axis_keys(FILE *f, const struct sweep_spec *sp)
{
	for (size_t a = 0; a < sp->n_axes; a++) {
		fputc(',', f);
		csv_field(f, sp->axes[a].key);
	}
}

static void runs_csv(FILE *f, const struct sweep_spec *sp, const struct sweep_run *runs, size_t n,
		     const struct tables *t)
{
	const char *k;
	json_t *c;

	fputs(sp->n_variants ? "id,point,variant,seed" : "id,point,seed", f);
	axis_keys(f, sp);
	fputs(",status,error", f);
	json_object_foreach(t->cols, k, c) {
		fputc(',', f);
		csv_field(f, k);
	}
	fputc('\n', f);
	for (size_t i = 0; i < n; i++) {
		const struct sweep_run *r = &runs[i];

		fprintf(f, "%s,p%0*zu", r->id, sp->id_width, r->point + 1);
		if (sp->n_variants)
			fprintf(f, ",%s", sp->variants[r->variant].name);
		fprintf(f, ",%llu", (unsigned long long)r->seed);
		axis_cells(f, sp, r->point);
		fprintf(f, ",%s,", status_name(r));
		csv_field(f,
			  r->status == SWEEP_FAILED || r->status == SWEEP_REFUSED ? r->error : "");
		json_object_foreach(t->cols, k, c) {
			fputc(',', f);
			if (t->flat[i])
				print_value(f, json_object_get(t->flat[i], k));
		}
		fputc('\n', f);
	}
}

/*
 * The runs of group @g (point g / variants, variant g % variants): runs
 * are in the order of the spec (point, then variant, then seed), so the
 * group's are [g * n_seeds, (g + 1) * n_seeds). The first into *@lo, the
 * end returned: reading only these keeps the tables linear in runs.
 */
static size_t group_runs(const struct sweep_spec *sp, size_t n, size_t g, size_t *lo)
{
	size_t hi = (g + 1) * sp->n_seeds;

	*lo = g * sp->n_seeds < n ? g * sp->n_seeds : n;
	return hi < n ? hi : n;
}

/* The values of metric @k over the runs of group @g (point @p, variant @var). */
static size_t point_values(const struct sweep_spec *sp, const struct sweep_run *runs, size_t n,
			   const struct tables *t, size_t g, const char *k, double *x)
{
	size_t p = g / sweep_spec_variants(sp), var = g % sweep_spec_variants(sp), lo;
	size_t hi = group_runs(sp, n, g, &lo), m = 0;

	for (size_t i = lo; i < hi; i++) {
		json_t *v;

		if (runs[i].point != p || runs[i].variant != var || !t->flat[i])
			continue;
		v = json_object_get(t->flat[i], k);
		if (json_is_number(v))
			x[m++] = json_number_value(v);
	}
	return m;
}

static double ci95(const double *x, size_t m)
{
	return gsl_cdf_tdist_Pinv(0.975, (double)(m - 1)) * gsl_stats_sd(x, 1, m) / sqrt((double)m);
}

static void summary_csv(FILE *f, const struct sweep_spec *sp, const struct sweep_run *runs,
			size_t n, const struct tables *t, double *x)
{
	static const char *const stats[] = {"mean", "std", "min", "max", "ci95"};
	const char *k;
	json_t *c;

	fputs(sp->n_variants ? "point,variant" : "point", f);
	axis_keys(f, sp);
	fputs(",runs,failed,refused", f);
	json_object_foreach(t->cols, k, c) {
		for (size_t s = 0; json_is_true(c) && s < 5; s++) {
			fputc(',', f);
			fprintf(f, "%s.%s", k, stats[s]); /* metric names need no quoting */
		}
	}
	fputc('\n', f);
	for (size_t g = 0; g < sp->n_points * sweep_spec_variants(sp); g++) {
		size_t p = g / sweep_spec_variants(sp), var = g % sweep_spec_variants(sp);
		size_t ok = 0, failed = 0, lo, hi = group_runs(sp, n, g, &lo);

		for (size_t i = lo; i < hi; i++) {
			if (runs[i].point != p || runs[i].variant != var)
				continue;
			ok += t->flat[i] != NULL;
			failed += runs[i].status == SWEEP_FAILED;
		}
		fprintf(f, "p%0*zu", sp->id_width, p + 1);
		if (sp->n_variants)
			fprintf(f, ",%s", sp->variants[var].name);
		axis_cells(f, sp, p);
		fprintf(f, ",%zu,%zu,", ok, failed);
		if (sp->refused && sp->refused[g])
			csv_field(f, sp->refused[g]);
		json_object_foreach(t->cols, k, c) {
			size_t m;

			if (!json_is_true(c))
				continue;
			m = point_values(sp, runs, n, t, g, k, x);
			if (!m) {
				fputs(",,,,,", f);
				continue;
			}
			print_stat(f, gsl_stats_mean(x, 1, m));
			if (m > 1)
				print_stat(f, gsl_stats_sd(x, 1, m));
			else
				fputc(',', f);
			print_stat(f, gsl_stats_min(x, 1, m));
			print_stat(f, gsl_stats_max(x, 1, m));
			if (m > 1)
				print_stat(f, ci95(x, m));
			else
				fputc(',', f);
		}
		fputc('\n', f);
	}
}

static int col_width(const char *metric, int multi)
{
	int w = (int)strlen(metric), min = multi ? 16 : 10;

	return w > min ? w : min;
}

/* The unit of @metric for people and the scale to it from @v (the larger
 * of the mean and the interval): sizes in B, KB, MB, GB (SI), times from
 * microseconds in ns, us, ms, s, other counts plain up to a million. */
static const char *unit_of(const char *metric, double v, double *scale)
{
	static const char *const sizes[] = {"B", "KB", "MB", "GB", "TB"};
	size_t len = strlen(metric);
	double a = fabs(v);

	*scale = 1;
	if (len > 6 && !strcmp(metric + len - 6, "_bytes")) {
		int u = 0;

		while (u < 4 && a >= 1000 * *scale)
			*scale *= 1000, u++;
		return sizes[u];
	}
	if (strstr(metric, "_us.") || (len > 3 && !strcmp(metric + len - 3, "_us"))) {
		if (a >= 1e6)
			return *scale = 1e6, "s";
		if (a >= 1e3)
			return *scale = 1e3, "ms";
		if (a > 0 && a < 1)
			return *scale = 1e-3, "ns";
		return "us";
	}
	if (len > 5 && !strcmp(metric + len - 5, "_GBps"))
		return "GB/s";
	if (len > 6 && !strcmp(metric + len - 6, "_per_s"))
		return a >= 1e6 ? (*scale = 1e6, "M/s") : a >= 1e3 ? (*scale = 1e3, "k/s") : "/s";
	if (a >= 1e6)
		return *scale = 1e6, "M";
	return "";
}

/*
 * The cell of @metric's mean @mean (and half-width @ci of its 95% interval
 * when @have_ci) in units for people: "1.15 MB", "4.37 ms", "48.8 ± 1.0",
 * "1.15 ± 0.74 MB", "236". Three significant digits; whole counts without
 * decimals.
 */
static void human(const char *metric, double mean, double ci, int have_ci, char *buf, size_t size)
{
	double scale, m, c;
	const char *unit = unit_of(metric, fabs(mean) > ci || !have_ci ? mean : ci, &scale);
	int dec;

	m = mean / scale;
	c = have_ci ? ci / scale : 0;
	dec = fabs(m) >= 100 || (!*unit && m == floor(m) && scale == 1) ? 0 : fabs(m) >= 10 ? 1 : 2;
	if (!*unit && scale == 1 && m == floor(m) && (!have_ci || c == floor(c)))
		dec = 0;
	if (m == 0) /* the interval sets the precision */
		dec = c == 0 || c >= 100 ? 0 : c >= 10 ? 1 : 2;
	if (have_ci)
		snprintf(buf, size, "%.*f ± %.*f%s%s", dec, m == 0 ? 0.0 : m, dec, c,
			 *unit ? " " : "", unit);
	else
		snprintf(buf, size, "%.*f%s%s", dec, m == 0 ? 0.0 : m, *unit ? " " : "", unit);
}

/* Under the table of a fluid sweep: the points whose verdict is unsure
 * (fluid.unsure), which are no pass; the packet model must answer them. */
static void fluid_unsure_note(FILE *out, const struct sweep_spec *sp, const struct sweep_run *runs,
			      size_t n, const struct tables *t)
{
	size_t unsure = 0, first = 0;

	for (size_t i = 0; sp->fluid && i < n; i++) {
		const json_t *v = t->flat[i] ? json_object_get(t->flat[i], "fluid.unsure") : NULL;

		if (json_integer_value(v) && !unsure++)
			first = i;
	}
	if (unsure)
		fprintf(
		    out,
		    "%zu of %zu runs unsure (fluid.unsure 1, from %s): the fluid model converges "
		    "there but the packet model may drain the queue or swing; not a pass: run "
		    "them with --model packet\n",
		    unsure, n, runs[first].id);
}

/* The table on stdout: per point (and variant), the axis values and the
 * main metrics' means. */
static void print_table(FILE *out, const struct sweep_spec *sp, const struct sweep_run *runs,
			size_t n, const struct tables *t, double *x)
{
	const char *shown[sizeof(main_metrics) / sizeof(main_metrics[0])];
	size_t n_shown = 0, idx[sp->n_axes ? sp->n_axes : 1];
	int multi = sp->n_seeds > 1;

	for (const char *const *m = main_metrics; *m; m++)
		if (json_is_true(json_object_get(t->cols, *m)))
			shown[n_shown++] = *m;
	int w0 = sp->id_width + 1 > 5 ? sp->id_width + 1 : 5;

	int wv = 7; /* "variant" */

	for (size_t v = 0; v < sp->n_variants; v++)
		if ((int)strlen(sp->variants[v].name) > wv)
			wv = (int)strlen(sp->variants[v].name);
	fprintf(out, "%-*s", w0, "point");
	if (sp->n_variants)
		fprintf(out, "  %-*s", wv, "variant");
	for (size_t a = 0; a < sp->n_axes; a++)
		fprintf(out, "  %-12s", sp->axes[a].key);
	fprintf(out, "  %-5s", "runs");
	for (size_t i = 0; i < n_shown; i++)
		fprintf(out, "  %*s", col_width(shown[i], multi), shown[i]);
	fputc('\n', out);
	for (size_t g = 0; g < sp->n_points * sweep_spec_variants(sp); g++) {
		size_t p = g / sweep_spec_variants(sp), var = g % sweep_spec_variants(sp);
		size_t ok = 0, total = 0, lo, hi = group_runs(sp, n, g, &lo);
		char cell[64];

		for (size_t i = lo; i < hi; i++)
			if (runs[i].point == p && runs[i].variant == var)
				total++, ok += t->flat[i] != NULL;
		sweep_spec_index(sp, p, idx);
		snprintf(cell, sizeof(cell), "p%0*zu", sp->id_width, p + 1);
		fprintf(out, "%-*s", w0, cell);
		if (sp->n_variants)
			fprintf(out, "  %-*s", wv, sp->variants[var].name);
		for (size_t a = 0; a < sp->n_axes; a++)
			fprintf(out, "  %-12s", sp->axes[a].values[idx[a]]);
		snprintf(cell, sizeof(cell), "%zu/%zu", ok, total);
		fprintf(out, "  %-5s", cell);
		if (sp->refused && sp->refused[g]) {
			fprintf(out, "  refused: %s\n", sp->refused[g]);
			continue;
		}
		for (size_t i = 0; i < n_shown; i++) {
			size_t m = point_values(sp, runs, n, t, g, shown[i], x);

			if (!m)
				snprintf(cell, sizeof(cell), "-");
			else
				human(shown[i], gsl_stats_mean(x, 1, m), m > 1 ? ci95(x, m) : 0,
				      m > 1, cell, sizeof(cell));
			/* "±" is two bytes for one column */
			fprintf(out, "  %*s", col_width(shown[i], multi) + (m > 1 ? 1 : 0), cell);
		}
		fputc('\n', out);
	}
	if (multi)
		fputs("(mean ± half-width of the 95% confidence interval over the seeds)\n", out);
	fluid_unsure_note(out, sp, runs, n, t);
}

/* Close the memory stream @f (its text: *@buf, *@len) and write it as @dir/@name. */
static int emit(const char *dir, const char *name, FILE *f, char **buf, size_t *len)
{
	int err = 0;

	if (fclose(f))
		err = -errno;
	if (!err)
		err = sweep_write_file(dir, name, *buf, *len, 1);
	free(*buf);
	*buf = NULL;
	return err;
}

int sweep_tables(const struct sweep_spec *sp, const struct sweep_run *runs, size_t n,
		 const char *dir, FILE *out)
{
	struct tables t = {0};
	double *x = calloc(sp->n_seeds ? sp->n_seeds : 1, sizeof(*x));
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int err = x ? load(runs, n, dir, &t) : -ENOMEM;

	if (!err && !(f = open_memstream(&buf, &len)))
		err = -errno;
	if (!err) {
		runs_csv(f, sp, runs, n, &t);
		err = emit(dir, "sweep.csv", f, &buf, &len);
	}
	if (!err && !(f = open_memstream(&buf, &len)))
		err = -errno;
	if (!err) {
		summary_csv(f, sp, runs, n, &t, x);
		err = emit(dir, "summary.csv", f, &buf, &len);
	}
	if (!err && out)
		print_table(out, sp, runs, n, &t, x);
	tables_free(&t, n);
	free(x);
	return err;
}
