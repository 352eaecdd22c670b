/*
 * Topology kind sonic: the fabric built from what the switches' SONiC
 * configs say is cabled where (topo.h, struct topo_sonic: DEVICE_NEIGHBOR
 * per port with PORT's speed and CABLE_LENGTH). A neighbour that is one of
 * the switches must name the port back; any other neighbour is a host with
 * one NIC, named as DEVICE_NEIGHBOR names it. The order of nodes and links
 * is fixed by the description's (topo_sonic_load in topo.h), so that the
 * same configs always give the same fabric, and a topology file written in
 * that order gives the same one.
 */
#include "topologies/topo.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A switch by name: the description's index. */
struct ts_name {
	const char *name;
	uint32_t index;
};

static int ts_name_cmp(const void *x, const void *y)
{
	return strcmp(((const struct ts_name *)x)->name, ((const struct ts_name *)y)->name);
}

/* The switch named @name, or -1. */
static int32_t ts_switch(const struct ts_name *by, uint32_t n, const char *name)
{
	struct ts_name k = {name, 0};
	const struct ts_name *f = n ? bsearch(&k, by, n, sizeof(k), ts_name_cmp) : NULL;

	return f ? (int32_t)f->index : -1;
}

/* The port named @name of switch @sw, or NULL. */
static const struct topo_sonic_port *ts_port(const struct topo_sonic_switch *sw, const char *name)
{
	for (uint32_t i = 0; i < sw->n_ports; i++)
		if (!strcmp(sw->ports[i].name, name))
			return &sw->ports[i];
	return NULL;
}

