/*
 * The faults: entries resolved against the topology into what the fabric
 * plays (struct net_fault): links and nodes by name (a link from either
 * end), a node_down or node_up into one link_down or link_up per link of
 * the node, a link_flap into its pairs of link_down and link_up. Then the
 * timeline is checked: a link comes up only after it went down, and a
 * link_rate only lowers a link's speed.
 */
#include "sim/config/scenario.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/scenario_impl.h"
#include "sim/engine/units.h"

/*
 * Whether link @k goes down with node_down of @node: a link of the node, or
 * of any NIC of its server when @name names a server with several NICs.
 */
static int node_takes(const struct topo *t, const char *name, uint32_t node, uint32_t k)
{
	const struct topo_link *lk = &t->links[k];
	int32_t sv = topo_find_server(t, name);

	if (sv >= 0 && t->servers[sv].n_nics > 1 && strcmp(t->nodes[node].name, name))
		return t->nodes[lk->a].server == (uint32_t)sv ||
		       t->nodes[lk->b].server == (uint32_t)sv;
	return lk->a == node || lk->b == node;
}

static int is_node_kind(const struct raw_fault *rf)
{
	return rf->kind - 1 == SCN_FAULT_NODE_DOWN || rf->kind - 1 == SCN_FAULT_NODE_UP;
}

/* The link of faults[@i] (its key link), from either end. */
static int link_of(const struct loader *l, const struct topo *t, unsigned i, const char *name,
		   uint32_t *out)
{
	char p[64];
	int32_t k = topo_find_link(t, name);

	if (k < 0) {
		snprintf(p, sizeof(p), "faults[%u].link", i);
		return scn__fail(l, p,
				 "no link named \"%s\" (links are named by their ends, e.g. %s)",
				 name, t->n_links ? t->links[0].name : "a-b");
	}
	*out = (uint32_t)k;
	return 0;
}

/* Check the names of faults: against @t; *@n gets the faults they resolve into. */
static int count_faults(const struct loader *l, const struct topo *t, const struct raw_top *r,
			size_t *n)
{
	char p[64];

	*n = 0;
	for (unsigned i = 0; i < r->faults_count; i++) {
		const struct raw_fault *rf = &r->faults[i];
		uint64_t count;
		int32_t node;

		if (rf->kind - 1 == SCN_FAULT_LINK_FLAP) {
			count = strtoull(rf->count, NULL, 10); /* checked: 1..100000 */
			*n += 2 * (size_t)count;
			continue;
		}
		if (!is_node_kind(rf)) {
			(*n)++;
			continue;
		}
		node = topo_find_node(t, rf->node);
		snprintf(p, sizeof(p), "faults[%u].node", i);
		if (node < 0)
			return scn__fail(l, p, "no switch or host named \"%s\" (e.g. %s, %s)",
					 rf->node, t->nodes[t->n_nodes - 1].name, t->nodes[0].name);
		for (uint32_t k = 0; k < t->n_links; k++)
			*n += (size_t)node_takes(t, rf->node, (uint32_t)node, k);
	}
	return 0;
}

/* The port a pfc_storm of faults[@i] comes from: its host's NIC or a switch port. */
static int storm_port(const struct loader *l, const struct topo *t, unsigned i,
		      const struct raw_fault *rf, uint32_t *out)
{
	char p[64];
	int32_t port = -1;
	uint32_t h = 0;
	int err;

	if (rf->host) {
		snprintf(p, sizeof(p), "faults[%u].host", i);
		if ((err = scn__host_of(l, t, p, rf->host, &h)))
			return err;
		*out = t->nodes[t->hosts[h]].first_port;
		return 0;
	}
	for (uint32_t k = 0; k < t->n_ports && port < 0; k++)
		if (!strcmp(t->ports[k].name, rf->port))
			port = (int32_t)k;
	snprintf(p, sizeof(p), "faults[%u].port", i);
	if (port < 0)
		return scn__fail(l, p, "no port named \"%s\" (a port is named node:peer, e.g. %s)",
				 rf->port, t->n_ports ? t->ports[t->n_ports - 1].name : "sw0:h0");
	if (t->nodes[t->ports[port].node].kind != TOPO_SWITCH)
		return scn__fail(l, p, "\"%s\" is a host's port: use host: instead", rf->port);
	*out = (uint32_t)port;
	return 0;
}

/* Append a fault of @kind on @link at @at, from entry @i. */
static void add_link_fault(struct scenario *s, unsigned i, enum net_fault_kind kind, uint32_t link,
			   simtime_t at)
{
	s->fault_of[s->n_faults] = i;
	s->faults[s->n_faults++] = (struct net_fault){.kind = kind, .link = link, .at = at};
}

/* link_flap of entry @i on @link: down at at + k period for its duration, count times. */
static void add_flap(struct scenario *s, unsigned i, const struct raw_fault *rf, uint32_t link,
		     simtime_t at)
{
	simtime_t period = 0, down;
	uint64_t count;

	units_time(rf->period, &period);
	count = strtoull(rf->count, NULL, 10);
	down = period / 2;
	if (rf->duration)
		units_time(rf->duration, &down);
	for (uint64_t k = 0; k < count; k++) {
		add_link_fault(s, i, NET_FAULT_LINK_DOWN, link, at + k * period);
		add_link_fault(s, i, NET_FAULT_LINK_UP, link, at + k * period + down);
	}
}

/* A fault's place in time: a link_up before a link_down at the same time, then as listed. */
struct fault_at {
	simtime_t at;
	int down;
	uint32_t i;
};

