/*
 * Lines of config_db.json for the SONiC reader (sonic.c): jansson keeps no
 * positions, so a small scan of the text finds the line of a table, a key
 * and a field.
 */
#include "sim/config/sonic.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/sonic_impl.h"

/* ---- lines: jansson keeps no positions, so a small scan of the text finds them ---- */

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* Past the JSON string whose opening quote is at @p. */
static const char *skip_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return end;
}

/* Past the JSON value at @p. */
static const char *skip_value(const char *p, const char *end)
{
	int depth = 0;

	do {
		if (p >= end)
			return end;
		if (*p == '"') {
			p = skip_string(p, end);
			continue;
		}
		if (*p == '{' || *p == '[') {
			depth++;
		} else if (*p == '}' || *p == ']') {
			depth--;
		} else if (depth == 0) {
			while (p < end && *p && !strchr(",}] \t\r\n", *p))
				p++;
			return p;
		}
		p++;
	} while (depth > 0);
	return p;
}

/*
 * In the object that opens at @p, the member named @names[0], in its value
 * the member @names[1], and so on for @n names: the first byte of the
 * deepest key found (NULL if not even the first), and in *@value where that
 * key's value starts. The text has been parsed by jansson, so it is well
 * formed; names are compared as written, escapes not decoded, so a key
 * spelt with escapes is not found (the key around it is).
 */
const char *sonic__json_find(const char *p, const char *end, const char *const *names, int n,
			     const char **value)
{
	const char *found = NULL;
	int level = 0;

	p = skip_ws(p, end);
	if (p >= end || *p != '{')
		return NULL;
	p++;
	while (level < n) {
		const char *k, *ke;

		p = skip_ws(p, end);
		if (p >= end || *p != '"')
			break; /* the object ends without it */
		k = p + 1;
		p = skip_string(p, end);
		ke = p - 1;
		p = skip_ws(p, end);
		if (p < end && *p == ':')
			p++;
		p = skip_ws(p, end);
		if ((size_t)(ke - k) == strlen(names[level]) &&
		    !memcmp(k, names[level], (size_t)(ke - k))) {
			found = k;
			*value = p;
			if (++level == n || p >= end || *p != '{')
				break;
			p++;
			continue;
		}
		p = skip_value(p, end);
		p = skip_ws(p, end);
		if (p < end && *p == ',')
			p++;
	}
	return found;
}

/* 1-based line of @at in @text. */
int sonic__line_at(const char *text, const char *at)
{
	int line = 1;

	for (const char *p = text; p < at; p++)
		line += *p == '\n';
	return line;
}

/* Line of @table|@key|@field (@key and @field may be NULL), or of the
 * nearest enclosing name found; 0 without the text. */
int sonic__line_of(const struct sonic_ctx *c, const char *table, const char *key, const char *field)
{
	const char *names[3] = {table, key, field}, *value, *k;
	int n = !table ? 0 : !key ? 1 : !field ? 2 : 3;

	if (!c->text || !n)
		return 0;
	k = sonic__json_find(c->text, c->text + c->len, names, n, &value);
	return k ? sonic__line_at(c->text, k) : 0;
}

/* Record in @a where @table|@key|@field is (@field may be NULL). */
void sonic__set_at(const struct sonic_ctx *c, struct sonic_at *a, const char *table,
		   const char *key, const char *field)
{
	char k[SHOW_SIZE], f[SHOW_SIZE];

	snprintf(a->where, sizeof(a->where), "%s|%s%s%s", table, sonic__shows(k, key),
		 field ? "|" : "", field ? sonic__shows(f, field) : "");
	a->line = sonic__line_of(c, table, key, field);
}

static int rowpos_cmp(const void *x, const void *y)
{
	const struct sonic_rowpos *a = x, *b = y;
	size_t n = a->len < b->len ? a->len : b->len;
	int r = memcmp(a->key, b->key, n);

	return r ? r : (a->len > b->len) - (a->len < b->len);
}

int sonic__rows_index(struct sonic_ctx *c, const char *table, struct sonic_rows *r)
{
	const char *names[1] = {table}, *p = NULL, *end, *counted;
	size_t cap = 0;
	int line;

	r->v = NULL;
	r->n = 0;
	if (!c->text)
		return 0;
	end = c->text + c->len;
	if (!sonic__json_find(c->text, end, names, 1, &p) || !p || p >= end || *p != '{')
		return 0;
	line = sonic__line_at(c->text, p);
	counted = p;
	for (p++;;) {
		struct sonic_rowpos rp;

		p = skip_ws(p, end);
		if (p >= end || *p != '"')
			break;
		rp.key = p + 1;
		p = skip_string(p, end);
		rp.len = (size_t)(p - 1 - rp.key);
		for (; counted < rp.key; counted++)
			line += *counted == '\n';
		rp.line = line;
		p = skip_ws(p, end);
		if (p < end && *p == ':')
			p++;
		rp.value = p = skip_ws(p, end);
		if (r->n == cap) {
			struct sonic_rowpos *v;

			cap = cap ? 2 * cap : 64;
			v = realloc(r->v, cap * sizeof(*v));
			if (!v) {
				sonic__rows_free(r);
				return sonic__nomem(c);
			}
			r->v = v;
		}
		r->v[r->n++] = rp;
		p = skip_ws(skip_value(p, end), end);
		if (p < end && *p == ',')
			p++;
	}
	if (r->n)
		qsort(r->v, r->n, sizeof(*r->v), rowpos_cmp);
	return 0;
}

int sonic__rows_line(const struct sonic_ctx *c, const struct sonic_rows *r, const char *key,
		     const char *field)
{
	struct sonic_rowpos k = {.key = key, .len = strlen(key)}, *row;
	const char *value = NULL, *at;

	row = r->n ? bsearch(&k, r->v, r->n, sizeof(k), rowpos_cmp) : NULL;
	if (!row)
		return 0;
	if (!field)
		return row->line;
	at = sonic__json_find(row->value, c->text + c->len, &field, 1, &value);
	if (!at)
		return row->line;
	/* the row's line, and the newlines from its key to the field */
	return row->line + sonic__line_at(row->key, at) - 1;
}

void sonic__rows_free(struct sonic_rows *r)
{
	free(r->v);
	r->v = NULL;
	r->n = 0;
}
