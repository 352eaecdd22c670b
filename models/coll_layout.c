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
	if (l->ring) {
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
	if (l->ring) {
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

int coll_layout_build(const struct coll_place *pl, struct coll_layout *l)
{
	uint32_t n = pl->n_ranks, is_ring = pl->ring != 0;
	uint64_t edges = is_ring ? (uint64_t)n * pl->channels : (uint64_t)n * (n - 1);

	*l = (struct coll_layout){.n = n, .channels = is_ring ? pl->channels : 1};
	if (edges > UINT32_MAX)
		return -ENOMEM; /* the loader refuses such a collective first */
	l->n_edges = (uint32_t)edges;
	l->edge_qp = malloc((edges ? edges : 1) * sizeof(*l->edge_qp));
	l->qp_edge = malloc((edges ? edges : 1) * sizeof(*l->qp_edge));
	if (is_ring) {
		l->ring = malloc((size_t)n * pl->channels * sizeof(*l->ring));
		l->pos = malloc((size_t)n * pl->channels * sizeof(*l->pos));
	}
	if (!l->edge_qp || !l->qp_edge || (is_ring && (!l->ring || !l->pos))) {
		coll_layout_free(l);
		return -ENOMEM;
	}
	for (uint32_t ch = 0; is_ring && ch < pl->channels; ch++)
		build_ring(pl, ch, &l->ring[(size_t)ch * n], &l->pos[(size_t)ch * n]);
	for (uint32_t e = 0; e < l->n_edges; e++) {
		uint32_t from, to;

		coll_layout_ends(pl, l, e, &from, &to);
		if (coll_rank_server(pl, from) == coll_rank_server(pl, to)) {
			l->edge_qp[e] = COLL_NVLINK;
		} else {
			l->qp_edge[l->n_qps] = e;
			l->edge_qp[e] = l->n_qps++;
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
	*l = (struct coll_layout){0};
}
