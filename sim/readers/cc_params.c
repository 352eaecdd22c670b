/*
 * The mlx5 DCQCN cc_params (mlnx.h), as a copied debugfs folder (a file per
 * parameter, its first line the value) or as the `grep . cc_params/[a-z]*`
 * lines ("cc_params/rp_gd:11"): names and values kept as given, each with
 * its file and line, for the scenario loader and `rocesim check` to check.
 */
#include "sim/readers/mlnx.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/readers/mlnx_impl.h"
#include "sim/engine/textfile.h"

/* what cc_params reads of a parameter file: its first line */
#define CC_MAX_FIRST_LINE 4096

/* ---- cc_params ---- */

static int cc_fail(struct diag *d, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int cc_fail(struct diag *d, const char *file, int line, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_set(d, file, line, "", "%s", msg);
	return -EINVAL;
}

/* Append name=value of @device from @file:@line; the lengths are checked here. */
static int cc_add(struct cc_params *cc, size_t *cap, const char *device, const char *name,
		  const char *value, const char *file, int line, struct diag *d)
{
	struct cc_entry *e;
	char w[100];

	if (strlen(device) >= sizeof(e->device))
		return cc_fail(d, file, line, "device \"%s\" is longer than %zu characters",
			       mlnx__quote(w, sizeof(w), device, strlen(device)),
			       sizeof(e->device) - 1);
	if (strlen(name) >= sizeof(e->name))
		return cc_fail(d, file, line, "name \"%s\" is longer than %zu characters",
			       mlnx__quote(w, sizeof(w), name, strlen(name)), sizeof(e->name) - 1);
	if (strlen(value) >= sizeof(e->value))
		return cc_fail(d, file, line, "%s: value \"%s\" is longer than %zu characters",
			       name, mlnx__quote(w, sizeof(w), value, strlen(value)),
			       sizeof(e->value) - 1);
	if (cc->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 32;
		struct cc_entry *v = realloc(cc->v, ncap * sizeof(*v));

		if (!v) {
			diag_set(d, file, line, "", "out of memory");
			return -ENOMEM;
		}
		cc->v = v;
		*cap = ncap;
	}
	e = &cc->v[cc->n++];
	memset(e, 0, sizeof(*e));
	memcpy(e->name, name, strlen(name) + 1);
	memcpy(e->value, value, strlen(value) + 1);
	memcpy(e->device, device, strlen(device) + 1);
	snprintf(e->file, sizeof(e->file), "%s", file);
	e->line = line;
	return 0;
}

/*
 * The device of a parameter at @dir (its path without the name, cut in
 * place): the folder that holds its cc_params folder, as the mlx5 driver
 * makes them, /sys/kernel/debug/mlx5/<PCI address>/cc_params/<name> (Linux
 * drivers/net/ethernet/mellanox/mlx5/core/debugfs.c names the folder by
 * dev_name(), infiniband/hw/mlx5/cong.c adds cc_params under it); "" when
 * the path names no device ("cc_params/rp_gd", "rp_gd").
 */
static const char *cc_device(char *dir)
{
	char *last = strrchr(dir, '/'), *prev;

	if (!last || strcmp(last + 1, "cc_params"))
		return "";
	*last = '\0';
	prev = strrchr(dir, '/');
	return prev ? prev + 1 : dir;
}

/*
 * Split a trimmed, non-empty line into its name and value, in place:
 * "[path/]name:value" (grep output; the path may hold ':' as a PCI address
 * does, so the value is after the LAST ':' and must be one word),
 * "[path/]name=value" or "[path/]name value". The name is what follows the
 * last '/' of the part before the value, @device what cc_device finds in
 * the path. Any may come back empty.
 */
static void cc_split(char *s, char **name, char **value, const char **device)
{
	char *colon = strrchr(s, ':'), *sep = NULL, *v, *k, *slash;

	if (colon) {
		v = mlnx__trim(colon + 1);
		if (!strchr(v, '/') && !strpbrk(v, " \t\v\f\r"))
			sep = colon;
	}
	if (!sep)
		sep = strchr(s, '=');
	if (!sep) {
		sep = s;
		while (*sep && !mlnx__is_blank((unsigned char)*sep))
			sep++;
	}
	v = *sep ? sep + 1 : sep;
	*sep = '\0';
	*value = mlnx__trim(v);
	k = mlnx__trim(s);
	slash = strrchr(k, '/');
	*name = slash ? mlnx__trim(slash + 1) : k;
	*device = "";
	if (slash) {
		*slash = '\0';
		*device = cc_device(k);
	}
}

static int cc_parse_text(char *buf, size_t len, const char *file, struct cc_params *out,
			 struct diag *d)
{
	struct lines ls;
	size_t n, cap = 0;
	char *s;
	int err;

	lines_init(&ls, buf, len);
	while ((s = lines_next(&ls, &n))) {
		int c = mlnx__find_binary(s, n);
		char w[100], *name, *value;
		const char *device;

		if (c >= 0)
			return cc_fail(d, file, ls.no,
				       "binary data (byte 0x%02x), not cc_params text", c);
		s = mlnx__trim(s);
		if (!*s || *s == '#')
			continue;
		/* "rp_gd 11  # default": a comment after a blank */
		for (char *h = strchr(s, '#'); h; h = strchr(h + 1, '#')) {
			if (mlnx__is_blank((unsigned char)h[-1])) {
				*h = '\0';
				s = mlnx__trim(s);
				break;
			}
		}
		mlnx__quote(w, sizeof(w), s, strlen(s));
		cc_split(s, &name, &value, &device);
		if (!*name)
			return cc_fail(d, file, ls.no,
				       "no name in \"%s\" (name:value, name=value or name value)",
				       w);
		if (!*value)
			return cc_fail(d, file, ls.no,
				       "no value in \"%s\" (name:value, name=value or name value)",
				       w);
		if ((err = cc_add(out, &cap, device, name, value, file, ls.no, d)))
			return err;
	}
	if (!out->n)
		return cc_fail(d, file, 0,
			       "no name:value line: not cc_params (grep . cc_params/* prints "
			       "\"cc_params/rp_gd:11\")");
	return 0;
}

int cc_params_parse(const char *text, size_t len, const char *file, struct cc_params *out,
		    struct diag *d)
{
	char *buf;
	int err;

	out->v = NULL;
	out->n = 0;
	if (!file)
		file = "";
	buf = mlnx__text_copy(text, len, file, d);
	if (!buf)
		return -ENOMEM;
	err = cc_parse_text(buf, len, file, out, d);
	free(buf);
	if (err)
		cc_params_free(out);
	return err;
}

/* The first line of the parameter file @file, trimmed, into @value. */
static int cc_read_value(const char *file, char *value, size_t size, struct diag *d)
{
	char buf[CC_MAX_FIRST_LINE + 1], w[100], *nl, *s;
	size_t n = 0;
	int fd, c = 0;

	fd = textfile_open(file);
	if (fd < 0) {
		diag_set(d, file, 0, "", "cannot read: %s", textfile_strerror(fd));
		return fd;
	}
	while (n < CC_MAX_FIRST_LINE) {
		ssize_t r = read(fd, buf + n, CC_MAX_FIRST_LINE - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			c = errno;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (c) {
		diag_set(d, file, 0, "", "cannot read: %s", strerror(c));
		return -c;
	}
	buf[n] = '\0';
	nl = memchr(buf, '\n', n);
	if (nl) {
		*nl = '\0';
		n = (size_t)(nl - buf);
	}
	if (n && buf[n - 1] == '\r')
		buf[--n] = '\0';
	if ((c = mlnx__find_binary(buf, n)) >= 0)
		return cc_fail(d, file, 1, "binary data (byte 0x%02x), not a cc_params value", c);
	s = mlnx__trim(buf);
	if (!*s)
		return cc_fail(d, file, 1, "no value (a cc_params file holds one number)");
	if (strlen(s) >= size)
		return cc_fail(d, file, 1, "value \"%s\" is longer than %zu characters",
			       mlnx__quote(w, sizeof(w), s, strlen(s)), size - 1);
	memcpy(value, s, strlen(s) + 1);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * A copied cc_params folder: every regular file not starting with '.' is a
 * parameter named as the file, its value on the first line. Read in name
 * order so the entries (and any error) do not depend on the file system.
 */
static int cc_read_dir(const char *path, struct cc_params *out, struct diag *d)
{
	char **names = NULL, full[4096], value[sizeof(out->v->value)];
	size_t n = 0, cap = 0, ecap = 0, i;
	struct dirent *de;
	DIR *dir;
	int err = 0;

	dir = opendir(path);
	if (!dir) {
		err = -errno;
		diag_set(d, path, 0, "", "cannot open folder: %s", strerror(errno));
		return err;
	}
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 32;
			char **v = realloc(names, ncap * sizeof(*v));

			if (!v)
				goto out_nomem;
			names = v;
			cap = ncap;
		}
		names[n] = strdup(de->d_name);
		if (!names[n])
			goto out_nomem;
		n++;
	}
	closedir(dir);
	dir = NULL;
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++) {
		struct stat st;

		if ((size_t)snprintf(full, sizeof(full), "%s/%s", path, names[i]) >= sizeof(full)) {
			err = cc_fail(d, path, 0, "path of \"%s\" too long", names[i]);
			goto out_free;
		}
		if (stat(full, &st) || !S_ISREG(st.st_mode))
			continue; /* sub-folders, dangling links: not parameters */
		if ((err = cc_read_value(full, value, sizeof(value), d)) ||
		    (err = cc_add(out, &ecap, "", names[i], value, full, 1, d)))
			goto out_free;
	}
	if (!out->n)
		err = cc_fail(d, path, 0, "no parameter files in the folder: not cc_params");
	goto out_free;
out_nomem:
	diag_set(d, path, 0, "", "out of memory");
	err = -ENOMEM;
out_free:
	if (dir)
		closedir(dir);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return err;
}

int cc_params_read(const char *path, struct cc_params *out, struct diag *d)
{
	struct stat st;
	char *text;
	size_t len;
	int err;

	out->v = NULL;
	out->n = 0;
	if (stat(path, &st)) {
		err = -errno;
		diag_set(d, path, 0, "", "cannot open: %s", strerror(errno));
		return err;
	}
	if (S_ISDIR(st.st_mode)) {
		err = cc_read_dir(path, out, d);
	} else {
		err = textfile_load(path, 1, &text, &len, d);
		if (err)
			return err;
		err = cc_parse_text(text, len, path, out, d);
		free(text);
	}
	if (err)
		cc_params_free(out);
	return err;
}

void cc_params_free(struct cc_params *cc)
{
	if (!cc)
		return;
	free(cc->v);
	cc->v = NULL;
	cc->n = 0;
}

size_t cc_params_devices(const struct cc_params *cc, const char **dev, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < cc->n; i++) {
		size_t j;

		if (!cc->v[i].device[0])
			continue; /* every device's */
		for (j = 0; j < i && strcmp(cc->v[j].device, cc->v[i].device); j++)
			;
		if (j < i)
			continue;
		if (n < max)
			dev[n] = cc->v[i].device;
		n++;
	}
	if (!n && cc->n && max)
		dev[0] = "";
	return n ? n : cc->n != 0;
}