static int by_time(const void *x, const void *y)
{
	const struct fault_at *a = x, *b = y;

	if (a->at != b->at)
		return a->at < b->at ? -1 : 1;
	if (a->down != b->down)
		return a->down - b->down;
	return a->i < b->i ? -1 : a->i > b->i;
}

/*
 * Play the links' states through the faults in time order: a link_up (or
 * node_up, link_flap's) whose link is not down then is refused, naming its
 * entry. 0, -EINVAL or -ENOMEM.
 */
static int check_timeline(const struct loader *l, const struct topo *t, struct scenario *s)
{
	struct fault_at *order = malloc((s->n_faults ? s->n_faults : 1) * sizeof(*order));
	uint8_t *down = calloc(t->n_links ? t->n_links : 1, 1);
	int err = 0;

	if (!order || !down) {
		err = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < s->n_faults; i++)
		order[i] = (struct fault_at){
		    .at = s->faults[i].at, .down = s->faults[i].kind != NET_FAULT_LINK_UP, .i = i};
	qsort(order, s->n_faults, sizeof(*order), by_time);
	for (uint32_t k = 0; k < s->n_faults && !err; k++) {
		uint32_t i = order[k].i;
		const struct net_fault *f = &s->faults[i];
		const struct raw_fault *rf = &l->raw->top->faults[s->fault_of[i]];
		char p[64];

		if (f->kind == NET_FAULT_LINK_DOWN) {
			down[f->link] = 1;
		} else if (f->kind == NET_FAULT_LINK_UP && !down[f->link]) {
			snprintf(p, sizeof(p), "faults[%u]", s->fault_of[i]);
			err = scn__fail(
			    l, p,
			    "%s comes up at %.3f us but is not down then (an up needs an "
			    "earlier link_down, node_down or link_flap of it)",
			    rf->node ? rf->node : t->links[f->link].name, simtime_to_us(f->at));
		} else if (f->kind == NET_FAULT_LINK_UP) {
			down[f->link] = 0;
		}
	}
out:
	free(order);
	free(down);
	return err;
}

/* link_rate of entry @i: lower than the link's speed in the topology. */
static int add_rate(const struct loader *l, const struct topo *t, struct scenario *s, unsigned i,
		    const struct raw_fault *rf, uint32_t link, simtime_t at)
{
	char p[64];
	uint64_t rate;

	units_rate(rf->rate, &rate);
	if (rate >= t->links[link].rate_bps) {
		snprintf(p, sizeof(p), "faults[%u].rate", i);
		return scn__fail(l, p,
				 "\"%s\" is not lower than %s's %g Gbps (link_rate lowers a link's "
				 "speed; a faster link is topology.links)",
				 rf->rate, t->links[link].name,
				 (double)t->links[link].rate_bps / 1e9);
	}
	s->fault_of[s->n_faults] = i;
	s->faults[s->n_faults++] = (struct net_fault){
	    .kind = NET_FAULT_LINK_RATE, .link = link, .rate_bps = rate, .at = at};
	return 0;
}

int scn__resolve_faults(const struct loader *l, const struct topo *t, const struct raw_top *r,
			struct scenario *s)
{
	size_t n;
	int err;

	free(s->faults);
	free(s->fault_of);
	s->faults = NULL;
	s->fault_of = NULL;
	s->n_faults = 0;
	if ((err = count_faults(l, t, r, &n)))
		return err;
	s->faults = calloc(n ? n : 1, sizeof(*s->faults));
	s->fault_of = calloc(n ? n : 1, sizeof(*s->fault_of));
	if (!s->faults || !s->fault_of)
		return -ENOMEM;
	for (unsigned i = 0; i < r->faults_count; i++) {
		const struct raw_fault *rf = &r->faults[i];
		int kind = rf->kind - 1;
		simtime_t at = 0;
		uint32_t link = 0;

		if (rf->at)
			units_time(rf->at, &at);
		if (is_node_kind(rf)) {
			uint32_t node = (uint32_t)topo_find_node(t, rf->node);

			/* every link of the node at once, each as a link_down (link_up) */
			for (uint32_t k = 0; k < t->n_links; k++)
				if (node_takes(t, rf->node, node, k))
					add_link_fault(s, i,
						       kind == SCN_FAULT_NODE_UP
							   ? NET_FAULT_LINK_UP
							   : NET_FAULT_LINK_DOWN,
						       k, at);
			continue;
		}
		if (kind == NET_FAULT_PFC_STORM) {
			struct net_fault *f = &s->faults[s->n_faults];
			uint8_t mask = 0;

			*f = (struct net_fault){.kind = NET_FAULT_PFC_STORM, .at = at};
			if ((err = storm_port(l, t, i, rf, &f->port)))
				return err;
			if (rf->duration)
				units_time(rf->duration, &f->duration);
			for (unsigned k = 0; k < rf->priorities_count; k++)
				mask |= (uint8_t)(1u << strtoul(rf->priorities[k], NULL, 10));
			f->priorities = rf->priorities ? mask : s->sw.lossless;
			s->fault_of[s->n_faults++] = i;
			continue;
		}
		if ((err = link_of(l, t, i, rf->link, &link)))
			return err;
		if (kind == SCN_FAULT_LINK_FLAP)
			add_flap(s, i, rf, link, at);
		else if (kind == NET_FAULT_LINK_RATE && (err = add_rate(l, t, s, i, rf, link, at)))
			return err;
		else if (kind != NET_FAULT_LINK_RATE)
			add_link_fault(s, i, (enum net_fault_kind)kind, link, at);
	}
	return check_timeline(l, t, s);
}
