/*
 * Collectives' sizes and costs, from their spec alone: the QPs a layout
 * needs, a ring's steps and pieces, NCCL's tree depth and chunks, the
 * cost model that picks ring or tree, nccl-tests' bus bandwidth factor
 * (see coll_cost.h). The collectives themselves run in collective.c.
 */
#include "models/coll_cost.h"

#include <errno.h>
#include <math.h>

#include "sim/engine/checked.h"
#include "models/coll_layout.h"
#include "topologies/topo.h"

static uint64_t coll_edge_count(const struct coll_spec *spec);

/* qps QPs for each edge that joins two servers (coll_layout.h). */
uint64_t coll_qp_count(const struct coll_spec *spec)
{
	uint64_t edges = coll_edge_count(spec), q = spec->qps > 1 ? spec->qps : 1;

	return edges == UINT64_MAX || edges > UINT64_MAX / q ? UINT64_MAX : edges * q;
}

/* The edges that join two servers (coll_layout.h): a ring's hops between
 * ranks on different servers, on every channel; all-to-all's pairs. */
static uint64_t coll_edge_count(const struct coll_spec *spec)
{
	const struct coll_place pl = coll_place_of(spec);
	uint32_t n = spec->n_ranks;
	uint64_t cross = 0;

	if (pl.tree) { /* a channel's tree joins the servers with 2 (servers - 1) edges */
		uint32_t servers = spec->servers ? spec->servers : coll_layout_servers(&pl);

		return servers ? 2 * (uint64_t)spec->channels * (servers - 1) : UINT64_MAX;
	}
	if (!spec->topo || spec->topo->n_gpus == spec->topo->n_servers) /* one rank a server */
		return spec->op == COLL_ALLTOALL ? (uint64_t)n * (n - 1)
						 : (uint64_t)n * spec->channels;
	if (spec->op == COLL_ALLTOALL) {
		for (uint32_t r = 0; r < n; r++)
			for (uint32_t q = 0; q < n; q++)
				cross += coll_rank_server(&pl, r) != coll_rank_server(&pl, q);
		return cross;
	}
	for (uint32_t r = 0; r < n; r++)
		cross += coll_rank_server(&pl, r) != coll_rank_server(&pl, (r + 1) % n);
	return cross * spec->channels;
}

const char *coll_op_name(enum coll_op op)
{
	static const char *const names[] = {
	    [COLL_ALLREDUCE] = "allreduce",
	    [COLL_ALLGATHER] = "allgather",
	    [COLL_REDUCESCATTER] = "reducescatter",
	    [COLL_ALLTOALL] = "alltoall",
	};

	return names[op];
}

double coll_predict_s(const struct coll_spec *spec, enum coll_algo algo, const struct coll_costs *k)
{
	double n = spec->n_ranks, nodes = k->servers;

	if (algo == COLL_TREE) {
		/* pipelined: the first piece up and down the tree, a hop's
		 * latency and its transfer a level, then the stream */
		double per = ceil((double)spec->bytes / spec->channels);
		double chunk =
		    (double)coll_tree_chunk(spec, coll_tree_depth(k->servers, k->per_server));
		double hop = fmin(per, chunk) / k->busbw_Bps;
		double lat = 2 * ((k->per_server - 1) * (k->nvl_lat_s + hop) +
				  ceil(log2(nodes)) * (k->net_lat_s + hop));

		return lat + (double)spec->bytes / (k->busbw_Bps * 0.9 * 0.5);
	} else {
		/* 2(n-1) steps round the ring's n hops; in a step a channel's
		 * piece crosses a hop and waits the hop's latency, while the
		 * other channels' pieces keep the bottleneck busy: a step takes
		 * the longer of that and the transfer of the step's share, S / n */
		double share = (double)spec->bytes / (n * k->busbw_Bps);
		double piece = fmin(share / spec->channels, (double)spec->chunk / k->busbw_Bps);
		double far = n - k->ring_near - k->ring_nvl;

		return 2 * (n - 1) / n *
		       (k->ring_nvl * fmax(k->nvl_lat_s + piece, share) +
			k->ring_near * fmax(k->near_lat_s + piece, share) +
			far * fmax(k->net_lat_s + piece, share));
	}
}

enum coll_algo coll_auto(const struct coll_spec *spec, const struct coll_costs *k)
{
	if (spec->op != COLL_ALLREDUCE || k->servers < 2)
		return COLL_RING;
	return coll_predict_s(spec, COLL_TREE, k) < coll_predict_s(spec, COLL_RING, k) ? COLL_TREE
										       : COLL_RING;
}

double coll_busbw_factor(enum coll_op op, uint32_t ranks)
{
	double n = ranks;

	return op == COLL_ALLREDUCE ? 2 * (n - 1) / n : (n - 1) / n;
}

uint32_t coll_ring_steps(const struct coll_spec *spec)
{
	return spec->op == COLL_ALLREDUCE ? 2 * (spec->n_ranks - 1) : spec->n_ranks - 1;
}

int coll_ring_pieces(const struct coll_spec *spec, uint64_t *seg, uint32_t *pieces)
{
	uint64_t per = (uint64_t)spec->n_ranks * spec->channels;
	uint64_t s = spec->bytes / per + (spec->bytes % per != 0), p, tags;

	if (!s)
		s = 1;
	p = s / spec->chunk + (s % spec->chunk != 0);
	/* a piece's tag, (step + 1) x pieces + piece, is 32 bits */
	if (ck_mul(p, (uint64_t)coll_ring_steps(spec) + 1, &tags) || tags > UINT32_MAX)
		return -ERANGE;
	*seg = s;
	*pieces = (uint32_t)p;
	return 0;
}

/*
 * NCCL's tree pipelines in smaller chunks when there are few (enqueue.cc,
 * Simple protocol): halved while the collective holds fewer than depth x 8
 * chunks a channel (down to 128 KiB), depth x 4 (64 KiB), depth (32 KiB).
 */
uint64_t coll_tree_chunk(const struct coll_spec *spec, uint32_t depth)
{
	uint64_t chunk = spec->chunk, per = spec->channels;

	while (spec->bytes / (per * chunk) < (uint64_t)depth * 8 && chunk > 131072)
		chunk /= 2;
	while (spec->bytes / (per * chunk) < (uint64_t)depth * 4 && chunk > 65536)
		chunk /= 2;
	while (spec->bytes / (per * chunk) < depth && chunk > 32768)
		chunk /= 2;
	return chunk;
}

int coll_tree_pieces(const struct coll_spec *spec, uint32_t depth, uint64_t *seg, uint32_t *pieces)
{
	uint64_t s = spec->bytes / spec->channels + (spec->bytes % spec->channels != 0), p;
	uint64_t chunk = coll_tree_chunk(spec, depth);

	if (!s)
		s = 1;
	p = s / chunk + (s % chunk != 0);
	if (p > UINT32_MAX)
		return -ERANGE;
	*seg = s;
	*pieces = (uint32_t)p;
	return 0;
}

/* NCCL's tree depth (src/graph/connect.cc): the GPUs of a server after the
 * first, then log2 of the servers (rounded down). */
uint32_t coll_tree_depth(uint32_t servers, uint32_t per_server)
{
	uint32_t log = 0;

	while (servers >> (log + 1))
		log++;
	return (per_server ? per_server - 1 : 0) + log;
}
