/*
 * sweep spec: the axes, variants and seeds of a sweep (from the command
 * line or the scenario's `sweep:` section), its points in order with their
 * ids and overrides, and sweep.json, the spec written beside the results so that
 * the sweep can be resumed and collected.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/study/sweep_impl.h"
#include "sim/engine/textfile.h"
#include "sim/engine/textsafe.h"
#include "sim/readers/ydoc.h"

int sweep_spec_points(struct sweep_spec *sp, struct diag *d)
{
	size_t n = 1;

	for (size_t a = 0; a < sp->n_axes; a++) {
		size_t m = sp->axes[a].n;

		if (sp->zip && a && m != sp->axes[0].n) {
			diag_set(d, "--zip", 0, sp->axes[a].key,
				 "has %zu values and %s has %zu: zipped axes need as many each", m,
				 sp->axes[0].key, sp->axes[0].n);
			return -EINVAL;
		}
		if (sp->zip)
			n = m;
		else if (m && n > SWEEP_MAX_RUNS / m)
			n = SWEEP_MAX_RUNS + 1;
		else
			n *= m;
	}
	if (n > SWEEP_MAX_RUNS / sweep_spec_variants(sp) ||
	    (sp->n_seeds && n * sweep_spec_variants(sp) > SWEEP_MAX_RUNS / sp->n_seeds)) {
		diag_set(d, "--vary", 0, "", "more than %d runs (points x seeds)", SWEEP_MAX_RUNS);
		return -EINVAL;
	}
	sp->n_points = n;
	sp->id_width = 3;
	for (size_t m = 1000; m <= n; m *= 10)
		sp->id_width++;
	return 0;
}

void sweep_spec_index(const struct sweep_spec *sp, size_t p, size_t *idx)
{
	for (size_t a = sp->n_axes; a-- > 0;) {
		if (sp->zip) {
			idx[a] = p;
			continue;
		}
		idx[a] = p % sp->axes[a].n;
		p /= sp->axes[a].n;
	}
}

size_t sweep_spec_variants(const struct sweep_spec *sp)
{
	return sp->n_variants ? sp->n_variants : 1;
}

size_t sweep_spec_runs(const struct sweep_spec *sp)
{
	return sp->n_points * sweep_spec_variants(sp) * sp->n_seeds;
}

void sweep_spec_id(const struct sweep_spec *sp, size_t p, size_t v, uint64_t seed, char *buf)
{
	if (sp->n_variants)
		snprintf(buf, SWEEP_ID_SIZE, "p%0*zu-%s-s%llu", sp->id_width, p + 1,
			 sp->variants[v].name, (unsigned long long)seed);
	else
		snprintf(buf, SWEEP_ID_SIZE, "p%0*zu-s%llu", sp->id_width, p + 1,
			 (unsigned long long)seed);
}

/* Letters, digits, - and _, 1 to SWEEP_VARIANT_NAME - 1 of them. */
static int safe_name(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if (!((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
		      (s[n] >= '0' && s[n] <= '9') || s[n] == '-' || s[n] == '_'))
			return 0;
	return n > 0 && n < SWEEP_VARIANT_NAME;
}

/* Append a variant to @sp, taking @name and @path (NULL or malloc'd). */
static int push_variant(struct sweep_spec *sp, char *name, char *path, const char *sha)
{
	struct sweep_variant *v = realloc(sp->variants, (sp->n_variants + 1) * sizeof(*v));

	if (!v || !name) {
		free(name);
		free(path);
		if (v)
			sp->variants = v;
		return -ENOMEM;
	}
	sp->variants = v;
	v = &sp->variants[sp->n_variants++];
	v->name = name;
	v->path = path;
	snprintf(v->sha256, sizeof(v->sha256), "%s", sha ? sha : "");
	return 0;
}

int sweep_spec_add_variant(struct sweep_spec *sp, const char *name, const char *path,
			   const char *where, int line, struct diag *d)
{
	char sha[65], *text = NULL, *copy;
	size_t len;
	int err, is_base = !strcmp(name, "base");

	if (!safe_name(name)) {
		diag_set(d, where, line, name,
			 "\"%s\" is not a variant name (1 to %d letters, digits, - and _)", name,
			 SWEEP_VARIANT_NAME - 1);
		return -EINVAL;
	}
	for (size_t i = 0; i < sp->n_variants; i++) {
		if (!strcmp(sp->variants[i].name, name) && sp->variants[i].path) {
			diag_set(d, where, line, name, "variant given twice");
			return -EINVAL;
		}
	}
	if ((err = textfile_read(path, &text, &len))) {
		if (err == -ENOMEM)
			return err;
		diag_set(d, where, line, name, "%s: cannot read: %s", path, textfile_strerror(err));
		return -EINVAL;
	}
	sha256_hex(text, len, sha);
	free(text);
	if (!sp->n_variants && !is_base && (err = push_variant(sp, strdup("base"), NULL, NULL)))
		return err;
	if (!(copy = strdup(path)))
		return -ENOMEM;
	if (is_base && sp->n_variants) { /* the implied base, first */
		free(sp->variants[0].path);
		sp->variants[0].path = copy;
		snprintf(sp->variants[0].sha256, sizeof(sp->variants[0].sha256), "%s", sha);
		return 0;
	}
	return push_variant(sp, strdup(name), copy, sha);
}

int sweep_spec_add_with(struct sweep_spec *sp, const char *path, struct diag *d)
{
	struct sweep_variant *w;
	char sha[65], *text = NULL;
	size_t len;
	int err;

	if ((err = textfile_read(path, &text, &len))) {
		if (err == -ENOMEM)
			return err;
		diag_set(d, path, 0, "", "cannot read (--with): %s", textfile_strerror(err));
		return -EINVAL;
	}
	sha256_hex(text, len, sha);
	free(text);
	if (!(w = realloc(sp->withs, (sp->n_withs + 1) * sizeof(*w))))
		return -ENOMEM;
	sp->withs = w;
	w = &w[sp->n_withs];
	memset(w, 0, sizeof(*w));
	if (!(w->path = strdup(path)))
		return -ENOMEM;
	snprintf(w->sha256, sizeof(w->sha256), "%s", sha);
	sp->n_withs++;
	return 0;
}

int sweep_spec_add_set(struct sweep_spec *sp, const char *set, struct diag *d)
{
	size_t klen = strcspn(set, "=");
	char **v;

	for (size_t a = 0; a < sp->n_axes; a++) {
		if (strlen(sp->axes[a].key) == klen && !strncmp(sp->axes[a].key, set, klen)) {
			diag_set(d, "--set", 0, sp->axes[a].key,
				 "is also an axis of the sweep (--vary or sweep.vary): give one");
			return -EINVAL;
		}
	}
	if (!(v = realloc(sp->sets, (sp->n_sets + 1) * sizeof(*v))))
		return -ENOMEM;
	sp->sets = v;
	if (!(v[sp->n_sets] = strdup(set)))
		return -ENOMEM;
	sp->n_sets++;
	return 0;
}

int sweep_spec_sets(const struct sweep_spec *sp, size_t p, char **sets)
{
	size_t idx[sp->n_axes ? sp->n_axes : 1];

	sweep_spec_index(sp, p, idx);
	for (size_t a = 0; a < sp->n_axes; a++) {
		const char *k = sp->axes[a].key, *v = sp->axes[a].values[idx[a]];
		size_t len = strlen(k) + strlen(v) + 2;

		if (!(sets[a] = malloc(len))) {
			sweep_sets_free(sets, a);
			return -ENOMEM;
		}
		snprintf(sets[a], len, "%s=%s", k, v);
	}
	return 0;
}

void sweep_sets_free(char **sets, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(sets[i]);
}

/* ---- the scenario's sweep: section ----------------------------------------- */

static int add_axis(struct sweep_spec *sp, const struct ydoc *y, const char *key,
		    const char *values, int line, struct diag *d)
{
	struct sweep_axis *axes, ax;
	int err;

	for (size_t a = 0; a < sp->n_axes; a++) {
		if (!strcmp(sp->axes[a].key, key)) {
			diag_set(d, ydoc_file(y), line, key, "varied twice");
			return -EINVAL;
		}
	}
	err = sweep_axis_values(ydoc_file(y), line, key, values, &ax, d);
	if (err == -EINVAL) {
		char path[sizeof(d->path)];

		snprintf(path, sizeof(path), "%s", d->path);
		snprintf(d->path, sizeof(d->path), "sweep.vary.%.140s", path);
	}
	if (err)
		return err;
	axes = realloc(sp->axes, (sp->n_axes + 1) * sizeof(*axes));
	if (!axes) {
		sweep_axis_free(&ax);
		return -ENOMEM;
	}
	sp->axes = axes;
	sp->axes[sp->n_axes++] = ax;
	return 0;
}

/* The items of the list at @path ("sweep.vary.KEY"), joined by ','. */
static char *join_items(const struct ydoc *y, const char *path)
{
	size_t plen = strlen(path), len = 0;
	char *s = calloc(1, 1);

	for (size_t i = 0; s && i < ydoc_count(y); i++) {
		const struct ydoc_entry *e = ydoc_at(y, i);
		char *t;

		if (strncmp(e->path, path, plen) || e->path[plen] != '[' || !e->value ||
		    strchr(e->path + plen, '.'))
			continue;
		t = realloc(s, len + strlen(e->value) + 2);
		if (!t) {
			free(s);
			return NULL;
		}
		s = t;
		len += (size_t)sprintf(s + len, "%s%s", len ? "," : "", e->value);
	}
	return s;
}

/*
 * Is @path in a YAML list: does the text up to one of its '[' name a
 * sequence of the index? A key whose own text has brackets
 * ("workload.flows[0].size") is not: no entry has the text before them.
 */
static int in_list(const struct ydoc *y, const char *path)
{
	char buf[512];

	for (const char *b = strchr(path, '['); b; b = strchr(b + 1, '[')) {
		const struct ydoc_entry *seq;

		if ((size_t)(b - path) >= sizeof(buf))
			break;
		snprintf(buf, sizeof(buf), "%.*s", (int)(b - path), path);
		seq = ydoc_find(y, buf);
		if (seq && !seq->value)
			return 1;
	}
	return 0;
}

static int read_vary(struct sweep_spec *sp, const struct ydoc *y, struct diag *d)
{
	static const char pre[] = "sweep.vary.";
	const size_t plen = sizeof(pre) - 1;
	int err;

	for (size_t i = 0; i < ydoc_count(y); i++) {
		const struct ydoc_entry *e = ydoc_at(y, i), *next;
		char key[160], *joined;

		if (strncmp(e->path, pre, plen))
			continue;
		if (in_list(y, e->path)) /* an item of a list read below */
			continue;
		snprintf(key, sizeof(key), "%s", e->path + plen);
		if (e->value) {
			err = add_axis(sp, y, key, e->value, e->line, d);
		} else {
			/* a mapping on the way to the key, or a list of values */
			next = i + 1 < ydoc_count(y) ? ydoc_at(y, i + 1) : NULL;
			if (!next || strncmp(next->path, e->path, strlen(e->path)) ||
			    next->path[strlen(e->path)] != '[')
				continue;
			if (!(joined = join_items(y, e->path)))
				return -ENOMEM;
			err = add_axis(sp, y, key, joined, e->line, d);
			free(joined);
		}
		if (err)
			return err;
	}
	return 0;
}

/* sweep.variants: NAME: OVERLAY, the paths relative to the scenario's folder. */
static int read_variants(struct sweep_spec *sp, const struct ydoc *y, struct diag *d)
{
	static const char pre[] = "sweep.variants.";
	const size_t plen = sizeof(pre) - 1;
	const char *slash = strrchr(sp->scenario, '/');
	int dlen = slash ? (int)(slash - sp->scenario) + 1 : 0;

	for (size_t i = 0; i < ydoc_count(y); i++) {
		const struct ydoc_entry *e = ydoc_at(y, i);
		char *path;
		int err;

		if (strncmp(e->path, pre, plen))
			continue;
		if (!e->value || !*e->value || strchr(e->path + plen, '[')) {
			diag_set(d, ydoc_file(y), e->line, e->path, "expected an overlay file");
			return -EINVAL;
		}
		if (!safe_name(e->path + plen)) {
			diag_set(d, ydoc_file(y), e->line, e->path,
				 "not a variant name (1 to %d letters, digits, - and _)",
				 SWEEP_VARIANT_NAME - 1);
			return -EINVAL;
		}
		if (e->value[0] == '/')
			dlen = 0;
		if (!(path = malloc((size_t)dlen + strlen(e->value) + 1)))
			return -ENOMEM;
		sprintf(path, "%.*s%s", dlen, sp->scenario, e->value);
		err = sweep_spec_add_variant(sp, e->path + plen, path, ydoc_file(y), e->line, d);
		free(path);
		dlen = slash ? (int)(slash - sp->scenario) + 1 : 0;
		if (err == -EINVAL)
			snprintf(d->path, sizeof(d->path), "%.*s", (int)sizeof(d->path) - 1,
				 e->path);
		if (err)
			return err;
	}
	return 0;
}

static int read_seeds(struct sweep_spec *sp, const struct ydoc *y, struct diag *d)
{
	const struct ydoc_entry *e = ydoc_find(y, "sweep.seeds");
	unsigned long long v;
	char *end;

	if (!e)
		return 0;
	if (e->value) {
		v = strtoull(e->value, &end, 10);
		if (!*e->value || *end || e->value[0] == '-' || !v || v > SWEEP_MAX_RUNS) {
			diag_set(d, ydoc_file(y), e->line, "sweep.seeds",
				 "\"%s\" is not a count of seeds (1 to %d) or a list of seeds",
				 e->value, SWEEP_MAX_RUNS);
			return -EINVAL;
		}
		sp->seed_count = (size_t)v;
		return 0;
	}
	for (size_t i = 0; i < ydoc_count(y); i++) {
		const struct ydoc_entry *s = ydoc_at(y, i);
		uint64_t *seeds;

		if (strncmp(s->path, "sweep.seeds[", 12))
			continue;
		v = s->value ? strtoull(s->value, &end, 10) : 0;
		if (!s->value || !*s->value || *end || s->value[0] == '-') {
			diag_set(d, ydoc_file(y), s->line, s->path, "\"%s\" is not a seed",
				 s->value ? s->value : "(a section)");
			return -EINVAL;
		}
		if (!(seeds = realloc(sp->seeds, (sp->n_seeds + 1) * sizeof(*seeds))))
			return -ENOMEM;
		sp->seeds = seeds;
		sp->seeds[sp->n_seeds++] = v;
	}
	return 0;
}

int sweep_spec_from_scenario(struct sweep_spec *sp, const char *text, size_t len, int have_vary,
			     int have_zip, int have_seeds, int have_variants, struct diag *d)
{
	struct ydoc *y;
	int err = ydoc_parse(sp->scenario, text, len, &y, d);

	if (err)
		return err;
	for (size_t i = 0; i < ydoc_count(y); i++) {
		const struct ydoc_entry *e = ydoc_at(y, i);
		const char *rest = e->path + 6;

		if (strncmp(e->path, "sweep", 5) || (e->path[5] && e->path[5] != '.'))
			continue;
		if (!e->path[5]) {
			if (e->value && *e->value) {
				diag_set(d, ydoc_file(y), e->line, "sweep",
					 "expected a mapping (vary, zip, seeds, variants)");
				err = -EINVAL;
				goto out;
			}
			continue;
		}
		if (!strcmp(rest, "vary") && e->value && *e->value) {
			diag_set(d, ydoc_file(y), e->line, e->path,
				 "expected a mapping of KEY: \"V1,V2,...\" or \"LO..HI:N\"");
			err = -EINVAL;
			goto out;
		}
		if (!strncmp(rest, "vary", 4) && (!rest[4] || rest[4] == '.'))
			continue;
		if (!strncmp(rest, "variants", 8) && !rest[8] && e->value && *e->value) {
			diag_set(d, ydoc_file(y), e->line, e->path,
				 "expected a mapping of NAME: OVERLAY.yaml");
			err = -EINVAL;
			goto out;
		}
		if (!strncmp(rest, "variants", 8) && rest[8] == '[') {
			diag_set(d, ydoc_file(y), e->line, "sweep.variants",
				 "expected a mapping of NAME: OVERLAY.yaml, not a list");
			err = -EINVAL;
			goto out;
		}
		if (!strncmp(rest, "variants", 8) && (!rest[8] || rest[8] == '.'))
			continue;
		if (!strncmp(rest, "seeds", 5) && (!rest[5] || rest[5] == '['))
			continue;
		if (!strcmp(rest, "zip")) {
			if (!e->value || (strcmp(e->value, "true") && strcmp(e->value, "false"))) {
				diag_set(d, ydoc_file(y), e->line, e->path,
					 "expected true or false");
				err = -EINVAL;
				goto out;
			}
			if (!have_zip)
				sp->zip = !strcmp(e->value, "true");
			continue;
		}
		diag_set(d, ydoc_file(y), e->line, e->path,
			 "unknown key (expected one of: vary, zip, seeds, variants)");
		err = -EINVAL;
		goto out;
	}
	if (!have_vary && (err = read_vary(sp, y, d)))
		goto out;
	if (!have_variants && (err = read_variants(sp, y, d)))
		goto out;
	if (!have_seeds)
		err = read_seeds(sp, y, d);
out:
	ydoc_free(y);
	return err;
}

/* ---- sweep.json --------------------------------------------------------------- */

static int put(json_t *o, const char *k, json_t *v)
{
	return json_object_set_new(o, k, v);
}

static int append(json_t *a, json_t *v)
{
	return json_array_append_new(a, v);
}

/* Point @p's refusals into @pt: "refused": the reason (without variants),
 * or {"VARIANT": the reason, ...}; nothing when none is refused. */
static int refused_json(const struct sweep_spec *sp, size_t p, json_t *pt)
{
	size_t nv = sweep_spec_variants(sp);
	json_t *o;
	int bad = 0;

	if (!sp->refused)
		return 0;
	if (!sp->n_variants)
		return sp->refused[p] ? put(pt, "refused", json_string(sp->refused[p])) : 0;
	for (size_t v = 0; v < nv; v++)
		if (sp->refused[p * nv + v])
			break;
		else if (v == nv - 1)
			return 0;
	if (!(o = json_object()))
		return -1;
	for (size_t v = 0; v < nv; v++)
		if (sp->refused[p * nv + v])
			bad |= put(o, sp->variants[v].name, json_string(sp->refused[p * nv + v]));
	return bad | put(pt, "refused", o);
}

/* sweep.json's members before "points", into @j; nonzero on failure. */
static int head_json(const struct sweep_spec *sp, json_t *j)
{
	json_t *scn = json_object(), *axes = json_array(), *seeds = json_array();
	int bad = !j || !scn || !axes || !seeds;

	bad |= put(j, "schema_version", json_integer(1));
	bad |= put(scn, "path", txt_json(sp->scenario));
	bad |= put(scn, "sha256", json_string(sp->sha256));
	bad |= put(scn, "name", json_string(sp->name));
	bad |= put(j, "scenario", scn);
	for (size_t a = 0; a < sp->n_axes; a++) {
		json_t *ax = json_object(), *vals = json_array();

		for (size_t i = 0; vals && i < sp->axes[a].n; i++)
			bad |= append(vals, txt_json(sp->axes[a].values[i]));
		bad |= put(ax, "key", json_string(sp->axes[a].key));
		bad |= put(ax, "values", vals);
		bad |= append(axes, ax);
	}
	bad |= put(j, "axes", axes);
	bad |= put(j, "zip", json_boolean(sp->zip));
	if (sp->fluid) /* packet sweeps keep the file they always had */
		bad |= put(j, "model", json_string("fluid"));
	for (size_t s = 0; s < sp->n_seeds; s++)
		bad |= append(seeds, json_integer((json_int_t)sp->seeds[s]));
	bad |= put(j, "seeds", seeds);
	/* only when given: a sweep without them keeps the file it always had */
	if (sp->n_withs) {
		json_t *ws = json_array();

		for (size_t w = 0; ws && w < sp->n_withs; w++)
			bad |=
			    append(ws, json_pack("{s:o,s:s}", "path", txt_json(sp->withs[w].path),
						 "sha256", sp->withs[w].sha256));
		bad |= put(j, "with", ws);
	}
	if (sp->n_sets) {
		json_t *ss = json_array();

		for (size_t k = 0; ss && k < sp->n_sets; k++)
			bad |= append(ss, txt_json(sp->sets[k]));
		bad |= put(j, "set", ss);
	}
	if (sp->n_variants) {
		json_t *vs = json_array();

		for (size_t v = 0; vs && v < sp->n_variants; v++) {
			const struct sweep_variant *va = &sp->variants[v];
			json_t *o = json_object();

			bad |= put(o, "name", json_string(va->name));
			bad |= put(o, "path", txt_json(va->path));
			bad |= put(o, "sha256", va->path ? json_string(va->sha256) : json_null());
			bad |= append(vs, o);
		}
		bad |= put(j, "variants", vs);
	}
	return bad;
}

/* @j with its "points" @points, or NULL (and @j freed) when @bad or that fails. */
static json_t *with_points(json_t *j, json_t *points, int bad)
{
	bad |= put(j, "points", points);
	if (bad) {
		json_decref(j);
		return NULL;
	}
	return j;
}

json_t *sweep_spec_json(const struct sweep_spec *sp)
{
	json_t *j = json_object(), *points = json_array();
	char *sets[sp->n_axes ? sp->n_axes : 1];
	size_t idx[sp->n_axes ? sp->n_axes : 1];
	int bad = !points || head_json(sp, j);

	for (size_t p = 0; !bad && p < sp->n_points; p++) {
		json_t *pt = json_object(), *vals = json_object(), *ov = json_array(),
		       *runs = json_array();
		char id[SWEEP_ID_SIZE];

		if (sweep_spec_sets(sp, p, sets)) {
			bad = 1;
			json_decref(pt), json_decref(vals), json_decref(ov), json_decref(runs);
			break;
		}
		sweep_spec_index(sp, p, idx);
		snprintf(id, sizeof(id), "p%0*zu", sp->id_width, p + 1);
		bad |= put(pt, "id", json_string(id));
		for (size_t a = 0; a < sp->n_axes; a++) {
			bad |= put(vals, sp->axes[a].key, json_string(sp->axes[a].values[idx[a]]));
			bad |= append(ov, txt_json(sets[a]));
		}
		sweep_sets_free(sets, sp->n_axes);
		bad |= put(pt, "values", vals);
		bad |= put(pt, "overrides", ov);
		/* each variant's seeds in turn: the overlay is the variant's */
		for (size_t v = 0; v < sweep_spec_variants(sp); v++) {
			for (size_t s = 0; s < sp->n_seeds; s++) {
				sweep_spec_id(sp, p, v, sp->seeds[s], id);
				bad |= append(runs, json_string(id));
			}
		}
		bad |= put(pt, "runs", runs);
		bad |= refused_json(sp, p, pt);
		bad |= append(points, pt);
	}
	return with_points(j, points, bad);
}

json_t *sweep_spec_task_json(const struct sweep_spec *sp)
{
	json_t *j = json_object(), *points = json_array();
	int bad = !points || head_json(sp, j);

	bad |= put(j, "n_points", json_integer((json_int_t)sp->n_points));
	for (size_t p = 0; !bad && sp->refused && p < sp->n_points; p++) {
		json_t *pt = json_object();

		bad |= !pt || refused_json(sp, p, pt);
		if (!bad && !json_object_size(pt)) {
			json_decref(pt);
			continue;
		}
		bad |= put(pt, "index", json_integer((json_int_t)p));
		bad |= append(points, pt);
	}
	return with_points(j, points, bad);
}

/* A string member @k of @o, or NULL. */
static const char *str_of(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* The refusals of sweep.json's @points into @sp (refused_json's form). */
static int load_refused(struct sweep_spec *sp, const json_t *points, const char *path,
			struct diag *d)
{
	size_t nv = sweep_spec_variants(sp), p, i;
	json_t *pt;

	json_array_foreach(points, i, pt) {
		const json_t *r = json_object_get(pt, "refused"),
			     *at = json_object_get(pt, "index");

		/* sweep.task.json lists the refused points alone, each with its index */
		p = at ? (json_is_integer(at) && json_integer_value(at) >= 0
			      ? (size_t)json_integer_value(at)
			      : SIZE_MAX)
		       : i;
		if (!r)
			continue;
		if (p >= sp->n_points ||
		    (sp->n_variants ? !json_is_object(r) : !json_is_string(r))) {
			diag_set(d, path, 0, "points.refused", "not what rocesim sweep writes");
			return -EINVAL;
		}
		if (!sp->refused && !(sp->refused = calloc(sp->n_points * nv, sizeof(char *))))
			return -ENOMEM;
		for (size_t v = 0; v < nv; v++) {
			const char *why =
			    sp->n_variants
				? json_string_value(json_object_get(r, sp->variants[v].name))
				: json_string_value(r);

			if (why && !(sp->refused[p * nv + v] = strdup(why)))
				return -ENOMEM;
		}
	}
	return 0;
}

int sweep_spec_load(const char *dir, struct sweep_spec *sp, struct diag *d)
{
	return sweep_spec_load_file(dir, "sweep.json", sp, d);
}

int sweep_spec_load_file(const char *dir, const char *name, struct sweep_spec *sp, struct diag *d)
{
	char path[SWEEP_PATH];
	json_error_t je;
	json_t *j, *axes, *ax, *seeds, *s, *vars;
	const char *what = NULL;
	size_t i;
	int err = -EINVAL;

	memset(sp, 0, sizeof(*sp));
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path)) {
		diag_set(d, dir, 0, "", "the path is too long");
		return -EINVAL;
	}
	if (!(j = json_load_file(path, 0, &je))) {
		if (access(path, F_OK))
			diag_set(d, path, 0, "",
				 "cannot read (%s): not a sweep folder (write one with rocesim "
				 "sweep SCENARIO --slurm -o DIR)",
				 strerror(errno));
		else
			diag_set(d, path, je.line > 0 ? je.line : 0, "", "not JSON: %s", je.text);
		return -EINVAL;
	}
	axes = json_object_get(j, "axes");
	seeds = json_object_get(j, "seeds");
	vars = json_object_get(j, "variants");
	if (json_integer_value(json_object_get(j, "schema_version")) != 1)
		what = "schema_version";
	else if (!str_of(json_object_get(j, "scenario"), "path"))
		what = "scenario.path";
	else if (!str_of(json_object_get(j, "scenario"), "sha256") ||
		 strlen(str_of(json_object_get(j, "scenario"), "sha256")) != 64)
		what = "scenario.sha256";
	else if (!str_of(json_object_get(j, "scenario"), "name"))
		what = "scenario.name";
	else if (!json_is_array(axes))
		what = "axes";
	else if (!json_is_boolean(json_object_get(j, "zip")))
		what = "zip";
	else if (!json_is_array(seeds) || !json_array_size(seeds))
		what = "seeds";
	else if (vars && (!json_is_array(vars) || !json_array_size(vars)))
		what = "variants";
	if (what)
		goto bad;
	err = -ENOMEM;
	if (!(sp->owned = strdup(str_of(json_object_get(j, "scenario"), "path"))) ||
	    !(sp->name = strdup(str_of(json_object_get(j, "scenario"), "name"))))
		goto out;
	sp->scenario = sp->owned;
	snprintf(sp->sha256, sizeof(sp->sha256), "%s",
		 str_of(json_object_get(j, "scenario"), "sha256"));
	sp->zip = json_is_true(json_object_get(j, "zip"));
	sp->fluid = json_is_string(json_object_get(j, "model")) &&
		    !strcmp(json_string_value(json_object_get(j, "model")), "fluid");
	if (!(sp->axes = calloc(json_array_size(axes) + 1, sizeof(*sp->axes))))
		goto out;
	json_array_foreach(axes, i, ax) {
		struct sweep_axis *a = &sp->axes[i];
		json_t *vals = json_object_get(ax, "values"), *v;
		size_t k;

		what = "axes";
		if (!str_of(ax, "key") || !json_is_array(vals) || !json_array_size(vals))
			goto bad;
		sp->n_axes++;
		if (!(a->key = strdup(str_of(ax, "key"))) ||
		    !(a->values = calloc(json_array_size(vals), sizeof(*a->values))))
			goto out;
		json_array_foreach(vals, k, v) {
			if (!json_is_string(v))
				goto bad;
			if (!(a->values[a->n++] = strdup(json_string_value(v))))
				goto out;
		}
	}
	if (!(sp->seeds = calloc(json_array_size(seeds), sizeof(*sp->seeds))))
		goto out;
	json_array_foreach(seeds, i, s) {
		what = "seeds";
		if (!json_is_integer(s) || json_integer_value(s) < 0)
			goto bad;
		sp->seeds[sp->n_seeds++] = (uint64_t)json_integer_value(s);
	}
	json_array_foreach(vars, i, s) {
		const char *name = str_of(s, "name"), *vpath = str_of(s, "path"),
			   *sha = str_of(s, "sha256");

		what = "variants";
		if (!name || !safe_name(name) || (vpath && (!sha || strlen(sha) != 64)) ||
		    (!vpath && i))
			goto bad;
		for (size_t k = 0; k < sp->n_variants; k++)
			if (!strcmp(sp->variants[k].name, name))
				goto bad;
		if (push_variant(sp, strdup(name), vpath ? strdup(vpath) : NULL, sha) ||
		    (vpath && !sp->variants[i].path))
			goto out;
	}
	json_array_foreach(json_object_get(j, "with"), i, s) {
		struct sweep_variant *w;

		what = "with";
		if (!str_of(s, "path") || !str_of(s, "sha256") || strlen(str_of(s, "sha256")) != 64)
			goto bad;
		if (!(w = realloc(sp->withs, (sp->n_withs + 1) * sizeof(*w))))
			goto out;
		sp->withs = w;
		w = &w[sp->n_withs];
		memset(w, 0, sizeof(*w));
		if (!(w->path = strdup(str_of(s, "path"))))
			goto out;
		snprintf(w->sha256, sizeof(w->sha256), "%s", str_of(s, "sha256"));
		sp->n_withs++;
	}
	json_array_foreach(json_object_get(j, "set"), i, s) {
		char **v;

		what = "set";
		if (!json_is_string(s) || !strchr(json_string_value(s), '='))
			goto bad;
		if (!(v = realloc(sp->sets, (sp->n_sets + 1) * sizeof(*v))))
			goto out;
		sp->sets = v;
		if (!(v[sp->n_sets] = strdup(json_string_value(s))))
			goto out;
		sp->n_sets++;
	}
	if ((err = sweep_spec_points(sp, d)) == -EINVAL) {
		char line[1200];

		diag_set(d, path, 0, "", "%s", diag_str(d, line, sizeof(line)));
		goto out;
	}
	if (!err && json_object_get(j, "n_points") &&
	    json_integer_value(json_object_get(j, "n_points")) != (json_int_t)sp->n_points) {
		diag_set(d, path, 0, "n_points", "%zu points, while its axes give %zu",
			 (size_t)json_integer_value(json_object_get(j, "n_points")), sp->n_points);
		err = -EINVAL;
	}
	if (!err)
		err = load_refused(sp, json_object_get(j, "points"), path, d);
	goto out;
bad:
	diag_set(d, path, 0, what, "missing or not what rocesim sweep writes");
	err = -EINVAL;
out:
	json_decref(j);
	if (err)
		sweep_spec_free(sp);
	return err;
}

void sweep_spec_free(struct sweep_spec *sp)
{
	free(sp->owned);
	for (size_t a = 0; a < sp->n_axes; a++)
		sweep_axis_free(&sp->axes[a]);
	free(sp->axes);
	free(sp->seeds);
	free(sp->name);
	for (size_t v = 0; v < sp->n_variants; v++) {
		free(sp->variants[v].name);
		free(sp->variants[v].path);
	}
	free(sp->variants);
	for (size_t w = 0; w < sp->n_withs; w++)
		free(sp->withs[w].path);
	free(sp->withs);
	for (size_t k = 0; k < sp->n_sets; k++)
		free(sp->sets[k]);
	free(sp->sets);
	for (size_t g = 0; sp->refused && g < sp->n_points * sweep_spec_variants(sp); g++)
		free(sp->refused[g]);
	free(sp->refused);
	memset(sp, 0, sizeof(sp[0]));
}
