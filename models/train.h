/*
 * A training job's iterations (workload kind training, simai): each rank
 * (a GPU) runs a program of compute and communication, as a framework's
 * streams run it, over communicators that persist (NCCL's: one per group
 * of the parallel layout), whose collectives run packet by packet on the
 * fabric (collective.h, driven).
 *
 * A rank has two streams, as Megatron-LM runs them (Narayanan et al., SC
 * 2021; Megatron-LM megatron/core/distributed): the main one (compute,
 * the tensor- and expert-parallel collectives, the pipeline's sends and
 * receives, in program order, each op starting when the one before it is
 * over) and the gradients' (the data-parallel collectives, issued on the
 * main stream as the backward pass produces each layer's gradients and
 * run one after the other beside it; the main stream waits for all of
 * them before the optimizer's update). A send does not wait for its
 * receiver (NCCL's buffers are there already); a receive waits for the
 * data.
 *
 * What is left out: a rank's collectives on one communicator run one
 * after another across ranks (an operation begins once the one before has
 * ended everywhere, where NCCL lets a fast rank start the next a little
 * sooner); compute runs at the time given, not slowed by communication
 * kernels sharing the GPU; the memory copies of a collective on the GPU
 * are not modelled.
 *
 * The program is plain data (struct train_plan, built by train_plan.h);
 * this file runs it.
 */
#ifndef ROCESIM_TRAIN_H
#define ROCESIM_TRAIN_H

#include <stdint.h>

#include "models/coll_spec.h"
#include "sim/engine/simtime.h"

struct mctx;
struct flow;
struct nic;
struct nvlink;
struct train;

/* The parallel dimensions, as results name them. */
enum train_dim { TRAIN_TP, TRAIN_PP, TRAIN_DP, TRAIN_EP, TRAIN_DIMS };
/* A compute's phase: forward, input gradient, weight gradient, update. */
enum train_phase { TRAIN_FWD, TRAIN_IG, TRAIN_WG, TRAIN_UPDATE, TRAIN_PHASES };

enum train_kind {
	TRAIN_COMPUTE,	  /* arg: its duration (ps) */
	TRAIN_COLL,	  /* a collective on the main stream; arg: bytes */
	TRAIN_ASYNC,	  /* a collective on the gradients' stream; arg: bytes */
	TRAIN_WAIT_ASYNC, /* the main stream waits for the gradients' stream to have at
			     most arg collectives left (0: all done) */
	TRAIN_SEND,	  /* to the communicator's other rank; arg: bytes */
	TRAIN_RECV,	  /* from it; waits for the data */
	TRAIN_WAIT_SENDS, /* waits for this rank's sends to have arrived */
};

/* One op of a rank's program. */
struct train_op {
	uint8_t kind;	 /* enum train_kind */
	uint8_t dim;	 /* enum train_dim: whose time a wait is */
	uint8_t phase;	 /* enum train_phase, of a compute */
	uint8_t op;	 /* enum coll_op, of a collective */
	uint32_t comm;	 /* its communicator */
	uint32_t member; /* this rank's index in it */
	uint32_t seq;	 /* its place among the communicator's operations */
	uint64_t arg;
};

/*
 * A communicator: its ranks (spec.ranks: GPUs, in ring order) and how its
 * collectives run (channels, chunk, QPs...). spec.op says its layout: a
 * ring (ALLREDUCE) runs AllReduce, AllGather and ReduceScatter; ALLTOALL
 * an all-to-all, or, of 2 ranks with p2p set, sends from rank 0 to rank 1.
 */
struct train_comm {
	struct coll_spec spec;
	uint8_t dim; /* enum train_dim */
	uint8_t p2p;
};

/*
 * A communicator of @n ranks (GPUs, @ranks, borrowed) of dimension @dim,
 * its collectives run as @knobs says: a ring, or an all-to-all layout
 * (@a2a), which with 2 ranks and @p2p carries sends from the first to the
 * second. (train.c sets what a driven collective's spec needs besides.)
 */
static inline struct train_comm train_comm_of(const struct coll_spec *knobs, uint32_t *ranks,
					      uint32_t n, uint8_t dim, int a2a, int p2p)
{
	struct train_comm c = {.spec = *knobs, .dim = dim, .p2p = (uint8_t)(p2p != 0)};

	c.spec.op = a2a || p2p ? COLL_ALLTOALL : COLL_ALLREDUCE;
	c.spec.algo = COLL_RING;
	c.spec.ranks = ranks;
	c.spec.n_ranks = n;
	return c;
}

