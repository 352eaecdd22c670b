/*
 * compare load: one side of `rocesim compare` as runs with their point and
 * seed. A results.json file, or a run folder holding one, is one run; a
 * sweep folder is read from its sweep.json (the scenario's name) and its
 * sweep.csv (a row per run: point, variant, seed, axis values, status, and
 * every summary metric), so that a stored baseline needs only these two
 * small files. A point is named by its axis values and variant
 * ("switch.ecn.kmin=100KB, variant=spines-3"), which is how the points of
 * two sweeps are matched; a run that failed is kept as a failure of its
 * point. What is read is checked: a schema_version not known, or a metric
 * that is not a number (a string, an object, NaN), is refused naming the
 * file and key, never read as a metric not measured. Each side also keeps
 * what produced it (the version and the inputs' SHA-256 of results.json's
 * provenance; a sweep's sweep.json and the results of its runs when the
 * folder still has them), so that compare can say when they differ.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/study/compare_impl.h"
#include "sim/study/sweep_impl.h"
#include "sim/engine/textfile.h"

/* The schema_version of results.json and of sweep.json that compare reads. */
#define CMP_RESULTS_SCHEMA 1
#define CMP_SWEEP_SCHEMA 1

static int fail(char *err, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int add_run(struct cmp_side *s, const char *point, uint64_t seed, json_t *flat,
		   const char *where)
{
	struct cmp_run *r = realloc(s->runs, (s->n + 1) * sizeof(*r));

	if (!r) {
		json_decref(flat);
		return -ENOMEM;
	}
	s->runs = r;
	r = &s->runs[s->n];
	r->point = strdup(point);
	r->where = strdup(where);
	r->seed = seed;
	r->flat = flat;
	if (!r->point || !r->where) {
		free(r->point);
		free(r->where);
		json_decref(flat);
		return -ENOMEM;
	}
	s->n++;
	return 0;
}

static int add_fail(struct cmp_side *s, const char *point, uint64_t seed, const char *error)
{
	struct cmp_fail *f = realloc(s->failed, (s->n_failed + 1) * sizeof(*f));

	if (!f)
		return -ENOMEM;
	s->failed = f;
	f = &s->failed[s->n_failed];
	f->point = strdup(point);
	f->error = strdup(error);
	f->seed = seed;
	if (!f->point || !f->error) {
		free(f->point);
		free(f->error);
		return -ENOMEM;
	}
	s->n_failed++;
	return 0;
}

/* ---- provenance ------------------------------------------------------------------ */

/* Add string @v to the array @key of @o (made when absent), once. */
static int set_add(json_t *o, const char *key, const char *v)
{
	json_t *a = json_object_get(o, key), *e;
	size_t i;

	if (!a && (json_object_set_new(o, key, json_array()) || !(a = json_object_get(o, key))))
		return -ENOMEM;
	json_array_foreach(a, i, e)
		if (!strcmp(json_string_value(e), v))
			return 0;
	return json_array_append_new(a, json_string(v)) ? -ENOMEM : 0;
}

/* The side's provenance record, made when absent. */
static json_t *side_prov(struct cmp_side *s)
{
	if (!s->prov)
		s->prov = json_pack("{s:[],s:{}}", "versions", "inputs");
	return s->prov;
}

/* The last part of a path. */
static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/*
 * Add results.json's "provenance" @p to @s: its version, and each input's
 * SHA-256 under what named it and the file's name ("nic.cc_params
 * cc_params.txt"; not the folder, which differs between two checkouts).
 */
static int prov_add(struct cmp_side *s, const json_t *p)
{
	const char *v = json_string_value(json_object_get(p, "version"));
	const char *sha =
	    json_string_value(json_object_get(json_object_get(p, "scenario"), "sha256"));
	json_t *pr, *in, *e;
	size_t i;

	if (!json_is_object(p))
		return 0;
	if (!(pr = side_prov(s)))
		return -ENOMEM;
	in = json_object_get(pr, "inputs");
	if ((v && set_add(pr, "versions", v)) || (sha && set_add(in, "scenario", sha)) ||
	    json_object_set_new(pr, "runs", json_true()))
		return -ENOMEM;
	if (json_array_size(json_object_get(p, "overrides"))) {
		char sets[2000] = "";
		size_t len = 0;

		/* the --set overrides but the seed, which pairs runs, not inputs */
		json_array_foreach(json_object_get(p, "overrides"), i, e) {
			const char *o = json_string_value(e);

			if (o && strncmp(o, "seed=", 5) && len < sizeof(sets))
				len += (size_t)snprintf(sets + len, sizeof(sets) - len, "%s%s",
							len ? " " : "", o);
		}
		if (len && set_add(in, "--set", sets))
			return -ENOMEM;
	}
	json_array_foreach(json_object_get(p, "inputs"), i, e) {
		const char *path = json_string_value(json_object_get(e, "path"));
		const char *via = json_string_value(json_object_get(e, "via"));
		const char *h = json_string_value(json_object_get(e, "sha256"));
		char key[600];

		if (!path || !via)
			continue;
		snprintf(key, sizeof(key), "%s %s", via, base_name(path));
		if (set_add(in, key, h ? h : "unreadable"))
			return -ENOMEM;
	}
	return 0;
}

/* ---- results.json ------------------------------------------------------------------ */

/*
 * The metrics of the table in @sum (a results.json's summary) are numbers
 * (or null: not measured; deadlock.detected a boolean): -EINVAL naming
 * @file and the key of one that is not.
 */
static int check_summary(const json_t *sum, const char *file, char *err, size_t size)
{
	for (size_t i = 0; cmp_metric_name(i); i++) {
		const char *name = cmp_metric_name(i), *dot;
		const json_t *v = sum;
		char part[128];

		for (const char *p = name; v && *p; p = *dot ? dot + 1 : dot) {
			size_t len;

			dot = strchr(p, '.');
			dot = dot ? dot : p + strlen(p);
			len =
			    (size_t)(dot - p) < sizeof(part) ? (size_t)(dot - p) : sizeof(part) - 1;
			memcpy(part, p, len);
			part[len] = '\0';
			if (!json_is_object(v) && !json_is_null(v))
				return fail(err, size,
					    "%s: summary.%.*s: a %s where an object is expected",
					    file, (int)(p - name - 1), name,
					    json_is_string(v) ? "string" : "number");
			v = json_object_get(v, part);
		}
		if (v && !json_is_number(v) && !json_is_null(v) && !json_is_boolean(v))
			return fail(err, size, "%s: summary.%s: %s where a number is expected",
				    file, name,
				    json_is_string(v)	? "a string"
				    : json_is_object(v) ? "an object"
							: "an array");
	}
	return 0;
}

int cmp_side_from_results(const json_t *res, const char *label, struct cmp_side *s, char *err,
			  size_t size)
{
	json_t *flat = json_object();
	const char *name = json_string_value(json_object_get(res, "scenario"));
	int rc;

	memset(s, 0, sizeof(*s));
	s->path = strdup(label);
	s->scenario = strdup(name ? name : "");
	if (!flat || !s->path || !s->scenario ||
	    sweep_flatten(flat, "", json_object_get(res, "summary"))) {
		json_decref(flat);
		return -ENOMEM;
	}
	if ((rc = check_summary(json_object_get(res, "summary"), label, err, size)) ||
	    (rc = prov_add(s, json_object_get(res, "provenance")))) {
		json_decref(flat);
		return rc;
	}
	return add_run(s, "", (uint64_t)json_integer_value(json_object_get(res, "seed")), flat,
		       label);
}

/* Whether the @n bytes of @s hold no control character: a key on one line. */
static int printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	return 1;
}

