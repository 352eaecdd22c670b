/*
 * Routes: shortest paths from every node to every host over the links that
 * are up, with all equal-cost next hops kept (ECMP). Hosts never forward:
 * a breadth-first search from the destination expands switches only.
 *
 * Hosts that hang off the same set of switches (and nothing else) see the
 * same routes everywhere except at those switches and at themselves, so one
 * search serves such a group: a leaf or edge switch with its 40 hosts costs
 * one search, not 40, and the tables shrink by the same factor. The
 * exceptions are answered from two small per-host lists: the ports of each
 * attached switch that lead to the host, and the host's own ports (the way
 * the group's representative reaches its siblings, two hops off).
 *
 * Tables are [group][node]: the distance, and the offset of the next hops
 * in one shared array of local port indices (uint16_t, as a node has at
 * most TOPO_MAX_PORTS ports); an entry's hops end where the next entry's
 * begin, as the searches fill the array in table order.
 */
#include "topologies/topo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define ROUTES_INF UINT32_MAX
/* Bound on [group][node] entries: 2^28 is 2 GiB of tables. */
#define ROUTES_MAX_ENTRIES ((size_t)1 << 28)

/* One attached switch of a host, and the ports there that lead to it. */
struct routes_last {
	uint32_t node;
	uint32_t off;
	uint32_t count;
};

/*
 * What forwarding reads of a destination host, in one record (half a cache
 * line): the tables it comes from are arrays of their own, a line each.
 */
struct routes_host {
	uint32_t node;		       /* host_node[host] */
	uint32_t group;		       /* group[host] */
	uint32_t last_first, last_end; /* its attached switches in last[] */
	uint32_t is_rep;	       /* it is its group's representative */
	uint32_t rep_node;	       /* host_node[rep] */
	uint32_t rep_off, rep_count;   /* own_off[rep], own_count[rep] */
};

struct topo_routes {
	uint32_t n_nodes, n_hosts, n_groups;
	struct routes_host *lk; /* [host] */
	/* while the tables are built (host_node, group, rep, last_first,
	 * own_off, own_count), then only in lk */
	uint32_t *host_node;  /* [host] node index */
	uint32_t *group;      /* [host] */
	uint32_t *rep;	      /* [group] host whose search fills the tables */
	uint32_t *dist;	      /* [group * n_nodes + node] */
	uint32_t *off;	      /* [group * n_nodes + node], one more at the end */
	uint32_t *last_first; /* [host], one more at the end: into last[] */
	struct routes_last *last;
	uint32_t *own_off, *own_count; /* [host] the host's own ports that are up */
	uint16_t *hops;
	uint32_t n_hops, cap_hops;
};

/* What the searches read, packed away from the wide topo_port records. */
struct routes_graph {
	uint32_t n_nodes;
	uint32_t *first, *n_ports; /* [node] */
	uint8_t *is_switch;	   /* [node] */
	uint32_t *peer;		   /* [global port] */
	uint8_t *up;		   /* [global port] */
};

/* A host's signature: the switches its up links reach, sorted, distinct. */
struct routes_sig {
	uint32_t *sw;
	uint32_t len;
	uint32_t host;
	int alone; /* no up link, or a link to another host: a group of its own */
};

static void routes_graph_free(struct routes_graph *g)
{
	free(g->first);
	free(g->n_ports);
	free(g->is_switch);
	free(g->peer);
	free(g->up);
}

