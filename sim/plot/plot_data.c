/*
 * The data side of `rocesim plot`: gnuplot variables in a growing string,
 * the temporary folder the data files go to, the CSVs a run wrote, series
 * of points written as gnuplot data blocks, and numbers from results.json.
 */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include "sim/plot/plot_impl.h"

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = 1;
		return;
	}
	if (b->len + (size_t)n + 1 > b->cap) {
		size_t cap = (b->len + (size_t)n + 1) * 2;
		char *s = realloc(b->s, cap);

		if (!s) {
			b->oom = 1;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* Append the gnuplot assignment NAME='VALUE'; (a quote doubled inside). */
void buf_str(struct buf *b, const char *name, const char *val)
{
	buf_printf(b, "%s='", name);
	for (const char *c = val; *c; c++) {
		if (*c == '\'')
			buf_printf(b, "''");
		else
			buf_printf(b, "%c", *c);
	}
	buf_printf(b, "'; ");
}

/* A real, always with a point or exponent: gnuplot divides integers as integers. */
void buf_num(struct buf *b, const char *name, double v)
{
	char num[64];

	snprintf(num, sizeof(num), "%.10g", v);
	buf_printf(b, "%s=%s%s; ", name, num, strpbrk(num, ".eEn") ? "" : ".0");
}

void buf_int(struct buf *b, const char *name, long v)
{
	buf_printf(b, "%s=%ld; ", name, v);
}

/* @dir/@name into @dst; -1 (after saying so) when it does not fit. */
int plot__join(char *dst, size_t size, const char *dir, const char *name)
{
	if ((size_t)snprintf(dst, size, "%s/%s", dir, name) >= size) {
		fprintf(stderr, "rocesim: plot: path too long: %s/%s\n", dir, name);
		return -1;
	}
	return 0;
}

/* Open a data file in the temporary folder for writing. */
FILE *tmp_open(const struct plot *p, const char *name, char *path, size_t size)
{
	FILE *f;

	if (plot__join(path, size, p->tmp, name))
		return NULL;
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "rocesim: cannot write %s: %s\n", path, strerror(errno));
	return f;
}

/* Close a data file; -1 (after saying so) when a write failed. */
int tmp_close(FILE *f, const char *path)
{
	int bad = ferror(f);

	if (fclose(f) || bad) {
		fprintf(stderr, "rocesim: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

/* Remove the temporary folder and all it holds (only files are made there). */
void tmp_remove(const struct plot *p)
{
	char path[PLOT_PATH];
	struct dirent *e;
	DIR *dir;

	if (!p->tmp[0])
		return;
	dir = opendir(p->tmp);
	while (dir && (e = readdir(dir))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!plot__join(path, sizeof(path), p->tmp, e->d_name))
			unlink(path);
	}
	if (dir)
		closedir(dir);
	rmdir(p->tmp);
}

/* ---- CSV input ---------------------------------------------------------- */

/* Cut @line at commas into @field; returns the number of fields. */
static int csv_split(char *line, char **field)
{
	int n = 0;
	char *c;

	line[strcspn(line, "\r\n")] = '\0';
	field[n++] = line;
	for (c = line; *c && n < CSV_FIELDS; c++) {
		if (*c == ',') {
			*c = '\0';
			field[n++] = c + 1;
		}
	}
	return n;
}

/* Next row into c->field; 1 a row, 0 the end, -1 an error (said). */
int csv_next(struct csv *c)
{
	ssize_t len;

	do {
		errno = 0;
		len = getline(&c->line, &c->cap, c->f);
		if (len < 0) {
			if (ferror(c->f) || errno == ENOMEM) {
				fprintf(stderr, "rocesim: cannot read %s: %s\n", c->path,
					strerror(errno ? errno : EIO));
				return -1;
			}
			return 0;
		}
		c->lineno++;
	} while (c->line[0] == '\n' || c->line[0] == '\0');
	c->n = csv_split(c->line, c->field);
	return 1;
}

void csv_close(struct csv *c)
{
	if (c->f)
		fclose(c->f);
	free(c->line);
	free(c->header);
	memset(c, 0, sizeof(*c));
}

/*
 * Open @path and map the @n column @names to their indexes in @col from the
 * header. Returns 1 when open, 0 when the file does not exist, -1 an error
 * (said).
 */
int csv_open(struct csv *c, const char *path, const char *const *names, int *col, int n)
{
	char *hdr[CSV_FIELDS];
	int nh;

	memset(c, 0, sizeof(*c));
	c->path = path;
	c->f = fopen(path, "r");
	if (!c->f) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "rocesim: cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (getline(&c->header, &c->cap, c->f) < 0) {
		if (ferror(c->f))
			fprintf(stderr, "rocesim: cannot read %s: %s\n", path, strerror(errno));
		else
			fprintf(stderr, "rocesim: %s: empty file (no header)\n", path);
		csv_close(c);
		return -1;
	}
	c->cap = 0; /* the rows get a buffer of their own */
	c->lineno = 1;
	nh = csv_split(c->header, hdr);
	for (int i = 0; i < n; i++) {
		col[i] = -1;
		for (int j = 0; j < nh; j++)
			if (!strcmp(hdr[j], names[i]))
				col[i] = j;
		if (col[i] < 0) {
			fprintf(stderr, "rocesim: %s: no column \"%s\" in the header\n", path,
				names[i]);
			csv_close(c);
			return -1;
		}
	}
	return 1;
}

/* Field @i of the row; NULL (after saying so) when the row is too short. */
const char *csv_str(const struct csv *c, int i)
{
	if (i >= c->n) {
		fprintf(stderr, "rocesim: %s:%lu: %d fields, expected at least %d\n", c->path,
			c->lineno, c->n, i + 1);
		return NULL;
	}
	return c->field[i];
}

/* Field @i as a number into @v; -1 (after saying so) when it is not one. */
int csv_num(const struct csv *c, int i, double *v)
{
	const char *s = csv_str(c, i);
	char *end;

	if (!s)
		return -1;
	errno = 0;
	*v = strtod(s, &end);
	if (end == s || *end || errno) {
		fprintf(stderr, "rocesim: %s:%lu: \"%s\" is not a number\n", c->path, c->lineno, s);
		return -1;
	}
	return 0;
}

/* ---- whole CSV tables (summary.csv, tune.csv) --------------------------- */

/*
 * Cut @line into fields in place, with RFC 4180 quotes ("a,b", "say ""x""").
 * Returns 0, or -ENOMEM.
 */
static int table_split(struct plot_row *r)
{
	char *rd = r->line, *wr = r->line;
	size_t cap = 0;

	r->line[strcspn(r->line, "\r\n")] = '\0';
	r->n = 0;
	for (;;) {
		int quoted = *rd == '"';

		if ((size_t)r->n == cap) {
			size_t ncap = cap ? cap * 2 : 32;
			char **f = realloc(r->f, ncap * sizeof(*f));

			if (!f)
				return -ENOMEM;
			r->f = f;
			cap = ncap;
		}
		r->f[r->n++] = wr;
		rd += quoted;
		while (*rd) {
			if (quoted && *rd == '"') {
				if (rd[1] != '"') {
					rd++;
					quoted = 0;
					continue;
				}
				rd++;
			} else if (!quoted && *rd == ',') {
				break;
			}
			*wr++ = *rd++;
		}
		if (!*rd) {
			*wr = '\0';
			return 0;
		}
		*wr++ = '\0';
		rd++;
	}
}

void plot__table_free(struct plot_table *t)
{
	free(t->hdr.line);
	free(t->hdr.f);
	for (size_t i = 0; i < t->n; i++) {
		free(t->row[i].line);
		free(t->row[i].f);
	}
	free(t->row);
	memset(t, 0, sizeof(*t));
}

/*
 * Read the whole of @path into @t; -1 after saying what is wrong (@missing:
 * what to do when there is no such file).
 */
int plot__table_read(struct plot_table *t, const char *path, const char *missing)
{
	FILE *f = fopen(path, "r");
	unsigned long lineno = 0;
	char *line = NULL;
	size_t cap = 0;
	int err = 0;

	memset(t, 0, sizeof(*t));
	t->path = path;
	if (!f) {
		if (errno == ENOENT)
			fprintf(stderr, "rocesim: plot: %s: no such file (%s)\n", path, missing);
		else
			fprintf(stderr, "rocesim: cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		struct plot_row *r;

		errno = 0;
		if (getline(&line, &cap, f) < 0) {
			if (ferror(f) || errno == ENOMEM) {
				fprintf(stderr, "rocesim: cannot read %s: %s\n", path,
					strerror(errno ? errno : EIO));
				err = -1;
			}
			break;
		}
		lineno++;
		if (line[0] == '\n' || line[0] == '\0')
			continue;
		if (lineno == 1) {
			r = &t->hdr;
		} else {
			if (t->n == t->cap) {
				size_t ncap = t->cap ? t->cap * 2 : 64;
				struct plot_row *rows = realloc(t->row, ncap * sizeof(*rows));

				if (!rows)
					goto out_oom;
				t->row = rows;
				t->cap = ncap;
			}
			r = &t->row[t->n++];
			memset(r, 0, sizeof(*r));
		}
		r->lineno = lineno;
		r->line = line;
		line = NULL;
		cap = 0;
		if (table_split(r))
			goto out_oom;
	}
	if (!err && !t->hdr.line) {
		fprintf(stderr, "rocesim: %s: empty file (no header)\n", path);
		err = -1;
	}
	free(line);
	fclose(f);
	return err;

out_oom:
	fprintf(stderr, "rocesim: out of memory reading %s\n", path);
	free(line);
	fclose(f);
	return -1;
}

/* The index of column @name, or -1. */
int plot__table_col(const struct plot_table *t, const char *name)
{
	for (int i = 0; i < t->hdr.n; i++)
		if (!strcmp(t->hdr.f[i], name))
			return i;
	return -1;
}

/* Field @col of row @r; NULL (after saying so) when the row is too short. */
const char *plot__table_field(const struct plot_table *t, const struct plot_row *r, int col)
{
	if (col >= r->n) {
		fprintf(stderr, "rocesim: %s:%lu: %d fields, expected at least %d\n", t->path,
			r->lineno, r->n, col + 1);
		return NULL;
	}
	return r->f[col];
}

/* ---- series of points --------------------------------------------------- */

int series_add_pt(struct series *s, double t, double a, double b, double c)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct pt *pt = realloc(s->pt, cap * sizeof(*pt));

		if (!pt)
			return -ENOMEM;
		s->pt = pt;
		s->cap = cap;
	}
	s->pt[s->n++] = (struct pt){t, a, b, c};
	if (a > s->peak)
		s->peak = a;
	if (b > s->peak_b)
		s->peak_b = b;
	return 0;
}

/* The series of (@key, @id), made when missing; NULL when out of memory. */
struct series *set_get(struct series_set *set, const char *key, long id, int rank)
{
	struct series *s;

	for (size_t i = 0; i < set->n; i++)
		if (set->s[i].id == id && !strcmp(set->s[i].key, key))
			return &set->s[i];
	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 16;

		s = realloc(set->s, cap * sizeof(*s));
		if (!s)
			return NULL;
		set->s = s;
		set->cap = cap;
	}
	s = &set->s[set->n++];
	memset(s, 0, sizeof(*s));
	snprintf(s->key, sizeof(s->key), "%s", key);
	s->id = id;
	s->rank = rank;
	return s;
}

