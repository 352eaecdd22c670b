/*
 * The device tables of config_db.json (the SONiC reader, sonic.c):
 * DEVICE_METADATA|localhost (the switch's hostname and buffer model),
 * DEVICE_NEIGHBOR (what each port is cabled to) and the schedulers QUEUE
 * binds to each port's queues (SCHEDULER: STRICT, WRR or DWRR with a
 * weight, as Configuration.md describes them).
 */
#include "sim/readers/sonic_cfg.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "sim/readers/sonic_ctx.h"

/* DEVICE_METADATA|localhost: hostname and buffer_model (traditional or dynamic). */
int sonic__read_metadata(struct sonic_ctx *c)
{
	const char *tbl = "DEVICE_METADATA", *host, *model;
	struct sonic_cfg *cfg = c->cfg;
	char b[SHOW_SIZE];
	json_t *t, *lh;
	int err = sonic__get_table(c, tbl, &t);

	if (err || !t || !(lh = json_object_get(t, "localhost")))
		return err;
	err = sonic__need_object(c, tbl, "localhost", lh);
	if (!err)
		err = sonic__get_str(c, lh, tbl, "localhost", "hostname", &host);
	if (!err)
		err = sonic__get_str(c, lh, tbl, "localhost", "buffer_model", &model);
	if (err)
		return err;
	if (host) {
		size_t len = strlen(host);

		if (!len || len >= sizeof(cfg->hostname))
			return sonic__fail(c, tbl, "localhost", "hostname",
					   "\"%s\" is not a name of 1 to %zu characters",
					   sonic__shows(b, host), sizeof(cfg->hostname) - 1);
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)host[i] < 0x21 || host[i] == 0x7f || host[i] == '/' ||
			    host[i] == ':')
				return sonic__fail(
				    c, tbl, "localhost", "hostname",
				    "\"%s\" holds a space, '/', ':' or a control "
				    "character: not a name rocesim can give a switch",
				    sonic__shows(b, host));
		memcpy(cfg->hostname, host, len + 1);
		cfg->hostname_line = sonic__line_of(c, tbl, "localhost", "hostname");
	}
	if (model && strcmp(model, "traditional") && strcmp(model, "dynamic"))
		return sonic__fail(c, tbl, "localhost", "buffer_model",
				   "\"%s\" is not traditional or dynamic", sonic__shows(b, model));
	if (model && !strcmp(model, "dynamic")) {
		cfg->buffer_model_dynamic = 1;
		cfg->buffer_model_line = sonic__line_of(c, tbl, "localhost", "buffer_model");
	}
	return 0;
}

/* SCHEDULER|@name: its type and weight. */
static int read_sched(struct sonic_ctx *c, const char *name, const json_t *row, uint8_t *type,
		      uint16_t *weight)
{
	static const char *const types[] = {"STRICT", "WRR", "DWRR"};
	const char *tbl = "SCHEDULER", *s;
	char b[SHOW_SIZE];
	uint64_t w = 0;
	int has, err;

	err = sonic__need_object(c, tbl, name, row);
	if (!err)
		err = sonic__get_str(c, row, tbl, name, "type", &s);
	if (!err)
		err = sonic__get_u64(c, row, tbl, name, "weight", 255, &w, &has);
	if (err)
		return err;
	if (!s)
		return sonic__fail(c, tbl, name, "type", "missing (STRICT, WRR or DWRR)");
	*type = SONIC_SCHED_NONE;
	for (uint8_t i = 0; i < 3; i++)
		if (!strcmp(s, types[i]))
			*type = (uint8_t)(SONIC_SCHED_STRICT + i);
	if (*type == SONIC_SCHED_NONE)
		return sonic__fail(c, tbl, name, "type", "\"%s\" is not STRICT, WRR or DWRR",
				   sonic__shows(b, s));
	if (*type != SONIC_SCHED_STRICT && has && w == 0)
		return sonic__fail(c, tbl, name, "weight", "0 is out of range (1..255)");
	*weight = (uint16_t)w;
	return 0;
}

