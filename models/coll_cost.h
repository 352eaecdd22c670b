/*
 * What follows from a collective's spec alone (coll_spec.h), before it
 * runs: its name, the QPs a layout needs, a ring's steps and pieces,
 * NCCL's tree depth and chunks, the cost model that picks ring or tree,
 * and nccl-tests' bus bandwidth factor.
 */
#ifndef ROCESIM_COLL_COST_H
#define ROCESIM_COLL_COST_H

#include <stdint.h>

#include "models/coll_spec.h"

/*
 * workload.algorithm: auto. As NCCL chooses (src/graph/tuning.cc), the
 * algorithm with the shorter predicted time, from the fabric's own
 * figures: a step's latency is one hop's (step_latency plus the wire's,
 * over NVLink inside a server, over the network between servers); bus
 * bandwidth is the least of a server's NICs and NVLink. A tree takes
 * 2((GPUs a server - 1) + log2(servers)) steps to fill, each a hop's
 * latency and two of its pieces (NCCL's tree chunk; a parent's link takes
 * both children's), then streams at 0.9 / 2 of the bus bandwidth (NCCL's
 * factors); a ring's 2(n-1) steps
 * (2(servers - 1) between servers) each take the longer of their latency
 * and the transfer of S / n (its pieces pipeline through the steps).
 */
struct coll_costs {
	double net_lat_s, nvl_lat_s;  /* one step's hop: between servers, inside one */
	double near_lat_s;	      /* between servers on one switch */
	uint32_t ring_near, ring_nvl; /* of a ring's n hops, those on one switch, in a server */
	double busbw_Bps;	      /* a rank's share of the bottleneck */
	uint32_t servers, per_server;
};

double coll_predict_s(const struct coll_spec *spec, enum coll_algo algo,
		      const struct coll_costs *k);
enum coll_algo coll_auto(const struct coll_spec *spec, const struct coll_costs *k);

/* Steps of a ring collective: 2(n-1) for AllReduce, n-1 otherwise. */
uint32_t coll_ring_steps(const struct coll_spec *spec);
/*
 * A ring collective's share per rank, channel and step (*@seg bytes) and
 * the pieces of at most `chunk` bytes it is cut into. 0, or -ERANGE when
 * (steps + 1) x pieces does not fit in 32 bits (pieces are tagged so).
 */
int coll_ring_pieces(const struct coll_spec *spec, uint64_t *seg, uint32_t *pieces);
/* A tree's share per channel (*@seg bytes, S / channels: the two trees of
 * the double binary tree take half the channels each) and its pieces of
 * at most `chunk`; -ERANGE beyond 32 bits of pieces. */
int coll_tree_pieces(const struct coll_spec *spec, uint32_t depth, uint64_t *seg, uint32_t *pieces);
/* NCCL's depth of a tree over @servers servers of @per_server ranks. */
uint32_t coll_tree_depth(uint32_t servers, uint32_t per_server);
/* A tree's chunk for a tree @depth deep (NCCL's, from spec.chunk). */
uint64_t coll_tree_chunk(const struct coll_spec *spec, uint32_t depth);
/* QPs the collective needs, qps per edge between servers (allocated by
 * the caller in its flows). The scenario loader keeps the sum of all flows
 * and QPs within 32 bits. */
uint64_t coll_qp_count(const struct coll_spec *spec);

const char *coll_op_name(enum coll_op op);
/* nccl-tests' bus bandwidth factor (nccl-tests doc/PERFORMANCE.md). */
double coll_busbw_factor(enum coll_op op, uint32_t ranks);

#endif
