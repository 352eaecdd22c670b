/*
 * `ethtool -S IF` of an mlx5 NIC (measured.h): the "NIC statistics:" line
 * ethtool prints first (ethtool.c, do_gstats), then a line a counter,
 * "     name: value", value a decimal unsigned 64-bit number. Every counter
 * is kept as printed; the names and units are the kernel's (mlx5
 * counters.rst).
 */
#include "sim/readers/measured.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/textfile.h"
#include "sim/readers/mlnx_impl.h"

static int et_fail(struct diag *d, const char *file, int line, const char *what, const char *s)
{
	char w[100];

	diag_set(d, file, line, "", "%s: \"%s\"", what, mlnx__quote(w, sizeof(w), s, strlen(s)));
	return -EINVAL;
}

/* A line "name: value" of counter @name, after the header. */
static int et_line(char *s, const char *file, int line, struct mc_set *out, struct diag *d)
{
	char *colon = strchr(s, ':'), *name, *value;
	const struct mc_counter *twice;
	uint64_t v;
	int na;

	if (!colon)
		return et_fail(d, file, line, "no ':' after the counter's name (a line cut short?)",
			       s);
	*colon = '\0';
	name = mlnx__trim(s);
	value = mlnx__trim(colon + 1);
	if (!*name || strpbrk(name, " \t"))
		return et_fail(d, file, line, "not a counter name", name);
	if (!*value)
		return et_fail(d, file, line, "no value (a line cut short?) for", name);
	if (mc__number(value, 0, 0, &v, &na)) {
		diag_set(d, file, line, name, "\"%.40s\" is not a counter value (a whole number)",
			 value);
		return -EINVAL;
	}
	if ((twice = mc_find(out, "", name))) {
		diag_set(d, file, line, name,
			 "given twice (line %d too): two readings in one file? give them as "
			 "two files, before and after",
			 twice->line);
		return -EINVAL;
	}
	return mc__add(out, file, line, "", name, v, 0, d);
}

int mc_ethtool_parse(const char *text, size_t len, const char *file, struct mc_set *out,
		     struct diag *d)
{
	struct lines ls;
	int header = 0, err = 0;
	size_t n;
	char *buf, *s;

	if (!(buf = mc__start(out, MC_ETHTOOL, &file, text, len, d)))
		return -ENOMEM;
	lines_init(&ls, buf, len);
	while (!err && (s = lines_next(&ls, &n))) {
		int c = mlnx__find_binary(s, n);

		if (c >= 0) {
			diag_set(d, file, ls.no, "",
				 "binary data (byte 0x%02x), not ethtool -S output", c);
			err = -EINVAL;
			break;
		}
		s = mlnx__trim(s);
		if (!*s)
			continue;
		if (!header) {
			if (strcmp(s, "NIC statistics:"))
				err = et_fail(d, file, ls.no,
					      "not `ethtool -S` output (it starts with \"NIC "
					      "statistics:\")",
					      s);
			header = 1;
			continue;
		}
		err = et_line(s, file, ls.no, out, d);
	}
	if (!err && !out->n) {
		diag_set(d, file, ls.no, "",
			 header ? "no counter after \"NIC statistics:\" (the output cut short?)"
				: "empty: not `ethtool -S` output");
		err = -EINVAL;
	}
	free(buf);
	if (err)
		mc_free(out);
	return err;
}

int mc_ethtool_read(const char *path, struct mc_set *out, struct diag *d)
{
	char *text;
	size_t len;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = textfile_load(path, 1, &text, &len, d)))
		return err;
	err = mc_ethtool_parse(text, len, path, out, d);
	free(text);
	return err;
}