/* One QUEUE row that names a scheduler, for the ports it names. */
struct queue_sched {
	const char *key;
	uint64_t queues;
	uint8_t type;
	uint16_t weight;
	const struct sonic_rows *rows;
	const char **key_of; /* per port: its first row with a scheduler */
};

static int sched_apply(struct sonic_ctx *c, struct sonic_port *p, void *arg)
{
	const struct queue_sched *q = arg;
	size_t i = (size_t)(p - c->cfg->ports);

	for (int k = 0; k < 8; k++) {
		if (!(q->queues & (1ULL << k)))
			continue;
		p->sched[k] = q->type;
		p->queue_line[k] = sonic__rows_line(c, q->rows, q->key, "scheduler");
		p->weight[k] = q->type == SONIC_SCHED_STRICT ? 0 : q->weight;
		p->dwrr |= q->type != SONIC_SCHED_STRICT;
	}
	if (!q->key_of[i]) {
		q->key_of[i] = q->key;
		p->sched_line = sonic__rows_line(c, q->rows, q->key, "scheduler");
	}
	return 0;
}

/* A port's schedulers as the switch model takes them: a weight per queue, 1 when none. */
static void port_weights(const struct sonic_port *p, uint32_t *w)
{
	for (int k = 0; k < 8; k++)
		w[k] = p->weight[k] ? p->weight[k] : 1;
}

/*
 * SCHEDULER, then the scheduler QUEUE names for each queue of each port;
 * the switch's are those of most ports that name one.
 */
int sonic__read_schedulers(struct sonic_ctx *c)
{
	struct sonic_cfg *cfg = c->cfg;
	struct sonic_rows rows = {0};
	struct sonic_vote *v = NULL;
	const struct sonic_vote *w;
	const char **key_of = NULL, *key;
	uint32_t(*weights)[8] = NULL;
	size_t n = 0;
	json_t *t, *row;
	uint8_t type;
	uint16_t weight;
	int err;

	err = sonic__get_table(c, "SCHEDULER", &c->scheds);
	if (err)
		return err;
	json_object_foreach(c->scheds, key, row) {
		if ((err = read_sched(c, key, row, &type, &weight)))
			return err;
	}
	err = sonic__get_table(c, "QUEUE", &t);
	if (!err)
		err = sonic__rows_index(c, "QUEUE", &rows);
	if (err)
		return err;
	key_of = calloc(cfg->n_ports, sizeof(*key_of));
	v = calloc(cfg->n_ports, sizeof(*v));
	weights = calloc(cfg->n_ports, sizeof(*weights));
	if (!key_of || !v || !weights) {
		err = sonic__nomem(c);
		goto out_free;
	}
	json_object_foreach(t, key, row) {
		struct queue_sched q = {.key = key, .rows = &rows, .key_of = key_of};
		struct sonic_ref r;
		const char *s;
		json_t *sched;

		/* QUEUE rows were checked (sonic__read_wreds) */
		sonic__index_key(c, "QUEUE", key, 63, &q.queues);
		err = sonic__get_str(c, row, "QUEUE", key, "scheduler", &s);
		/* an excerpt without SCHEDULER says nothing of schedulers */
		if (err || !s || !c->scheds)
			goto next;
		err = sonic__get_ref(c, "QUEUE", key, "scheduler", s, "SCHEDULER", &r);
		if (!err)
			err = sonic__find_ref(c, "QUEUE", key, "scheduler", c->scheds, "SCHEDULER",
					      r, &sched);
		if (!err)
			err = read_sched(c, s, sched, &q.type, &q.weight);
		if (!err)
			err = sonic__each_port(c, key, 1, sched_apply, &q);
	next:
		if (err)
			goto out_free;
	}
	for (size_t i = 0; i < cfg->n_ports; i++) {
		if (!key_of[i])
			continue;
		port_weights(&cfg->ports[i], weights[i]);
		v[n++] = (struct sonic_vote){.name = {(const char *)weights[i], sizeof(weights[i])},
					     .a = (uint64_t)cfg->ports[i].dwrr,
					     .order = i,
					     .key = key_of[i]};
	}
	if ((w = sonic__vote_winner(v, n))) {
		cfg->has_sched = 1;
		cfg->sched_dwrr = (int)w->a;
		cfg->sched_port = (int)w->order;
		memcpy(cfg->sched_weights, w->name.s, sizeof(cfg->sched_weights));
		sonic__set_at(c, &cfg->sched_at, "QUEUE", w->key, "scheduler");
	}
out_free:
	free(weights);
	free(v);
	free(key_of);
	sonic__rows_free(&rows);
	return err;
}

