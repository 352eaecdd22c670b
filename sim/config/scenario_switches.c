/*
 * switch.sonic as the scenario gives it:
 *
 *   sonic: configs/config_db.json       one file for every switch
 *   sonic: configs/fabric/              a folder: one file per switch, any
 *                                       name ending in .json, each naming its
 *                                       switch by DEVICE_METADATA|localhost|hostname
 *   sonic: {leaf0: configs/leaf.json,   a mapping of switch names to files
 *           spine0: configs/spine.json}
 *
 * (--set switch.sonic=FILE or switch.sonic.NAME=FILE as well.) One file is
 * merged into the scenario's own switch settings (scenario_configs.c).
 * With a file per switch, the scenario's settings stay those of the
 * switches no file names, and each file's are found by loading the
 * scenario again with that file alone (the loader's load_switch): every check and
 * refusal then applies to each switch's settings as to the scenario's.
 * Switches that share a file share one load. scn_resolve maps the names to
 * the topology's switches (scn__resolve_switches).
 */
#include "sim/config/scenario.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/config/scenario_impl.h"
#include "sim/readers/sonic.h"
#include "sim/readers/ydoc.h"

/* One file switch.sonic gives: for every switch ("switch.sonic"), or for one ("switch.sonic.NAME").
 */
struct sonic_item {
	char key[160];
	const char *value;
};

struct sonic_items {
	struct sonic_item *v;
	size_t n;
	int single; /* one file (or folder) for every switch */
};

