/*
 * compare load: one side of `rocesim compare` as runs with their point and
 * seed. A results.json file, or a run folder holding one, is one run; a
 * sweep folder is read from its sweep.json (the scenario's name) and its
 * sweep.csv (a row per run: point, variant, seed, axis values, status, and
 * every summary metric), so that a stored baseline needs only these two
 * small files. A point is named by its axis values and variant
 * ("switch.ecn.kmin=100KB, variant=spines-3"), which is how the points of
 * two sweeps are matched.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/cli/compare_impl.h"
#include "sim/cli/sweep_impl.h"
#include "sim/engine/textfile.h"

static int fail(char *err, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int add_run(struct cmp_side *s, const char *point, uint64_t seed, json_t *flat)
{
	struct cmp_run *r = realloc(s->runs, (s->n + 1) * sizeof(*r));

	if (!r) {
		json_decref(flat);
		return -ENOMEM;
	}
	s->runs = r;
	r = &s->runs[s->n];
	r->point = strdup(point);
	r->seed = seed;
	r->flat = flat;
	if (!r->point) {
		json_decref(flat);
		return -ENOMEM;
	}
	s->n++;
	return 0;
}

int cmp_side_from_results(const json_t *res, const char *label, struct cmp_side *s)
{
	json_t *flat = json_object();
	const char *name = json_string_value(json_object_get(res, "scenario"));

	memset(s, 0, sizeof(*s));
	s->path = strdup(label);
	s->scenario = strdup(name ? name : "");
	if (!flat || !s->path || !s->scenario ||
	    sweep_flatten(flat, "", json_object_get(res, "summary"))) {
		json_decref(flat);
		return -ENOMEM;
	}
	return add_run(s, "", (uint64_t)json_integer_value(json_object_get(res, "seed")), flat);
}

static int load_results(const char *file, const char *label, struct cmp_side *s, char *err,
			size_t size)
{
	json_error_t je;
	json_t *j = json_load_file(file, 0, &je);
	int rc;

	if (!j)
		return fail(err, size, "%s:%d: not a results.json: %s", file, je.line, je.text);
	if (!json_is_object(json_object_get(j, "summary")) ||
	    !json_is_string(json_object_get(j, "scenario"))) {
		json_decref(j);
		return fail(err, size, "%s: not a results.json of rocesim (no summary or scenario)",
			    file);
	}
	rc = cmp_side_from_results(j, label, s);
	json_decref(j);
	return rc;
}

/* ---- sweep.csv ---------------------------------------------------------------- */

/* A parsed CSV: rows of fields (RFC 4180 quoting) pointing into its text. */
struct csv {
	char ***rows;
	size_t *n_fields;
	size_t n;
};

static void csv_free(struct csv *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->rows[i]);
	free(c->rows);
	free(c->n_fields);
}

static int csv_push_row(struct csv *c, char **row, size_t nf)
{
	char ***rows = realloc(c->rows, (c->n + 1) * sizeof(*rows));
	size_t *nfs;

	if (!rows)
		return -ENOMEM;
	c->rows = rows;
	nfs = realloc(c->n_fields, (c->n + 1) * sizeof(*nfs));
	if (!nfs)
		return -ENOMEM;
	c->n_fields = nfs;
	c->rows[c->n] = row;
	c->n_fields[c->n++] = nf;
	return 0;
}

/*
 * Split @text (modified in place: fields end in NUL, quotes removed) into
 * rows of fields. 0, -EINVAL (a quote not closed) or -ENOMEM.
 */
static int csv_parse(char *text, struct csv *c)
{
	char *in = text, *out = text;
	char **row = NULL;
	size_t nf = 0, cap = 0;
	int err = 0;

	memset(c, 0, sizeof(*c));
	while (*in && !err) {
		char *field = out;

		if (*in == '"') {
			for (in++;;) {
				if (!*in) {
					err = -EINVAL;
					break;
				}
				if (*in == '"' && in[1] == '"') {
					*out++ = '"';
					in += 2;
				} else if (*in == '"') {
					in++;
					break;
				} else {
					*out++ = *in++;
				}
			}
		}
		while (*in && *in != ',' && *in != '\n' && *in != '\r')
			*out++ = *in++;
		if (nf == cap) {
			char **v = realloc(row, (cap = cap ? 2 * cap : 16) * sizeof(*v));

			if (!v) {
				err = -ENOMEM;
				break;
			}
			row = v;
		}
		row[nf++] = field;
		if (*in == ',') {
			*out++ = '\0';
			in++;
			continue;
		}
		if (*in == '\r')
			in++;
		if (*in == '\n')
			in++;
		*out++ = '\0';
		if (!err && !(err = csv_push_row(c, row, nf)))
			row = NULL;
		nf = cap = 0;
	}
	free(row);
	if (err)
		csv_free(c);
	return err;
}

/* A CSV cell as JSON: a number when it is one, else a string; NULL when empty. */
static json_t *cell_json(const char *cell)
{
	char *end;
	double v;

	if (!*cell)
		return NULL;
	v = strtod(cell, &end);
	if (end != cell && !*end)
		return json_real(v);
	return json_string(cell);
}

