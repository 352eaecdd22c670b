/*
 * The port tables of config_db.json (the SONiC reader, sonic.c): PORT (speed
 * and MTU), CABLE_LENGTH, and PORT_QOS_MAP with the maps it names
 * (DSCP_TO_TC_MAP, TC_TO_PRIORITY_GROUP_MAP, TC_TO_QUEUE_MAP) and pfc_enable.
 */
#include "sim/config/sonic.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/sonic_impl.h"
#include "sim/engine/units.h"

/* PORT: the most common speed and MTU; how many ports. */
int sonic__read_ports(struct sonic_ctx *c)
{
	struct sonic_vote *speed = NULL, *mtu = NULL;
	const struct sonic_vote *w;
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
	speed = sonic__votes_for(t);
	mtu = sonic__votes_for(t);
	if (!speed || !mtu) {
		err = sonic__nomem(c);
		goto out_free;
	}
	json_object_foreach(t, key, v) {
		uint64_t x;
		int has;

		err = sonic__need_object(c, "PORT", key, v);
		if (err)
			goto out_free;
		/* speed is in Mb/s */
		err = sonic__get_u64(c, v, "PORT", key, "speed", UINT64_MAX / 1000000, &x, &has);
		if (err)
			goto out_free;
		if (has)
			speed[ns++] = (struct sonic_vote){.a = x * 1000000, .order = i};
		err = sonic__get_u64(c, v, "PORT", key, "mtu", UINT32_MAX, &x, &has);
		if (err)
			goto out_free;
		if (has)
			mtu[nm++] = (struct sonic_vote){.a = x, .order = i};
		i++;
	}
	c->cfg->n_ports = i > UINT32_MAX ? UINT32_MAX : (uint32_t)i;
	w = sonic__vote_winner(speed, ns);
	if (w)
		c->cfg->port_speed_bps = w->a;
	w = sonic__vote_winner(mtu, nm);
	if (w)
		c->cfg->port_mtu = (uint32_t)w->a;
out_free:
	free(mtu);
	free(speed);
	return err;
}