static int item_put(struct sonic_items *it, const char *key, const char *value)
{
	struct sonic_item *v;
	size_t i;

	for (i = 0; i < it->n && strcmp(it->v[i].key, key); i++)
		;
	if (i == it->n) {
		v = realloc(it->v, (it->n + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		it->v = v;
		it->n++;
	}
	snprintf(it->v[i].key, sizeof(it->v[i].key), "%s", key);
	it->v[i].value = value;
	return 0;
}

static int not_a_name(const struct loader *l, const char *key)
{
	return scn__fail(l, key,
			 "expected a file, a folder, or a mapping of switch names to "
			 "files (e.g. {leaf0: leaf0.json, spine0: spine.json})");
}

/* What the scenario (and --set) give as switch.sonic. */
static int gather(const struct loader *l, struct sonic_items *it)
{
	const struct ydoc_entry *e = ydoc_find(l->raw->doc, SONIC_KEY);
	size_t n = strlen(SONIC_KEY);
	int err;

	if (e && e->value) {
		it->single = 1;
		if ((err = item_put(it, SONIC_KEY, e->value)))
			return err;
	}
	for (size_t i = 0; e && !e->value && i < ydoc_count(l->raw->doc); i++) {
		const struct ydoc_entry *m = ydoc_at(l->raw->doc, i);

		if (strncmp(m->path, SONIC_KEY, n) || !m->path[n])
			continue;
		if (m->path[n] != '.' || strpbrk(m->path + n + 1, ".[") || !m->value)
			return not_a_name(l, m->path[n] == '.' ? m->path : SONIC_KEY);
		if ((err = item_put(it, m->path, m->value)))
			return err;
	}
	for (size_t i = 0; i < l->n_sets; i++) {
		const char *eq = strchr(l->sets[i], '=');
		char key[160];

		if (!scn__sonic_set(l->sets[i]) || !eq || (size_t)(eq - l->sets[i]) >= sizeof(key))
			continue;
		memcpy(key, l->sets[i], (size_t)(eq - l->sets[i]));
		key[eq - l->sets[i]] = '\0';
		if (!key[n]) {
			it->n = 0;
			it->single = 1;
		} else if (strpbrk(key + n + 1, ".[") || !key[n + 1]) {
			return not_a_name(l, key);
		} else if (it->single && it->n) {
			return scn__fail(l, key,
					 "switch.sonic gives one file for every switch; a "
					 "file for one switch needs a mapping of them all");
		}
		if ((err = item_put(it, key, eq + 1)))
			return err;
	}
	for (size_t i = 0; i < it->n; i++)
		if (!it->v[i].value[0])
			return scn__fail(l, it->v[i].key, "is empty: expected a file or a folder");
	return 0;
}

/*
 * Switch @name (NULL: the file's hostname) takes the settings @path gives
 * (key @key): loaded once per file.
 */
static int add_switch(struct loader *l, struct scenario *s, const char *name, const char *key,
		      const char *path)
{
	struct scn_switch *sw, *v = realloc(s->switches, (s->n_switches + 1) * sizeof(*v));
	struct scenario *cfg = NULL;
	int owns = 1, err;

	if (!v)
		return -ENOMEM;
	s->switches = v;
	for (uint32_t i = 0; i < s->n_switches; i++)
		if (!strcmp(v[i].file, path)) {
			cfg = v[i].cfg;
			owns = 0;
		}
	if (!cfg && (err = l->load_switch(l, key, path, &cfg)))
		return err;
	sw = &v[s->n_switches++];
	*sw = (struct scn_switch){.cfg = cfg, .owns = owns};
	if (!name) {
		const struct sonic_cfg *c = cfg->raw->cfg.sonic;

		name = c->hostname;
		sw->line = c->hostname_line;
	}
	if (!(sw->name = strdup(name)) || !(sw->file = strdup(path)) || !(sw->key = strdup(key)))
		return -ENOMEM;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.json files of @dir (named by @key), each naming its switch by its hostname. */
static int add_folder(struct loader *l, struct scenario *s, const char *key, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL, path[4096];
	size_t n = 0;
	int err = 0;

	if (!d)
		return scn__fail(l, key, "cannot read the folder %s: %s", dir, strerror(errno));
	while (!err && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		struct stat st;
		char **v;

		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".json") || stat(path, &st) ||
		    !S_ISREG(st.st_mode))
			continue;
		v = realloc(names, (n + 1) * sizeof(*v));
		if (v)
			names = v;
		if (!v || !(names[n++] = strdup(e->d_name)))
			err = -ENOMEM;
	}
	closedir(d);
	if (!err && !n)
		err = scn__fail(l, key, "the folder %s holds no .json file", dir);
	if (!err)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; !err && i < n; i++) {
		const struct scn_switch *sw;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if ((err = add_switch(l, s, NULL, key, path)))
			break;
		sw = &s->switches[s->n_switches - 1];
		if (!sw->name[0]) {
			diag_set(l->d, path, 1, "DEVICE_METADATA|localhost|hostname",
				 "missing: each file of the folder %s names its switch by its "
				 "hostname (%s)",
				 dir, key);
			err = -EINVAL;
		}
		for (uint32_t k = 0; !err && k + 1 < s->n_switches; k++)
			if (!strcmp(s->switches[k].name, sw->name)) {
				diag_set(
				    l->d, path, sw->line, "DEVICE_METADATA|localhost|hostname",
				    "\"%s\" is also the hostname of %s:%d: one file per switch "
				    "(%s)",
				    sw->name, s->switches[k].file, s->switches[k].line, key);
				err = -EINVAL;
			}
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return err;
}

static int by_hostname(const void *a, const void *b)
{
	return sonic_port_cmp(((const struct topo_sonic_switch *)a)->name,
			      ((const struct topo_sonic_switch *)b)->name);
}

/*
 * Topology kind sonic: the switches of topology.dir, and what their files
 * say is cabled where (s->sonic_desc, for topo_sonic_load): the switches by
 * hostname, as names sort with numbers by value (leaf2 before leaf10);
 * each one's ports that have a neighbour, by number.
 */
static int sonic_topology(struct loader *l, struct scenario *s, const char *dir)
{
	uint32_t n_ports = 0, k = 0;
	char *path;
	int err;

	if (ydoc_find(l->raw->doc, SONIC_KEY) || scn__set_by_user(l->raw, SONIC_KEY))
		return scn__fail(l, SONIC_KEY,
				 "topology kind sonic takes each switch's settings "
				 "from the files of topology.dir: give one or the other");
	if (!(path = scn__config_path(l, "topology.dir", dir)))
		return -ENOMEM;
	err = add_folder(l, s, "topology.dir", path);
	free(path);
	if (err)
		return err;
	for (uint32_t i = 0; i < s->n_switches; i++) {
		const struct sonic_cfg *c = s->switches[i].cfg->raw->cfg.sonic;

		for (uint32_t j = 0; j < c->n_ports; j++)
			n_ports += c->ports[j].nbr[0] != '\0';
	}
	s->sonic_sw = calloc(s->n_switches, sizeof(*s->sonic_sw));
	s->sonic_desc_ports = calloc(n_ports ? n_ports : 1, sizeof(*s->sonic_desc_ports));
	if (!s->sonic_sw || !s->sonic_desc_ports)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->n_switches; i++) {
		const struct sonic_cfg *c = s->switches[i].cfg->raw->cfg.sonic;
		struct topo_sonic_switch *sw = &s->sonic_sw[i];

		*sw = (struct topo_sonic_switch){.name = s->switches[i].name,
						 .file = s->switches[i].file,
						 .ports = &s->sonic_desc_ports[k]};
		for (uint32_t j = 0; j < c->n_ports; j++) {
			const struct sonic_port *p = &c->ports[j];

			if (!p->nbr[0])
				continue;
			s->sonic_desc_ports[k++] =
			    (struct topo_sonic_port){.name = p->name,
						     .rate_bps = p->speed_bps,
						     .delay = p->cable_mm * SIMTIME_PS_PER_MM,
						     .has_delay = p->has_cable,
						     .nbr = p->nbr,
						     .nbr_port = p->nbr_port,
						     .line = p->nbr_line,
						     .index = j};
			sw->n_ports++;
		}
	}
	qsort(s->sonic_sw, s->n_switches, sizeof(*s->sonic_sw), by_hostname);
	s->sonic_desc = (struct topo_sonic){s->sonic_sw, s->n_switches};
	return 0;
}

