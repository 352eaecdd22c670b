/*
 * SONiC config_db.json reader (sonic.h, FACTS.md 5). The file is one JSON
 * object of tables; a table maps a key ("Ethernet0", "Ethernet0|3-4",
 * "AZURE") to an object of fields whose values are strings. We read the
 * lossless tables, check that every name one table gives another exists,
 * and keep what describes the lossless class: the most common port speed
 * and MTU, the longest cable, the profile bound to the lossless PGs and
 * its pool, pfc_enable, the maps, the WRED profile of a lossless queue and
 * the PFC watchdog. Tables we do not know are ignored, as are fields we do
 * not read.
 *
 * Which PGs and queues are lossless is derived, not guessed from names:
 * those that the pfc_enable priorities reach through TC_TO_PRIORITY_GROUP_MAP
 * and TC_TO_QUEUE_MAP (priority = TC, as SONiC's default maps have it).
 * Without pfc_enable, a PG whose profile has an xoff (or is "NULL") and any
 * queue with a WRED profile stand in. Where ports disagree, the most common
 * value wins, ties going to the one met first in the file.
 *
 * Everything in the file is untrusted: each value's JSON type is checked
 * before use, numbers are plain decimal digits checked for range, and the
 * names quoted in messages are cut short and stripped of control bytes.
 */
#include "sim/config/sonic.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/checked.h"
#include "sim/engine/textfile.h"
#include "sim/engine/units.h"

/* A name quoted in a message: at most SHOW_MAX bytes of it. */
#define SHOW_MAX 48
#define SHOW_SIZE (SHOW_MAX + 4)

struct sonic_ctx {
	const char *file;
	const char *text; /* the JSON text, for lines; NULL when not at hand */
	size_t len;
	struct diag *d;
	json_t *root;
	struct sonic_cfg *cfg;
	/* tables that others name; NULL when absent */
	json_t *pools, *profiles, *dscp_maps, *pg_maps, *queue_maps, *wreds;
};

/* A name one row gives of a row of another table: not NUL-terminated. */
struct sonic_ref {
	const char *s;
	size_t len;
};

/* One row's say in "the most common value": a name and/or numbers. */
struct sonic_vote {
	struct sonic_ref name;
	uint64_t a, b, c;
	size_t order;	 /* position in its table */
	const char *key; /* the row that cast it */
};

struct sonic_profile {
	struct sonic_ref pool;
	uint64_t xon, xon_offset, xoff, size, static_th;
	int has_xon, has_xon_offset, has_xoff, has_size, has_static_th;
	int has_dynamic_th, dynamic_th;
};

struct sonic_wred {
	uint64_t kmin, kmax, prob;
	int ecn_marking;
};

/* ECN modes of WRED_PROFILE.ecn; RoCE traffic is green. */
static const struct {
	const char *name;
	int green;
} sonic_ecn_modes[] = {
    {"ecn_none", 0},	     {"ecn_green", 1},	   {"ecn_yellow", 0},	  {"ecn_red", 0},
    {"ecn_green_yellow", 1}, {"ecn_green_red", 1}, {"ecn_yellow_red", 0}, {"ecn_all", 1},
};

static const char *const sonic_wd_actions[] = {"drop", "forward", "alert"};

/* PFC_WD times in ms: at most the longest time a scenario takes (10^6 s). */
#define SONIC_WD_MAX_MS (UNITS_TIME_MAX / SIMTIME_MS)

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

static const char *shows(char *buf, const char *s)
{
	return show(buf, s, strlen(s));
}

