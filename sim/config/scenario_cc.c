/*
 * nic.cc_params as the scenario gives it, and which device's parameters
 * it takes:
 *
 *   cc_params: configs/cc_params.txt          a folder, or grep output
 *   cc_params: {file: configs/cc_params.txt,  one device of a dump of
 *               device: 0000:3b:00.1}         several
 *
 * (--set nic.cc_params=FILE, nic.cc_params.file=FILE and
 * nic.cc_params.device=PCI as well.) grep run over the cc_params folders
 * of every PCI function of a card (/sys/kernel/debug/mlx5/0000:3b:00.0,
 * 0000:3b:00.1, ...) prints lines that name their device. rocesim gives every NIC of the fabric one
 * set of DCQCN parameters (struct nic_params): a dump whose devices agree is taken as it is, one
 * whose devices differ is refused, naming both devices and the names they set differently, unless
 * device: picks one. `check` (lenient) takes the first device and reports the difference
 * (CC_PARAM_DEVICES).
 */
#include "sim/config/scenario.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/readers/mlnx.h"
#include "sim/config/scenario_impl.h"
#include "sim/readers/ydoc.h"

/* The file and device the scenario and --set give, with the key that names the file. */
struct cc_given {
	const char *file, *device, *file_key;
};

static int cc_unknown(const struct loader *l, const char *path)
{
	return scn__fail(l, path, "unknown key (expected one of: file, device)");
}

/* @sub ("", ".file" or ".device") of nic.cc_params set to @value. */
static int cc_put(const struct loader *l, struct cc_given *g, const char *path, const char *sub,
		  const char *value)
{
	if (!*sub) {
		g->file = value;
		g->file_key = CC_KEY;
		g->device = NULL;
	} else if (!strcmp(sub, ".file")) {
		g->file = value;
		g->file_key = CC_KEY ".file";
	} else if (!strcmp(sub, ".device")) {
		g->device = value;
	} else {
		return cc_unknown(l, path);
	}
	return 0;
}

static int cc_gather(const struct loader *l, struct cc_given *g)
{
	const struct ydoc_entry *e = ydoc_find(l->raw->doc, CC_KEY);
	size_t n = strlen(CC_KEY);
	int err;

	memset(g, 0, sizeof(*g));
	if (e && e->value && (err = cc_put(l, g, CC_KEY, "", e->value)))
		return err;
	for (size_t i = 0; e && !e->value && i < ydoc_count(l->raw->doc); i++) {
		const struct ydoc_entry *m = ydoc_at(l->raw->doc, i);

		if (strncmp(m->path, CC_KEY, n) || m->path[n] != '.')
			continue;
		if (!m->value)
			return cc_unknown(l, m->path);
		if ((err = cc_put(l, g, m->path, m->path + n, m->value)))
			return err;
	}
	for (size_t i = 0; i < l->n_sets; i++) {
		const char *kv = l->sets[i], *eq = strchr(kv, '=');
		char key[96];

		if (!scn__cc_set(kv) || !eq || (size_t)(eq - kv) >= sizeof(key))
			continue;
		memcpy(key, kv, (size_t)(eq - kv));
		key[eq - kv] = '\0';
		if ((err = cc_put(l, g, key, key + n, eq + 1)))
			return err;
	}
	if (e && !e->value && !g->file)
		return scn__fail(l, CC_KEY,
				 "needs file: (e.g. {file: cc_params.txt, device: "
				 "0000:3b:00.1})");
	if (g->file && !g->file[0])
		return scn__fail(l, g->file_key, "is empty: expected a file or a folder");
	if (g->device && !g->device[0])
		return scn__fail(l, CC_KEY ".device",
				 "is empty: expected a PCI device (e.g. "
				 "0000:3b:00.1)");
	return 0;
}

/* "0000:3b:00.0, 0000:3b:00.1" into @buf; "" is "(no device)". */
static const char *cc_list(const char *const *dev, size_t n, size_t max, char *buf, size_t size)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && i < max && at < size; i++)
		at += (size_t)snprintf(buf + at, size - at, "%s%s", i ? ", " : "",
				       dev[i][0] ? dev[i] : "(no device)");
	if (n > max && at < size)
		snprintf(buf + at, size - at, " and %zu more", n - max);
	return buf;
}

int scn__cc_params_read(struct loader *l, struct scenario *s)
{
	struct cc_params *cc = &l->raw->cfg.cc;
	const char *dev[64], *a, *b;
	struct cc_given g;
	struct diag d = {0};
	char list[300], diff[600];
	size_t n;
	int err;

	if ((err = cc_gather(l, &g)))
		return err;
	if (!g.file) /* a device of no dump: read, and used by nothing */
		return g.device
			   ? scn__fail(l, CC_KEY ".device",
				       "names a device of no file: give nic.cc_params.file too")
			   : 0;
	if (!(s->cfg.cc_params = scn__config_path(l, g.file_key, g.file)))
		return -ENOMEM;
	if (g.device && !(s->cfg.cc_device = strdup(g.device)))
		return -ENOMEM;
	if ((err = cc_params_read(s->cfg.cc_params, cc, &d)))
		return err == -ENOMEM ? err : scn__config_fail(l, g.file_key, &d);
	n = cc_params_devices(cc, dev, 64);
	cc_list(dev, n, 8, list, sizeof(list));
	if (g.device && n == 1 && !dev[0][0])
		return scn__fail(
		    l, CC_KEY ".device",
		    "%s names no device (its lines are not /sys/kernel/debug/mlx5/"
		    "<PCI>/cc_params/<name>:<value>): give nic.cc_params the file alone",
		    s->cfg.cc_params);
	if (g.device && !cc_params_keep(cc, g.device))
		return scn__fail(l, CC_KEY ".device", "\"%s\" is no device of %s (it holds %s)",
				 g.device, s->cfg.cc_params, list);
	if (g.device || n < 2)
		return 0;
	if (cc_params_first_differ(cc, &a, &b) && !(l->raw->cfg.flags & SCN_LOAD_LENIENT)) {
		struct cc_diff df;

		cc_params_diff_str(cc, a, b, diff, sizeof(diff));
		cc_params_diff(cc, a, b, &df, 1);
		diag_set(l->d, df.b ? df.b->file : df.a->file, df.b ? df.b->line : df.a->line,
			 df.b ? df.b->name : df.a->name,
			 "devices %s and %s give different DCQCN parameters: %s; rocesim gives "
			 "every NIC one set of them, so pick a device: nic.cc_params: {file: %s, "
			 "device: %s}",
			 a[0] ? a : "(no device)", b[0] ? b : "(no device)", diff, g.file,
			 b[0] ? b : a);
		return -EINVAL;
	}
	/* devices that agree (or check's lenient load): the first one's entries */
	cc_params_keep(cc, dev[0]);
	return 0;
}
