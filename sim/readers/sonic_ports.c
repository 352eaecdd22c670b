/*
 * The port tables of config_db.json (the SONiC reader, sonic.c): PORT (the
 * ports, in the order of the numbers in their names; speed, MTU, admin
 * status), CABLE_LENGTH, and PORT_QOS_MAP with the maps it names
 * (DSCP_TO_TC_MAP, TC_TO_PRIORITY_GROUP_MAP, TC_TO_QUEUE_MAP) and
 * pfc_enable, for each port and for the switch (what most ports have).
 */
#include "sim/readers/sonic_cfg.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "sim/readers/sonic_ctx.h"
#include "sim/engine/units.h"

int sonic_port_cmp(const char *a, const char *b)
{
	const char *p = a, *q = b;

	while (*p && *q) {
		if (*p >= '0' && *p <= '9' && *q >= '0' && *q <= '9') {
			const char *pe, *qe;
			size_t pn, qn;

			while (*p == '0' && p[1] >= '0' && p[1] <= '9')
				p++;
			while (*q == '0' && q[1] >= '0' && q[1] <= '9')
				q++;
			for (pe = p; *pe >= '0' && *pe <= '9'; pe++)
				;
			for (qe = q; *qe >= '0' && *qe <= '9'; qe++)
				;
			pn = (size_t)(pe - p);
			qn = (size_t)(qe - q);
			if (pn != qn)
				return pn < qn ? -1 : 1;
			for (; p < pe; p++, q++)
				if (*p != *q)
					return *p < *q ? -1 : 1;
			continue;
		}
		if (*p != *q)
			return (unsigned char)*p < (unsigned char)*q ? -1 : 1;
		p++;
		q++;
	}
	if (*p || *q)
		return *p ? 1 : -1;
	return strcmp(a, b); /* "Ethernet04" and "Ethernet4": still a total order */
}

static int port_cmp(const void *x, const void *y)
{
	return sonic_port_cmp(((const struct sonic_port *)x)->name,
			      ((const struct sonic_port *)y)->name);
}