void set_free(struct series_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		free(set->s[i].pt);
	free(set->s);
	memset(set, 0, sizeof(*set));
}

/*
 * Write value @col (0 a, 1 b, 2 c) of each series as a gnuplot data block
 * of "time value" lines, blocks apart by two blank lines so that `index i`
 * picks one. The pictures draw steps, so a point that repeats the value
 * before it adds nothing and is left out (which also keeps dashed lines
 * dashed: gnuplot restarts the dash pattern at every point).
 */
int plot__write_blocks(const struct plot *p, const char *name, const struct series_set *set,
		       int col, char *path, size_t size)
{
	FILE *f = tmp_open(p, name, path, size);

	if (!f)
		return -1;
	for (size_t i = 0; i < set->n; i++) {
		const struct series *s = &set->s[i];
		double last = 0;

		if (i)
			fputs("\n\n", f);
		for (size_t k = 0; k < s->n; k++) {
			const struct pt *q = &s->pt[k];
			double v = col == 0 ? q->a : col == 1 ? q->b : q->c;

			if (k && k + 1 < s->n && v == last)
				continue;
			fprintf(f, "%.3f %.10g\n", q->t, v);
			last = v;
		}
	}
	return tmp_close(f, path);
}

/* ---- units of metrics ------------------------------------------------- */