static int routes_graph_init(struct routes_graph *g, const struct topo *t)
{
	uint32_t i;

	memset(g, 0, sizeof(*g));
	g->n_nodes = t->n_nodes;
	g->first = malloc(((size_t)t->n_nodes + 1) * sizeof(*g->first));
	g->n_ports = malloc(((size_t)t->n_nodes + 1) * sizeof(*g->n_ports));
	g->is_switch = malloc((size_t)t->n_nodes + 1);
	g->peer = malloc(((size_t)t->n_ports + 1) * sizeof(*g->peer));
	g->up = malloc((size_t)t->n_ports + 1);
	if (!g->first || !g->n_ports || !g->is_switch || !g->peer || !g->up) {
		routes_graph_free(g);
		return -ENOMEM;
	}
	for (i = 0; i < t->n_nodes; i++) {
		if (t->nodes[i].n_ports > TOPO_MAX_PORTS) {
			routes_graph_free(g);
			return -E2BIG;
		}
		g->first[i] = t->nodes[i].first_port;
		g->n_ports[i] = t->nodes[i].n_ports;
		g->is_switch[i] = t->nodes[i].kind == TOPO_SWITCH;
	}
	for (i = 0; i < t->n_ports; i++) {
		g->peer[i] = t->ports[i].peer;
		g->up[i] = t->links[t->ports[i].link].up != 0;
	}
	return 0;
}

