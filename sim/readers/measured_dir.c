/*
 * A folder of several nodes' measured files (measured_dir.h): names read
 * as NODE.KIND[.before|.after][.EXT] (or as map.yaml says), pairs of
 * readings joined, the rest listed as skipped.
 */
#include "sim/readers/measured_dir.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/textfile.h"
#include "sim/readers/ydoc.h"

int mc_read(enum mc_kind kind, const char *path, struct mc_set *out, struct diag *d)
{
	switch (kind) {
	case MC_ETHTOOL:
		return mc_ethtool_read(path, out, d);
	case MC_HW_COUNTERS:
		return mc_hw_counters_read(path, out, d);
	case MC_PFCSTAT:
		return mc_pfcstat_read(path, out, d);
	case MC_QUEUESTAT:
		return mc_queuestat_read(path, out, d);
	}
	memset(out, 0, sizeof(*out));
	diag_set(d, path, 0, "", "no such kind of counters");
	return -EINVAL;
}

const char *md_kind_name(int kind)
{
	if (kind == MD_NCCL_INSPECTOR)
		return "nccl-inspector";
	return kind == MD_NCCL_TESTS ? "nccl-tests" : mc_kind_name((enum mc_kind)kind);
}

int md_kind_parse(const char *name)
{
	if (!strcmp(name, "nccl-tests"))
		return MD_NCCL_TESTS;
	if (!strcmp(name, "nccl-inspector"))
		return MD_NCCL_INSPECTOR;
	return mc_kind_parse(name);
}

/* @name as NODE.KIND[.before|.after][.EXT]: 0 with its parts (*@when 0
 * alone, 1 before, 2 after), -1 when it is not such a name. */
static int md_name(const char *name, char *node, size_t size, int *kind, int *when)
{
	const char *dot = strchr(name, '.'), *k, *e;
	char word[32];

	if (!dot || dot == name || (size_t)(dot - name) >= size)
		return -1;
	k = dot + 1;
	e = strchr(k, '.');
	if (!e)
		e = k + strlen(k);
	if ((size_t)(e - k) >= sizeof(word))
		return -1;
	memcpy(word, k, (size_t)(e - k));
	word[e - k] = '\0';
	if ((*kind = md_kind_parse(word)) < 0)
		return -1;
	memcpy(node, name, (size_t)(dot - name));
	node[dot - name] = '\0';
	*when = 0;
	if (!strncmp(e, ".before", 7) && (e[7] == '.' || !e[7]))
		*when = 1;
	else if (!strncmp(e, ".after", 6) && (e[6] == '.' || !e[6]))
		*when = 2;
	return 0;
}

static int md_cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static struct md_entry *md_find(struct md_dir *m, const char *node, int kind)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].kind == kind && !strcmp(m->v[i].node, node))
			return &m->v[i];
	return NULL;
}

/* File @name of the folder, read as the name @as (map.yaml's, or its own),
 * into its entry, or into .skipped. */
static int md_add(struct md_dir *m, const char *name, const char *as, size_t *cap, size_t *scap,
		  struct diag *d)
{
	char node[64], full[4096];
	struct md_entry *e;
	int kind, when;