/*
 * A neighbour's name rocesim can give a node: 1 to SONIC_NAME - 1
 * characters, no space, '/', ':' or control character (as a hostname).
 */
static int bad_name(const char *s)
{
	size_t len = strlen(s);

	if (!len || len >= SONIC_NAME)
		return 1;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x21 || s[i] == 0x7f || s[i] == '/' || s[i] == ':')
			return 1;
	return 0;
}

/*
 * DEVICE_NEIGHBOR: each port's neighbour and its port, in either layout
 * SONiC has used: keyed by the local port ({"Ethernet0": {"name":
 * "ARISTA01T1", "port": "Ethernet1"}}), or by the neighbour with a
 * local_port field, as Configuration.md's example writes it.
 */
int sonic__read_neighbors(struct sonic_ctx *c)
{
	const char *tbl = "DEVICE_NEIGHBOR", *key;
	struct sonic_rows rows = {0};
	json_t *t, *row;
	int err = sonic__get_table(c, tbl, &t);

	if (!err && t)
		err = sonic__rows_index(c, tbl, &rows);
	if (err || !t)
		return err;
	json_object_foreach(t, key, row) {
		const char *local, *name, *port;
		struct sonic_port *p;
		char b[SHOW_SIZE];
		int i;

		err = sonic__need_object(c, tbl, key, row);
		if (!err)
			err = sonic__get_str(c, row, tbl, key, "local_port", &local);
		if (!err)
			err = sonic__get_str(c, row, tbl, key, "name", &name);
		if (!err)
			err = sonic__get_str(c, row, tbl, key, "port", &port);
		if (err)
			break;
		if (local && !name)
			name = key; /* keyed by the neighbour */
		else if (!local)
			local = key;
		if (!name) {
			err = sonic__fail(c, tbl, key, "name", "missing: the neighbour's name");
			break;
		}
		if (!port) {
			err = sonic__fail(c, tbl, key, "port", "missing: the neighbour's port");
			break;
		}
		if ((i = sonic_port_index(c->cfg, local)) < 0) {
			err = sonic__fail(c, tbl, key, local == key ? NULL : "local_port",
					  "no port named \"%s\" in PORT", sonic__shows(b, local));
			break;
		}
		p = &c->cfg->ports[i];
		if (bad_name(name) || strlen(port) >= sizeof(p->nbr_port) || !port[0]) {
			err = sonic__fail(
			    c, tbl, key, bad_name(name) ? "name" : "port",
			    "\"%s\" is not a name rocesim can give a node or port (1 to "
			    "%d characters, no space, '/', ':' or control character)",
			    sonic__shows(b, bad_name(name) ? name : port), SONIC_NAME - 1);
			break;
		}
		if (p->nbr[0]) {
			err = sonic__fail(c, tbl, key, NULL,
					  "gives %s a second neighbour (%s, after %s)", p->name,
					  sonic__shows(b, name), p->nbr);
			break;
		}
		memcpy(p->nbr, name, strlen(name) + 1);
		memcpy(p->nbr_port, port, strlen(port) + 1);
		p->nbr_line = sonic__rows_line(c, &rows, key, NULL);
	}
	sonic__rows_free(&rows);
	return err;
}
