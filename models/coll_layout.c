/*
 * Collective layout (coll_layout.h): the rings per channel, which edges
 * run over NVLink, and the NICs of the others.
 */
#include "models/coll_layout.h"

#include <errno.h>
#include <stdlib.h>

#include "topologies/topo.h"

uint32_t coll_rank_gpu(const struct coll_place *pl, uint32_t r)
{
	return pl->ranks[r];
}

uint32_t coll_rank_server(const struct coll_place *pl, uint32_t r)
{
	return pl->topo ? pl->topo->gpu_server[pl->ranks[r]] : pl->ranks[r];
}

/* Server @s's usable NICs (nics, a mask of positions; 0: all): how
 * many, and the host index of the @i-th. */
static uint32_t usable_count(const struct coll_place *pl, uint32_t s)
{
	const struct topo_server *sv = &pl->topo->servers[s];
	uint32_t m = 0;

	for (uint32_t k = 0; k < sv->n_nics; k++)
		m += !pl->nics || k >= 64 || (pl->nics >> k & 1);
	return m ? m : sv->n_nics; /* the loader refuses a server left without one */
}

static uint32_t usable_nic(const struct coll_place *pl, uint32_t s, uint32_t i)
{
	const struct topo_server *sv = &pl->topo->servers[s];
	int all = usable_count(pl, s) == sv->n_nics;

	for (uint32_t k = 0; k < sv->n_nics; k++)
		if (all || k >= 64 || (pl->nics >> k & 1)) {
			if (!i--)
				return pl->topo->server_nics[sv->first_nic + k];
		}
	return pl->topo->server_nics[sv->first_nic];
}

/* The NIC channel @ch uses on server @s. */
static uint32_t rail_nic(const struct coll_place *pl, uint32_t s, uint32_t ch)
{
	if (!pl->topo)
		return s;
	return usable_nic(pl, s, ch % usable_count(pl, s));
}

/* The NIC next to rank @r's GPU. */
static uint32_t gpu_nic(const struct coll_place *pl, uint32_t r)
{
	const struct topo_server *sv;
	uint32_t s = coll_rank_server(pl, r), g;

	if (!pl->topo)
		return s;
	sv = &pl->topo->servers[s];
	g = pl->ranks[r] - sv->first_gpu;
	return usable_nic(pl, s, (uint32_t)((uint64_t)g * usable_count(pl, s) / sv->n_gpus));
}

void coll_layout_ends(const struct coll_place *pl, const struct coll_layout *l, uint32_t e,
		      uint32_t *from, uint32_t *to)
{
	if (l->parent) {
		uint32_t x = e / 2, r = x % l->n, up = l->parent[x] == COLL_ROOT ? r : l->parent[x];

		*from = e % 2 ? up : r;
		*to = e % 2 ? r : up;
	} else if (l->ring) {
		uint32_t ch = e % l->channels, i = e / l->channels;

		*from = l->ring[ch * l->n + i];
		*to = l->ring[ch * l->n + (i + 1) % l->n];
	} else {
		uint32_t k = e % (l->n - 1);

		*from = e / (l->n - 1);
		*to = k + (k >= *from);
	}
	(void)pl;
}

void coll_layout_nics(const struct coll_place *pl, const struct coll_layout *l, uint32_t e,
		      uint32_t *src, uint32_t *dst)
{
	uint32_t from, to;

	coll_layout_ends(pl, l, e, &from, &to);
	if (l->parent) {
		*src = rail_nic(pl, coll_rank_server(pl, from), e / 2 / l->n);
		*dst = rail_nic(pl, coll_rank_server(pl, to), e / 2 / l->n);
	} else if (l->ring) {
		*src = rail_nic(pl, coll_rank_server(pl, from), e % l->channels);
		*dst = rail_nic(pl, coll_rank_server(pl, to), e % l->channels);
	} else {
		*src = gpu_nic(pl, from);
		*dst = gpu_nic(pl, to);
	}
}

/* Channel @ch's ring: runs of ranks on one server, each rotated to start
 * at the GPU next to the channel's NIC there. */
static void build_ring(const struct coll_place *pl, uint32_t ch, uint32_t *ring, uint32_t *pos)
{
	uint32_t n = pl->n_ranks;

	for (uint32_t b0 = 0, b1; b0 < n; b0 = b1) {
		uint32_t s = coll_rank_server(pl, b0), j = 0;

		for (b1 = b0 + 1; b1 < n && coll_rank_server(pl, b1) == s; b1++)
			;
		if (pl->topo && b1 - b0 > 1) {
			uint32_t nic = rail_nic(pl, s, ch);

			for (j = 0; j < b1 - b0 && gpu_nic(pl, b0 + j) != nic; j++)
				;
			if (j == b1 - b0)
				j = 0;
		}
		for (uint32_t i = 0; i < b1 - b0; i++) {
			uint32_t r = b0 + (j + i) % (b1 - b0);

			ring[b0 + i] = r;
			pos[r] = b0 + i;
		}
	}
}