struct train_plan {
	struct train_comm *comms;
	uint32_t n_comms;
	uint32_t n_ranks;
	const uint32_t *gpu;  /* per rank, its GPU (topology numbering) */
	struct train_op *ops; /* every rank's program, one after the other */
	uint32_t *first;      /* rank r's program: ops[first[r] .. first[r + 1]) */
	uint32_t iterations;  /* back to back */
	simtime_t start;
	/* per iteration, for tokens/s and samples/s */
	uint64_t tokens, samples;
	uint32_t *rank_ids; /* the communicators' ranks point in here (train_plan_build's) */
	uint8_t record;	    /* keep when each communicator's operations end (train_comm_ends) */
	uint8_t timeline;   /* keep each rank's spans of compute and waiting (train_timeline) */
};

/* The QPs the plan's communicators open (0 when they run over NVLink alone). */
uint64_t train_qp_count(const struct train_plan *p);
/*
 * Check that every communicator's ranks run the same operations in the
 * same order (the sequence numbers, ops and sizes agree), so that the
 * job cannot hang on a mismatch. 0, or -EINVAL with the first rank and op
 * that disagree in *@rank and *@op.
 */
int train_plan_check(const struct train_plan *p, uint32_t *rank, uint32_t *op);

/* What a training job runs on; borrowed. */
struct train_env {
	uint32_t first_id; /* the first of its communicators' collective ids (event keys) */
	uint32_t job;	   /* the job's index (its ranks' event keys) */
	struct nic *const *nics;
	struct nvlink *nvlink;
	void (*finished)(void *up); /* the last iteration of every rank is over */
	void *up;
};

/*
 * Set up @p's job (borrowed: it must outlive the job) on the QPs
 * @flows[first .. first + train_qp_count - 1] and start it at p->start.
 * 0, -ENOMEM, or -EINVAL (a communicator that cannot run).
 */
int train_new(struct mctx *ctx, const struct train_plan *p, struct flow *flows, uint32_t first,
	      const struct train_env *env, struct train **out);
void train_free(struct train *t);
/* Communicator @i's collective (its QPs' credits are set up by the fabric). */
struct coll *train_coll(const struct train *t, uint32_t i);
/* A span of a rank's main stream: a compute (what: enum train_phase) or a
 * wait for communication (what: TRAIN_PHASES + enum train_dim). */
struct train_span {
	uint32_t rank;
	uint8_t what;
	simtime_t start, end;
};

#define TRAIN_SPANS_MAX (1u << 22) /* kept at most; then *@cut is set */
/* With plan.timeline: the spans so far, in the order they ended. */
const struct train_span *train_timeline(const struct train *t, uint64_t *n, int *cut);

/* With plan.record: when each operation of communicator @i ended, in order
 * (*@n of them so far); NULL when none. */
const simtime_t *train_comm_ends(const struct train *t, uint32_t i, uint64_t *n);

/* The collectives of one kind a job completed: a dimension (its group
 * kind), an operation, a size (per rank, as nccl-tests counts it) and a
 * group size; sends and receives between stages are p2p. */
struct train_coll_row {
	uint8_t dim, op, p2p; /* enum train_dim, enum coll_op */
	uint32_t ranks;
	uint64_t bytes, count;
	simtime_t time; /* summed, each from its first rank's start to its last rank's end */
};

struct train_stats {
	uint32_t iterations, done; /* asked for, completed by every rank */
	const simtime_t *ends;	   /* per completed iteration, when its last rank ended it */
	simtime_t start;
	/* the rank that ended last (the critical one), and where its time went
	 * over the whole run: compute per phase, waits per dimension */
	uint32_t critical;
	simtime_t compute[TRAIN_PHASES];
	simtime_t exposed[TRAIN_DIMS];
	/* collectives completed per dimension, over every communicator: their
	 * count, bytes (as nccl-tests counts a size) and time from the first
	 * rank's start to the last rank's end, summed */
	uint64_t colls[TRAIN_DIMS];
	uint64_t coll_bytes[TRAIN_DIMS];
	simtime_t coll_time[TRAIN_DIMS];
	const struct train_coll_row *rows; /* borrowed, in the order first completed */
	uint32_t n_rows;
	uint64_t network_bytes, nvlink_bytes;
	uint64_t stalled; /* ranks whose program had not ended when asked (0 once done) */
};

void train_stats(const struct train *t, struct train_stats *out);
int train_done(const struct train *t);

#endif
