/*
 * Collectives as NCCL runs them over RoCE, and as nccl-tests measures them.
 *
 * Ring AllReduce: per channel, a ring over the ranks with one QP from each
 * rank to the next; reduce-scatter then all-gather, 2(n-1) steps, each
 * moving S/(n x channels) per rank and channel, cut into pieces of at most
 * `chunk` bytes. A rank sends piece p of step k+1 only once it has
 * received piece p of step k from its predecessor. AllGather and
 * ReduceScatter: the same ring with n-1 steps.
 *
 * Flow control (steps > 0), as NCCL's kernels run a ring (NCCL
 * src/device/all_reduce.h, prims_simple.h): each rank works through its
 * pieces in a fixed order, loop by loop (a loop is steps/2 pieces, NCCL's
 * CHUNKSTEPS), every step of a loop in turn, then receives the loop's last
 * step; and a connection has `steps` slots (NCCL_STEPS): a sender has at
 * most that many pieces its receiver has not yet consumed (forwarded, or
 * received for good on the last step). The slot comes back as the receiver
 * consumes, without delay (the window of 8 x 512 KiB is far above a
 * fabric's bandwidth-delay product, so that delay does not limit the
 * rate). steps = 0: no flow control, every piece goes as soon as its data
 * is there (a rank sends whatever it has).
 * All-to-All: every rank sends S/n to every other rank at once, one QP per
 * ordered pair. Iterations run back to back: the next starts when every
 * rank has finished the last.
 *
 * What the workload asks for is a coll_spec (coll_spec.h); what follows
 * from it alone, before it runs, is in coll_cost.h (both come with this
 * header).
 */
#ifndef ROCESIM_COLLECTIVE_H
#define ROCESIM_COLLECTIVE_H

#include <stddef.h>
#include <stdint.h>

#include "models/coll_cost.h"
#include "models/coll_layout.h"
#include "models/coll_spec.h"
#include "sim/engine/simtime.h"

struct coll;
struct flow;
struct mctx;
struct nic;
struct nvlink;

/* What a collective runs on; borrowed. */
struct coll_env {
	uint32_t id;		    /* the collective's index (its timers' keys) */
	struct nic *const *nics;    /* the fabric's, by host index */
	struct nvlink *nvlink;	    /* the servers' GPUs (NULL: no rank shares a server) */
	void (*finished)(void *up); /* told when the last iteration completes */
	void *up;
	/* from the last rank's end of an iteration to the next's start: the
	 * time for every rank to learn of it (the fabric's longest cable) */
	simtime_t barrier;
	/*
	 * Driven (a training job's communicator, train.h): nothing starts on
	 * its own; coll_begin starts an operation, coll_join a rank's part in
	 * it, rank_done tells when a rank has all it expects of it, finished
	 * when the whole operation is over (then the next may begin).
	 */
	int driven;
	void (*rank_done)(void *up, uint32_t rank, simtime_t now);
};

/*
 * Set up @spec's collective on the QPs @flows[first .. first +
 * coll_qp_count - 1], opening each on its source's NIC, and schedule its
 * first iteration. 0, -ENOMEM, or -EINVAL when ranks share a server and
 * @env has no NVLink.
 */
int coll_new(struct mctx *ctx, const struct coll_spec *spec, struct flow *flows, uint32_t first,
	     const struct coll_env *env, struct coll **out);
void coll_free(struct coll *c);
/*
 * A driven collective (coll_env.driven), idle: begin its next operation
 * at @now, the spec's op and bytes as they are now (a ring runs
 * AllReduce, AllGather or ReduceScatter; a 2-rank all-to-all with @send
 * set carries spec bytes from rank 0 to rank 1 alone, a point-to-point
 * send). No rank sends before it joins (coll_join). 0, or -EINVAL when
 * the op does not fit the layout or its sizes.
 */
int coll_begin(struct coll *c, int send, simtime_t now);
/* Rank @r takes part in the operation begun: its first sends go. */
void coll_join(struct coll *c, uint32_t r);
/* A message of the collective arrived whole at @qp's responder (the NIC's
 * nic_ops.msg_done). */
void coll_msg_done(struct coll *c, struct flow *qp, uint32_t tag, simtime_t now);

struct coll_stats {
	enum coll_op op;
	enum coll_algo algo;
	uint64_t bytes;
	uint32_t ranks;
	uint32_t iterations, done;  /* asked for, completed */
	const simtime_t *times;	    /* completion time of each completed iteration */
	const simtime_t *rank_done; /* per rank: when it had all its data, last iteration */
	uint64_t network_bytes, nvlink_bytes; /* payload delivered over each, so far */
	const struct flow *qps;		      /* its QPs (network edges) */
	uint32_t n_qps;
	uint32_t qps_per_conn; /* spec's qps (1 at least) */
	int split;
};

void coll_stats(const struct coll *c, struct coll_stats *out);
/* The payload the collective has delivered in order (over all its
 * iterations so far) into *@done, and delivers in all into *@total. */
void coll_progress(const struct coll *c, uint64_t *done, uint64_t *total);

/* The propagation delay of QP @qp's path back, its requester's credits'
 * (coll_split.c): 0 until set. */
void coll_credit_delay(struct coll *c, uint32_t qp, simtime_t delay);
/*
 * A fabric split over processes: rank r of @c runs in part @rank_part[r]
 * (borrowed), this is part @me; only its ranks start here, and a credit
 * for a sender elsewhere goes through ctx->part. coll_credit_in takes one
 * that came from another part (0 or -ENOMEM). The statistics as a blob of
 * coll_stats_size bytes, and another part's added (done where all are,
 * times the latest, NVLink bytes summed).
 */
void coll_split(struct coll *c, const uint32_t *rank_part, uint32_t me);
/*
 * A split fabric's iterations: 1 and when this part's ranks finished the
 * iteration under way while it waits for the others' (0: it does not
 * wait); coll_resume starts the next, once every part has finished, at
 * @at (the last part's end plus the barrier).
 */
int coll_waiting(const struct coll *c, simtime_t *since);
void coll_resume(struct coll *c, simtime_t at);
simtime_t coll_barrier(const struct coll *c);
__attribute__((warn_unused_result)) int coll_credit_in(struct coll *c, simtime_t at, uint64_t arg,
						       uint64_t key);
size_t coll_stats_size(const struct coll *c);
void coll_stats_save(const struct coll *c, void *buf);
void coll_stats_absorb(struct coll *c, const void *buf);

#endif