int scn__merge_sonic(struct loader *l, struct scenario *s)
{
	const struct raw_topology *topo = l->raw->top->topology;
	struct sonic_items it = {0};
	struct stat st;
	char *path = NULL;
	int err;

	if (l->force_file)
		return scn__merge_sonic_file(l, s, l->force_key, l->force_file);
	if (topo && topo->kind == 1 + TOPO_SONIC)
		return topo->dir ? sonic_topology(l, s, topo->dir) : 0;
	err = gather(l, &it);
	for (size_t i = 0; !err && i < it.n; i++) {
		free(path);
		if (!(path = scn__config_path(l, it.v[i].key, it.v[i].value)))
			err = -ENOMEM;
		else if (it.single && !stat(path, &st) && S_ISDIR(st.st_mode))
			err = add_folder(l, s, SONIC_KEY, path);
		else if (it.single)
			err = scn__merge_sonic_file(l, s, SONIC_KEY, path);
		else
			err = add_switch(l, s, it.v[i].key + strlen(SONIC_KEY) + 1, it.v[i].key,
					 path);
	}
	free(path);
	free(it.v);
	return err;
}

/*
 * The settings of switch @sw, node @u of @t: its file's, with each port's
 * own in topology order. A topology of kind sonic knows which config port
 * each of its ports is (t->port_cfg); the others take the i-th by number.
 */
static int switch_ports(struct scn_switch *sw, const struct topo *t, uint32_t u)
{
	const struct sw_params *own = &sw->cfg->sw;
	const struct topo_node *tn = &t->nodes[u];

	free(sw->ports);
	sw->ports = NULL;
	sw->sw = *own;
	if (!t->port_cfg || !own->port_params)
		return 0;
	sw->ports = calloc(tn->n_ports ? tn->n_ports : 1, sizeof(*sw->ports));
	if (!sw->ports)
		return -ENOMEM;
	for (uint32_t j = 0; j < tn->n_ports; j++) {
		uint32_t k = t->port_cfg[tn->first_port + j];
		struct sw_port_params *p = &sw->ports[j];

		if (k < own->n_port_params) {
			*p = own->port_params[k];
			continue;
		}
		*p = (struct sw_port_params){.lossless = own->lossless,
					     .pfc = own->pfc,
					     .sched = own->sched,
					     .cnp_weighted = own->cnp_weighted};
		memcpy(p->dscp_to_tc, own->dscp_to_tc, sizeof(p->dscp_to_tc));
		memcpy(p->weights, own->weights, sizeof(p->weights));
	}
	sw->sw.port_params = sw->ports;
	sw->sw.n_port_params = tn->n_ports;
	return 0;
}

int scn__resolve_switches(struct scenario *s, const struct topo *t, struct diag *d)
{
	struct loader l = {.file = s->file, .raw = s->raw, .d = d};
	int err;

	free(s->sw_node);
	s->sw_node = NULL;
	s->sw_main_used = 0;
	if (!s->n_switches)
		return 0;
	s->sw_node = calloc(t->n_nodes ? t->n_nodes : 1, sizeof(*s->sw_node));
	if (!s->sw_node)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->n_switches; i++) {
		const struct scn_switch *sw = &s->switches[i];
		int32_t u = topo_find_node(t, sw->name);

		if (u >= 0 && t->nodes[u].kind == TOPO_SWITCH) {
			if ((err = switch_ports(&s->switches[i], t, (uint32_t)u)))
				return err;
			s->sw_node[u] = &s->switches[i].sw;
			continue;
		}
		if (sw->line > 0) { /* a folder's file: its hostname */
			diag_set(d, sw->file, sw->line, "DEVICE_METADATA|localhost|hostname",
				 "\"%s\" is %s of the topology (switch.sonic)", sw->name,
				 u >= 0 ? "a host, not a switch," : "no switch");
			return -EINVAL;
		}
		return scn__fail(&l, sw->key, "\"%s\" is %s of the topology", sw->name,
				 u >= 0 ? "a host, not a switch," : "no switch");
	}
	for (uint32_t u = 0; u < t->n_nodes; u++)
		s->sw_main_used |= t->nodes[u].kind == TOPO_SWITCH && !s->sw_node[u];
	return 0;
}

static uint8_t sw_lossless(const struct sw_params *sw)
{
	uint8_t m = sw->lossless;

	if (!sw->pfc.enabled)
		return 0;
	for (uint32_t i = 0; i < sw->n_port_params; i++)
		m |= sw->port_params[i].pfc.enabled ? sw->port_params[i].lossless : 0;
	return m;
}

uint8_t scn_lossless(const struct scenario *s)
{
	uint8_t m;

	if (!s->n_switches || !s->sw_node)
		return sw_lossless(&s->sw);
	m = s->sw_main_used ? sw_lossless(&s->sw) : 0;
	for (uint32_t i = 0; i < s->n_switches; i++)
		m |= sw_lossless(&s->switches[i].cfg->sw);
	return m;
}