	if ((size_t)snprintf(full, sizeof(full), "%s/%s", m->folder, name) >= sizeof(full) ||
	    md_name(as, node, sizeof(node), &kind, &when)) {
		if (m->n_skipped == *scap) {
			size_t ncap = *scap ? *scap * 2 : 8;
			char(*v)[256] = realloc(m->skipped, ncap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			m->skipped = v;
			*scap = ncap;
		}
		snprintf(m->skipped[m->n_skipped++], sizeof(m->skipped[0]), "%s", name);
		return 0;
	}
	if (!(e = md_find(m, node, kind))) {
		if (m->n == *cap) {
			size_t ncap = *cap ? *cap * 2 : 16;
			struct md_entry *v = realloc(m->v, ncap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			m->v = v;
			*cap = ncap;
		}
		e = &m->v[m->n++];
		memset(e, 0, sizeof(*e));
		snprintf(e->node, sizeof(e->node), "%s", node);
		e->kind = kind;
	}
	if ((when == 1 && e->before[0]) || (when != 1 && e->path[0])) {
		diag_set(d, full, 0, "", "a second %s%s reading of %s (%s too)", md_kind_name(kind),
			 when == 1 ? " .before" : "", node, when == 1 ? e->before : e->path);
		return -EINVAL;
	}
	if (when == 1)
		memcpy(e->before, full, sizeof(full));
	else
		memcpy(e->path, full, sizeof(full));
	e->after |= when == 2;
	return 0;
}

/* Each pair complete, a reading alone neither .before nor .after. */
static int md_check(struct md_dir *m, struct diag *d)
{
	for (size_t i = 0; i < m->n; i++) {
		struct md_entry *e = &m->v[i];

		if (e->before[0] && !e->path[0]) {
			diag_set(d, e->before, 0, "",
				 "a .before reading of %s without its .after one", e->node);
			return -EINVAL;
		}
		if (e->before[0] && !e->after) {
			diag_set(d, e->path, 0, "",
				 "a .before reading of %s, and this one not named .after", e->node);
			return -EINVAL;
		}
		if (!e->before[0] && e->after) {
			diag_set(d, e->path, 0, "",
				 "an .after reading of %s without its .before one", e->node);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * map.yaml of the folder, when it has one: a flat mapping of its files'
 * names to the names they stand for ("sw-a-pfc.txt: leaf0.pfcstat"), into
 * *@y (ydoc_free it). Each key must be a file of the folder (@names, @n),
 * each value a NODE.KIND[.before|.after] name.
 */
static int md_map(const char *folder, char **names, size_t n, struct ydoc **y, struct diag *d)
{
	char path[4200], node[64], *text;
	size_t len;
	int err, kind, when;

	*y = NULL;
	snprintf(path, sizeof(path), "%s/map.yaml", folder);
	if ((err = textfile_load(path, 0, &text, &len, d)))
		return err;
	err = ydoc_parse(path, text, len, y, d);
	free(text);
	for (size_t i = 0; !err && i < ydoc_count(*y); i++) {
		const struct ydoc_entry *e = ydoc_at(*y, i);
		size_t k;

		for (k = 0; k < n && strcmp(names[k], e->path); k++)
			;
		if (!e->value) {
			diag_set(d, path, e->line, e->path,
				 "not a name: map.yaml maps a file to NODE.KIND[.before|.after]");
			err = -EINVAL;
		} else if (md_name(e->value, node, sizeof(node), &kind, &when)) {
			diag_set(d, path, e->line, e->path,
				 "\"%.100s\" is not NODE.KIND[.before|.after] (KIND ethtool, "
				 "hw-counters, pfcstat, queuestat, nccl-tests or nccl-inspector)",
				 e->value);
			err = -EINVAL;
		} else if (k == n || !strcmp(e->path, "map.yaml")) {
			diag_set(d, path, e->line, e->path, "no such file in %s", folder);
			err = -EINVAL;
		}
	}
	return err;
}

/* What map.yaml @y says @name stands for, else @name. */
static const char *md_as(const struct ydoc *y, const char *name)
{
	const struct ydoc_entry *e = y ? ydoc_find(y, name) : NULL;

	return e && e->value ? e->value : name;
}

int md_read(const char *folder, struct md_dir *out, struct diag *d)
{
	char **names = NULL;
	struct ydoc *map = NULL;
	size_t n = 0, ncap = 0, cap = 0, scap = 0;
	struct dirent *de;
	DIR *dir;
	int err = 0;

	memset(out, 0, sizeof(*out));
	snprintf(out->folder, sizeof(out->folder), "%s", folder);
	if (!(dir = opendir(folder))) {
		err = -errno;
		diag_set(d, folder, 0, "", "cannot open folder: %s", strerror(errno));
		return err;
	}
	while ((de = readdir(dir)) && !err) {
		if (de->d_name[0] == '.')
			continue;
		if (n == ncap) {
			char **v = realloc(names, (ncap = ncap ? ncap * 2 : 32) * sizeof(*v));

			if (!v) {
				err = -ENOMEM;
				break;
			}
			names = v;
		}
		if (!(names[n] = strdup(de->d_name)))
			err = -ENOMEM;
		else
			n++;
	}
	closedir(dir);
	if (!err && n)
		qsort(names, n, sizeof(*names), md_cmp_names);
	for (size_t i = 0; i < n && !err; i++)
		if (!strcmp(names[i], "map.yaml"))
			err = md_map(folder, names, n, &map, d);
	for (size_t i = 0; i < n && !err; i++)
		if (strcmp(names[i], "map.yaml"))
			err = md_add(out, names[i], md_as(map, names[i]), &cap, &scap, d);
	if (!err)
		err = md_check(out, d);
	if (!err && !out->n) {
		diag_set(d, folder, 0, "",
			 "no file named NODE.KIND[.before|.after][.EXT] (KIND ethtool, "
			 "hw-counters, pfcstat, queuestat, nccl-tests or nccl-inspector)");
		err = -EINVAL;
	}
	if (err == -ENOMEM)
		diag_set(d, folder, 0, "", "out of memory");
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (map)
		ydoc_free(map);
	if (err)
		md_free(out);
	return err;
}

void md_free(struct md_dir *m)
{
	free(m->v);
	free(m->skipped);
	m->v = NULL;
	m->skipped = NULL;
	m->n = m->n_skipped = 0;
}
