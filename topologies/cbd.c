/*
 * Cyclic buffer dependencies (cbd.h): the static PFC deadlock analysis.
 *
 * The graph of one lossless priority: a node per switch ingress buffer,
 * named by the global index of the switch port it belongs to (the port
 * facing the upstream). Traffic towards a host d that arrives at switch u
 * from v (a switch, or a source host) over the port u:v may leave u on any
 * of u's next hops towards d; when that next hop is a switch w, the packet
 * held in u:v waits for room in w:u, so u:v -> w:u is an edge. Only the
 * switches that the traffic can reach count: for each destination, the
 * union of the route DAGs (every ECMP choice) from its sources. Edges are
 * deduplicated with a bit per (ingress port, local port of its switch), or
 * an open-addressing hash set when that bitmap would be too large.
 *
 * All pairs: hosts hanging off the same single switch have the same routes
 * at every other switch, and at their own switch the next hop is the host
 * itself (no edge), so one destination per such group is enough: a k=16
 * fat-tree (1024 hosts) needs 128 spreads, not 1024.
 *
 * Finding the cycles in the graph is cbd_cycles.c's part.
 */
#include "topologies/cbd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "topologies/cbd_impl.h"

/* Bits of the edge bitmap (32 MiB); beyond, edges go to the hash set. */
#define CBD_BITMAP_MAX ((uint64_t)1 << 28)

/*
 * What the spreads share: the topology packed for the walk, the edges of
 * the priority being built, and scratch. An edge u:v -> w:u is also u:v ->
 * (u's local port towards w), so a bit per (ingress port, local port of its
 * switch) deduplicates edges without hashing; a topology whose bitmap would
 * be too large (switches with thousands of ports) uses the hash set.
 */
struct cbd_ctx {
	const struct topo *t;
	const struct topo_routes *r;
	uint32_t *bitoff; /* [port] first bit of the port's row in bits[], or NULL */
	uint64_t *bits;
	uint64_t *list; /* the edges, as bits[] finds them new */
	size_t n_list, cap_list;
	struct cbd_set edges; /* without the bitmap */
	uint32_t *far;	      /* [port] the far end's port if it is a switch's, else CBD_NONE */
	uint8_t *is_node;     /* [port] an ingress buffer the traffic enters */
	uint32_t *seen;	      /* [node] stamp of the last spread that reached it */
	uint32_t *work;	      /* [node] the spread's worklist */
	uint32_t stamp;
};

static void cbd_ctx_free(struct cbd_ctx *c)
{
	free(c->bitoff);
	free(c->bits);
	free(c->list);
	free(c->edges.keys);
	free(c->far);
	free(c->is_node);
	free(c->seen);
	free(c->work);
}

static int cbd_ctx_init(struct cbd_ctx *c, const struct topo *t, const struct topo_routes *r)
{
	uint64_t total = 0;
	uint32_t p, u;

	memset(c, 0, sizeof(*c));
	c->t = t;
	c->r = r;
	c->far = malloc(((size_t)t->n_ports + 1) * sizeof(*c->far));
	c->is_node = calloc((size_t)t->n_ports + 1, 1);
	c->seen = calloc((size_t)t->n_nodes + 1, sizeof(*c->seen));
	c->work = malloc(((size_t)t->n_nodes + 1) * sizeof(*c->work));
	if (!c->far || !c->is_node || !c->seen || !c->work)
		goto out_nomem;
	for (u = 0; u < t->n_nodes; u++)
		if (t->nodes[u].kind == TOPO_SWITCH)
			total += (uint64_t)t->nodes[u].n_ports * t->nodes[u].n_ports;
	if (total <= CBD_BITMAP_MAX) {
		c->bitoff = malloc(((size_t)t->n_ports + 1) * sizeof(*c->bitoff));
		c->bits = calloc((size_t)(total / 64 + 1), sizeof(*c->bits));
		if (!c->bitoff || !c->bits)
			goto out_nomem;
		for (u = 0, total = 0; u < t->n_nodes; u++) {
			const struct topo_node *n = &t->nodes[u];

			for (p = n->first_port; p < n->first_port + n->n_ports; p++) {
				c->bitoff[p] = (uint32_t)total;
				if (n->kind == TOPO_SWITCH)
					total += n->n_ports;
			}
		}
	} else if (cbd_set_init(&c->edges, 1024)) {
		goto out_nomem;
	}
	for (p = 0; p < t->n_ports; p++) {
		const struct topo_port *tp = &t->ports[p];

		c->far[p] = t->nodes[tp->peer].kind == TOPO_SWITCH ? tp->peer_port : CBD_NONE;
	}
	return 0;

out_nomem:
	cbd_ctx_free(c);
	return -ENOMEM;
}

