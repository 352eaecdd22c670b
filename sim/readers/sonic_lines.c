/*
 * Lines of config_db.json for the SONiC reader (sonic.c): jansson keeps no
 * positions, so a small scan of the text finds the line of a table, a key
 * and a field.
 */
#include "sim/readers/sonic_cfg.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "sim/readers/sonic_ctx.h"

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

/* The 4 hex digits at @p as a number, or -1. */
static long hex4(const char *p)
{
	long v = 0;

	for (int i = 0; i < 4; i++) {
		char c = p[i];
		int d = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10
					       : -1;

		if (d < 0)
			return -1;
		v = 16 * v + d;
	}
	return v;
}

/*
 * The JSON string body [@k, @ke) (between its quotes, as written) with its
 * escapes decoded as jansson decodes them (\uXXXX, surrogate pairs
 * joined, to UTF-8) into @out, which holds @ke - @k + 1 bytes: a decoded
 * string is never longer than its escaped form. Returns its length.
 */
static size_t unescape(const char *k, const char *ke, char *out)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	size_t n = 0;

	while (k < ke) {
		const char *e;
		long cp, lo;

		if (*k != '\\' || k + 1 >= ke) {
			out[n++] = *k++;
			continue;
		}
		if ((e = strchr(from, k[1])) && k[1]) {
			out[n++] = to[e - from];
			k += 2;
			continue;
		}
		if (k[1] != 'u' || ke - k < 6 || (cp = hex4(k + 2)) < 0) {
			out[n++] = *k++; /* not JSON jansson took: kept as written */
			continue;
		}
		k += 6;
		if (cp >= 0xd800 && cp < 0xdc00 && ke - k >= 6 && k[0] == '\\' && k[1] == 'u' &&
		    (lo = hex4(k + 2)) >= 0xdc00 && lo < 0xe000) {
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			k += 6;
		}
		if (cp < 0x80) {
			out[n++] = (char)cp;
		} else if (cp < 0x800) {
			out[n++] = (char)(0xc0 | (cp >> 6));
			out[n++] = (char)(0x80 | (cp & 0x3f));
		} else if (cp < 0x10000) {
			out[n++] = (char)(0xe0 | (cp >> 12));
			out[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
			out[n++] = (char)(0x80 | (cp & 0x3f));
		} else {
			out[n++] = (char)(0xf0 | (cp >> 18));
			out[n++] = (char)(0x80 | ((cp >> 12) & 0x3f));
			out[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
			out[n++] = (char)(0x80 | (cp & 0x3f));
		}
	}
	out[n] = '\0';
	return n;
}

/*
 * Whether the key written [@k, @ke) is @name once its escapes are decoded
 * (a profile named "pg\u001b[31m" is found by the name jansson gives).
 */
static int key_is(const char *k, const char *ke, const char *name)
{
	size_t len = (size_t)(ke - k);
	char *u;
	int same;

	if (!memchr(k, '\\', len))
		return len == strlen(name) && !memcmp(k, name, len);
	if (!(u = malloc(len + 1)))
		return 0; /* its line stays unknown */
	same = unescape(k, ke, u) == strlen(name) && !strcmp(u, name);
	free(u);
	return same;
}

/*
 * In the object that opens at @p, the member named @names[0], in its value
 * the member @names[1], and so on for @n names: the first byte of the
 * deepest key found (NULL if not even the first), and in *@value where that
 * key's value starts. The text has been parsed by jansson, so it is well
 * formed; names are compared with their escapes decoded.
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
		if (key_is(k, ke, names[level])) {
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

static int rowpos_cmp(const void *x, const void *y)
{
	const struct sonic_rowpos *a = x, *b = y;
	size_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
	int r = memcmp(a->name, b->name, n);

	return r ? r : (a->name_len > b->name_len) - (a->name_len < b->name_len);
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
		rp.name = rp.key;
		rp.name_len = rp.len;
		rp.own = NULL;
		if (memchr(rp.key, '\\', rp.len)) { /* a key spelt with escapes */
			if (!(rp.own = malloc(rp.len + 1))) {
				sonic__rows_free(r);
				return sonic__nomem(c);
			}
			rp.name_len = unescape(rp.key, rp.key + rp.len, rp.own);
			rp.name = rp.own;
		}
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
				free(rp.own);
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
	struct sonic_rowpos k = {.name = key, .name_len = strlen(key)}, *row;
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
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].own);
	free(r->v);
	r->v = NULL;
	r->n = 0;
}
