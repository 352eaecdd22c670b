/*
 * Splitting a fabric into parts along switch boundaries (see partition.h).
 */
#include "sim/run/partition.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/unionfind.h"

#define NONE UINT32_MAX

const char *part_method_str(enum part_method m)
{
	switch (m) {
	case PART_GROUPS:
		return "groups below the top tier";
	case PART_GRAPH:
		return "grown over the switch graph";
	default:
		return "one part";
	}
}

/* The switch graph as adjacency lists (switch-switch links only). */
struct sw_graph {
	uint32_t *first; /* per node, n_nodes + 1 */
	uint32_t *adj;
};

static int graph_build(const struct topo *t, struct sw_graph *g)
{
	uint32_t *fill;

	g->first = calloc((size_t)t->n_nodes + 1, sizeof(*g->first));
	g->adj = malloc(((size_t)t->n_links * 2 + 1) * sizeof(*g->adj));
	fill = calloc((size_t)t->n_nodes + 1, sizeof(*fill));
	if (!g->first || !g->adj || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (uint32_t l = 0; l < t->n_links; l++) {
		const struct topo_link *k = &t->links[l];

		if (t->nodes[k->a].kind == TOPO_SWITCH && t->nodes[k->b].kind == TOPO_SWITCH) {
			g->first[k->a + 1]++;
			g->first[k->b + 1]++;
		}
	}
	for (uint32_t u = 0; u < t->n_nodes; u++)
		g->first[u + 1] += g->first[u];
	for (uint32_t l = 0; l < t->n_links; l++) {
		const struct topo_link *k = &t->links[l];

		if (t->nodes[k->a].kind == TOPO_SWITCH && t->nodes[k->b].kind == TOPO_SWITCH) {
			g->adj[g->first[k->a] + fill[k->a]++] = k->b;
			g->adj[g->first[k->b] + fill[k->b]++] = k->a;
		}
	}
	free(fill);
	return 0;
}

/* The switch a host's link goes to, or NONE (a host wired to a host). */
static uint32_t host_switch(const struct topo *t, uint32_t node)
{
	const struct topo_node *n = &t->nodes[node];
	uint32_t peer;

	if (!n->n_ports)
		return NONE;
	peer = t->ports[n->first_port].peer;
	return t->nodes[peer].kind == TOPO_SWITCH ? peer : NONE;
}

/* The switch a host stays with: that of its server's first NIC. */
static uint32_t home_switch(const struct topo *t, uint32_t node)
{
	const struct topo_node *n = &t->nodes[node];

	if (n->server != NONE && n->server < t->n_servers) {
		const struct topo_server *s = &t->servers[n->server];

		return host_switch(t, t->hosts[t->server_nics[s->first_nic]]);
	}
	return host_switch(t, node);
}

/*
 * Tier of each switch: 1 for those with a host, then one more per switch
 * hop (breadth first from all of them at once); NONE for a switch no host
 * reaches. Returns the highest tier found.
 */
static uint32_t tiers(const struct topo *t, const struct sw_graph *g, uint32_t *tier,
		      uint32_t *queue)
{
	uint32_t head = 0, tail = 0, top = 0;

	for (uint32_t u = 0; u < t->n_nodes; u++)
		tier[u] = NONE;
	for (uint32_t h = 0; h < t->n_hosts; h++) {
		uint32_t s = host_switch(t, t->hosts[h]);

		if (s != NONE && tier[s] == NONE) {
			tier[s] = 1;
			queue[tail++] = s;
		}
	}
	while (head < tail) {
		uint32_t u = queue[head++];

		if (tier[u] > top)
			top = tier[u];
		for (uint32_t i = g->first[u]; i < g->first[u + 1]; i++)
			if (tier[g->adj[i]] == NONE) {
				tier[g->adj[i]] = tier[u] + 1;
				queue[tail++] = g->adj[i];
			}
	}
	return top;
}

/*
 * The groups below the top tier: switches under it joined by their links
 * and by the servers they share (a rail group's leaves). Assigns whole
 * groups to parts in order, of about equal weight, and spreads the top
 * tier. Returns 0, or 1 when there are fewer groups than parts.
 */
static int by_groups(const struct topo *t, const struct sw_graph *g, const uint32_t *tier,
		     uint32_t top, uint32_t n_parts, uint32_t *part, uint32_t *work,
		     uint32_t *n_groups_out)
{
	uint32_t *up = work, n_groups = 0, n_top = 0, j = 0;
	uint64_t total = 0, acc = 0;

	for (uint32_t u = 0; u < t->n_nodes; u++)
		up[u] = u;
	for (uint32_t u = 0; u < t->n_nodes; u++) {
		if (t->nodes[u].kind != TOPO_SWITCH || tier[u] >= top)
			continue;
		for (uint32_t i = g->first[u]; i < g->first[u + 1]; i++)
			if (tier[g->adj[i]] < top)
				uf_join(up, u, g->adj[i]);
	}
	for (uint32_t h = 0; h < t->n_hosts; h++) {
		uint32_t node = t->hosts[h], a = home_switch(t, node), b = host_switch(t, node);

		if (a != NONE && b != NONE && tier[a] < top && tier[b] < top)
			uf_join(up, a, b);
	}
	/* group numbers in node order (a root is its group's lowest node) */
	for (uint32_t u = 0; u < t->n_nodes; u++) {
		part[u] = NONE;
		if (t->nodes[u].kind != TOPO_SWITCH)
			continue;
		if (tier[u] >= top) {
			n_top++;
			continue;
		}
		if (uf_find(up, u) == u)
			part[u] = n_groups++;
		total += t->nodes[u].n_ports;
	}
	*n_groups_out = n_groups;
	if (n_groups < n_parts)
		return 1;
	/* per group its weight, in work[] (up[] is no longer needed once each
	 * switch knows its group) */
	for (uint32_t u = 0; u < t->n_nodes; u++)
		if (t->nodes[u].kind == TOPO_SWITCH && tier[u] < top && part[u] == NONE)
			part[u] = part[uf_find(up, u)];
	memset(work, 0, (size_t)n_groups * sizeof(*work));
	for (uint32_t u = 0; u < t->n_nodes; u++)
		if (t->nodes[u].kind == TOPO_SWITCH && tier[u] < top)
			work[part[u]] += t->nodes[u].n_ports;
	/* group -> part: by the middle of its weight, in order */
	{
		uint32_t last = 0, ok = 1;

		for (uint32_t k = 0; k < n_groups; k++) {
			uint64_t mid = acc + work[k] / 2;
			uint32_t p = (uint32_t)(mid * n_parts / (total ? total : 1));

			acc += work[k];
			if (p >= n_parts)
				p = n_parts - 1;
			if (p > last + 1 || (k == 0 && p != 0))
				ok = 0;
			last = p;
			work[k] = p;
		}
		if (!ok || last != n_parts - 1) /* a part left empty: by count instead */
			for (uint32_t k = 0; k < n_groups; k++)
				work[k] = (uint32_t)((uint64_t)k * n_parts / n_groups);
	}
	for (uint32_t u = 0; u < t->n_nodes; u++) {
		if (t->nodes[u].kind != TOPO_SWITCH)
			continue;
		if (tier[u] >= top)
			part[u] = (uint32_t)((uint64_t)j++ * n_parts / n_top);
		else
			part[u] = work[part[u]];
	}
	return 0;
}

/*
 * Parts grown breadth first: each from the lowest switch next to the parts
 * already grown (the lowest not yet taken when none is), over switches not
 * yet taken, until it has its share of the weight left (starting again
 * from a new seed when its region runs out); the last takes what remains.
 */
static void by_graph(const struct topo *t, const struct sw_graph *g, uint32_t n_parts,
		     uint32_t *part, uint32_t *queue)
{
	uint64_t left = 0;

	for (uint32_t u = 0; u < t->n_nodes; u++) {
		part[u] = NONE;
		if (t->nodes[u].kind == TOPO_SWITCH)
			left += t->nodes[u].n_ports;
	}
	for (uint32_t k = 0; k < n_parts; k++) {
		uint64_t share = (left + (n_parts - k) - 1) / (n_parts - k), got = 0;

		while (k + 1 == n_parts || got < share) {
			uint32_t seed = NONE, head = 0, tail = 0;

			for (uint32_t u = 0; u < t->n_nodes && seed == NONE; u++) {
				if (t->nodes[u].kind != TOPO_SWITCH || part[u] != NONE)
					continue;
				for (uint32_t i = g->first[u]; i < g->first[u + 1]; i++)
					if (part[g->adj[i]] != NONE) {
						seed = u;
						break;
					}
			}
			for (uint32_t u = 0; u < t->n_nodes && seed == NONE; u++)
				if (t->nodes[u].kind == TOPO_SWITCH && part[u] == NONE)
					seed = u;
			if (seed == NONE)
				break;
			part[seed] = k;
			got += t->nodes[seed].n_ports;
			queue[tail++] = seed;
			while (head < tail) {
				uint32_t u = queue[head++];

				for (uint32_t i = g->first[u]; i < g->first[u + 1]; i++) {
					uint32_t v = g->adj[i];

					if (k + 1 < n_parts && got >= share)
						break;
					if (part[v] == NONE) {
						part[v] = k;
						got += t->nodes[v].n_ports;
						queue[tail++] = v;
					}
				}
			}
		}
		left -= got < left ? got : left;
	}
}

int part_build(const struct topo *t, uint32_t n_parts, struct partition *p, struct diag *d)
{
	struct sw_graph g = {0};
	uint32_t *tier = NULL, *work = NULL, top;
	int err = -ENOMEM;

	memset(p, 0, sizeof(*p));
	p->cut_min = NONE;
	p->lookahead = SIMTIME_NEVER;
	if (!n_parts)
		n_parts = 1;
	if (n_parts > 1 && n_parts > t->n_switches) {
		diag_set(d, "", 0, "topology",
			 "%u parts for %u switch%s: a switch is never split, so this fabric runs "
			 "on at most %u process%s",
			 n_parts, t->n_switches, t->n_switches == 1 ? "" : "es", t->n_switches,
			 t->n_switches == 1 ? "" : "es");
		return -EINVAL;
	}
	p->n_parts = n_parts;
	p->node_part = calloc(t->n_nodes ? t->n_nodes : 1, sizeof(*p->node_part));
	if (!p->node_part)
		return -ENOMEM;
	if (n_parts == 1) {
		p->method = PART_SINGLE;
		return 0;
	}
	tier = malloc((size_t)t->n_nodes * sizeof(*tier));
	work = malloc((size_t)t->n_nodes * sizeof(*work));
	if (!tier || !work || graph_build(t, &g))
		goto out;
	top = tiers(t, &g, tier, work);
	p->method = PART_GROUPS;
	if (top < 2 || by_groups(t, &g, tier, top, n_parts, p->node_part, work, &p->n_groups)) {
		p->method = PART_GRAPH;
		by_graph(t, &g, n_parts, p->node_part, work);
	}
	/* hosts with their server's first switch */
	for (uint32_t h = 0; h < t->n_hosts; h++) {
		uint32_t node = t->hosts[h], s = home_switch(t, node);

		p->node_part[node] = s == NONE ? 0 : p->node_part[s];
	}
	for (uint32_t l = 0; l < t->n_links; l++) {
		const struct topo_link *k = &t->links[l];

		if (p->node_part[k->a] == p->node_part[k->b])
			continue;
		p->n_cut++;
		if (p->cut_min == NONE || k->delay < p->lookahead) {
			p->cut_min = l;
			p->lookahead = k->delay;
		}
	}
	err = 0;
	if (p->n_cut && !p->lookahead) {
		diag_set(d, "", 0, "topology",
			 "link %s has no propagation delay and joins two parts: no part could "
			 "run ahead of the other (give it a cable length or a delay)",
			 t->links[p->cut_min].name);
		err = -EINVAL;
	}
out:
	free(g.first);
	free(g.adj);
	free(tier);
	free(work);
	if (err)
		part_free(p);
	return err;
}

void part_free(struct partition *p)
{
	free(p->node_part);
	p->node_part = NULL;
}

void part_load(const struct partition *p, const struct topo *t, uint32_t k, struct part_load *out)
{
	memset(out, 0, sizeof(*out));
	for (uint32_t u = 0; u < t->n_nodes; u++) {
		if (p->node_part[u] != k)
			continue;
		if (t->nodes[u].kind == TOPO_SWITCH)
			out->switches++;
		else
			out->hosts++;
		out->ports += t->nodes[u].n_ports;
	}
	for (uint32_t l = 0; l < t->n_links; l++) {
		const struct topo_link *x = &t->links[l];

		if (p->node_part[x->a] != p->node_part[x->b] &&
		    (p->node_part[x->a] == k || p->node_part[x->b] == k))
			out->cut++;
	}
}
