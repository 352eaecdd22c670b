/*
 * One value of config_db.json, read and checked (the SONiC reader, sonic.c):
 * names made fit to quote, errors and places (sonic_at) that name table,
 * key, field and line (sonic_lines.c finds the line),
 * numbers, strings, references from one table to another, and the votes
 * that pick the most common value among ports.
 */
#include "sim/readers/sonic_cfg.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim/readers/sonic_ctx.h"

/*
 * @s (@len bytes) made fit for a one-line message in @buf (SHOW_SIZE):
 * control bytes become '?', and a long name is cut on a UTF-8 boundary
 * and ends in "...".
 */
static const char *show(char *buf, const char *s, size_t len)
{
	size_t n = len, i;

	if (n > SHOW_MAX) {
		n = SHOW_MAX;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		buf[i] = (ch < 0x20 || ch == 0x7f) ? '?' : (char)ch;
	}
	if (n < len) {
		memcpy(buf + i, "...", 3);
		i += 3;
	}
	buf[i] = '\0';
	return buf;
}

const char *sonic__shows(char *buf, const char *s)
{
	return show(buf, s, strlen(s));
}

const char *sonic__type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
		return "true";
	case JSON_FALSE:
		return "false";
	default:
		return "null";
	}
}

int sonic__fail(struct sonic_ctx *c, const char *table, const char *key, const char *field,
		const char *fmt, ...)
{
	char path[SONIC_WHERE], k[SHOW_SIZE], f[SHOW_SIZE], msg[512];
	va_list ap;

	snprintf(path, sizeof(path), "%s%s%s%s%s", table ? table : "", key ? "|" : "",
		 key ? sonic__shows(k, key) : "", field ? "|" : "",
		 field ? sonic__shows(f, field) : "");
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_set(c->d, c->file, sonic__line_of(c, table, key, field), path, "%s", msg);
	return -EINVAL;
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

/* Digits only, no sign or space; -1 if not a number, -2 if above @max. */
int sonic__parse_u64(const char *s, size_t len, uint64_t max, uint64_t *v)
{
	uint64_t r = 0;

	if (len == 0)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
	}
	for (size_t i = 0; i < len; i++) {
		if (__builtin_mul_overflow(r, 10, &r) ||
		    __builtin_add_overflow(r, (uint64_t)(s[i] - '0'), &r))
			return -2;
	}
	if (r > max)
		return -2;
	*v = r;
	return 0;
}

/* @v (the row @table|@key) must be an object of fields. */
int sonic__need_object(struct sonic_ctx *c, const char *table, const char *key, const json_t *v)
{
	if (json_is_object(v))
		return 0;
	return sonic__fail(c, table, key, NULL, "is %s, expected an object", sonic__type_name(v));
}

/* The top-level table @name in *@t, NULL when there is none. */
int sonic__get_table(struct sonic_ctx *c, const char *name, json_t **t)
{
	json_t *v = json_object_get(c->root, name);

	*t = NULL;
	if (!v)
		return 0;
	if (!json_is_object(v))
		return sonic__fail(c, name, NULL, NULL, "is %s, expected an object of rows",
				   sonic__type_name(v));
	*t = v;
	return 0;
}

/* A field value @v must be a string: config_db writes numbers as "9100" too. */
int sonic__need_string(struct sonic_ctx *c, const char *table, const char *key, const char *field,
		       const json_t *v)
{
	if (json_is_string(v))
		return 0;
	return sonic__fail(c, table, key, field,
			   "is %s, expected a string (config_db values are strings)",
			   sonic__type_name(v));
}

/* The string @field of row @obj in *@s, NULL when absent. */
int sonic__get_str(struct sonic_ctx *c, const json_t *obj, const char *table, const char *key,
		   const char *field, const char **s)
{
	json_t *v = json_object_get(obj, field);
	int err;

	*s = NULL;
	if (!v)
		return 0;
	err = sonic__need_string(c, table, key, field, v);
	if (err)
		return err;
	*s = json_string_value(v);
	return 0;
}