/*
 * JSON has no NaN or Infinity (jansson refuses them, as the standard
 * does), yet some writers put them there: the word, with the key of the
 * value at the error @je in @file into @key; NULL when it is not one.
 */
static const char *bad_number_key(const char *file, const json_error_t *je, char *key, size_t size,
				  int *oom)
{
	static const char *const words[] = {"NaN", "-NaN", "Infinity", "-Infinity", NULL};
	const char *word = NULL;
	char *text;
	size_t len, at, end, tok;
	int rc;

	key[0] = '\0';
	rc = textfile_read(file, &text, &len);
	*oom = rc == -ENOMEM; /* the file's refusal would blame the file */
	if (rc)
		return NULL;
	at = je->position > 0 && (size_t)je->position <= len ? (size_t)je->position : 0;
	while (at && !strchr(":,[{\"", text[at - 1]))
		at--; /* back to what precedes the value */
	for (tok = at; tok < len && strchr(" \t\r\n", text[tok]); tok++)
		;
	for (const char *const *w = words; *w && !word; w++)
		if (!strncmp(text + tok, *w, strlen(*w)))
			word = *w;
	if (word && at && text[at - 1] == ':') {
		at--;
		while (at && strchr(" \t\r\n", text[at - 1]))
			at--;
		if (at && text[at - 1] == '"') {
			end = --at;
			while (at && text[at - 1] != '"')
				at--;
			if (at && end - at < size && printable(text + at, end - at))
				snprintf(key, size, "%.*s", (int)(end - at), text + at);
		}
	}
	free(text);
	return *key ? word : NULL;
}