/* CABLE_LENGTH|<any name>|<port> = "300m": the longest. */
int sonic__read_cables(struct sonic_ctx *c)
{
	const char *name, *port;
	json_t *t, *row, *v;
	int err = sonic__get_table(c, "CABLE_LENGTH", &t);

	if (err || !t)
		return err;
	json_object_foreach(t, name, row) {
		err = sonic__need_object(c, "CABLE_LENGTH", name, row);
		if (err)
			return err;
		json_object_foreach(row, port, v) {
			char b[SHOW_SIZE];
			uint64_t mm;
			int uerr;

			/* the port is the field */
			err = sonic__need_string(c, "CABLE_LENGTH", name, port, v);
			if (err)
				return err;
			uerr = units_length(json_string_value(v), &mm);
			if (uerr)
				return sonic__fail(c, "CABLE_LENGTH", name, port,
						   "\"%s\" is not a length such as \"5m\" (%s)",
						   sonic__shows(b, json_string_value(v)),
						   units_strerror(uerr));
			if (mm > c->cfg->cable_mm)
				c->cfg->cable_mm = mm;
		}
	}
	return 0;
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
 * The map a port names (@w, NULL if none does) or else the only one of @t;
 * NULL if neither.
 */
static json_t *pick_map(json_t *t, const struct sonic_vote *w, const char **name, size_t *len)
{
	void *it;

	if (w) {
		*name = w->name.s;
		*len = w->name.len;
		return json_object_getn(t, w->name.s, w->name.len);
	}
	if (!t || json_object_size(t) != 1)
		return NULL;
	it = json_object_iter(t);
	*name = json_object_iter_key(it);
	*len = strlen(*name);
	return json_object_iter_value(it);
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

/* One map name field of a PORT_QOS_MAP row: checked and counted in @v. */
static int qos_ref(struct sonic_ctx *c, const char *key, const json_t *row, const char *field,
		   json_t *maps, const char *target, struct sonic_vote *v, size_t *n, size_t order)
{
	struct sonic_ref r;
	const char *s;
	json_t *m;
	int err = sonic__get_str(c, row, "PORT_QOS_MAP", key, field, &s);

	if (err || !s)
		return err;
	err = sonic__get_ref(c, "PORT_QOS_MAP", key, field, s, target, &r);
	if (!err)
		err = sonic__find_ref(c, "PORT_QOS_MAP", key, field, maps, target, r, &m);
	if (err)
		return err;
	v[(*n)++] = (struct sonic_vote){.name = r, .order = order, .key = key};
	return 0;
}

/*
 * The maps, then PORT_QOS_MAP: pfc_enable (the union over ports) and the
 * maps the ports use.
 */
int sonic__read_qos(struct sonic_ctx *c)
{
	struct sonic_vote *dv = NULL, *pv = NULL, *qv = NULL;
	size_t nd = 0, np = 0, nq = 0, i = 0, len = 0;
	struct sonic_cfg *cfg = c->cfg;
	const char *key, *name = NULL;
	json_t *t, *row;
	int err;

	err = check_maps(c, "DSCP_TO_TC_MAP", 63, 7, &c->dscp_maps);
	if (!err)
		err = check_maps(c, "TC_TO_PRIORITY_GROUP_MAP", 7, 7, &c->pg_maps);
	if (!err)
		err = check_maps(c, "TC_TO_QUEUE_MAP", 7, 7, &c->queue_maps);
	if (!err)
		err = sonic__get_table(c, "PORT_QOS_MAP", &t);
	if (err)
		return err;
	dv = sonic__votes_for(t);
	pv = sonic__votes_for(t);
	qv = sonic__votes_for(t);
	if (!dv || !pv || !qv) {
		err = sonic__nomem(c);
		goto out_free;
	}
	json_object_foreach(t, key, row) {
		const char *s;

		err = sonic__need_object(c, "PORT_QOS_MAP", key, row);
		if (!err)
			err = sonic__get_str(c, row, "PORT_QOS_MAP", key, "pfc_enable", &s);
		if (err)
			goto out_free;
		if (s) {
			uint8_t mask;

			err = sonic__pfc_list(c, key, s, &mask);
			if (err)
				goto out_free;
			if (!cfg->has_pfc_enable) {
				char b[SHOW_SIZE];

				snprintf(cfg->pfc_where, sizeof(cfg->pfc_where),
					 "PORT_QOS_MAP|%s|pfc_enable", sonic__shows(b, key));
				cfg->pfc_line =
				    sonic__line_of(c, "PORT_QOS_MAP", key, "pfc_enable");
			}
			cfg->has_pfc_enable = 1;
			cfg->pfc_enable |= mask;
		}
		err = qos_ref(c, key, row, "dscp_to_tc_map", c->dscp_maps, "DSCP_TO_TC_MAP", dv,
			      &nd, i);
		if (!err)
			err = qos_ref(c, key, row, "tc_to_pg_map", c->pg_maps,
				      "TC_TO_PRIORITY_GROUP_MAP", pv, &np, i);
		if (!err)
			err = qos_ref(c, key, row, "tc_to_queue_map", c->queue_maps,
				      "TC_TO_QUEUE_MAP", qv, &nq, i);
		if (err)
			goto out_free;
		i++;
	}

	row = pick_map(c->dscp_maps, sonic__vote_winner(dv, nd), &name, &len);
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
	/* a map replaces the identity: the TCs it omits go to 0, as unmapped DSCPs do */
	row = pick_map(c->pg_maps, sonic__vote_winner(pv, np), &name, &len);
	if (row) {
		memset(cfg->tc_to_pg, 0, sizeof(cfg->tc_to_pg));
		fill_map(row, cfg->tc_to_pg, NULL);
	}
	row = pick_map(c->queue_maps, sonic__vote_winner(qv, nq), &name, &len);
	if (row) {
		memset(cfg->tc_to_queue, 0, sizeof(cfg->tc_to_queue));
		fill_map(row, cfg->tc_to_queue, NULL);
	}
out_free:
	free(qv);
	free(pv);
	free(dv);
	return err;
}
