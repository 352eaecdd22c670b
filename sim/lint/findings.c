/*
 * The findings of a check (findings.h): adding one with its message
 * formatted, its place (the file, line and key it comes from, or where a
 * scenario key's value came from), freeing and sorting them, and the words
 * the rules share ("3,4" for a priority mask).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/scenario.h"
#include "sim/lint/findings.h"

const char *const chk_severity_name[] = {"error", "warning", "info"};

static char *chk_vfmt(const char *fmt, va_list ap)
{
	va_list copy;
	char *s;
	int len;

	va_copy(copy, ap);
	len = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (len < 0)
		return NULL;
	s = malloc((size_t)len + 1);
	if (s)
		vsnprintf(s, (size_t)len + 1, fmt, ap);
	return s;
}

void chk_add(struct chk *c, enum chk_severity sev, const char *code, char *where, const char *fmt,
	     ...)
{
	struct chk_finding *f;
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = chk_vfmt(fmt, ap);
	va_end(ap);
	f = realloc(c->f, (c->n + 1) * sizeof(*f));
	if (!where || !msg || !f) {
		free(where);
		free(msg);
		if (f)
			c->f = f;
		c->oom = 1;
		return;
	}
	c->f = f;
	c->f[c->n++] = (struct chk_finding){sev, code, where, msg, NULL, NULL, 0};
}

void chk_loc(struct chk *c, const char *file, int line, const char *key)
{
	struct chk_finding *f = c->n ? &c->f[c->n - 1] : NULL;

	if (c->oom || !f)
		return; /* the finding was not added: the check stops there */
	free(f->file);
	free(f->key);
	f->file = file && *file ? strdup(file) : NULL;
	f->key = key ? strdup(key) : NULL;
	f->line = line > 0 ? line : 0;
	c->oom |= (file && *file && !f->file) || (key && !f->key);
}

void chk_loc_key(struct chk *c, const struct scenario *s, const char *path)
{
	const struct scn_origin *o = scn_origin(s, path);
	struct diag d = {0};

	if (o) {
		chk_loc(c, o->file, o->line, o->key);
		return;
	}
	snprintf(d.path, sizeof(d.path), "%s", path);
	scn_locate(s, &d);
	chk_loc(c, strcmp(d.file, "--set") ? d.file : NULL, d.line, path);
}

char *chk_str(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = chk_vfmt(fmt, ap);
	va_end(ap);
	return s;
}

void chk_free(struct chk *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->f[i].where);
		free(c->f[i].message);
		free(c->f[i].file);
		free(c->f[i].key);
	}
	free(c->f);
	free(c->failed);
	cbd_result_free(&c->cbd);
}

/* "file:line key" of a value a real config gave ("file key" without a line). */
const char *chk_at(const struct scn_origin *o, char *buf, size_t size)
{
	if (o->line > 0)
		snprintf(buf, size, "%s:%d %s", o->file, o->line, o->key);
	else
		snprintf(buf, size, "%s %s", o->file, o->key);
	return buf;
}

/*
 * Where a key's value comes from: "(file:line)" of the scenario, "(--set)",
 * "(config:line KEY)" of the real config that gave it, or "(default)".
 */
const char *chk_origin(const struct scenario *s, const char *path, char *buf, size_t size)
{
	const struct scn_origin *o = scn_origin(s, path);
	struct diag d = {0};
	char at[500];

	if (o) {
		snprintf(buf, size, "(%s)", chk_at(o, at, sizeof(at)));
		return buf;
	}
	snprintf(d.path, sizeof(d.path), "%s", path);
	scn_locate(s, &d);
	if (!strcmp(d.file, "--set"))
		snprintf(buf, size, "(--set)");
	else if (d.line > 0)
		snprintf(buf, size, "(%s:%d)", d.file, d.line);
	else
		snprintf(buf, size, "(default)");
	return buf;
}

/* "3,4" for a priority mask. */
const char *chk_prios(uint8_t mask, char *buf, size_t size)
{
	return chk_prio_list(mask, ",", "none", buf, size);
}

void chk_sort(struct chk *c)
{
	for (size_t i = 1; i < c->n; i++) {
		struct chk_finding f = c->f[i];
		size_t k = i;

		for (; k > 0 && c->f[k - 1].severity > f.severity; k--)
			c->f[k] = c->f[k - 1];
		c->f[k] = f;
	}
}

const char *chk_prio_list(uint8_t mask, const char *sep, const char *none, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int p = 0; p < 8 && len < size; p++)
		if (mask & (1u << p))
			len += (size_t)snprintf(buf + len, size - len, "%s%d", len ? sep : "", p);
	if (!len)
		snprintf(buf, size, "%s", none);
	return buf;
}