/*
 * @file as results.json (new reference into *@out), checked: JSON, a
 * summary, a scenario and a schema_version this compare reads.
 */
static int read_results(const char *file, json_t **out, char *err, size_t size)
{
	json_error_t je;
	json_t *j = json_load_file(file, 0, &je), *sv;

	*out = NULL;
	if (!j) {
		char key[128];
		int oom;
		const char *word = bad_number_key(file, &je, key, sizeof(key), &oom);

		if (oom)
			return -ENOMEM;
		if (word)
			return fail(err, size, "%s:%d: %s: %s where a number is expected", file,
				    je.line, key, word);
		return fail(err, size, "%s:%d: not a results.json: %s", file, je.line, je.text);
	}
	sv = json_object_get(j, "schema_version");
	if (!json_is_object(json_object_get(j, "summary")) ||
	    !json_is_string(json_object_get(j, "scenario"))) {
		json_decref(j);
		return fail(err, size, "%s: not a results.json of rocesim (no summary or scenario)",
			    file);
	}
	if (!json_is_integer(sv) || json_integer_value(sv) != CMP_RESULTS_SCHEMA) {
		char v[64] = "absent";

		if (json_is_integer(sv))
			snprintf(v, sizeof(v), "%lld", (long long)json_integer_value(sv));
		else if (sv)
			snprintf(v, sizeof(v), "not an integer");
		json_decref(j);
		return fail(err, size,
			    "%s: schema_version: %s, this rocesim reads schema_version %d", file, v,
			    CMP_RESULTS_SCHEMA);
	}
	*out = j;
	return 0;
}