int sonic_port_index(const struct sonic_cfg *c, const char *name)
{
	size_t lo = 0, hi = c->n_ports;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = sonic_port_cmp(name, c->ports[mid].name);

		if (!r)
			return (int)mid;
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

int sonic__each_port(struct sonic_ctx *c, const char *key, int bar,
		     int (*fn)(struct sonic_ctx *c, struct sonic_port *p, void *arg), void *arg)
{
	const char *end = bar ? strrchr(key, '|') : NULL;
	char name[SONIC_NAME];

	if (!end)
		end = key + strlen(key);
	while (key < end) {
		const char *comma = memchr(key, ',', (size_t)(end - key));
		size_t n = (size_t)((comma ? comma : end) - key);
		int i, err;

		if (n < sizeof(name)) {
			memcpy(name, key, n);
			name[n] = '\0';
			i = sonic_port_index(c->cfg, name);
			if (i >= 0 && (err = fn(c, &c->cfg->ports[i], arg)))
				return err;
		}
		key += n + (comma != NULL);
	}
	return 0;
}

/* One row of PORT: its name, speed, MTU and admin status. */
static int read_port(struct sonic_ctx *c, const char *key, const json_t *v, struct sonic_port *p)
{
	const char *admin;
	uint64_t x;
	int has, err;

	err = sonic__need_object(c, "PORT", key, v);
	if (err)
		return err;
	memset(p, 0, sizeof(*p));
	p->dscp_map = -1;
	p->profile = -1;
	p->wred = -1;
	for (int i = 0; i < 8; i++)
		p->tc_to_pg[i] = p->tc_to_queue[i] = (uint8_t)i;
	/* speed is in Mb/s */
	err = sonic__get_u64(c, v, "PORT", key, "speed", UINT64_MAX / 1000000, &x, &has);
	if (err)
		return err;
	p->speed_bps = has ? x * 1000000 : 0;
	err = sonic__get_u64(c, v, "PORT", key, "mtu", UINT32_MAX, &x, &has);
	if (err)
		return err;
	p->mtu = has ? (uint32_t)x : 0;
	err = sonic__get_str(c, v, "PORT", key, "admin_status", &admin);
	if (err || !admin)
		return err;
	if (strcmp(admin, "up") && strcmp(admin, "down")) {
		char b[SHOW_SIZE];

		return sonic__fail(c, "PORT", key, "admin_status", "\"%s\" is not up or down",
				   sonic__shows(b, admin));
	}
	p->admin_down = !strcmp(admin, "down");
	return 0;
}

/* PORT|@key: its fields, then its name, which must fit. */
static int read_port_named(struct sonic_ctx *c, const char *key, const json_t *v,
			   struct sonic_port *p)
{
	int err = read_port(c, key, v, p);

	if (!err && strlen(key) >= sizeof(p->name))
		err = sonic__fail(c, "PORT", key, NULL, "port name longer than %zu characters",
				  sizeof(p->name) - 1);
	if (!err)
		memcpy(p->name, key, strlen(key) + 1);
	return err;
}

/* PORT: every port, in order; the most common speed and MTU. */
int sonic__read_ports(struct sonic_ctx *c)
{
	struct sonic_cfg *cfg = c->cfg;
	struct sonic_vote *speed = NULL, *mtu = NULL;
	const struct sonic_vote *w;
	struct sonic_rows rows;
	size_t ns = 0, nm = 0, i = 0;
	const char *key;
	json_t *t, *v;
	int err;

	t = json_object_get(c->root, "PORT");
	if (!t)
		return sonic__fail(c, NULL, NULL, NULL,
				   "no PORT table: not a SONiC config_db.json?");
	err = sonic__get_table(c, "PORT", &t);
	if (err)
		return err;
	if (json_object_size(t) == 0)
		return sonic__fail(c, "PORT", NULL, NULL, "has no ports");
	if (json_object_size(t) > SONIC_PORTS_MAX)
		return sonic__fail(c, "PORT", NULL, NULL, "has %zu ports, more than %d",
				   json_object_size(t), SONIC_PORTS_MAX);
	json_object_foreach(t, key, v) {
		err = read_port_named(c, key, v, &cfg->ports[i++]);
		if (err)
			return err;
	}
	cfg->n_ports = (uint32_t)i;
	qsort(cfg->ports, i, sizeof(cfg->ports[0]), port_cmp);
	if ((err = sonic__rows_index(c, "PORT", &rows)))
		return err;
	for (i = 0; i < cfg->n_ports; i++)
		cfg->ports[i].line = sonic__rows_line(c, &rows, cfg->ports[i].name, NULL);
	sonic__rows_free(&rows);
	speed = sonic__votes_for(t);
	mtu = sonic__votes_for(t);
	if (!speed || !mtu) {
		err = sonic__nomem(c);
		goto out_free;
	}
	for (i = 0; i < cfg->n_ports; i++) {
		if (cfg->ports[i].speed_bps)
			speed[ns++] = (struct sonic_vote){.a = cfg->ports[i].speed_bps, .order = i};
		if (cfg->ports[i].mtu)
			mtu[nm++] = (struct sonic_vote){.a = cfg->ports[i].mtu, .order = i};
	}
	w = sonic__vote_winner(speed, ns);
	if (w)
		cfg->port_speed_bps = w->a;
	w = sonic__vote_winner(mtu, nm);
	if (w)
		cfg->port_mtu = (uint32_t)w->a;
out_free:
	free(mtu);
	free(speed);
	return err;
}

/* CABLE_LENGTH|<any name>|<port> = "300m": each port's, and the longest. */
int sonic__read_cables(struct sonic_ctx *c)
{
	const char *name, *port;
	struct sonic_rows rows;
	json_t *t, *row, *v;
	int err = sonic__get_table(c, "CABLE_LENGTH", &t);

	if (err || !t)
		return err;
	if ((err = sonic__rows_index(c, "CABLE_LENGTH", &rows)))
		return err;
	json_object_foreach(t, name, row) {
		err = sonic__need_object(c, "CABLE_LENGTH", name, row);
		if (err)
			goto out;
		json_object_foreach(row, port, v) {
			char b[SHOW_SIZE];
			uint64_t mm;
			int uerr, i;

			/* the port is the field */
			err = sonic__need_string(c, "CABLE_LENGTH", name, port, v);
			if (err)
				goto out;
			uerr = units_length(json_string_value(v), &mm);
			if (uerr) {
				err = sonic__fail(c, "CABLE_LENGTH", name, port,
						  "\"%s\" is not a length such as \"5m\" (%s)",
						  sonic__shows(b, json_string_value(v)),
						  units_strerror(uerr));
				goto out;
			}
			if (mm > c->cfg->cable_mm)
				c->cfg->cable_mm = mm;
			i = sonic_port_index(c->cfg, port);
			if (i >= 0 &&
			    (!c->cfg->ports[i].has_cable || mm > c->cfg->ports[i].cable_mm)) {
				c->cfg->ports[i].has_cable = 1;
				c->cfg->ports[i].cable_mm = mm;
				c->cfg->ports[i].cable_line =
				    sonic__rows_line(c, &rows, name, port);
			}
		}
	}
out:
	sonic__rows_free(&rows);
	return err;
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
	int err = sonic__get_table(c, name, t);

	if (err || !*t)
		return err;
	json_object_foreach(*t, map, row) {
		err = sonic__need_object(c, name, map, row);
		if (err)
			return err;
		json_object_foreach(row, k, v) {
			char b[SHOW_SIZE];
			uint64_t x;

			if (sonic__parse_u64(k, strlen(k), kmax, &x))
				return sonic__fail(c, name, map, k,
						   "key \"%s\" is not a number 0..%u",
						   sonic__shows(b, k), kmax);
			err = sonic__need_string(c, name, map, k, v);
			if (err)
				return err;
			if (sonic__parse_u64(json_string_value(v), json_string_length(v), vmax, &x))
				return sonic__fail(c, name, map, k, "\"%s\" is not a number 0..%u",
						   sonic__shows(b, json_string_value(v)), vmax);
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

		sonic__parse_u64(k, strlen(k), 63, &key);
		sonic__parse_u64(json_string_value(v), json_string_length(v), 63, &val);
		out[key] = (uint8_t)val;
		if (given)
			*given |= 1ULL << key;
	}
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
	if (!sonic__json_find(c->text, end, names, 2, &value) || !value)
		return;
	json_object_foreach(row, k, v) {
		const char *val, *at = sonic__json_find(value, end, &k, 1, &val);
		uint64_t d;

		if (at && !sonic__parse_u64(k, strlen(k), 63, &d))
			lines[d] = sonic__line_at(c->text, at);
	}
}

/* One map name field of a PORT_QOS_MAP row: checked; *@r its name (len 0: none). */
static int qos_ref(struct sonic_ctx *c, const char *key, const json_t *row, const char *field,
		   json_t *maps, const char *target, struct sonic_ref *r)
{
	const char *s;
	json_t *m;
	int err = sonic__get_str(c, row, "PORT_QOS_MAP", key, field, &s);

	*r = (struct sonic_ref){"", 0};
	if (err || !s)
		return err;
	err = sonic__get_ref(c, "PORT_QOS_MAP", key, field, s, target, r);
	if (!err)
		err = sonic__find_ref(c, "PORT_QOS_MAP", key, field, maps, target, *r, &m);
	return err;
}

/* The DSCP map @r in sonic_cfg.maps (added when first named): its index, or an error. */
static int use_map(struct sonic_ctx *c, const char *key, struct sonic_ref r, int *index)
{
	struct sonic_cfg *cfg = c->cfg;
	struct sonic_map_use *m;
	char name[sizeof(m->name)];
	int err;

	err = sonic__copy_ref(c, "PORT_QOS_MAP", key, "dscp_to_tc_map", name, sizeof(name), r);
	if (err)
		return err;
	for (uint32_t i = 0; i < cfg->n_maps; i++)
		if (!strcmp(cfg->maps[i].name, name)) {
			*index = (int)i;
			return 0;
		}
	if (cfg->n_maps == SONIC_MAPS_MAX)
		return sonic__fail(c, "PORT_QOS_MAP", key, "dscp_to_tc_map",
				   "more than %d DSCP_TO_TC_MAPs in use", SONIC_MAPS_MAX);
	m = &cfg->maps[cfg->n_maps];
	memcpy(m->name, name, sizeof(name));
	fill_map(json_object_getn(c->dscp_maps, r.s, r.len), m->to_tc, &m->given);
	m->line = sonic__line_of(c, "DSCP_TO_TC_MAP", name, NULL);
	map_lines(c, name, json_object_getn(c->dscp_maps, r.s, r.len), m->dscp_line);
	*index = (int)cfg->n_maps++;
	return 0;
}

/* What one PORT_QOS_MAP row gives its ports. */
struct qos_row {
	const char *key;
	const struct sonic_rows *rows;
	int has_pfc;
	uint8_t pfc;
	int map; /* in sonic_cfg.maps, -1: none */
	json_t *pg_map, *queue_map;
	const char **key_of; /* per port: the row that gave its pfc_enable */
};

static int qos_apply(struct sonic_ctx *c, struct sonic_port *p, void *arg)
{
	const struct qos_row *q = arg;

	if (q->has_pfc) {
		p->has_pfc_enable = 1;
		p->pfc_enable = q->pfc;
		p->pfc_line = sonic__rows_line(c, q->rows, q->key, "pfc_enable");
		q->key_of[p - c->cfg->ports] = q->key;
	}
	if (q->map >= 0) {
		p->dscp_map = q->map;
		p->map_line = sonic__rows_line(c, q->rows, q->key, "dscp_to_tc_map");
	}
	/* a map replaces the identity: the TCs it omits go to 0, as unmapped DSCPs do */
	if (q->pg_map) {
		memset(p->tc_to_pg, 0, sizeof(p->tc_to_pg));
		fill_map(q->pg_map, p->tc_to_pg, NULL);
	}
	if (q->queue_map) {
		memset(p->tc_to_queue, 0, sizeof(p->tc_to_queue));
		fill_map(q->queue_map, p->tc_to_queue, NULL);
	}
	return 0;
}

/* One row of PORT_QOS_MAP, checked and given to its ports. */
static int read_qos_row(struct sonic_ctx *c, const char *key, json_t *row, struct qos_row *q)
{
	struct sonic_ref dm, pm, qm;
	const char *s;
	int err;

	err = sonic__need_object(c, "PORT_QOS_MAP", key, row);
	if (!err)
		err = sonic__get_str(c, row, "PORT_QOS_MAP", key, "pfc_enable", &s);
	if (err)
		return err;
	q->key = key;
	q->has_pfc = s != NULL;
	if (s && (err = sonic__pfc_list(c, key, s, &q->pfc)))
		return err;
	err = qos_ref(c, key, row, "dscp_to_tc_map", c->dscp_maps, "DSCP_TO_TC_MAP", &dm);
	if (!err)
		err = qos_ref(c, key, row, "tc_to_pg_map", c->pg_maps, "TC_TO_PRIORITY_GROUP_MAP",
			      &pm);
	if (!err)
		err =
		    qos_ref(c, key, row, "tc_to_queue_map", c->queue_maps, "TC_TO_QUEUE_MAP", &qm);
	q->map = -1;
	if (!err && dm.len)
		err = use_map(c, key, dm, &q->map);
	if (err)
		return err;
	q->pg_map = pm.len ? json_object_getn(c->pg_maps, pm.s, pm.len) : NULL;
	q->queue_map = qm.len ? json_object_getn(c->queue_maps, qm.s, qm.len) : NULL;
	return sonic__each_port(c, key, 0, qos_apply, q);
}

/* The map most ports name, or else the only one of @t: its name in *@name (NULL: none). */
static json_t *pick_map(struct sonic_ctx *c, json_t *t, const struct sonic_vote *w,
			const char **name, size_t *len)
{
	void *it;

	if (w) {
		*name = c->cfg->maps[w->a].name;
		*len = strlen(*name);
		return json_object_get(t, *name);
	}
	if (!t || json_object_size(t) != 1)
		return NULL;
	it = json_object_iter(t);
	*name = json_object_iter_key(it);
	*len = strlen(*name);
	return json_object_iter_value(it);
}

/*
 * The maps, then PORT_QOS_MAP: each port's pfc_enable, DSCP map and TC
 * maps; the switch's are those of most ports.
 */
int sonic__read_qos(struct sonic_ctx *c)
{
	struct sonic_cfg *cfg = c->cfg;
	struct sonic_vote *pv = NULL, *dv = NULL, *gv = NULL, *qv = NULL;
	const char **key_of = NULL, *key, *name = NULL;
	size_t np = 0, nd = 0, len = 0;
	const struct sonic_vote *w;
	struct sonic_rows rows = {0};
	struct qos_row q;
	json_t *t, *row;
	int err;

	err = check_maps(c, "DSCP_TO_TC_MAP", 63, 7, &c->dscp_maps);
	if (!err)
		err = check_maps(c, "TC_TO_PRIORITY_GROUP_MAP", 7, 7, &c->pg_maps);
	if (!err)
		err = check_maps(c, "TC_TO_QUEUE_MAP", 7, 7, &c->queue_maps);
	if (!err)
		err = sonic__get_table(c, "PORT_QOS_MAP", &t);
	if (!err)
		err = sonic__rows_index(c, "PORT_QOS_MAP", &rows);
	if (err)
		return err;
	key_of = calloc(cfg->n_ports, sizeof(*key_of));
	pv = calloc(cfg->n_ports, sizeof(*pv));
	dv = calloc(cfg->n_ports, sizeof(*dv));
	gv = calloc(cfg->n_ports, sizeof(*gv));
	qv = calloc(cfg->n_ports, sizeof(*qv));
	if (!key_of || !pv || !dv || !gv || !qv) {
		err = sonic__nomem(c);
		goto out_free;
	}
	q = (struct qos_row){.rows = &rows, .key_of = key_of};
	json_object_foreach(t, key, row) {
		if ((err = read_qos_row(c, key, row, &q)))
			goto out_free;
	}
	for (size_t i = 0; i < cfg->n_ports; i++) {
		const struct sonic_port *p = &cfg->ports[i];

		if (p->has_pfc_enable)
			pv[np++] =
			    (struct sonic_vote){.a = p->pfc_enable, .order = i, .key = key_of[i]};
		if (p->dscp_map >= 0)
			dv[nd++] = (struct sonic_vote){.a = (uint64_t)p->dscp_map, .order = i};
		gv[i] = (struct sonic_vote){.name = {(const char *)p->tc_to_pg, 8}, .order = i};
		qv[i] = (struct sonic_vote){.name = {(const char *)p->tc_to_queue, 8}, .order = i};
	}
	if ((w = sonic__vote_winner(pv, np))) {
		char b[SHOW_SIZE];

		cfg->has_pfc_enable = 1;
		cfg->pfc_enable = (uint8_t)w->a;
		snprintf(cfg->pfc_where, sizeof(cfg->pfc_where), "PORT_QOS_MAP|%s|pfc_enable",
			 sonic__shows(b, w->key));
		cfg->pfc_line = cfg->ports[w->order].pfc_line;
	}
	row = pick_map(c, c->dscp_maps, sonic__vote_winner(dv, nd), &name, &len);
	if (row) {
		err = sonic__copy_ref(c, "DSCP_TO_TC_MAP", NULL, NULL, cfg->dscp_map,
				      sizeof(cfg->dscp_map), (struct sonic_ref){name, len});
		if (err)
			goto out_free;
		cfg->has_dscp_map = 1;
		fill_map(row, cfg->dscp_to_tc, &cfg->dscp_given);
		sonic__set_at(c, &cfg->dscp_map_at, "DSCP_TO_TC_MAP", cfg->dscp_map, NULL);
		map_lines(c, cfg->dscp_map, row, cfg->dscp_line);
	}
	w = sonic__vote_winner(gv, cfg->n_ports);
	memcpy(cfg->tc_to_pg, w->name.s, 8);
	w = sonic__vote_winner(qv, cfg->n_ports);
	memcpy(cfg->tc_to_queue, w->name.s, 8);
out_free:
	free(qv);
	free(gv);
	free(dv);
	free(pv);
	free(key_of);
	sonic__rows_free(&rows);
	return err;
}