/*
 * Node @i's parent and children in a binary tree over nodes 0..@n-1 rooted
 * at 0 whose leaves and inner nodes alternate (NCCL's btree): node i's
 * lowest set bit b; its parent is i - b + 2b when that exists (else i - b),
 * its children i - b/2 and the nearest i + b/2^k below n. -1: none.
 */
static void btree(int32_t n, int32_t i, int32_t *up, int32_t *d0, int32_t *d1)
{
	int32_t bit = 1, low;

	while (bit < n && !(bit & i))
		bit <<= 1;
	if (i == 0) {
		*up = *d0 = -1;
		*d1 = n > 1 ? bit >> 1 : -1;
		return;
	}
	*up = (i ^ bit) | (bit << 1);
	if (*up >= n)
		*up = i ^ bit;
	low = bit >> 1;
	*d0 = low ? i - low : -1;
	*d1 = low ? i + low : -1;
	while (*d1 >= n) {
		low >>= 1;
		*d1 = low ? i + low : -1;
	}
}

/* The same in tree @t (0, 1) of the double binary tree. */
static void dtree(int32_t n, int32_t t, int32_t i, int32_t *up, int32_t *d0, int32_t *d1)
{
	int32_t u, a, b;

	if (!t || n < 2) {
		btree(n, i, up, d0, d1);
		return;
	}
	if (n % 2) { /* shifted by one */
		btree(n, (i - 1 + n) % n, &u, &a, &b);
		*up = u < 0 ? -1 : (u + 1) % n;
		*d0 = a < 0 ? -1 : (a + 1) % n;
		*d1 = b < 0 ? -1 : (b + 1) % n;
	} else { /* mirrored */
		btree(n, n - 1 - i, &u, &a, &b);
		*up = u < 0 ? -1 : n - 1 - u;
		*d0 = a < 0 ? -1 : n - 1 - a;
		*d1 = b < 0 ? -1 : n - 1 - b;
	}
}

/*
 * The servers of @pl's ranks in the order they first come, each's ranks in
 * rank order: @chain lists the ranks server by server, server i's from
 * first[i] to first[i + 1]. How many servers, or 0 when out of memory.
 */
static uint32_t by_server(const struct coll_place *pl, uint32_t *chain, uint32_t *first)
{
	uint32_t n = pl->n_ranks, top = 0, nodes = 0, *node;

	for (uint32_t r = 0; r < n; r++)
		if (coll_rank_server(pl, r) > top)
			top = coll_rank_server(pl, r);
	if (!(node = malloc(((size_t)top + 1) * sizeof(*node))))
		return 0;
	for (uint32_t r = 0; r < n; r++)
		node[coll_rank_server(pl, r)] = UINT32_MAX;
	for (uint32_t r = 0; r < n; r++) { /* ranks per server, counted at first[i + 1] */
		uint32_t *x = &node[coll_rank_server(pl, r)];

		if (*x == UINT32_MAX) {
			*x = nodes++;
			first[nodes] = 0;
		}
		first[*x + 1]++;
	}
	first[0] = 0;
	for (uint32_t i = 0; i < nodes; i++)
		first[i + 1] += first[i];
	for (uint32_t i = nodes; i > 0; i--) /* each server's start, then filled */
		first[i] = first[i - 1];
	for (uint32_t r = 0; r < n; r++)
		chain[first[node[coll_rank_server(pl, r)] + 1]++] = r;
	free(node);
	return nodes;
}