/* The number @field of row @obj, at most @max; *@has = 0 when absent. */
int sonic__get_u64(struct sonic_ctx *c, const json_t *obj, const char *table, const char *key,
		   const char *field, uint64_t max, uint64_t *v, int *has)
{
	char b[SHOW_SIZE];
	const char *s;
	int err = sonic__get_str(c, obj, table, key, field, &s);

	*has = 0;
	if (err || !s)
		return err;
	err = sonic__parse_u64(s, strlen(s), max, v);
	if (err == -1)
		return sonic__fail(c, table, key, field, "\"%s\" is not a number",
				   sonic__shows(b, s));
	if (err)
		return sonic__fail(c, table, key, field, "%s is out of range (0..%llu)",
				   sonic__shows(b, s), (unsigned long long)max);
	*has = 1;
	return 0;
}

/* A signed number in [@min, @max]; *@has = 0 when absent. */
int sonic__get_int(struct sonic_ctx *c, const json_t *obj, const char *table, const char *key,
		   const char *field, int min, int max, int *v, int *has)
{
	char b[SHOW_SIZE];
	const char *s;
	uint64_t u, lim;
	int neg, err = sonic__get_str(c, obj, table, key, field, &s);

	*has = 0;
	if (err || !s)
		return err;
	neg = s[0] == '-';
	lim = neg ? (uint64_t)(-(int64_t)min) : (uint64_t)max;
	err = sonic__parse_u64(s + neg, strlen(s + neg), lim, &u);
	if (err == -1)
		return sonic__fail(c, table, key, field, "\"%s\" is not a number",
				   sonic__shows(b, s));
	if (err)
		return sonic__fail(c, table, key, field, "%s is out of range (%d..%d)",
				   sonic__shows(b, s), min, max);
	*v = neg ? (int)-(int64_t)u : (int)u;
	*has = 1;
	return 0;
}

/*
 * The name @s gives of a row of @target: "name", or "[TARGET|name]" as
 * older config_db files write it.
 */
int sonic__get_ref(struct sonic_ctx *c, const char *table, const char *key, const char *field,
		   const char *s, const char *target, struct sonic_ref *r)
{
	size_t len = strlen(s), tl = strlen(target);
	char b[SHOW_SIZE];

	r->s = s;
	r->len = len;
	if (len && s[0] == '[') {
		if (len < tl + 3 || s[len - 1] != ']' || strncmp(s + 1, target, tl) ||
		    s[tl + 1] != '|')
			return sonic__fail(c, table, key, field,
					   "\"%s\" is not a name nor [%s|name]", sonic__shows(b, s),
					   target);
		r->s = s + tl + 2;
		r->len = len - tl - 3;
	}
	if (r->len == 0)
		return sonic__fail(c, table, key, field, "is empty, expected a %s name", target);
	return 0;
}

/* Copy @r into @dst (@size) or fail: names are not silently cut. */
int sonic__copy_ref(struct sonic_ctx *c, const char *table, const char *key, const char *field,
		    char *dst, size_t size, struct sonic_ref r)
{
	if (r.len >= size)
		return sonic__fail(c, table, key, field, "name longer than %zu characters",
				   size - 1);
	memcpy(dst, r.s, r.len);
	dst[r.len] = '\0';
	return 0;
}

/* The row of @t that @r names, or an error "no @target named ..." at @field. */
int sonic__find_ref(struct sonic_ctx *c, const char *table, const char *key, const char *field,
		    json_t *t, const char *target, struct sonic_ref r, json_t **row)
{
	char b[SHOW_SIZE];

	*row = json_object_getn(t, r.s, r.len);
	if (*row)
		return 0;
	return sonic__fail(c, table, key, field, "no %s named \"%s\"", target, show(b, r.s, r.len));
}

/*
 * A row key "PORT|N" or "PORT|N-M" (PORT may be a comma list of ports, as
 * older configs write it): the bits N..M of *@mask, each at most @max (<= 63).
 */