static int load_results(const char *file, const char *label, struct cmp_side *s, char *err,
			size_t size)
{
	json_t *j;
	int rc = read_results(file, &j, err, size);

	if (rc)
		return rc;
	rc = cmp_side_from_results(j, label, s, err, size);
	if (!rc && strcmp(label, file)) {
		/* messages name the file, the table the folder given */
		free(s->runs[0].where);
		if (!(s->runs[0].where = strdup(file)))
			rc = -ENOMEM;
	}
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

/*
 * A CSV cell as JSON into *@out: a number when it is one, else a string;
 * NULL when empty. -EINVAL for a number that is not finite (nan, inf),
 * and for a string in a column of a metric of the table; -ENOMEM.
 */
static int cell_json(const char *cell, const char *col, json_t **out)
{
	enum cmp_dir dir;
	char *end;
	double v;

	*out = NULL;
	if (!*cell)
		return 0;
	v = strtod(cell, &end);
	if (end != cell && !*end) {
		if (!isfinite(v))
			return -EINVAL;
		*out = json_real(v);
	} else {
		if (!cmp_metric_dir(col, &dir))
			return -EINVAL;
		*out = json_string(cell);
	}
	return *out ? 0 : -ENOMEM;
}

static int column(const struct csv *c, const char *name)
{
	for (size_t i = 0; i < c->n_fields[0]; i++)
		if (!strcmp(c->rows[0][i], name))
			return (int)i;
	return -1;
}

/*
 * @s as an error shows it, in one line: control characters as \xHH, cut
 * to @size - 1 bytes (a quoted CSV field may hold a newline).
 */
static const char *shown(const char *s, char *buf, size_t size)
{
	size_t n = 0;

	for (; *s && n + 5 < size; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x20 && c != 0x7f)
			buf[n++] = (char)c;
		else
			n += (size_t)snprintf(buf + n, size - n, "\\x%02x", c);
	}
	buf[n] = '\0';
	return buf;
}

/*
 * The offset of the first byte of @s (@len bytes) that is not UTF-8 as
 * jansson takes it (no overlong form, surrogate or code point past
 * U+10FFFF), or @len: the cells become JSON strings and keys.
 */
static size_t utf8_bad(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		unsigned c = u[i], n, lo = 0x80, hi = 0xbf;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c < 0xc2 || c > 0xf4)
			return i;
		n = c < 0xe0 ? 1 : c < 0xf0 ? 2 : 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
		else if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
		if (len - i <= n)
			return i;
		for (unsigned k = 1; k <= n; k++)
			if (u[i + k] < (k == 1 ? lo : 0x80) || u[i + k] > (k == 1 ? hi : 0xbf))
				return i;
		i += n + 1;
	}
	return len;
}

/*
 * The provenance of run @id (point @key) of the sweep in @dir, from its
 * results.json when the folder still has it: once per point (the seeds of
 * a point read the same files), @seen holding the points read.
 */
static int run_prov(struct cmp_side *s, const char *dir, const char *id, const char *key,
		    json_t **seen)
{
	char path[4400];
	json_t *j;
	int rc;

	if (!*seen && !(*seen = json_object()))
		return -ENOMEM;
	if (json_object_get(*seen, key))
		return 0;
	if (json_object_set_new(*seen, key, json_true()))
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/points/%s/results.json", dir, id);
	if (!(j = json_load_file(path, 0, NULL)))
		return 0; /* a stored baseline: sweep.json and sweep.csv alone */
	rc = prov_add(s, json_object_get(j, "provenance"));
	json_decref(j);
	return rc;
}

/*
 * The runs of the sweep.csv at @file (of the sweep folder @dir) into @s;
 * its rows must be the runs @ids (sweep.json's) holds, all of them, when
 * @ids is not NULL: a sweep.csv left by another sweep into the same
 * folder is refused.
 */
