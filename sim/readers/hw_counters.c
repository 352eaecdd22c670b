/*
 * RDMA hw_counters (measured.h): the files of
 * /sys/class/infiniband/DEV/ports/N/hw_counters (the kernel's rdma core
 * hw_stats, filled by mlx5's infiniband/hw/mlx5/counters.c: np_cnp_sent,
 * np_ecn_marked_roce_packets, rp_cnp_handled, rp_cnp_ignored,
 * out_of_sequence, packet_seq_err, local_ack_timeout_err,
 * roce_adp_retrans, roce_slow_restart, ...), one value a file. Read as
 * `grep . .../hw_counters/[a-z]*` prints them, "PATH:value" a line (a path
 * that names DEV and port N puts the counter in the scope "DEV port N",
 * so that one grep over several devices keeps them apart), or as a copied
 * folder. "lifespan" is no counter (how long the kernel caches the values,
 * in ms, a setting) and is skipped.
 */
#include "sim/readers/measured.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/engine/textfile.h"
#include "sim/readers/mlnx_impl.h"

/* "DEV port N" from a path ".../DEV/ports/N/hw_counters" into @scope, else "". */
static void hw_scope(char *dir, char *scope, size_t size)
{
	char *p = strstr(dir, "/ports/"), *dev, *port, *end;

	scope[0] = '\0';
	if (!p)
		return;
	port = p + 7;
	end = strchr(port, '/');
	if (!end || strcmp(end, "/hw_counters"))
		return;
	*end = '\0';
	*p = '\0';
	dev = strrchr(dir, '/');
	dev = dev ? dev + 1 : dir;
	if (*dev && *port)
		snprintf(scope, size, "%.30s port %.20s", dev, port);
}

static int hw_add(struct mc_set *out, const char *file, int line, const char *scope,
		  const char *name, const char *value, struct diag *d)
{
	const struct mc_counter *twice;
	uint64_t v;
	int na;

	if (!strcmp(name, "lifespan"))
		return 0;
	if (mc__number(value, 0, 0, &v, &na)) {
		diag_set(d, file, line, name, "\"%.40s\" is not a counter value (a whole number)",
			 value);
		return -EINVAL;
	}
	if ((twice = mc_find(out, scope, name))) {
		diag_set(d, file, line, name,
			 "given twice (line %d too): two readings in one file? give them as "
			 "two files, before and after",
			 twice->line);
		return -EINVAL;
	}
	return mc__add(out, file, line, scope, name, v, 0, d);
}

/* A line "[PATH/]name:value". */
static int hw_line(char *s, const char *file, int line, struct mc_set *out, struct diag *d)
{
	char *colon = strrchr(s, ':'), *slash, *name, *value, scope[64], w[100];

	if (!colon) {
		diag_set(d, file, line, "",
			 "no ':' in \"%s\" (grep . hw_counters/[a-z]* prints "
			 "\"PATH/np_cnp_sent:0\")",
			 mlnx__quote(w, sizeof(w), s, strlen(s)));
		return -EINVAL;
	}
	*colon = '\0';
	value = mlnx__trim(colon + 1);
	slash = strrchr(s, '/');
	name = mlnx__trim(slash ? slash + 1 : s);
	scope[0] = '\0';
	if (slash) {
		*slash = '\0';
		hw_scope(s, scope, sizeof(scope));
	}
	if (!*name || strpbrk(name, " \t")) {
		diag_set(d, file, line, "", "not a counter name: \"%s\"",
			 mlnx__quote(w, sizeof(w), name, strlen(name)));
		return -EINVAL;
	}
	if (!*value) {
		diag_set(d, file, line, name, "no value (a line cut short?)");
		return -EINVAL;
	}
	return hw_add(out, file, line, scope, name, value, d);
}

int mc_hw_counters_parse(const char *text, size_t len, const char *file, struct mc_set *out,
			 struct diag *d)
{
	struct lines ls;
	int err = 0;
	size_t n;
	char *buf, *s;