static int routes_push(struct topo_routes *r, uint32_t port)
{
	if (r->n_hops == r->cap_hops) {
		uint32_t cap = r->cap_hops ? r->cap_hops * 2 : 4096;
		uint16_t *p;

		if (r->cap_hops >= UINT32_MAX / 2)
			return -E2BIG;
		p = realloc(r->hops, (size_t)cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		r->hops = p;
		r->cap_hops = cap;
	}
	r->hops[r->n_hops++] = (uint16_t)port;
	return 0;
}

static int routes_sig_cmp(const void *x, const void *y)
{
	const struct routes_sig *p = x, *q = y;
	uint32_t i;

	/* hosts of their own sort last, by host */
	if (p->alone != q->alone)
		return p->alone - q->alone;
	if (!p->alone) {
		if (p->len != q->len)
			return p->len < q->len ? -1 : 1;
		for (i = 0; i < p->len; i++)
			if (p->sw[i] != q->sw[i])
				return p->sw[i] < q->sw[i] ? -1 : 1;
	}
	return p->host < q->host ? -1 : p->host > q->host;
}

static int routes_u32_cmp(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

static int routes_same_group(const struct routes_sig *p, const struct routes_sig *q)
{
	return !p->alone && !q->alone && p->len == q->len &&
	       memcmp(p->sw, q->sw, p->len * sizeof(*p->sw)) == 0;
}

/*
 * Group the hosts by signature; the first host (lowest index) of a group is
 * its representative. Fills r->group, r->rep, r->n_groups.
 */
static int routes_group_hosts(struct topo_routes *r, const struct routes_graph *g)
{
	struct routes_sig *sigs;
	uint32_t *sw = NULL, total = 0, h, i, p;
	int err = -ENOMEM;

	sigs = calloc((size_t)r->n_hosts + 1, sizeof(*sigs));
	for (h = 0; h < r->n_hosts; h++)
		total += g->n_ports[r->host_node[h]];
	sw = malloc(((size_t)total + 1) * sizeof(*sw));
	if (!sigs || !sw)
		goto out_free;

	for (h = 0, total = 0; h < r->n_hosts; h++) {
		uint32_t u = r->host_node[h], len = 0;
		struct routes_sig *s = &sigs[h];

		s->sw = sw + total;
		s->host = h;
		for (p = g->first[u]; p < g->first[u] + g->n_ports[u]; p++) {
			if (!g->up[p])
				continue;
			if (!g->is_switch[g->peer[p]])
				s->alone = 1;
			s->sw[len++] = g->peer[p];
		}
		qsort(s->sw, len, sizeof(*s->sw), routes_u32_cmp);
		for (i = 0, s->len = 0; i < len; i++)
			if (i == 0 || s->sw[i] != s->sw[i - 1])
				s->sw[s->len++] = s->sw[i];
		if (s->len == 0)
			s->alone = 1;
		total += len;
	}
	qsort(sigs, r->n_hosts, sizeof(*sigs), routes_sig_cmp);
	for (i = 0; i < r->n_hosts; i++) {
		if (i == 0 || !routes_same_group(&sigs[i], &sigs[i - 1]))
			r->rep[r->n_groups++] = sigs[i].host;
		r->group[sigs[i].host] = r->n_groups - 1;
	}
	err = 0;
out_free:
	free(sw);
	free(sigs);
	return err;
}

/*
 * One search from the node @root; then the next hops of every node: its up
 * ports whose peer is one hop nearer and may forward (a switch, or the root).
 */
static int routes_search(struct topo_routes *r, const struct routes_graph *g, uint32_t group,
			 uint32_t root, uint32_t *queue)
{
	uint32_t *dist = r->dist + (size_t)group * g->n_nodes;
	uint32_t *off = r->off + (size_t)group * g->n_nodes;
	uint32_t head = 0, tail = 0, u, p, end;
	int err;

	for (u = 0; u < g->n_nodes; u++)
		dist[u] = ROUTES_INF;
	dist[root] = 0;
	queue[tail++] = root;
	while (head < tail) {
		u = queue[head++];
		if (u != root && !g->is_switch[u])
			continue;
		end = g->first[u] + g->n_ports[u];
		for (p = g->first[u]; p < end; p++) {
			uint32_t v = g->peer[p];

			if (g->up[p] && dist[v] == ROUTES_INF) {
				dist[v] = dist[u] + 1;
				queue[tail++] = v;
			}
		}
	}

	for (u = 0; u < g->n_nodes; u++) {
		off[u] = r->n_hops;
		if (dist[u] == ROUTES_INF || dist[u] == 0)
			continue;
		end = g->first[u] + g->n_ports[u];
		for (p = g->first[u]; p < end; p++) {
			uint32_t v = g->peer[p];

			if (!g->up[p] || dist[v] != dist[u] - 1 || (!g->is_switch[v] && v != root))
				continue;
			err = routes_push(r, p - g->first[u]);
			if (err)
				return err;
		}
	}
	return 0;
}

/* Per host: its own up ports, and at each attached switch the ports to it. */
static int routes_host_lists(struct topo_routes *r, const struct routes_graph *g)
{
	uint32_t h, p, q, n_last = 0, cap = r->n_hosts + 16;
	int err;

	r->last = malloc(cap * sizeof(*r->last));
	if (!r->last)
		return -ENOMEM;
	for (h = 0; h < r->n_hosts; h++) {
		uint32_t u = r->host_node[h], end = g->first[u] + g->n_ports[u];

		r->last_first[h] = n_last;
		r->own_off[h] = r->n_hops;
		for (p = g->first[u]; p < end; p++) {
			if (!g->up[p])
				continue;
			err = routes_push(r, p - g->first[u]);
			if (err)
				return err;
		}
		r->own_count[h] = r->n_hops - r->own_off[h];

		for (p = g->first[u]; p < end; p++) {
			uint32_t s = g->peer[p], seen = 0, send;

			if (!g->up[p] || !g->is_switch[s])
				continue;
			for (q = r->last_first[h]; q < n_last; q++)
				seen |= r->last[q].node == s;
			if (seen)
				continue;
			if (n_last == cap) {
				struct routes_last *nl =
				    realloc(r->last, 2 * (size_t)cap * sizeof(*nl));

				if (!nl)
					return -ENOMEM;
				r->last = nl;
				cap *= 2;
			}
			r->last[n_last] = (struct routes_last){s, r->n_hops, 0};
			send = g->first[s] + g->n_ports[s];
			for (q = g->first[s]; q < send; q++) {
				if (!g->up[q] || g->peer[q] != u)
					continue;
				err = routes_push(r, q - g->first[s]);
				if (err)
					return err;
			}
			r->last[n_last].count = r->n_hops - r->last[n_last].off;
			n_last++;
		}
	}
	r->last_first[r->n_hosts] = n_last;
	return 0;
}

/* r->lk from the tables. */
static int routes_pack_hosts(struct topo_routes *r)
{
	r->lk = malloc(((size_t)r->n_hosts + 1) * sizeof(*r->lk));
	if (!r->lk)
		return -ENOMEM;
	for (uint32_t h = 0; h < r->n_hosts; h++) {
		uint32_t rep = r->rep[r->group[h]];

		r->lk[h] = (struct routes_host){
		    .node = r->host_node[h],
		    .group = r->group[h],
		    .last_first = r->last_first[h],
		    .last_end = r->last_first[h + 1],
		    .is_rep = rep == h,
		    .rep_node = r->host_node[rep],
		    .rep_off = r->own_off[rep],
		    .rep_count = r->own_count[rep],
		};
	}
	return 0;
}

/* The per-host tables the searches filled: r->lk holds what is read after. */
static void routes_drop_host_tables(struct topo_routes *r)
{
	free(r->host_node);
	free(r->group);
	free(r->rep);
	free(r->last_first);
	free(r->own_off);
	free(r->own_count);
	r->host_node = r->group = r->rep = r->last_first = r->own_off = r->own_count = NULL;
}

void topo_routes_free(struct topo_routes *r)
{
	if (!r)
		return;
	free(r->lk);
	routes_drop_host_tables(r);
	free(r->dist);
	free(r->off);
	free(r->last);
	free(r->hops);
	free(r);
}

int topo_routes_build(const struct topo *t, struct topo_routes **out)
{
	struct topo_routes *r;
	struct routes_graph g;
	uint32_t *queue = NULL, grp;
	size_t entries;
	int err;

	*out = NULL;
	err = routes_graph_init(&g, t);
	if (err)
		return err;
	r = calloc(1, sizeof(*r));
	if (!r) {
		routes_graph_free(&g);
		return -ENOMEM;
	}
	err = -ENOMEM;
	r->n_nodes = t->n_nodes;
	r->n_hosts = t->n_hosts;
	r->host_node = malloc(((size_t)t->n_hosts + 1) * sizeof(*r->host_node));
	r->group = malloc(((size_t)t->n_hosts + 1) * sizeof(*r->group));
	r->rep = malloc(((size_t)t->n_hosts + 1) * sizeof(*r->rep));
	r->last_first = malloc(((size_t)t->n_hosts + 1) * sizeof(*r->last_first));
	r->own_off = malloc(((size_t)t->n_hosts + 1) * sizeof(*r->own_off));
	r->own_count = malloc(((size_t)t->n_hosts + 1) * sizeof(*r->own_count));
	queue = malloc(((size_t)t->n_nodes + 1) * sizeof(*queue));
	if (!r->host_node || !r->group || !r->rep || !r->last_first || !r->own_off ||
	    !r->own_count || !queue)
		goto out_free;
	memcpy(r->host_node, t->hosts, (size_t)t->n_hosts * sizeof(*r->host_node));

	err = routes_group_hosts(r, &g);
	if (err)
		goto out_free;
	entries = (size_t)r->n_groups * r->n_nodes;
	if (entries > ROUTES_MAX_ENTRIES) {
		err = -E2BIG;
		goto out_free;
	}
	err = -ENOMEM;
	r->dist = malloc((entries + 1) * sizeof(*r->dist));
	r->off = malloc((entries + 1) * sizeof(*r->off));
	if (!r->dist || !r->off)
		goto out_free;

	for (grp = 0; grp < r->n_groups; grp++) {
		err = routes_search(r, &g, grp, r->host_node[r->rep[grp]], queue);
		if (err)
			goto out_free;
	}
	r->off[entries] = r->n_hops;
	err = routes_host_lists(r, &g);
	if (err)
		goto out_free;
	err = routes_pack_hosts(r);
	if (err)
		goto out_free;
	routes_drop_host_tables(r);
	free(queue);
	routes_graph_free(&g);
	*out = r;
	return 0;

out_free:
	free(queue);
	routes_graph_free(&g);
	topo_routes_free(r);
	return err;
}

/*
 * The answer for (@node, @dst_host): the group's tables, except at the host
 * itself, at its attached switches and at the group's representative.
 * @dist may be NULL.
 */
static void routes_lookup(const struct topo_routes *r, uint32_t node, uint32_t dst, uint32_t *off,
			  uint32_t *count, uint32_t *dist)
{
	const struct routes_host *h = &r->lk[dst];
	uint32_t i;
	size_t e;

	*off = 0;
	*count = 0;
	if (node == h->node) {
		if (dist)
			*dist = 0;
		return;
	}
	if (!h->is_rep) {
		for (i = h->last_first; i < h->last_end; i++) {
			if (r->last[i].node == node) {
				*off = r->last[i].off;
				*count = r->last[i].count;
				if (dist)
					*dist = 1;
				return;
			}
		}
		if (node == h->rep_node) {
			*off = h->rep_off;
			*count = h->rep_count;
			if (dist)
				*dist = 2;
			return;
		}
	}
	e = (size_t)h->group * r->n_nodes + node;
	*off = r->off[e];
	*count = r->off[e + 1] - r->off[e];
	if (dist) /* the forwarding path does not need it: one cache line less */
		*dist = r->dist[e];
}

const uint16_t *topo_next_hops(const struct topo_routes *r, uint32_t node, uint32_t dst_host,
			       uint32_t *count)
{
	uint32_t off;

	*count = 0;
	if (!r || node >= r->n_nodes || dst_host >= r->n_hosts)
		return NULL;
	routes_lookup(r, node, dst_host, &off, count, NULL);
	return *count ? r->hops + off : NULL;
}

uint32_t topo_distance(const struct topo_routes *r, uint32_t node, uint32_t dst_host)
{
	uint32_t off, count, dist;

	if (!r || node >= r->n_nodes || dst_host >= r->n_hosts)
		return UINT32_MAX;
	routes_lookup(r, node, dst_host, &off, &count, &dist);
	return dist;
}

uint32_t topo_routes_diameter(const struct topo_routes *r)
{
	size_t entries = (size_t)r->n_groups * r->n_nodes;
	uint32_t most = 0;

	/* a group's table holds the distance of every node to its hosts; a
	 * switch's entry can exceed every host's, so this bounds from above */
	for (size_t i = 0; i < entries; i++)
		if (r->dist[i] != ROUTES_INF && r->dist[i] > most)
			most = r->dist[i];
	return most;
}

/* The port a packet of a flow with ECMP hash @hash leaves @node by on its
 * way to host @dst, its @steps-th hop; UINT32_MAX when there is none. */
static uint32_t path_step(const struct topo *t, const struct topo_routes *r, uint32_t node,
			  uint32_t dst, uint64_t hash, uint32_t steps)
{
	const struct topo_node *n = &t->nodes[node];
	uint32_t count = 1, local = 0;

	if (steps > t->n_nodes || !n->n_ports)
		return UINT32_MAX;
	if (n->kind == TOPO_SWITCH) {
		const uint16_t *hops = topo_next_hops(r, node, dst, &count);

		if (!count)
			return UINT32_MAX;
		local = hops[count == 1 ? 0 : topo_ecmp_pick(hash, node, count)];
	} else if (steps) {
		return UINT32_MAX; /* a host on the way */
	}
	return n->first_port + local;
}

simtime_t topo_path_delay(const struct topo *t, const struct topo_routes *r, uint32_t src,
			  uint32_t dst, uint64_t hash, uint32_t frame)
{
	uint32_t node = t->hosts[src], end = t->hosts[dst];
	simtime_t total = 0;

	for (uint32_t steps = 0; node != end; steps++) {
		uint32_t port = path_step(t, r, node, dst, hash, steps);
		const struct topo_link *l;

		if (port == UINT32_MAX)
			return SIMTIME_NEVER;
		l = &t->links[t->ports[port].link];
		total += l->delay;
		if (frame && l->rate_bps)
			total += simtime_tx(frame, l->rate_bps);
		node = t->ports[port].peer;
	}
	return total;
}

uint32_t topo_path_ports(const struct topo *t, const struct topo_routes *r, uint32_t src,
			 uint32_t dst, uint64_t hash, uint32_t *ports, uint32_t max)
{
	uint32_t node = t->hosts[src], end = t->hosts[dst], k = 0;

	for (uint32_t steps = 0; node != end; steps++) {
		uint32_t port = path_step(t, r, node, dst, hash, steps);

		if (port == UINT32_MAX)
			return UINT32_MAX;
		if (k < max)
			ports[k] = port;
		k++;
		node = t->ports[port].peer;
	}
	return k;
}