static int load_sweep_csv(const char *file, const char *dir, const json_t *ids, struct cmp_side *s,
			  char *err, size_t size)
{
	struct csv c;
	char *text, key[2048], where[4300], shown_a[256], shown_b[256];
	size_t len, bad;
	int rc, seed_col, status_col, variant_col, id_col;
	json_t *seen = NULL;
	size_t rows = 0;

	rc = textfile_read(file, &text, &len);
	if (rc == -ENOMEM)
		return rc;
	if (rc)
		return fail(err, size,
			    "%s: cannot read: %s (a sweep writes it when its runs end; `rocesim "
			    "sweep --collect DIR` writes it again)",
			    file, textfile_strerror(rc));
	if ((bad = utf8_bad(text, len)) < len) {
		size_t line = 1;

		for (size_t i = 0; i < bad; i++)
			line += text[i] == '\n';
		free(text);
		return fail(err, size, "%s:%zu: not UTF-8 text (rocesim writes sweep.csv in UTF-8)",
			    file, line);
	}
	rc = csv_parse(text, &c);
	if (rc) {
		free(text);
		return rc == -ENOMEM ? rc
				     : fail(err, size, "%s: a quoted field is not closed", file);
	}
	seed_col = c.n ? column(&c, "seed") : -1;
	status_col = c.n ? column(&c, "status") : -1;
	variant_col = c.n ? column(&c, "variant") : -1;
	id_col = c.n ? column(&c, "id") : -1;
	if (seed_col < 0 || status_col < seed_col || column(&c, "error") != status_col + 1) {
		rc = fail(err, size, "%s:1: not a sweep.csv of rocesim (no seed, status, error)",
			  file);
		goto out;
	}
	for (size_t i = 1; i < c.n && !rc; i++) {
		char **f = c.rows[i];
		size_t klen = 0;
		uint64_t seed;
		json_t *flat;

		if (c.n_fields[i] == 1 && !f[0][0])
			continue; /* an empty line */
		if (c.n_fields[i] != c.n_fields[0]) {
			rc = fail(err, size, "%s:%zu: %zu fields where the header has %zu", file,
				  i + 1, c.n_fields[i], c.n_fields[0]);
			break;
		}
		rows++;
		if (ids && id_col == 0 && !json_object_get(ids, f[0])) {
			rc = fail(err, size,
				  "%s:%zu: run %s is not one of sweep.json's: the two files are of "
				  "two sweeps (`rocesim sweep --collect %s` writes the tables of "
				  "sweep.json's)",
				  file, i + 1, shown(f[0], shown_a, sizeof(shown_a)), dir);
			break;
		}
		key[0] = '\0';
		/* cut short when full: key + klen stays within key */
		for (int a = seed_col + 1; a < status_col && klen < sizeof(key); a++)
			klen += (size_t)snprintf(key + klen, sizeof(key) - klen, "%s%s=%s",
						 klen ? ", " : "", c.rows[0][a], f[a]);
		if (variant_col >= 0 && klen < sizeof(key))
			snprintf(key + klen, sizeof(key) - klen, "%svariant=%s", klen ? ", " : "",
				 f[variant_col]);
		/* a key cut short ends on a whole character: it is a JSON key */
		key[utf8_bad(key, strlen(key))] = '\0';
		seed = strtoull(f[seed_col], NULL, 10);
		if (!strcmp(f[status_col], "not-run"))
			continue; /* not run yet: no sample */
		if (strcmp(f[status_col], "ok") && strcmp(f[status_col], "expect-failed")) {
			/* failed, or refused: no results, and why */
			rc = add_fail(s, key, seed,
				      *f[status_col + 1] ? f[status_col + 1] : f[status_col]);
			continue;
		}
		if (!(flat = json_object())) {
			rc = -ENOMEM;
			break;
		}
		snprintf(where, sizeof(where), "%s:%zu", file, i + 1);
		for (size_t m = (size_t)status_col + 2; m < c.n_fields[0] && !rc; m++) {
			json_t *v;

			rc = cell_json(f[m], c.rows[0][m], &v);
			if (rc == -EINVAL)
				rc = fail(err, size, "%s: %s: \"%s\" is not a number", where,
					  shown(c.rows[0][m], shown_a, sizeof(shown_a)),
					  shown(f[m], shown_b, sizeof(shown_b)));
			else if (v && json_object_set_new(flat, c.rows[0][m], v))
				rc = -ENOMEM;
		}
		if (rc)
			json_decref(flat);
		else
			rc = add_run(s, key, seed, flat, where);
		if (!rc && id_col == 0 && dir)
			rc = run_prov(s, dir, f[0], key, &seen);
	}
	json_decref(seen);
	if (!rc && ids && rows != json_object_size(ids))
		rc = fail(err, size,
			  "%s: %zu runs where sweep.json has %zu: the two files are of two sweeps "
			  "(`rocesim sweep --collect %s` writes the tables of sweep.json's)",
			  file, rows, json_object_size(ids), dir);
out:
	csv_free(&c);
	free(text);
	return rc;
}