/* The y axis label of @metric and the divisor that gives its unit. */
void plot__metric_unit(const char *metric, double hi, char *label, size_t size, double *scale)
{
	size_t len = strlen(metric);

	*scale = 1;
	if (len > 6 && !strcmp(metric + len - 6, "_bytes")) {
		*scale = hi >= 1e6 ? 1e6 : 1e3;
		snprintf(label, size, "%s (%s)", metric, hi >= 1e6 ? "MB" : "KB");
	} else if (strstr(metric, "_us") && hi >= 1e4) {
		*scale = 1e3;
		snprintf(label, size, "%s (ms)", metric);
	} else {
		snprintf(label, size, "%s", metric);
	}
}

/* ---- reading results.json ----------------------------------------------- */

double plot__json_num(const json_t *o, const char *key, double dflt)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : dflt;
}

/*
 * A threshold (bytes) from "config" or "thresholds", at the top level of
 * results.json or in its summary; -1 when none gives it.
 */
double plot__threshold(const json_t *res, const char *key)
{
	static const char *const objs[] = {"config", "thresholds"};
	const json_t *where[2] = {res, json_object_get(res, "summary")};

	for (int w = 0; w < 2; w++)
		for (int o = 0; o < 2; o++) {
			const json_t *v = json_object_get(json_object_get(where[w], objs[o]), key);

			if (json_is_number(v) && json_number_value(v) >= 0)
				return json_number_value(v);
		}
	return -1;
}