static const char *type_name(const json_t *v)
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
static const char *json_find(const char *p, const char *end, const char *const *names, int n,
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
static int line_at(const char *text, const char *at)
{
	int line = 1;

	for (const char *p = text; p < at; p++)
		line += *p == '\n';
	return line;
}

/* Line of @table|@key|@field (@key and @field may be NULL), or of the
 * nearest enclosing name found; 0 without the text. */
static int line_of(const struct sonic_ctx *c, const char *table, const char *key, const char *field)
{
	const char *names[3] = {table, key, field}, *value, *k;
	int n = !table ? 0 : !key ? 1 : !field ? 2 : 3;

	if (!c->text || !n)
		return 0;
	k = json_find(c->text, c->text + c->len, names, n, &value);
	return k ? line_at(c->text, k) : 0;
}

/* Record in @a where @table|@key|@field is (@field may be NULL). */
static void set_at(const struct sonic_ctx *c, struct sonic_at *a, const char *table,
		   const char *key, const char *field)
{
	char k[SHOW_SIZE], f[SHOW_SIZE];

	snprintf(a->where, sizeof(a->where), "%s|%s%s%s", table, shows(k, key), field ? "|" : "",
		 field ? shows(f, field) : "");
	a->line = line_of(c, table, key, field);
}

/*
 * Record an error at "@table|@key|@field" (@key and @field may be NULL, and
 * are shown cut short) and return -EINVAL.
 */
static int fail(struct sonic_ctx *c, const char *table, const char *key, const char *field,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int fail(struct sonic_ctx *c, const char *table, const char *key, const char *field,
		const char *fmt, ...)
{
	char path[SONIC_WHERE], k[SHOW_SIZE], f[SHOW_SIZE], msg[512];
	va_list ap;

	snprintf(path, sizeof(path), "%s%s%s%s%s", table ? table : "", key ? "|" : "",
		 key ? shows(k, key) : "", field ? "|" : "", field ? shows(f, field) : "");
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_set(c->d, c->file, line_of(c, table, key, field), path, "%s", msg);
	return -EINVAL;
}

static int nomem(struct sonic_ctx *c)
{
	diag_set(c->d, c->file, 0, "", "out of memory");
	return -ENOMEM;
}

/* Digits only, no sign or space; -1 if not a number, -2 if above @max. */
static int parse_u64(const char *s, size_t len, uint64_t max, uint64_t *v)
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
static int need_object(struct sonic_ctx *c, const char *table, const char *key, const json_t *v)
{
	if (json_is_object(v))
		return 0;
	return fail(c, table, key, NULL, "is %s, expected an object", type_name(v));
}

/* The top-level table @name in *@t, NULL when there is none. */
static int get_table(struct sonic_ctx *c, const char *name, json_t **t)
{
	json_t *v = json_object_get(c->root, name);

	*t = NULL;
	if (!v)
		return 0;
	if (!json_is_object(v))
		return fail(c, name, NULL, NULL, "is %s, expected an object of rows", type_name(v));
	*t = v;
	return 0;
}

/* A field value @v must be a string: config_db writes numbers as "9100" too. */
static int need_string(struct sonic_ctx *c, const char *table, const char *key, const char *field,
		       const json_t *v)
{
	if (json_is_string(v))
		return 0;
	return fail(c, table, key, field, "is %s, expected a string (config_db values are strings)",
		    type_name(v));
}

/* The string @field of row @obj in *@s, NULL when absent. */
static int get_str(struct sonic_ctx *c, const json_t *obj, const char *table, const char *key,
		   const char *field, const char **s)
{
	json_t *v = json_object_get(obj, field);
	int err;

	*s = NULL;
	if (!v)
		return 0;
	err = need_string(c, table, key, field, v);
	if (err)
		return err;
	*s = json_string_value(v);
	return 0;
}

/* The number @field of row @obj, at most @max; *@has = 0 when absent. */
static int get_u64(struct sonic_ctx *c, const json_t *obj, const char *table, const char *key,
		   const char *field, uint64_t max, uint64_t *v, int *has)
{
	char b[SHOW_SIZE];
	const char *s;
	int err = get_str(c, obj, table, key, field, &s);

	*has = 0;
	if (err || !s)
		return err;
	err = parse_u64(s, strlen(s), max, v);
	if (err == -1)
		return fail(c, table, key, field, "\"%s\" is not a number", shows(b, s));
	if (err)
		return fail(c, table, key, field, "%s is out of range (0..%llu)", shows(b, s),
			    (unsigned long long)max);
	*has = 1;
	return 0;
}

/* A signed number in [@min, @max]; *@has = 0 when absent. */
static int get_int(struct sonic_ctx *c, const json_t *obj, const char *table, const char *key,
		   const char *field, int min, int max, int *v, int *has)
{
	char b[SHOW_SIZE];
	const char *s;
	uint64_t u, lim;
	int neg, err = get_str(c, obj, table, key, field, &s);

	*has = 0;
	if (err || !s)
		return err;
	neg = s[0] == '-';
	lim = neg ? (uint64_t)(-(int64_t)min) : (uint64_t)max;
	err = parse_u64(s + neg, strlen(s + neg), lim, &u);
	if (err == -1)
		return fail(c, table, key, field, "\"%s\" is not a number", shows(b, s));
	if (err)
		return fail(c, table, key, field, "%s is out of range (%d..%d)", shows(b, s), min,
			    max);
	*v = neg ? (int)-(int64_t)u : (int)u;
	*has = 1;
	return 0;
}

/*
 * The name @s gives of a row of @target: "name", or "[TARGET|name]" as
 * older config_db files write it.
 */
static int get_ref(struct sonic_ctx *c, const char *table, const char *key, const char *field,
		   const char *s, const char *target, struct sonic_ref *r)
{
	size_t len = strlen(s), tl = strlen(target);
	char b[SHOW_SIZE];

	r->s = s;
	r->len = len;
	if (len && s[0] == '[') {
		if (len < tl + 3 || s[len - 1] != ']' || strncmp(s + 1, target, tl) ||
		    s[tl + 1] != '|')
			return fail(c, table, key, field, "\"%s\" is not a name nor [%s|name]",
				    shows(b, s), target);
		r->s = s + tl + 2;
		r->len = len - tl - 3;
	}
	if (r->len == 0)
		return fail(c, table, key, field, "is empty, expected a %s name", target);
	return 0;
}

/* Copy @r into @dst (@size) or fail: names are not silently cut. */
static int copy_ref(struct sonic_ctx *c, const char *table, const char *key, const char *field,
		    char *dst, size_t size, struct sonic_ref r)
{
	if (r.len >= size)
		return fail(c, table, key, field, "name longer than %zu characters", size - 1);
	memcpy(dst, r.s, r.len);
	dst[r.len] = '\0';
	return 0;
}

/* The row of @t that @r names, or an error "no @target named ..." at @field. */
static int find_ref(struct sonic_ctx *c, const char *table, const char *key, const char *field,
		    json_t *t, const char *target, struct sonic_ref r, json_t **row)
{
	char b[SHOW_SIZE];

	*row = json_object_getn(t, r.s, r.len);
	if (*row)
		return 0;
	return fail(c, table, key, field, "no %s named \"%s\"", target, show(b, r.s, r.len));
}

/*
 * A row key "PORT|N" or "PORT|N-M" (PORT may be a comma list of ports, as
 * older configs write it): the bits N..M of *@mask, each at most @max (<= 63).
 */
static int index_key(struct sonic_ctx *c, const char *table, const char *key, unsigned max,
		     uint64_t *mask)
{
	const char *bar = strrchr(key, '|'), *s, *dash;
	uint64_t lo, hi;
	size_t len;

	if (!bar || bar == key)
		return fail(c, table, key, NULL, "key is not PORT|INDEX (e.g. Ethernet0|3-4)");
	s = bar + 1;
	len = strlen(s);
	dash = memchr(s, '-', len);
	if (dash) {
		if (parse_u64(s, (size_t)(dash - s), max, &lo) ||
		    parse_u64(dash + 1, len - (size_t)(dash - s) - 1, max, &hi) || lo > hi)
			return fail(c, table, key, NULL, "index range is not N-M with N <= M <= %u",
				    max);
	} else {
		if (parse_u64(s, len, max, &lo))
			return fail(c, table, key, NULL, "index is not a number 0..%u", max);
		hi = lo;
	}
	*mask = 0;
	for (uint64_t i = lo; i <= hi; i++)
		*mask |= 1ULL << i;
	return 0;
}

/* "3,4" (spaces allowed around items; "" = none): bits of priorities 0..7. */
static int pfc_list(struct sonic_ctx *c, const char *key, const char *s, uint8_t *mask)
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
		if (parse_u64(s, n, 7, &p))
			return fail(c, "PORT_QOS_MAP", key, "pfc_enable",
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
static const struct sonic_vote *vote_winner(struct sonic_vote *v, size_t n)
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
static struct sonic_vote *votes_for(const json_t *t)
{
	size_t n = t ? json_object_size(t) : 0;

	return calloc(n ? n : 1, sizeof(struct sonic_vote));
}

/* PORT: the most common speed and MTU; how many ports. */
static int read_ports(struct sonic_ctx *c)
{
	struct sonic_vote *speed = NULL, *mtu = NULL;
	const struct sonic_vote *w;
	size_t ns = 0, nm = 0, i = 0;
	const char *key;
	json_t *t, *v;
	int err;

	t = json_object_get(c->root, "PORT");
	if (!t)
		return fail(c, NULL, NULL, NULL, "no PORT table: not a SONiC config_db.json?");
	err = get_table(c, "PORT", &t);
	if (err)
		return err;
	if (json_object_size(t) == 0)
		return fail(c, "PORT", NULL, NULL, "has no ports");
	speed = votes_for(t);
	mtu = votes_for(t);
	if (!speed || !mtu) {
		err = nomem(c);
		goto out_free;
	}
	json_object_foreach(t, key, v) {
		uint64_t x;
		int has;

		err = need_object(c, "PORT", key, v);
		if (err)
			goto out_free;
		/* speed is in Mb/s */
		err = get_u64(c, v, "PORT", key, "speed", UINT64_MAX / 1000000, &x, &has);
		if (err)
			goto out_free;
		if (has)
			speed[ns++] = (struct sonic_vote){.a = x * 1000000, .order = i};
		err = get_u64(c, v, "PORT", key, "mtu", UINT32_MAX, &x, &has);
		if (err)
			goto out_free;
		if (has)
			mtu[nm++] = (struct sonic_vote){.a = x, .order = i};
		i++;
	}
	c->cfg->n_ports = i > UINT32_MAX ? UINT32_MAX : (uint32_t)i;
	w = vote_winner(speed, ns);
	if (w)
		c->cfg->port_speed_bps = w->a;
	w = vote_winner(mtu, nm);
	if (w)
		c->cfg->port_mtu = (uint32_t)w->a;
out_free:
	free(mtu);
	free(speed);
	return err;
}

/* CABLE_LENGTH|<any name>|<port> = "300m": the longest. */
static int read_cables(struct sonic_ctx *c)
{
	const char *name, *port;
	json_t *t, *row, *v;
	int err = get_table(c, "CABLE_LENGTH", &t);

	if (err || !t)
		return err;
	json_object_foreach(t, name, row) {
		err = need_object(c, "CABLE_LENGTH", name, row);
		if (err)
			return err;
		json_object_foreach(row, port, v) {
			char b[SHOW_SIZE];
			uint64_t mm;
			int uerr;

			/* the port is the field */
			err = need_string(c, "CABLE_LENGTH", name, port, v);
			if (err)
				return err;
			uerr = units_length(json_string_value(v), &mm);
			if (uerr)
				return fail(c, "CABLE_LENGTH", name, port,
					    "\"%s\" is not a length such as \"5m\" (%s)",
					    shows(b, json_string_value(v)), units_strerror(uerr));
			if (mm > c->cfg->cable_mm)
				c->cfg->cable_mm = mm;
		}
	}
	return 0;
}

/*
 * Check every map of table @name (number keys 0..@kmax to numbers
 * 0..@vmax) and keep its rows in *@t.
 */
static int check_maps(struct sonic_ctx *c, const char *name, unsigned kmax, unsigned vmax,
		      json_t **t)
{
	const char *map, *k;
	json_t *row, *v;
	int err = get_table(c, name, t);

	if (err || !*t)
		return err;
	json_object_foreach(*t, map, row) {
		err = need_object(c, name, map, row);
		if (err)
			return err;
		json_object_foreach(row, k, v) {
			char b[SHOW_SIZE];
			uint64_t x;

			if (parse_u64(k, strlen(k), kmax, &x))
				return fail(c, name, map, k, "key \"%s\" is not a number 0..%u",
					    shows(b, k), kmax);
			err = need_string(c, name, map, k, v);
			if (err)
				return err;
			if (parse_u64(json_string_value(v), json_string_length(v), vmax, &x))
				return fail(c, name, map, k, "\"%s\" is not a number 0..%u",
					    shows(b, json_string_value(v)), vmax);
		}
	}
	return 0;
}

/* Fill @out[0..n) and *@given from the (checked) map @row. */
static void fill_map(json_t *row, uint8_t *out, uint64_t *given)
{
	const char *k;
	json_t *v;

	json_object_foreach(row, k, v) {
		uint64_t key = 0, val = 0;

		parse_u64(k, strlen(k), 63, &key);
		parse_u64(json_string_value(v), json_string_length(v), 63, &val);
		out[key] = (uint8_t)val;
		if (given)
			*given |= 1ULL << key;
	}
}

/*
 * The map a port names (@w, NULL if none does) or else the only one of @t;
 * NULL if neither.
 */
static json_t *pick_map(json_t *t, const struct sonic_vote *w, const char **name, size_t *len)
{
	void *it;

	if (w) {
		*name = w->name.s;
		*len = w->name.len;
		return json_object_getn(t, w->name.s, w->name.len);
	}
	if (!t || json_object_size(t) != 1)
		return NULL;
	it = json_object_iter(t);
	*name = json_object_iter_key(it);
	*len = strlen(*name);
	return json_object_iter_value(it);
}

/*
 * The line of every DSCP the map @name of DSCP_TO_TC_MAP names, into
 * @lines: one scan to the map, then one within it per entry.
 */
static void map_lines(const struct sonic_ctx *c, const char *name, json_t *row, int *lines)
{
	const char *names[2] = {"DSCP_TO_TC_MAP", name}, *value = NULL, *k, *end;
	json_t *v;

	if (!c->text)
		return;
	end = c->text + c->len;
	if (!json_find(c->text, end, names, 2, &value) || !value)
		return;
	json_object_foreach(row, k, v) {
		const char *val, *at = json_find(value, end, &k, 1, &val);
		uint64_t d;

		if (at && !parse_u64(k, strlen(k), 63, &d))
			lines[d] = line_at(c->text, at);
	}
}

/* One map name field of a PORT_QOS_MAP row: checked and counted in @v. */
static int qos_ref(struct sonic_ctx *c, const char *key, const json_t *row, const char *field,
		   json_t *maps, const char *target, struct sonic_vote *v, size_t *n, size_t order)
{
	struct sonic_ref r;
	const char *s;
	json_t *m;
	int err = get_str(c, row, "PORT_QOS_MAP", key, field, &s);

	if (err || !s)
		return err;
	err = get_ref(c, "PORT_QOS_MAP", key, field, s, target, &r);
	if (!err)
		err = find_ref(c, "PORT_QOS_MAP", key, field, maps, target, r, &m);
	if (err)
		return err;
	v[(*n)++] = (struct sonic_vote){.name = r, .order = order, .key = key};
	return 0;
}

/*
 * The maps, then PORT_QOS_MAP: pfc_enable (the union over ports) and the
 * maps the ports use.
 */
static int read_qos(struct sonic_ctx *c)
{
	struct sonic_vote *dv = NULL, *pv = NULL, *qv = NULL;
	size_t nd = 0, np = 0, nq = 0, i = 0, len = 0;
	struct sonic_cfg *cfg = c->cfg;
	const char *key, *name = NULL;
	json_t *t, *row;
	int err;

	err = check_maps(c, "DSCP_TO_TC_MAP", 63, 7, &c->dscp_maps);
	if (!err)
		err = check_maps(c, "TC_TO_PRIORITY_GROUP_MAP", 7, 7, &c->pg_maps);
	if (!err)
		err = check_maps(c, "TC_TO_QUEUE_MAP", 7, 7, &c->queue_maps);
	if (!err)
		err = get_table(c, "PORT_QOS_MAP", &t);
	if (err)
		return err;
	dv = votes_for(t);
	pv = votes_for(t);
	qv = votes_for(t);
	if (!dv || !pv || !qv) {
		err = nomem(c);
		goto out_free;
	}
	json_object_foreach(t, key, row) {
		const char *s;

		err = need_object(c, "PORT_QOS_MAP", key, row);
		if (!err)
			err = get_str(c, row, "PORT_QOS_MAP", key, "pfc_enable", &s);
		if (err)
			goto out_free;
		if (s) {
			uint8_t mask;

			err = pfc_list(c, key, s, &mask);
			if (err)
				goto out_free;
			if (!cfg->has_pfc_enable) {
				char b[SHOW_SIZE];

				snprintf(cfg->pfc_where, sizeof(cfg->pfc_where),
					 "PORT_QOS_MAP|%s|pfc_enable", shows(b, key));
				cfg->pfc_line = line_of(c, "PORT_QOS_MAP", key, "pfc_enable");
			}
			cfg->has_pfc_enable = 1;
			cfg->pfc_enable |= mask;
		}
		err = qos_ref(c, key, row, "dscp_to_tc_map", c->dscp_maps, "DSCP_TO_TC_MAP", dv,
			      &nd, i);
		if (!err)
			err = qos_ref(c, key, row, "tc_to_pg_map", c->pg_maps,
				      "TC_TO_PRIORITY_GROUP_MAP", pv, &np, i);
		if (!err)
			err = qos_ref(c, key, row, "tc_to_queue_map", c->queue_maps,
				      "TC_TO_QUEUE_MAP", qv, &nq, i);
		if (err)
			goto out_free;
		i++;
	}

	row = pick_map(c->dscp_maps, vote_winner(dv, nd), &name, &len);
	if (row) {
		err = copy_ref(c, "DSCP_TO_TC_MAP", NULL, NULL, cfg->dscp_map,
			       sizeof(cfg->dscp_map), (struct sonic_ref){name, len});
		if (err)
			goto out_free;
		cfg->has_dscp_map = 1;
		fill_map(row, cfg->dscp_to_tc, &cfg->dscp_given);
		set_at(c, &cfg->dscp_map_at, "DSCP_TO_TC_MAP", cfg->dscp_map, NULL);
		map_lines(c, cfg->dscp_map, row, cfg->dscp_line);
	}
	/* a map replaces the identity: the TCs it omits go to 0, as unmapped DSCPs do */
	row = pick_map(c->pg_maps, vote_winner(pv, np), &name, &len);
	if (row) {
		memset(cfg->tc_to_pg, 0, sizeof(cfg->tc_to_pg));
		fill_map(row, cfg->tc_to_pg, NULL);
	}
	row = pick_map(c->queue_maps, vote_winner(qv, nq), &name, &len);
	if (row) {
		memset(cfg->tc_to_queue, 0, sizeof(cfg->tc_to_queue));
		fill_map(row, cfg->tc_to_queue, NULL);
	}
out_free:
	free(qv);
	free(pv);
	free(dv);
	return err;
}

/* BUFFER_POOL|@name: size, shared headroom (xoff), mode. */
static int read_pool(struct sonic_ctx *c, const char *name, const json_t *p, struct sonic_cfg *out)
{
	char b[SHOW_SIZE];
	const char *mode;
	uint64_t size = 0, xoff = 0;
	int has, err;

	err = need_object(c, "BUFFER_POOL", name, p);
	if (!err)
		err = get_u64(c, p, "BUFFER_POOL", name, "size", UINT64_MAX, &size, &has);
	if (!err)
		err = get_u64(c, p, "BUFFER_POOL", name, "xoff", UINT64_MAX, &xoff, &has);
	if (!err)
		err = get_str(c, p, "BUFFER_POOL", name, "mode", &mode);
	if (err)
		return err;
	if (mode && strcmp(mode, "dynamic") && strcmp(mode, "static"))
		return fail(c, "BUFFER_POOL", name, "mode", "\"%s\" is not dynamic or static",
			    shows(b, mode));
	if (out) {
		/* the pool and its shared headroom make the buffer: the sum must fit */
		if (ck_add(size, xoff, &out->buffer_size))
			return fail(c, "BUFFER_POOL", name, "xoff",
				    "size %llu B + xoff %llu B does not fit in 64 bits",
				    (unsigned long long)size, (unsigned long long)xoff);
		out->has_pool = 1;
		out->pool_size = size;
		out->pool_xoff = xoff;
		out->pool_dynamic = mode && !strcmp(mode, "dynamic");
		set_at(c, &out->pool_size_at, "BUFFER_POOL", name, "size");
		set_at(c, &out->pool_xoff_at, "BUFFER_POOL", name, "xoff");
	}
	return 0;
}

/* BUFFER_PROFILE|@name, its pool checked against BUFFER_POOL. */
static int read_profile(struct sonic_ctx *c, const char *name, const json_t *p,
			struct sonic_profile *pr)
{
	const char *tbl = "BUFFER_PROFILE", *s;
	json_t *pool;
	int err;

	memset(pr, 0, sizeof(*pr));
	err = need_object(c, tbl, name, p);
	if (!err)
		err = get_str(c, p, tbl, name, "pool", &s);
	if (err)
		return err;
	if (!s)
		return fail(c, tbl, name, "pool", "missing: a profile names its BUFFER_POOL");
	err = get_ref(c, tbl, name, "pool", s, "BUFFER_POOL", &pr->pool);
	if (!err)
		err = find_ref(c, tbl, name, "pool", c->pools, "BUFFER_POOL", pr->pool, &pool);
	if (!err)
		err = get_u64(c, p, tbl, name, "xon", UINT64_MAX, &pr->xon, &pr->has_xon);
	if (!err)
		err = get_u64(c, p, tbl, name, "xon_offset", UINT64_MAX, &pr->xon_offset,
			      &pr->has_xon_offset);
	if (!err)
		err = get_u64(c, p, tbl, name, "xoff", UINT64_MAX, &pr->xoff, &pr->has_xoff);
	if (!err)
		err = get_u64(c, p, tbl, name, "size", UINT64_MAX, &pr->size, &pr->has_size);
	if (!err)
		err = get_u64(c, p, tbl, name, "static_th", UINT64_MAX, &pr->static_th,
			      &pr->has_static_th);
	/* SAI takes the dynamic threshold as an int8 exponent */
	if (!err)
		err = get_int(c, p, tbl, name, "dynamic_th", -128, 127, &pr->dynamic_th,
			      &pr->has_dynamic_th);
	if (err)
		return err;
	if (pr->has_dynamic_th && pr->has_static_th)
		return fail(c, tbl, name, NULL, "has both dynamic_th and static_th");
	return 0;
}

/* Check every pool and profile. */
static int check_buffers(struct sonic_ctx *c)
{
	struct sonic_profile pr;
	const char *key;
	json_t *row;
	int err;

	err = get_table(c, "BUFFER_POOL", &c->pools);
	if (!err)
		err = get_table(c, "BUFFER_PROFILE", &c->profiles);
	if (err)
		return err;
	json_object_foreach(c->pools, key, row) {
		err = read_pool(c, key, row, NULL);
		if (err)
			return err;
	}
	json_object_foreach(c->profiles, key, row) {
		err = read_profile(c, key, row, &pr);
		if (err)
			return err;
	}
	return 0;
}

/* Bits of the PGs (@pg) or queues the pfc_enable priorities map to. */
static uint64_t lossless_of(const struct sonic_cfg *cfg, const uint8_t *map)
{
	uint64_t m = 0;

	for (int p = 0; p < 8; p++) {
		if (cfg->pfc_enable & (1u << p))
			m |= 1ULL << (map[p] & 63);
	}
	return m;
}

/*
 * The profile of row @key of @table (BUFFER_PG or BUFFER_QUEUE), checked
 * against BUFFER_PROFILE: *@null when it is "NULL" (only BUFFER_PG).
 */
static int buffer_ref(struct sonic_ctx *c, const char *table, const char *key, const json_t *row,
		      struct sonic_ref *r, json_t **prof, int *null)
{
	const char *s;
	int err;

	*prof = NULL;
	*null = 0;
	err = need_object(c, table, key, row);
	if (!err)
		err = get_str(c, row, table, key, "profile", &s);
	if (err)
		return err;
	if (!s)
		return fail(c, table, key, "profile", "missing");
	if (!strcmp(s, "NULL") && !strcmp(table, "BUFFER_PG")) {
		*r = (struct sonic_ref){s, 4};
		*null = 1;
		return 0;
	}
	err = get_ref(c, table, key, "profile", s, "BUFFER_PROFILE", r);
	if (!err)
		err = find_ref(c, table, key, "profile", c->profiles, "BUFFER_PROFILE", *r, prof);
	return err;
}

/* Fill the lossless profile @name (row @row) and its pool. */
static int fill_profile(struct sonic_ctx *c, struct sonic_ref name, const json_t *row)
{
	struct sonic_cfg *cfg = c->cfg;
	struct sonic_profile pr;
	char pname[256];
	json_t *pool;
	int err;

	err = copy_ref(c, "BUFFER_PROFILE", NULL, NULL, pname, sizeof(pname), name);
	if (!err)
		err = copy_ref(c, "BUFFER_PROFILE", pname, NULL, cfg->profile, sizeof(cfg->profile),
			       name);
	if (!err)
		err = read_profile(c, pname, row, &pr);
	if (err)
		return err;
	cfg->has_profile = 1;
	cfg->xon = pr.xon;
	cfg->has_xon = pr.has_xon;
	cfg->xon_offset = pr.xon_offset;
	cfg->has_xon_offset = pr.has_xon_offset;
	cfg->xoff = pr.xoff;
	cfg->has_xoff = pr.has_xoff;
	cfg->size = pr.size;
	cfg->has_dynamic_th = pr.has_dynamic_th;
	cfg->dynamic_th = pr.dynamic_th;
	cfg->has_static_th = pr.has_static_th;
	cfg->static_th = pr.static_th;
	set_at(c, &cfg->xon_at, "BUFFER_PROFILE", pname, "xon");
	set_at(c, &cfg->xon_offset_at, "BUFFER_PROFILE", pname, "xon_offset");
	set_at(c, &cfg->xoff_at, "BUFFER_PROFILE", pname, "xoff");
	set_at(c, &cfg->dynamic_th_at, "BUFFER_PROFILE", pname, "dynamic_th");
	set_at(c, &cfg->static_th_at, "BUFFER_PROFILE", pname, "static_th");
	pool = json_object_getn(c->pools, pr.pool.s, pr.pool.len);
	/* read_profile found it; the name is the key, so copy it for messages */
	err = copy_ref(c, "BUFFER_POOL", NULL, NULL, pname, sizeof(pname), pr.pool);
	if (err)
		return err;
	return read_pool(c, pname, pool, cfg);
}

/*
 * BUFFER_PG and BUFFER_QUEUE: every profile exists; the profile most
 * lossless PGs use is the lossless profile.
 */
static int read_pgs(struct sonic_ctx *c)
{
	uint64_t lossless = lossless_of(c->cfg, c->cfg->tc_to_pg);
	struct sonic_vote *v = NULL, *nv = NULL;
	const struct sonic_vote *w;
	size_t n = 0, nn = 0, i = 0;
	char b[SHOW_SIZE];
	const char *key;
	json_t *t, *row, *prof;
	int err, null;

	err = get_table(c, "BUFFER_QUEUE", &t);
	if (err)
		return err;
	json_object_foreach(t, key, row) {
		struct sonic_ref r;
		uint64_t mask;

		err = index_key(c, "BUFFER_QUEUE", key, 63, &mask);
		if (!err)
			err = buffer_ref(c, "BUFFER_QUEUE", key, row, &r, &prof, &null);
		if (err)
			return err;
	}

	err = get_table(c, "BUFFER_PG", &t);
	if (err)
		return err;
	v = votes_for(t);
	nv = votes_for(t);
	if (!v || !nv) {
		err = nomem(c);
		goto out_free;
	}
	json_object_foreach(t, key, row) {
		struct sonic_ref r;
		uint64_t mask;
		int cand;

		err = index_key(c, "BUFFER_PG", key, 7, &mask);
		if (!err)
			err = buffer_ref(c, "BUFFER_PG", key, row, &r, &prof, &null);
		if (err)
			goto out_free;
		if (c->cfg->has_pfc_enable)
			cand = (mask & lossless) != 0;
		else
			cand = null || json_object_get(prof, "xoff");
		if (cand && null)
			nv[nn++] = (struct sonic_vote){.name = r, .order = i, .key = key};
		else if (cand)
			v[n++] = (struct sonic_vote){.name = r, .order = i, .key = key};
		i++;
	}
	/* a profile with numbers tells more than "NULL" where both appear */
	w = vote_winner(v, n);
	if (!w)
		w = vote_winner(nv, nn);
	if (!w)
		goto out_free;
	snprintf(c->cfg->pg_where, sizeof(c->cfg->pg_where), "BUFFER_PG|%s", shows(b, w->key));
	if (n == 0) {
		c->cfg->pg_null = 1;
		goto out_free;
	}
	err = fill_profile(c, w->name, json_object_getn(c->profiles, w->name.s, w->name.len));
out_free:
	free(nv);
	free(v);
	return err;
}

/* WRED_PROFILE|@name. */
static int read_wred(struct sonic_ctx *c, const char *name, const json_t *p, struct sonic_wred *wr)
{
	const char *tbl = "WRED_PROFILE", *ecn;
	char b[SHOW_SIZE];
	int has, err;

	memset(wr, 0, sizeof(*wr));
	err = need_object(c, tbl, name, p);
	if (!err)
		err = get_u64(c, p, tbl, name, "green_min_threshold", UINT64_MAX, &wr->kmin, &has);
	if (!err)
		err = get_u64(c, p, tbl, name, "green_max_threshold", UINT64_MAX, &wr->kmax, &has);
	if (!err)
		err = get_u64(c, p, tbl, name, "green_drop_probability", 100, &wr->prob, &has);
	if (!err)
		err = get_str(c, p, tbl, name, "ecn", &ecn);
	if (err || !ecn)
		return err;
	for (size_t i = 0; i < sizeof(sonic_ecn_modes) / sizeof(sonic_ecn_modes[0]); i++) {
		if (!strcmp(ecn, sonic_ecn_modes[i].name)) {
			wr->ecn_marking = sonic_ecn_modes[i].green;
			return 0;
		}
	}
	return fail(c, tbl, name, "ecn",
		    "\"%s\" is not an ECN mode (ecn_none, ecn_green, ..., ecn_all)", shows(b, ecn));
}

/* WRED_PROFILE and QUEUE: the WRED profile most lossless queues use. */
static int read_wreds(struct sonic_ctx *c)
{
	uint64_t lossless = lossless_of(c->cfg, c->cfg->tc_to_queue);
	struct sonic_cfg *cfg = c->cfg;
	struct sonic_vote *v = NULL;
	const struct sonic_vote *w;
	struct sonic_wred wr;
	size_t n = 0, i = 0;
	const char *key;
	json_t *t, *row, *prof;
	int err;

	err = get_table(c, "WRED_PROFILE", &c->wreds);
	if (err)
		return err;
	json_object_foreach(c->wreds, key, row) {
		err = read_wred(c, key, row, &wr);
		if (err)
			return err;
	}
	err = get_table(c, "QUEUE", &t);
	if (err)
		return err;
	v = votes_for(t);
	if (!v)
		return nomem(c);
	json_object_foreach(t, key, row) {
		struct sonic_ref r;
		const char *s;
		uint64_t mask;

		err = index_key(c, "QUEUE", key, 63, &mask);
		if (!err)
			err = need_object(c, "QUEUE", key, row);
		if (!err)
			err = get_str(c, row, "QUEUE", key, "wred_profile", &s);
		if (err)
			goto out_free;
		if (s) {
			err = get_ref(c, "QUEUE", key, "wred_profile", s, "WRED_PROFILE", &r);
			if (!err)
				err = find_ref(c, "QUEUE", key, "wred_profile", c->wreds,
					       "WRED_PROFILE", r, &prof);
			if (err)
				goto out_free;
			if (!cfg->has_pfc_enable || (mask & lossless))
				v[n++] = (struct sonic_vote){.name = r, .order = i, .key = key};
		}
		i++;
	}
	w = vote_winner(v, n);
	if (!w)
		goto out_free;
	err = copy_ref(c, "QUEUE", w->key, "wred_profile", cfg->wred, sizeof(cfg->wred), w->name);
	if (err)
		goto out_free;
	read_wred(c, cfg->wred, json_object_getn(c->wreds, w->name.s, w->name.len), &wr);
	cfg->has_wred = 1;
	cfg->kmin = wr.kmin;
	cfg->kmax = wr.kmax;
	cfg->pmax = (double)wr.prob / 100.0;
	cfg->ecn_marking = wr.ecn_marking;
	set_at(c, &cfg->kmin_at, "WRED_PROFILE", cfg->wred, "green_min_threshold");
	set_at(c, &cfg->kmax_at, "WRED_PROFILE", cfg->wred, "green_max_threshold");
	set_at(c, &cfg->pmax_at, "WRED_PROFILE", cfg->wred, "green_drop_probability");
	set_at(c, &cfg->ecn_at, "WRED_PROFILE", cfg->wred, "ecn");
out_free:
	free(v);
	return err;
}

/*
 * PFC_WD|<port> (GLOBAL holds the poll interval: skipped). A missing
 * restoration_time is the detection time and a missing action is drop,
 * as `pfcwd start` would write them.
 */
static int read_watchdog(struct sonic_ctx *c)
{
	const char *tbl = "PFC_WD", *key;
	struct sonic_vote *v;
	const struct sonic_vote *w;
	size_t n = 0;
	json_t *t, *row;
	int err = get_table(c, tbl, &t);

	if (err || !t)
		return err;
	v = votes_for(t);
	if (!v)
		return nomem(c);
	json_object_foreach(t, key, row) {
		uint64_t det = 0, rest = 0, act = 0;
		const char *action;
		int has;

		if (!strcmp(key, "GLOBAL"))
			continue;
		err = need_object(c, tbl, key, row);
		if (!err)
			err = get_u64(c, row, tbl, key, "detection_time", SONIC_WD_MAX_MS, &det,
				      &has);
		if (!err && !has)
			err = fail(c, tbl, key, "detection_time", "missing");
		if (!err)
			err = get_u64(c, row, tbl, key, "restoration_time", SONIC_WD_MAX_MS, &rest,
				      &has);
		if (!err && !has)
			rest = det;
		if (!err)
			err = get_str(c, row, tbl, key, "action", &action);
		if (err)
			goto out_free;
		if (action) {
			char b[SHOW_SIZE];

			for (act = 0; act < 3; act++) {
				if (!strcmp(action, sonic_wd_actions[act]))
					break;
			}
			if (act == 3) {
				err =
				    fail(c, tbl, key, "action",
					 "\"%s\" is not drop, forward or alert", shows(b, action));
				goto out_free;
			}
		}
		v[n] = (struct sonic_vote){.a = det, .b = rest, .c = act, .order = n, .key = key};
		n++;
	}
	w = vote_winner(v, n);
	if (w) {
		c->cfg->has_watchdog = 1;
		c->cfg->wd_detection_ms = (uint32_t)w->a;
		c->cfg->wd_restoration_ms = (uint32_t)w->b;
		snprintf(c->cfg->wd_action, sizeof(c->cfg->wd_action), "%s",
			 sonic_wd_actions[w->c]);
		set_at(c, &c->cfg->wd_detection_at, tbl, w->key, "detection_time");
		set_at(c, &c->cfg->wd_restoration_at, tbl, w->key, "restoration_time");
		set_at(c, &c->cfg->wd_action_at, tbl, w->key, "action");
	}
out_free:
	free(v);
	return err;
}

/* Read the tables of @root (@text, NULL if not at hand) into @out (all zero
 * but the identity maps). */
static int sonic_parse(const char *name, const char *text, size_t len, json_t *root,
		       struct sonic_cfg *out, struct diag *d)
{
	struct sonic_ctx c = {
	    .file = name, .text = text, .len = len, .d = d, .root = root, .cfg = out};
	int err;

	if (!json_is_object(root))
		return fail(&c, NULL, NULL, NULL,
			    "the top level is %s, expected an object of tables", type_name(root));
	err = read_ports(&c);
	if (!err)
		err = read_cables(&c);
	if (!err)
		err = read_qos(&c);
	if (!err)
		err = check_buffers(&c);
	if (!err)
		err = read_pgs(&c);
	/* no lossless profile: the ingress lossless pool, if there is one */
	if (!err && !out->has_profile) {
		json_t *p = json_object_get(c.pools, "ingress_lossless_pool");

		if (p)
			err = read_pool(&c, "ingress_lossless_pool", p, out);
	}
	if (!err)
		err = read_wreds(&c);
	if (!err)
		err = read_watchdog(&c);
	return err;
}

/* Parse @root (may be NULL after a load error @je), read from @src (NULL if
 * not at hand), into @out. */
static int sonic_finish(const char *name, const char *src, size_t len, json_t *root,
			const json_error_t *je, struct sonic_cfg *out, struct diag *d)
{
	struct sonic_cfg *cfg;
	char text[JSON_ERROR_TEXT_LENGTH];
	int err;

	if (!root) {
		/* jansson quotes the input near the error: it may hold a newline */
		snprintf(text, sizeof(text), "%.*s", JSON_ERROR_TEXT_LENGTH - 1, je->text);
		for (char *p = text; *p; p++) {
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
		}
		switch (json_error_code(je)) {
		case json_error_out_of_memory:
			diag_set(d, name, 0, "", "out of memory");
			return -ENOMEM;
		default:
			diag_set(d, name, je->line > 0 ? je->line : 0, "", "malformed JSON: %s",
				 text);
			return -EINVAL;
		}
	}
	cfg = calloc(1, sizeof(*cfg));
	if (!cfg) {
		json_decref(root);
		diag_set(d, name, 0, "", "out of memory");
		return -ENOMEM;
	}
	snprintf(cfg->file, sizeof(cfg->file), "%s", name);
	for (int i = 0; i < 8; i++) {
		cfg->tc_to_pg[i] = (uint8_t)i;
		cfg->tc_to_queue[i] = (uint8_t)i;
	}
	err = sonic_parse(name, src, len, root, cfg, d);
	if (!err)
		*out = *cfg;
	free(cfg);
	json_decref(root);
	return err;
}

int sonic_read(const char *file, struct sonic_cfg *out, struct diag *d)
{
	char *text;
	size_t len;
	int err;

	/* NUL bytes are kept: jansson names their line and column */
	err = textfile_read_bytes(file, &text, &len);
	if (err) {
		diag_set(d, file, 0, "", "cannot read: %s", textfile_strerror(err));
		return err == -ENOMEM ? err : -EINVAL;
	}
	err = sonic_read_text(file, text, len, out, d);
	free(text);
	return err;
}

int sonic_read_text(const char *name, const char *text, size_t len, struct sonic_cfg *out,
		    struct diag *d)
{
	json_error_t je;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);

	return sonic_finish(name, text, len, root, &je, out, d);
}