size_t cc_params_keep(struct cc_params *cc, const char *device)
{
	size_t n = 0;

	for (size_t i = 0; i < cc->n; i++)
		if (!strcmp(cc->v[i].device, device) || !cc->v[i].device[0])
			cc->v[n++] = cc->v[i];
	cc->n = n;
	return n;
}

/* The entry of @name of @device that counts (the last), or NULL. */
static const struct cc_entry *cc_get(const struct cc_params *cc, const char *device,
				     const char *name)
{
	const struct cc_entry *e = NULL;

	for (size_t i = 0; i < cc->n; i++)
		if (!strcmp(cc->v[i].device, device) && !strcmp(cc->v[i].name, name))
			e = &cc->v[i];
	return e;
}

/* Whether @e is the entry of its name in its device that counts. */
static int cc_counts(const struct cc_params *cc, const struct cc_entry *e)
{
	return cc_get(cc, e->device, e->name) == e;
}

size_t cc_params_diff(const struct cc_params *cc, const char *a, const char *b, struct cc_diff *out,
		      size_t max)
{
	size_t n = 0;

	/* names of a in file order, then names only b gives */
	for (int pass = 0; pass < 2; pass++) {
		const char *dev = pass ? b : a, *other = pass ? a : b;

		for (size_t i = 0; i < cc->n; i++) {
			const struct cc_entry *e = &cc->v[i], *o;

			if (strcmp(e->device, dev) || !cc_counts(cc, e))
				continue;
			o = cc_get(cc, other, e->name);
			if (pass && o)
				continue; /* seen in the first pass */
			if (o && !strcmp(o->value, e->value))
				continue;
			if (n < max)
				out[n] = pass ? (struct cc_diff){o, e} : (struct cc_diff){e, o};
			n++;
		}
	}
	return n;
}