static int column(const struct csv *c, const char *name)
{
	for (size_t i = 0; i < c->n_fields[0]; i++)
		if (!strcmp(c->rows[0][i], name))
			return (int)i;
	return -1;
}

/* The runs of the sweep.csv at @file into @s. */
static int load_sweep_csv(const char *file, struct cmp_side *s, char *err, size_t size)
{
	struct csv c;
	char *text, key[2048];
	size_t len;
	int rc, seed_col, status_col, variant_col;

	rc = textfile_read(file, &text, &len);
	if (rc == -ENOMEM)
		return rc;
	if (rc)
		return fail(err, size,
			    "%s: cannot read: %s (a sweep writes it when its runs end; `rocesim "
			    "sweep --collect DIR` writes it again)",
			    file, textfile_strerror(rc));
	rc = csv_parse(text, &c);
	if (rc) {
		free(text);
		return rc == -ENOMEM ? rc
				     : fail(err, size, "%s: a quoted field is not closed", file);
	}
	seed_col = c.n ? column(&c, "seed") : -1;
	status_col = c.n ? column(&c, "status") : -1;
	variant_col = c.n ? column(&c, "variant") : -1;
	if (seed_col < 0 || status_col < seed_col || column(&c, "error") != status_col + 1) {
		rc = fail(err, size, "%s:1: not a sweep.csv of rocesim (no seed, status, error)",
			  file);
		goto out;
	}
	for (size_t i = 1; i < c.n && !rc; i++) {
		char **f = c.rows[i];
		size_t klen = 0;
		json_t *flat;

		if (c.n_fields[i] == 1 && !f[0][0])
			continue; /* an empty line */
		if (c.n_fields[i] != c.n_fields[0]) {
			rc = fail(err, size, "%s:%zu: %zu fields where the header has %zu", file,
				  i + 1, c.n_fields[i], c.n_fields[0]);
			break;
		}
		if (strcmp(f[status_col], "ok") && strcmp(f[status_col], "expect-failed"))
			continue; /* a run that failed or did not run: no sample */
		key[0] = '\0';
		for (int a = seed_col + 1; a < status_col; a++)
			klen += (size_t)snprintf(key + klen,
						 klen < sizeof(key) ? sizeof(key) - klen : 0,
						 "%s%s=%s", klen ? ", " : "", c.rows[0][a], f[a]);
		if (variant_col >= 0 && klen < sizeof(key))
			snprintf(key + klen, sizeof(key) - klen, "%svariant=%s", klen ? ", " : "",
				 f[variant_col]);
		if (!(flat = json_object())) {
			rc = -ENOMEM;
			break;
		}
		for (size_t m = (size_t)status_col + 2; m < c.n_fields[0] && !rc; m++) {
			json_t *v = cell_json(f[m]);

			if (v && json_object_set_new(flat, c.rows[0][m], v))
				rc = -ENOMEM;
		}
		if (rc)
			json_decref(flat);
		else
			rc = add_run(s, key, strtoull(f[seed_col], NULL, 10), flat);
	}
out:
	csv_free(&c);
	free(text);
	return rc;
}

static int load_sweep(const char *dir, struct cmp_side *s, char *err, size_t size)
{
	char path[4200];
	json_error_t je;
	json_t *j;
	const char *name;

	snprintf(path, sizeof(path), "%s/sweep.json", dir);
	j = json_load_file(path, 0, &je);
	if (!j)
		return fail(err, size, "%s:%d: not JSON: %s", path, je.line, je.text);
	name = json_string_value(json_object_get(json_object_get(j, "scenario"), "name"));
	if (!name) {
		json_decref(j);
		return fail(err, size, "%s: not a sweep.json of rocesim (no scenario.name)", path);
	}
	s->scenario = strdup(name);
	json_decref(j);
	if (!s->scenario)
		return -ENOMEM;
	s->sweep = 1;
	snprintf(path, sizeof(path), "%s/sweep.csv", dir);
	return load_sweep_csv(path, s, err, size);
}

int cmp_side_load(const char *path, struct cmp_side *s, char *err, size_t size)
{
	char file[4200];
	struct stat st;
	int rc;

	memset(s, 0, sizeof(*s));
	if (stat(path, &st))
		return fail(err, size, "%s: %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return load_results(path, path, s, err, size);
	snprintf(file, sizeof(file), "%s/sweep.json", path);
	if (!stat(file, &st)) {
		if (!(s->path = strdup(path)))
			return -ENOMEM;
		rc = load_sweep(path, s, err, size);
	} else {
		snprintf(file, sizeof(file), "%s/results.json", path);
		if (stat(file, &st))
			return fail(err, size,
				    "%s: neither a run folder (results.json) nor a sweep folder "
				    "(sweep.json)",
				    path);
		rc = load_results(file, path, s, err, size);
	}
	if (!rc && !s->n)
		rc = fail(err, size, "%s: no run of the sweep has results", path);
	return rc;
}

void cmp_side_free(struct cmp_side *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->runs[i].point);
		json_decref(s->runs[i].flat);
	}
	free(s->runs);
	free(s->path);
	free(s->scenario);
	memset(s, 0, sizeof(*s));
}
