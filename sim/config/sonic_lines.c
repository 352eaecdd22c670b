/*
 * Lines of config_db.json for the SONiC reader (sonic.c): jansson keeps no
 * positions, so a small scan of the text finds the line of a table, a key
 * and a field.
 */
#include "sim/config/sonic.h"

#include <jansson.h>
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