/* The ids of sweep.json @j's runs (points[].runs: an id, or with variants
 * an object of ids), as an object's keys; NULL when malformed. */
static json_t *run_ids(const json_t *j)
{
	json_t *ids = json_object(), *pt, *r, *v;
	size_t i, k;
	const char *name;

	if (!ids || !json_is_array(json_object_get(j, "points")))
		goto bad;
	json_array_foreach(json_object_get(j, "points"), i, pt) {
		if (!json_is_array(json_object_get(pt, "runs")))
			goto bad;
		json_array_foreach(json_object_get(pt, "runs"), k, r) {
			if (json_is_string(r)) {
				if (json_object_set_new(ids, json_string_value(r), json_true()))
					goto bad;
				continue;
			}
			if (!json_is_object(r))
				goto bad;
			json_object_foreach(r, name, v)
				if (!json_is_string(v) ||
				    json_object_set_new(ids, json_string_value(v), json_true()))
					goto bad;
		}
	}
	return ids;
bad:
	json_decref(ids);
	return NULL;
}

static int load_sweep(const char *dir, struct cmp_side *s, char *err, size_t size)
{
	char path[4200];
	json_error_t je;
	json_t *j, *sv, *ids;
	const char *name, *sha, *version;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/sweep.json", dir);
	j = json_load_file(path, 0, &je);
	if (!j)
		return fail(err, size, "%s:%d: not JSON: %s", path, je.line, je.text);
	name = json_string_value(json_object_get(json_object_get(j, "scenario"), "name"));
	sv = json_object_get(j, "schema_version");
	if (!name) {
		json_decref(j);
		return fail(err, size, "%s: not a sweep.json of rocesim (no scenario.name)", path);
	}
	if (!json_is_integer(sv) || json_integer_value(sv) != CMP_SWEEP_SCHEMA) {
		rc = fail(err, size, "%s: schema_version: %s, this rocesim reads schema_version %d",
			  path,
			  json_is_integer(sv) ? "not one it knows" : "absent or not an integer",
			  CMP_SWEEP_SCHEMA);
		json_decref(j);
		return rc;
	}
	/* a sweep.json without points (one written by hand) is not checked */
	ids = NULL;
	if (json_object_get(j, "points") && !(ids = run_ids(j))) {
		json_decref(j);
		return fail(err, size, "%s: points[].runs: not the run ids of a sweep", path);
	}
	s->scenario = strdup(name);
	/* what it says of its inputs: the scenario's digest, its version if any */
	sha = json_string_value(json_object_get(json_object_get(j, "scenario"), "sha256"));
	version = json_string_value(json_object_get(j, "version"));
	if (!version)
		version =
		    json_string_value(json_object_get(json_object_get(j, "provenance"), "version"));
	if ((sha || version) &&
	    (!side_prov(s) ||
	     (sha && set_add(json_object_get(s->prov, "inputs"), "scenario", sha)) ||
	     (version && set_add(s->prov, "versions", version))))
		rc = -ENOMEM;
	json_decref(j);
	if (!s->scenario || rc) {
		json_decref(ids);
		return -ENOMEM;
	}
	s->sweep = 1;
	snprintf(path, sizeof(path), "%s/sweep.csv", dir);
	rc = load_sweep_csv(path, dir, ids, s, err, size);
	json_decref(ids);
	return rc;
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
	if (!rc && !s->n && !s->n_failed)
		rc = fail(err, size, "%s: no run of the sweep has results", path);
	return rc;
}

void cmp_side_free(struct cmp_side *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->runs[i].point);
		free(s->runs[i].where);
		json_decref(s->runs[i].flat);
	}
	for (size_t i = 0; i < s->n_failed; i++) {
		free(s->failed[i].point);
		free(s->failed[i].error);
	}
	free(s->runs);
	free(s->failed);
	json_decref(s->prov);
	free(s->path);
	free(s->scenario);
	memset(s, 0, sizeof(*s));
}