/* Refuse port @p of switch @sw: at its file and DEVICE_NEIGHBOR line. -EINVAL. */
static int ts_fail(struct diag *d, const struct topo_sonic_switch *sw,
		   const struct topo_sonic_port *p, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int ts_fail(struct diag *d, const struct topo_sonic_switch *sw,
		   const struct topo_sonic_port *p, const char *fmt, ...)
{
	char path[96], msg[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "DEVICE_NEIGHBOR|%s", p->name);
	diag_set(d, sw->file, p->line, path, "%s", msg);
	return -EINVAL;
}

/* Both ends of each link between switches name each other; no switch is its own neighbour. */
static int ts_check_links(const struct topo_sonic *ts, const struct ts_name *by, struct diag *d)
{
	char at[300];

	for (uint32_t s = 0; s < ts->n_switches; s++) {
		const struct topo_sonic_switch *sw = &ts->switches[s];

		for (uint32_t i = 0; i < sw->n_ports; i++) {
			const struct topo_sonic_port *p = &sw->ports[i], *q;
			int32_t o = ts_switch(by, ts->n_switches, p->nbr);
			const struct topo_sonic_switch *ow;

			if (o < 0)
				continue;
			ow = &ts->switches[o];
			if ((uint32_t)o == s)
				return ts_fail(d, sw, p,
					       "says %s %s: the switch itself; a port is cabled to "
					       "another device",
					       p->nbr, p->nbr_port);
			q = ts_port(ow, p->nbr_port);
			if (!q)
				return ts_fail(
				    d, sw, p,
				    "says %s %s, but %s gives %s no neighbour: both ends of "
				    "a link name each other",
				    p->nbr, p->nbr_port, ow->file, p->nbr_port);
			if (strcmp(q->nbr, sw->name) || strcmp(q->nbr_port, p->name)) {
				snprintf(at, sizeof(at), "%s:%d DEVICE_NEIGHBOR|%s", ow->file,
					 q->line, q->name);
				return ts_fail(d, sw, p,
					       "says %s %s, but %s says %s %s: both ends of a link "
					       "name each other",
					       p->nbr, p->nbr_port, at, q->nbr, q->nbr_port);
			}
			if (p->rate_bps && q->rate_bps && p->rate_bps != q->rate_bps)
				return ts_fail(
				    d, sw, p,
				    "runs at %.0f Gb/s, but its other end (%s %s, %s) at "
				    "%.0f Gb/s: a link has one speed",
				    (double)p->rate_bps / 1e9, p->nbr, p->nbr_port, ow->file,
				    (double)q->rate_bps / 1e9);
		}
	}
	return 0;
}

/* A host met on switch @s port @i: where, for the message when it is met again. */
struct ts_host {
	const char *name;
	uint32_t s, i;
	uint32_t order;
};

static int ts_host_cmp(const void *x, const void *y)
{
	const struct ts_host *a = x, *b = y;
	int r = strcmp(a->name, b->name);

	return r ? r : (a->order > b->order) - (a->order < b->order);
}

/* The hosts, in the order met; each on one switch port only. */
static int ts_hosts(const struct topo_sonic *ts, const struct ts_name *by, struct ts_host **out,
		    uint32_t *n_out, struct diag *d)
{
	struct ts_host *h = NULL, *sorted = NULL;
	uint32_t n = 0, cap = 0;
	char at[300];
	int err = 0;

	for (uint32_t s = 0; s < ts->n_switches; s++)
		for (uint32_t i = 0; i < ts->switches[s].n_ports; i++) {
			if (ts_switch(by, ts->n_switches, ts->switches[s].ports[i].nbr) >= 0)
				continue;
			if (n == cap) {
				struct ts_host *v;

				cap = cap ? 2 * cap : 64;
				v = realloc(h, cap * sizeof(*v));
				if (!v) {
					free(h);
					return -ENOMEM;
				}
				h = v;
			}
			h[n] = (struct ts_host){ts->switches[s].ports[i].nbr, s, i, n};
			n++;
		}
	sorted = malloc((n ? n : 1) * sizeof(*sorted));
	if (!sorted) {
		free(h);
		return -ENOMEM;
	}
	memcpy(sorted, h, n * sizeof(*h));
	qsort(sorted, n, sizeof(*sorted), ts_host_cmp);
	for (uint32_t k = 1; k < n && !err; k++) {
		const struct ts_host *a = &sorted[k - 1], *b = &sorted[k];
		const struct topo_sonic_switch *sa = &ts->switches[a->s], *sb = &ts->switches[b->s];

		if (strcmp(a->name, b->name))
			continue;
		snprintf(at, sizeof(at), "%s:%d DEVICE_NEIGHBOR|%s", sa->file, sa->ports[a->i].line,
			 sa->ports[a->i].name);
		err = ts_fail(d, sb, &sb->ports[b->i],
			      "says %s, which %s names too: a host has one NIC (one link)", b->name,
			      at);
	}
	free(sorted);
	if (err) {
		free(h);
		return err;
	}
	*out = h;
	*n_out = n;
	return 0;
}

/* What a link between two ports is: the speed they give, the longer cable. */
static struct topo_linkspec ts_spec(const struct topo_sonic_port *p,
				    const struct topo_sonic_port *q,
				    const struct topo_linkspec *def)
{
	struct topo_linkspec ls = *def;

	if (p->rate_bps || (q && q->rate_bps))
		ls.rate_bps = p->rate_bps ? p->rate_bps : q->rate_bps;
	if (p->has_delay || (q && q->has_delay)) {
		ls.delay = p->has_delay ? p->delay : 0;
		if (q && q->has_delay && q->delay > ls.delay)
			ls.delay = q->delay;
	}
	return ls;
}

/* Add the nodes and links in their order; @cfg_of gets each link's two config port indices. */
static int ts_build(const struct topo_spec *spec, const struct ts_name *by,
		    const struct ts_host *hosts, uint32_t n_hosts, struct topo *t,
		    uint32_t (*cfg_of)[2], struct diag *d)
{
	const struct topo_sonic *ts = spec->sonic;
	uint32_t first_sw;
	int32_t r;

	for (uint32_t h = 0; h < n_hosts; h++)
		if ((r = topo_add_node(t, hosts[h].name, TOPO_HOST)) < 0)
			return (int)r;
	first_sw = t->n_nodes;
	for (uint32_t s = 0; s < ts->n_switches; s++)
		if ((r = topo_add_node(t, ts->switches[s].name, TOPO_SWITCH)) < 0)
			return (int)r;
	for (uint32_t h = 0; h < n_hosts; h++) {
		const struct topo_sonic_port *p = &ts->switches[hosts[h].s].ports[hosts[h].i];
		struct topo_linkspec ls = ts_spec(p, NULL, &spec->link);

		if ((r = topo_add_link(t, h, first_sw + hosts[h].s, &ls)) < 0)
			return (int)r;
		cfg_of[r][0] = UINT32_MAX;
		cfg_of[r][1] = p->index;
	}
	for (uint32_t s = 0; s < ts->n_switches; s++) {
		const struct topo_sonic_switch *sw = &ts->switches[s];

		for (uint32_t i = 0; i < sw->n_ports; i++) {
			const struct topo_sonic_port *p = &sw->ports[i];
			int32_t o = ts_switch(by, ts->n_switches, p->nbr);
			const struct topo_sonic_port *q;
			struct topo_linkspec ls;

			if (o < 0 || (uint32_t)o < s)
				continue; /* a host's, or added from the other end */
			q = ts_port(&ts->switches[o], p->nbr_port);
			ls = ts_spec(p, q, &spec->uplink);
			if ((r = topo_add_link(t, first_sw + s, first_sw + (uint32_t)o, &ls)) < 0)
				return (int)r;
			cfg_of[r][0] = p->index;
			cfg_of[r][1] = q->index;
		}
	}
	(void)d;
	return 0;
}

int topo_sonic_load(const struct topo_spec *spec, struct topo **out, struct diag *d)
{
	const struct topo_sonic *ts = spec->sonic;
	struct ts_name *by = NULL;
	struct ts_host *hosts = NULL;
	uint32_t n_hosts = 0, n_links = 0, (*cfg_of)[2] = NULL;
	struct topo *t = NULL;
	int err = -ENOMEM;

	*out = NULL;
	if (!ts || !ts->n_switches) {
		diag_set(d, "", 0, "topology.dir", "holds no switch's config_db.json");
		return -EINVAL;
	}
	by = malloc(ts->n_switches * sizeof(*by));
	if (!by)
		goto out_free;
	for (uint32_t s = 0; s < ts->n_switches; s++) {
		by[s] = (struct ts_name){ts->switches[s].name, s};
		n_links += ts->switches[s].n_ports;
	}
	qsort(by, ts->n_switches, sizeof(*by), ts_name_cmp);
	if ((err = ts_check_links(ts, by, d)) || (err = ts_hosts(ts, by, &hosts, &n_hosts, d)))
		goto out_free;
	err = -ENOMEM;
	t = topo_new();
	cfg_of = malloc(((size_t)n_links + 1) * sizeof(*cfg_of));
	if (!t || !cfg_of)
		goto out_free;
	err = ts_build(spec, by, hosts, n_hosts, t, cfg_of, d);
	if (err == -E2BIG)
		diag_set(d, "", 0, "topology.dir",
			 "more nodes, links or ports per node than a "
			 "topology may have");
	else if (err)
		diag_set(d, "", 0, "topology.dir", "cannot build the fabric (%s)", strerror(-err));
	if (!err)
		err = topo_finish(t, d);
	if (!err && !(t->port_cfg = malloc(((size_t)t->n_ports + 1) * sizeof(*t->port_cfg))))
		err = -ENOMEM;
	for (uint32_t l = 0; !err && l < t->n_links; l++) {
		t->port_cfg[t->links[l].port_a] = cfg_of[l][0];
		t->port_cfg[t->links[l].port_b] = cfg_of[l][1];
	}
	if (!err) {
		*out = t;
		t = NULL;
	}
out_free:
	if (err == -ENOMEM)
		diag_set(d, "", 0, "topology", "out of memory");
	topo_free(t);
	free(cfg_of);
	free(hosts);
	free(by);
	return err;
}