size_t cc_params_diff_str(const struct cc_params *cc, const char *a, const char *b, char *buf,
			  size_t size)
{
	struct cc_diff df[4];
	size_t n = cc_params_diff(cc, a, b, df, 4), at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && i < 4 && at < size; i++) {
		const struct cc_entry *x = df[i].a ? df[i].a : df[i].b;
		char va[96], vb[96];

		if (df[i].a)
			snprintf(va, sizeof(va), "%s (line %d)", df[i].a->value, df[i].a->line);
		else
			snprintf(va, sizeof(va), "not given");
		if (df[i].b)
			snprintf(vb, sizeof(vb), "%s (line %d)", df[i].b->value, df[i].b->line);
		else
			snprintf(vb, sizeof(vb), "not given");
		at += (size_t)snprintf(buf + at, size - at, "%s%s %s against %s", i ? ", " : "",
				       x->name, va, vb);
	}
	if (n > 4 && at < size)
		snprintf(buf + at, size - at, " and %zu more", n - 4);
	return n;
}

size_t cc_params_first_differ(const struct cc_params *cc, const char **a, const char **b)
{
	const char *dev[64];
	size_t n = cc_params_devices(cc, dev, 64);

	for (size_t i = 1; i < n && i < 64; i++) {
		if (cc_params_diff(cc, dev[0], dev[i], NULL, 0)) {
			*a = dev[0];
			*b = dev[i];
			return 1;
		}
	}
	return 0;
}