/* Channel @ch's tree into @parent and @kids (n and n x COLL_KIDS). */
static int build_tree(const struct coll_place *pl, uint32_t ch, uint32_t *parent, uint32_t *kids)
{
	uint32_t n = pl->n_ranks, nodes, *tmp = malloc((size_t)n * sizeof(*tmp));
	uint32_t *chain = malloc((size_t)n * sizeof(*chain));
	uint32_t *first = malloc(((size_t)n + 1) * sizeof(*first));
	int err = -ENOMEM;

	if (!tmp || !chain || !first || !(nodes = by_server(pl, chain, first)))
		goto out;
	for (uint32_t x = 0; x < n * COLL_KIDS; x++)
		kids[x] = COLL_ROOT;
	for (uint32_t i = 0; i < nodes; i++) {
		uint32_t *c = &chain[first[i]], len = first[i + 1] - first[i], j = 0;

		/* the chain starts at the GPU next to the channel's NIC */
		if (pl->topo && len > 1) {
			uint32_t nic = rail_nic(pl, coll_rank_server(pl, c[0]), ch);

			while (j < len && gpu_nic(pl, c[j]) != nic)
				j++;
			for (uint32_t k = 0; k < len; k++)
				tmp[k] = c[(j == len ? k : j + k) % len];
			for (uint32_t k = 0; k < len; k++)
				c[k] = tmp[k];
		}
	}
	for (uint32_t i = 0; i < nodes; i++) {
		uint32_t *c = &chain[first[i]], len = first[i + 1] - first[i], nk = 0;
		int32_t u, d0, d1;

		/* NCCL: the first half of the channels on tree 0, the rest on tree 1 */
		dtree((int32_t)nodes, (int32_t)(ch >= (pl->channels + 1) / 2), (int32_t)i, &u, &d0,
		      &d1);
		parent[c[0]] = u < 0 ? COLL_ROOT : chain[first[u]];
		if (len > 1)
			kids[c[0] * COLL_KIDS + nk++] = c[1];
		if (d0 >= 0)
			kids[c[0] * COLL_KIDS + nk++] = chain[first[d0]];
		if (d1 >= 0)
			kids[c[0] * COLL_KIDS + nk++] = chain[first[d1]];
		for (uint32_t j = 1; j < len; j++) {
			parent[c[j]] = c[j - 1];
			if (j + 1 < len)
				kids[c[j] * COLL_KIDS] = c[j + 1];
		}
	}
	err = 0;
out:
	free(tmp);
	free(chain);
	free(first);
	return err;
}

/* Servers among @pl's ranks (trees: 2 (servers - 1) network edges a channel). */
uint32_t coll_layout_servers(const struct coll_place *pl)
{
	uint32_t n = pl->n_ranks ? pl->n_ranks : 1, nodes;
	uint32_t *chain = malloc((size_t)n * sizeof(*chain));
	uint32_t *first = malloc(((size_t)n + 1) * sizeof(*first));

	nodes = chain && first ? by_server(pl, chain, first) : 0;
	free(chain);
	free(first);
	return nodes;
}

int coll_layout_build(const struct coll_place *pl, struct coll_layout *l)
{
	uint32_t n = pl->n_ranks, is_ring = pl->ring != 0, per = is_ring || pl->tree;
	uint64_t edges = is_ring    ? (uint64_t)n * pl->channels
			 : pl->tree ? 2 * (uint64_t)n * pl->channels
				    : (uint64_t)n * (n - 1);
	size_t slots = (size_t)n * pl->channels;
	uint32_t qps = pl->qps > 1 ? pl->qps : 1;

	*l = (struct coll_layout){.n = n, .channels = per ? pl->channels : 1};
	if (edges > UINT32_MAX || edges * qps > UINT32_MAX)
		return -ENOMEM; /* the loader refuses such a collective first */
	l->n_edges = (uint32_t)edges;
	l->edge_qp = malloc((edges ? edges : 1) * sizeof(*l->edge_qp));
	l->qp_edge = malloc((edges ? edges * qps : 1) * sizeof(*l->qp_edge));
	if (is_ring) {
		l->ring = malloc(slots * sizeof(*l->ring));
		l->pos = malloc(slots * sizeof(*l->pos));
	}
	if (pl->tree) {
		l->parent = malloc(slots * sizeof(*l->parent));
		l->kids = malloc(slots * COLL_KIDS * sizeof(*l->kids));
	}
	if (!l->edge_qp || !l->qp_edge || (is_ring && (!l->ring || !l->pos)) ||
	    (pl->tree && (!l->parent || !l->kids))) {
		coll_layout_free(l);
		return -ENOMEM;
	}
	for (uint32_t ch = 0; is_ring && ch < pl->channels; ch++)
		build_ring(pl, ch, &l->ring[(size_t)ch * n], &l->pos[(size_t)ch * n]);
	for (uint32_t ch = 0; pl->tree && ch < pl->channels; ch++)
		if (build_tree(pl, ch, &l->parent[(size_t)ch * n],
			       &l->kids[(size_t)ch * n * COLL_KIDS])) {
			coll_layout_free(l);
			return -ENOMEM;
		}
	for (uint32_t e = 0; e < l->n_edges; e++) {
		uint32_t from, to;

		coll_layout_ends(pl, l, e, &from, &to);
		/* (a tree root's two edges join it to itself: never used) */
		if (coll_rank_server(pl, from) == coll_rank_server(pl, to)) {
			l->edge_qp[e] = COLL_NVLINK;
			l->n_nvlink += from != to;
		} else {
			l->edge_qp[e] = l->n_qps;
			for (uint32_t q = 0; q < qps; q++)
				l->qp_edge[l->n_qps++] = e;
		}
	}
	return 0;
}

void coll_layout_free(struct coll_layout *l)
{
	free(l->ring);
	free(l->pos);
	free(l->edge_qp);
	free(l->qp_edge);
	free(l->parent);
	free(l->kids);
	*l = (struct coll_layout){0};
}