	if (!(buf = mc__start(out, MC_HW_COUNTERS, &file, text, len, d)))
		return -ENOMEM;
	lines_init(&ls, buf, len);
	while (!err && (s = lines_next(&ls, &n))) {
		int c = mlnx__find_binary(s, n);

		if (c >= 0) {
			diag_set(d, file, ls.no, "", "binary data (byte 0x%02x), not hw_counters",
				 c);
			err = -EINVAL;
			break;
		}
		s = mlnx__trim(s);
		if (*s && *s != '#')
			err = hw_line(s, file, ls.no, out, d);
	}
	if (!err && !out->n) {
		diag_set(d, file, 0, "",
			 "no counter: not hw_counters (grep . hw_counters/[a-z]* "
			 "prints \"PATH/np_cnp_sent:0\")");
		err = -EINVAL;
	}
	free(buf);
	if (err)
		mc_free(out);
	return err;
}

static int hw_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One counter file of a copied folder: its first line is the value. */
static int hw_file(const char *full, const char *name, struct mc_set *out, struct diag *d)
{
	char *text, *nl, *s;
	size_t len;
	int err, c;

	if ((err = textfile_load(full, 1, &text, &len, d)))
		return err;
	nl = memchr(text, '\n', len);
	if (nl)
		*nl = '\0';
	c = mlnx__find_binary(text, nl ? (size_t)(nl - text) : len);
	s = mlnx__trim(text);
	if (c >= 0) {
		diag_set(d, full, 1, name, "binary data (byte 0x%02x), not a counter value", c);
		err = -EINVAL;
	} else if (!*s) {
		diag_set(d, full, 1, name, "no value (a hw_counters file holds one number)");
		err = -EINVAL;
	} else {
		err = hw_add(out, full, 1, "", name, s, d);
	}
	free(text);
	return err;
}

/* A copied hw_counters folder: every regular file not starting with '.',
 * in name order so that the counters (and any error) do not depend on the
 * file system. */
static int hw_dir(const char *path, struct mc_set *out, struct diag *d)
{
	char **names = NULL, full[4096];
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *dir = opendir(path);
	int err = 0;

	if (!dir) {
		err = -errno;
		diag_set(d, path, 0, "", "cannot open folder: %s", strerror(errno));
		return err;
	}
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **v = realloc(names, (cap = cap ? cap * 2 : 32) * sizeof(*v));

			if (!v)
				goto out_nomem;
			names = v;
		}
		if (!(names[n] = strdup(de->d_name)))
			goto out_nomem;
		n++;
	}
	if (n)
		qsort(names, n, sizeof(*names), hw_cmp);
	for (size_t i = 0; i < n && !err; i++) {
		struct stat st;

		if ((size_t)snprintf(full, sizeof(full), "%s/%s", path, names[i]) >= sizeof(full))
			continue;
		if (stat(full, &st) || !S_ISREG(st.st_mode))
			continue; /* sub-folders, dangling links: not counters */
		err = hw_file(full, names[i], out, d);
	}
	if (!err && !out->n) {
		diag_set(d, path, 0, "", "no counter files in the folder: not hw_counters");
		err = -EINVAL;
	}
	goto out_free;
out_nomem:
	diag_set(d, path, 0, "", "out of memory");
	err = -ENOMEM;
out_free:
	closedir(dir);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return err;
}

int mc_hw_counters_read(const char *path, struct mc_set *out, struct diag *d)
{
	struct stat st;
	char *text;
	size_t len;
	int err;

	memset(out, 0, sizeof(*out));
	out->kind = MC_HW_COUNTERS;
	snprintf(out->file, sizeof(out->file), "%s", path);
	if (stat(path, &st)) {
		err = -errno;
		diag_set(d, path, 0, "", "cannot open: %s", strerror(errno));
		return err;
	}
	if (S_ISDIR(st.st_mode)) {
		if ((err = hw_dir(path, out, d)))
			mc_free(out);
		return err;
	}
	if ((err = textfile_load(path, 1, &text, &len, d)))
		return err;
	err = mc_hw_counters_parse(text, len, path, out, d);
	free(text);
	return err;
}
