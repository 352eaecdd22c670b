/*
 * A collective as the workload asks for it (collective.h runs it): the
 * operation, NCCL's algorithm, the ranks and the fabric's knobs, and who
 * takes part in it for the layout (coll_layout.h). Plain data, apart from
 * the files that use it: the costs computed from it alone (coll_cost.h)
 * and the collective that runs it.
 */
#ifndef ROCESIM_COLL_SPEC_H
#define ROCESIM_COLL_SPEC_H

#include <stdint.h>

#include "models/coll_layout.h"
#include "sim/engine/simtime.h"

struct topo;

enum coll_op { COLL_ALLREDUCE, COLL_ALLGATHER, COLL_REDUCESCATTER, COLL_ALLTOALL };
/* NCCL's algorithms for AllReduce (the others are rings). */
enum coll_algo { COLL_RING, COLL_TREE };

/*
 * NCCL's Simple protocol: a connection's buffer (NCCL_BUFFSIZE, 4 MiB) is
 * NCCL_STEPS = 8 slots of 512 KiB (NCCL src/include/collectives.h,
 * src/init.cc): a piece is a slot.
 */
#define COLL_STEPS_DEFAULT 8
#define COLL_CHUNK_DEFAULT (512 * 1024)

/* A collective of the workload, as nccl-tests runs it. */
struct coll_spec {
	enum coll_op op;
	enum coll_algo algo;	 /* AllReduce: ring or tree */
	uint64_t bytes;		 /* per rank, as nccl-tests counts "size" */
	uint32_t *ranks;	 /* GPU of each rank (topology numbering), in ring order */
	const struct topo *topo; /* its servers, GPUs and NICs; NULL: rank i is host ranks[i] */
	uint64_t nics;		 /* usable NICs, by position in a server (NCCL_IB_HCA); 0: all */
	uint32_t servers;	 /* the ranks' servers (coll_layout_servers); 0: not counted yet */
	uint32_t n_ranks;
	uint32_t channels;	/* rings in parallel, each on its own QPs */
	uint32_t qps;		/* QPs per connection between servers (NCCL_IB_QPS_PER_CONNECTION);
				   0 or 1: one */
	uint8_t split;		/* NCCL_IB_SPLIT_DATA_ON_QPS: each message cut over the QPs
				   (else each message on the next QP, round robin) */
	uint64_t chunk;		/* largest message a ring step sends at once */
	uint32_t steps;		/* slots per connection (NCCL_STEPS); 0: no flow control */
	simtime_t step_latency; /* a rank acts on a message this long after it lands */
	uint32_t iterations;	/* back to back */
	simtime_t start;
	uint32_t late_rank; /* rank whose first sends start late, or UINT32_MAX */
	simtime_t late_by;
	uint8_t dscp, priority;
};

/* Who takes part in @s, for coll_layout.h. */
static inline struct coll_place coll_place_of(const struct coll_spec *s)
{
	return (struct coll_place){.ranks = s->ranks,
				   .n_ranks = s->n_ranks,
				   .channels = s->channels,
				   .ring = s->op != COLL_ALLTOALL && s->algo == COLL_RING,
				   .tree = s->op == COLL_ALLREDUCE && s->algo == COLL_TREE,
				   .topo = s->topo,
				   .nics = s->nics,
				   .qps = s->qps};
}

#endif
