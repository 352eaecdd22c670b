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
 */
#ifndef ROCESIM_COLLECTIVE_H
#define ROCESIM_COLLECTIVE_H

#include <stddef.h>
#include <stdint.h>

#include "models/coll_layout.h"
#include "sim/engine/simtime.h"

struct coll;
struct flow;
struct mctx;
struct nic;
struct nvlink;
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
const char *coll_op_name(enum coll_op op);

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
/* nccl-tests' bus bandwidth factor (nccl-tests doc/PERFORMANCE.md). */
double coll_busbw_factor(enum coll_op op, uint32_t ranks);

#endif