/* The edge @b -> @w, where @w is the far end of local port @q of @b's switch. */
static int cbd_edge(struct cbd_ctx *c, uint32_t b, uint32_t q, uint32_t w)
{
	uint64_t key = (uint64_t)b << 32 | w, mask;
	size_t bit;

	if (!c->bits)
		return cbd_set_add(&c->edges, key);
	bit = (size_t)c->bitoff[b] + q;
	mask = 1ULL << (bit & 63);
	if (c->bits[bit >> 6] & mask)
		return 0;
	if (c->n_list == c->cap_list) {
		size_t cap = c->cap_list ? 2 * c->cap_list : 4096;
		uint64_t *l = realloc(c->list, cap * sizeof(*l));

		if (!l)
			return -ENOMEM;
		c->list = l;
		c->cap_list = cap;
	}
	c->bits[bit >> 6] |= mask;
	c->list[c->n_list++] = key;
	return 0;
}

/* Start a spread: a new stamp (all of seen[] is stale once it wraps). */
static void cbd_spread_begin(struct cbd_ctx *c)
{
	if (++c->stamp == 0) {
		memset(c->seen, 0, (size_t)c->t->n_nodes * sizeof(*c->seen));
		c->stamp = 1;
	}
}

/*
 * Traffic towards host @dst from the @n_src source hosts in c->work[]:
 * walk the union of their route DAGs, marking the ingress buffers it
 * enters and adding the edge from each to every next buffer.
 */
static int cbd_spread(struct cbd_ctx *c, uint32_t dst, uint32_t n_src)
{
	const struct topo *t = c->t;
	uint32_t head = 0, tail = n_src;

	while (head < tail) {
		uint32_t v = c->work[head++], n_hops, i;
		const uint16_t *hops = topo_next_hops(c->r, v, dst, &n_hops);

		for (i = 0; i < n_hops; i++) {
			uint32_t b = c->far[t->nodes[v].first_port + hops[i]], u, n_next, j;
			const uint16_t *next;

			if (b == CBD_NONE)
				continue; /* the destination itself */
			u = t->ports[b].node;
			c->is_node[b] = 1;
			next = topo_next_hops(c->r, u, dst, &n_next);
			for (j = 0; j < n_next; j++) {
				uint32_t w = c->far[t->nodes[u].first_port + next[j]];

				if (w != CBD_NONE && cbd_edge(c, b, next[j], w))
					return -ENOMEM;
			}
			if (c->seen[u] != c->stamp) {
				c->seen[u] = c->stamp;
				c->work[tail++] = u;
			}
		}
	}
	return 0;
}

/* Turn the priority's edge set into its share of @out. */
static int cbd_finish_prio(struct cbd_ctx *c, uint8_t prio, uint32_t max_cycles,
			   struct cbd_result *out)
{
	const struct topo *t = c->t;
	uint32_t p, nodes = 0;
	int err;

	for (p = 0; p < t->n_ports; p++)
		nodes += c->is_node[p];
	memset(c->is_node, 0, t->n_ports);
	out->n_nodes += nodes;
	if (!c->bits) {
		out->n_edges += (uint32_t)c->edges.n;
		return cbd_set_cycles(&c->edges, t->n_ports, prio, max_cycles, out);
	}
	out->n_edges += (uint32_t)c->n_list;
	err = cbd_keys_cycles(c->list, c->n_list, t->n_ports, prio, max_cycles, out);
	/* empty the bitmap for the next priority: w:u's far end is the port of u */
	for (size_t i = 0; i < c->n_list; i++) {
		uint32_t b = (uint32_t)(c->list[i] >> 32), w = (uint32_t)c->list[i];
		size_t bit = (size_t)c->bitoff[b] + t->ports[w].peer_port -
			     t->nodes[t->ports[b].node].first_port;

		c->bits[bit >> 6] &= ~(1ULL << (bit & 63));
	}
	c->n_list = 0;
	return err;
}

/* Every ordered pair of hosts: one destination per group of hosts on one switch. */
static int cbd_all_pairs(struct cbd_ctx *c, uint8_t lossless, uint32_t max_cycles,
			 struct cbd_result *out)
{
	const struct topo *t = c->t;
	uint32_t *done, h, src, first_cycle = out->n_cycles, n_cycles, nodes, edges, sccs, i;
	uint8_t prio, first = (uint8_t)__builtin_ctz(lossless);
	int err = 0;