int sonic__index_key(struct sonic_ctx *c, const char *table, const char *key, unsigned max,
		     uint64_t *mask)
{
	const char *bar = strrchr(key, '|'), *s, *dash;
	uint64_t lo, hi;
	size_t len;

	if (!bar || bar == key)
		return sonic__fail(c, table, key, NULL,
				   "key is not PORT|INDEX (e.g. Ethernet0|3-4)");
	s = bar + 1;
	len = strlen(s);
	dash = memchr(s, '-', len);
	if (dash) {
		if (sonic__parse_u64(s, (size_t)(dash - s), max, &lo) ||
		    sonic__parse_u64(dash + 1, len - (size_t)(dash - s) - 1, max, &hi) || lo > hi)
			return sonic__fail(c, table, key, NULL,
					   "index range is not N-M with N <= M <= %u", max);
	} else {
		if (sonic__parse_u64(s, len, max, &lo))
			return sonic__fail(c, table, key, NULL, "index is not a number 0..%u", max);
		hi = lo;
	}
	*mask = 0;
	for (uint64_t i = lo; i <= hi; i++)
		*mask |= 1ULL << i;
	return 0;
}

/* "3,4" (spaces allowed around items; "" = none): bits of priorities 0..7. */
int sonic__pfc_list(struct sonic_ctx *c, const char *key, const char *s, uint8_t *mask)
{
	char b[SHOW_SIZE];

	*mask = 0;
	while (*s == ' ')
		s++;
	if (!*s)
		return 0;
	for (;;) {
		const char *end = s;
		uint64_t p;
		size_t n;

		while (*end && *end != ',')
			end++;
		n = (size_t)(end - s);
		while (n && s[n - 1] == ' ')
			n--;
		if (sonic__parse_u64(s, n, 7, &p))
			return sonic__fail(
			    c, "PORT_QOS_MAP", key, "pfc_enable",
			    "\"%s\" is not a list of priorities 0..7 such as \"3,4\"",
			    show(b, s, n));
		*mask |= (uint8_t)(1u << p);
		if (!*end)
			return 0;
		s = end + 1;
		while (*s == ' ')
			s++;
	}
}

static int vote_key_cmp(const struct sonic_vote *p, const struct sonic_vote *q)
{
	size_t n = p->name.len < q->name.len ? p->name.len : q->name.len;
	int r = n ? memcmp(p->name.s, q->name.s, n) : 0;

	if (r)
		return r;
	if (p->name.len != q->name.len)
		return p->name.len < q->name.len ? -1 : 1;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	if (p->c != q->c)
		return p->c < q->c ? -1 : 1;
	return 0;
}

static int vote_cmp(const void *x, const void *y)
{
	const struct sonic_vote *p = x, *q = y;
	int r = vote_key_cmp(p, q);

	if (r)
		return r;
	return p->order < q->order ? -1 : p->order > q->order;
}

/*
 * The most common value among @v[0..n) (reordered), ties going to the one
 * met first; NULL when n is 0. Sorting keeps this O(n log n) however many
 * distinct values a hostile file has.
 */
const struct sonic_vote *sonic__vote_winner(struct sonic_vote *v, size_t n)
{
	const struct sonic_vote *best = NULL;
	size_t best_n = 0;

	if (n == 0)
		return NULL;
	qsort(v, n, sizeof(*v), vote_cmp);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;

		while (j < n && !vote_key_cmp(&v[i], &v[j]))
			j++;
		/* v[i] is the first met of its run: order breaks key ties */
		if (j - i > best_n || (j - i == best_n && v[i].order < best->order)) {
			best = &v[i];
			best_n = j - i;
		}
		i = j;
	}
	return best;
}

/* An array for one vote per row of @t (at least one element). */
struct sonic_vote *sonic__votes_for(const json_t *t)
{
	size_t n = t ? json_object_size(t) : 0;

	return calloc(n ? n : 1, sizeof(struct sonic_vote));
}
