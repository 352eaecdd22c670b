/*
 * What every stage of a scenario's load shares (scenario_impl.h): where a
 * key was written (the scenario, an overlay or --set, and its line), where
 * a value a real config gave came from (struct scn_origin), and the one way
 * a value is refused (scn__fail), naming that place; the paths of the
 * config files a scenario names; and the public look-ups of the same facts
 * (scn_origin, scn_locate, scn_fault_node). The stages themselves are
 * listed in scenario_load.c.
 */
#include "sim/config/scenario.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/scenario_impl.h"
#include "sim/readers/ydoc.h"

int scn__set_by_user(const struct scn_raw *raw, const char *path)
{
	for (size_t i = 0; i < raw->n_set; i++)
		if (!strcmp(raw->set_paths[i], path))
			return 1;
	return 0;
}

/*
 * Line of @path, or of the nearest enclosing key the file holds: a key that
 * is missing ("topology.hosts") is named at the line of its section.
 */
int scn__line_of(const struct ydoc *doc, const char *path)
{
	return ydoc_line_near(doc, path);
}

const char *scn__key_file(const struct loader *l, const char *path)
{
	const struct ydoc_entry *e = ydoc_find(l->raw->doc, path);

	return e ? e->file : l->file;
}

const struct scn_origin *scn__origin_of(const struct scn_raw *raw, const char *path)
{
	char buf[160];

	snprintf(buf, sizeof(buf), "%s", path);
	for (;;) {
		char *cut = buf + strlen(buf);

		for (size_t i = 0; i < raw->n_origins; i++)
			if (!strcmp(raw->origins[i].path, buf))
				return &raw->origins[i];
		while (cut > buf && *cut != '.' && *cut != '[')
			cut--;
		if (cut == buf)
			return NULL;
		*cut = '\0';
	}
}

int scn__from_config(const struct scn_raw *raw, const char *path)
{
	for (size_t i = 0; i < raw->n_origins; i++)
		if (!strcmp(raw->origins[i].path, path))
			return 1;
	return 0;
}

int scn__origin_add(struct scn_raw *raw, const struct scn_origin *o)
{
	struct scn_origin *all;

	for (size_t i = 0; i < raw->n_origins; i++)
		if (!strcmp(raw->origins[i].path, o->path)) {
			raw->origins[i] = *o;
			return 0;
		}
	all = realloc(raw->origins, (raw->n_origins + 1) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	raw->origins = all;
	raw->origins[raw->n_origins++] = *o;
	return 0;
}

/*
 * Where a value of @path the scenario does not give came from (a real
 * config), else NULL: what the user wrote or set is named there first.
 */
static const struct scn_origin *config_origin(const struct scn_raw *raw, const char *path)
{
	if (scn__set_by_user(raw, path) || ydoc_find(raw->doc, path))
		return NULL;
	return scn__origin_of(raw, path);
}

int scn__fail(const struct loader *l, const char *path, const char *fmt, ...)
{
	const struct scn_origin *o = config_origin(l->raw, path);
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (scn__set_by_user(l->raw, path))
		diag_set(l->d, "--set", 0, path, "%s", msg);
	else if (o)
		diag_set(l->d, o->file, o->line, o->key, "%s (%s, from %s)", msg, path, o->via);
	else
		diag_set(l->d, ydoc_file_near(l->raw->doc, path), scn__line_of(l->raw->doc, path),
			 path, "%s", msg);
	return -EINVAL;
}

/* "workload" or "workload[i]", then ".key" */
const char *scn__wpath(char *buf, size_t size, const char *prefix, const char *key)
{
	snprintf(buf, size, "%s.%s", prefix, key);
	return buf;
}

int scn__explicit(const struct loader *l, const char *path)
{
	return ydoc_find(l->raw->doc, path) || scn__set_by_user(l->raw, path);
}

/* A config file named by @key, relative to the folder of the scenario (or overlay) naming it. */
char *scn__config_path(const struct loader *l, const char *key, const char *value)
{
	const char *file = scn__key_file(l, key), *slash = strrchr(file, '/');
	size_t len;
	char *p;

	if (value[0] == '/' || !slash || scn__set_by_user(l->raw, key))
		return strdup(value);
	len = (size_t)(slash - file) + strlen(value) + 2;
	p = malloc(len);
	if (p)
		snprintf(p, len, "%.*s/%s", (int)(slash - file), file, value);
	return p;
}

int scn__config_fail(const struct loader *l, const char *key, struct diag *d)
{
	char buf[800];

	diag_str(d, buf, sizeof(buf));
	return scn__fail(l, key, "%s", buf);
}

const char *scn_fault_node(const struct scenario *s, uint32_t entry)
{
	const struct raw_top *r = s->raw ? s->raw->top : NULL;

	if (!r || entry >= r->faults_count ||
	    (r->faults[entry].kind - 1 != SCN_FAULT_NODE_DOWN &&
	     r->faults[entry].kind - 1 != SCN_FAULT_NODE_UP))
		return NULL;
	return r->faults[entry].node;
}

const struct scn_origin *scn_origin(const struct scenario *s, const char *path)
{
	return s->raw ? config_origin(s->raw, path) : NULL;
}

void scn_locate(const struct scenario *s, struct diag *d)
{
	const struct scn_origin *o;
	const struct ydoc_entry *e;
	char msg[sizeof(d->msg)], path[sizeof(d->path)];

	if (d->file[0])
		return;
	if (d->path[0] && (o = scn_origin(s, d->path))) {
		snprintf(msg, sizeof(msg), "%s", d->msg);
		snprintf(path, sizeof(path), "%s", d->path);
		diag_set(d, o->file, o->line, o->key, "%s (%s, from %s)", msg, path, o->via);
		return;
	}
	e = d->path[0] ? ydoc_find(s->raw->doc, d->path) : NULL;
	snprintf(d->file, sizeof(d->file), "%s", e ? e->file : s->file);
	if (d->path[0])
		d->line = scn__set_by_user(s->raw, d->path) ? 0 : ydoc_line(s->raw->doc, d->path);
	if (d->path[0] && scn__set_by_user(s->raw, d->path))
		snprintf(d->file, sizeof(d->file), "--set");
}