	done = calloc((size_t)t->n_nodes + 1, sizeof(*done));
	if (!done)
		return -ENOMEM;
	for (h = 0; h < t->n_hosts && !err; h++) {
		const struct topo_node *hn = &t->nodes[t->hosts[h]];
		uint32_t sw = CBD_NONE, n = 0;

		if (hn->n_ports == 1 && t->links[t->ports[hn->first_port].link].up &&
		    t->nodes[t->ports[hn->first_port].peer].kind == TOPO_SWITCH) {
			sw = t->ports[hn->first_port].peer;
			if (done[sw]) {
				/* a sibling went before: its traffic to this host enters here */
				uint32_t rep = t->nodes[t->hosts[done[sw] - 1]].first_port;

				c->is_node[c->far[rep]] = 1;
				continue;
			}
			done[sw] = h + 1;
		}
		cbd_spread_begin(c);
		c->seen[t->hosts[h]] = c->stamp;
		for (src = 0; src < t->n_hosts; src++) {
			if (src == h)
				continue;
			c->seen[t->hosts[src]] = c->stamp;
			c->work[n++] = t->hosts[src];
		}
		err = cbd_spread(c, h, n);
	}
	free(done);
	if (err)
		return err;

	nodes = out->n_nodes;
	edges = out->n_edges;
	sccs = out->n_sccs;
	if ((err = cbd_finish_prio(c, first, max_cycles, out)))
		return err;
	/* the same graph for every lossless priority */
	nodes = out->n_nodes - nodes;
	edges = out->n_edges - edges;
	sccs = out->n_sccs - sccs;
	n_cycles = out->n_cycles - first_cycle;
	for (prio = (uint8_t)(first + 1); prio < 8; prio++) {
		if (!(lossless & (1u << prio)))
			continue;
		out->n_nodes += nodes;
		out->n_edges += edges;
		out->n_sccs += sccs;
		for (i = 0; i < n_cycles; i++) {
			const struct cbd_cycle *cy = &out->cycles[first_cycle + i];

			if ((err = cbd_push_cycle(out, prio, cy->ports, cy->n)))
				return err;
		}
	}
	return 0;
}

static int cbd_pair_cmp(const void *x, const void *y)
{
	const struct cbd_pair *a = x, *b = y;

	if (a->prio != b->prio)
		return a->prio < b->prio ? -1 : 1;
	if (a->dst != b->dst)
		return a->dst < b->dst ? -1 : 1;
	return a->src < b->src ? -1 : a->src > b->src;
}

/* The workload's pairs, by priority and destination. */
static int cbd_pairs(struct cbd_ctx *c, uint8_t lossless, const struct cbd_pair *pairs,
		     size_t n_pairs, uint32_t max_cycles, struct cbd_result *out)
{
	const struct topo *t = c->t;
	struct cbd_pair *p;
	size_t i = 0, j;
	int err = 0;

	p = malloc((n_pairs + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	memcpy(p, pairs, n_pairs * sizeof(*p));
	qsort(p, n_pairs, sizeof(*p), cbd_pair_cmp);
	while (i < n_pairs && !err) {
		uint8_t prio = p[i].prio;

		if (prio >= 8 || !(lossless & (1u << prio))) {
			while (i < n_pairs && p[i].prio == prio)
				i++;
			continue;
		}
		while (i < n_pairs && p[i].prio == prio && !err) {
			uint32_t dst = p[i].dst, n = 0;

			cbd_spread_begin(c);
			for (j = i; j < n_pairs && p[j].prio == prio && p[j].dst == dst; j++) {
				uint32_t src = p[j].src;

				if (src >= t->n_hosts || dst >= t->n_hosts || src == dst ||
				    c->seen[t->hosts[src]] == c->stamp)
					continue;
				c->seen[t->hosts[src]] = c->stamp;
				c->work[n++] = t->hosts[src];
			}
			i = j;
			if (n)
				err = cbd_spread(c, dst, n);
		}
		if (!err)
			err = cbd_finish_prio(c, prio, max_cycles, out);
	}
	free(p);
	return err;
}

int cbd_analyze(const struct topo *t, const struct topo_routes *r, uint8_t lossless,
		const struct cbd_pair *pairs, size_t n_pairs, uint32_t max_cycles,
		struct cbd_result *out)
{
	struct cbd_ctx c;
	int err;

	memset(out, 0, sizeof(*out));
	if (!lossless || (pairs && !n_pairs))
		return 0;
	if ((err = cbd_ctx_init(&c, t, r)))
		return err;
	if (pairs)
		err = cbd_pairs(&c, lossless, pairs, n_pairs, max_cycles, out);
	else
		err = cbd_all_pairs(&c, lossless, max_cycles, out);
	cbd_ctx_free(&c);
	if (err)
		cbd_result_free(out);
	return err;
}
