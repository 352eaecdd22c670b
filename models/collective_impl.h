/*
 * The collective's state, for collective.c and coll_split.c (its
 * statistics, and a fabric split over processes) alone.
 */
#ifndef ROCESIM_COLLECTIVE_IMPL_H
#define ROCESIM_COLLECTIVE_IMPL_H

#include "models/collective.h"
#include "sim/engine/evq.h"

struct coll {
	struct mctx *ctx;
	struct coll_env env;
	const struct coll_spec *spec;
	struct coll_place place; /* of spec */
	struct coll_layout lay;
	struct flow *qps; /* flows + first: the network edges' */
	uint32_t n_qps;
	uint64_t net_bytes, nvlink_bytes; /* payload delivered over each */
	uint32_t n, channels;
	uint32_t steps;	    /* ring: 2(n-1) or n-1; all-to-all: 1 */
	uint32_t pieces;    /* ring: per step and channel */
	uint64_t seg;	    /* ring: bytes per step, rank and channel; tree: per channel */
	uint64_t chunk;	    /* largest piece: spec's, or a tree's (coll_tree_chunk) */
	uint64_t remaining; /* messages still to arrive this iteration */
	uint32_t iter;	    /* current iteration */
	simtime_t iter_start;
	simtime_t *times;
	uint32_t done;
	uint64_t *rank_left;  /* messages each rank still expects this iteration */
	simtime_t *rank_done; /* when each rank had all it expects, last iteration */
	struct evq_timer start_timer;
	struct evq_timer late_timer;
	/* flow control (spec->steps > 0): per ring edge (coll_layout.h) */
	struct coll_conn *conns;
	uint32_t loop;	  /* pieces per loop: steps / 2, NCCL's CHUNKSTEPS */
	uint8_t *started; /* per rank: its program runs (the late rank waits) */
	uint32_t *work;	  /* connections whose sender may move on, a stack */
	uint32_t n_work;
	struct coll_slot *slots; /* tree: per channel and rank, [ch x n + r] */
	/* step_latency: messages that arrived, seen by their rank that much
	 * later (a ring of (edge, tag), in arrival order), and its timer */
	uint64_t *seen;
	uint32_t seen_head, seen_count, seen_cap;
	simtime_t *seen_at;
	struct evq_timer seen_timer;
	/* credits (a slot a receiver frees): over NVLink at once, over a QP
	 * after its path's delay back, tagged with their iteration */
	simtime_t *credit_delay; /* per QP */
	int waiting;		 /* split: its ranks are done with the iteration, since */
	simtime_t waiting_at;
	uint16_t *credit_seq; /* per edge: credits sent (their keys) */
	/* a fabric split over processes: each rank's part, and this one */
	const uint32_t *rank_part;
	uint32_t me;
	struct coll_qps *mq;	/* several QPs per connection (place.qps > 1) */
	uint8_t send;		/* driven: this operation is rank 0's send to rank 1 */
	struct coll_memo *memo; /* its operations measured and replayed (coll_memo.c), or NULL */
	struct evq_timer memo_check; /* the instant an operation began is over */
};

/* A rank on a channel's tree: chunks sent up, and sent down (or, at the
 * root, reduced and sent down). */
struct coll_slot {
	uint32_t up, down;
	uint8_t queued;
};

/*
 * A ring connection under flow control. Its sender's program goes loop by
 * loop (L), through ops k = 0 .. steps (k < steps: send piece p's step k;
 * k = steps: the last step's receive), each over the loop's pieces (s):
 * piece p = L x loop + s.
 */
struct coll_conn {
	uint32_t L, k, s;    /* the sender's next op */
	uint32_t unconsumed; /* sent, not yet consumed by the receiver */
	uint64_t delivered;  /* messages arrived at the receiver, this iteration */
	uint8_t queued;	     /* on the work stack */
	uint8_t finished;    /* program done, this iteration */
};

static inline int coll__is_ring(const struct coll *c)
{
	return c->lay.ring != NULL;
}

static inline int coll__is_tree(const struct coll *c)
{
	return c->lay.parent != NULL;
}

/* A credit's event (collective.c): a slot back at a ring's or tree's sender. */
void coll__on_credit(void *obj, uint64_t arg);
/*
 * coll_memo.c: a driven collective's operations over NVLink alone,
 * measured and replayed. memo_new claims the GPUs of @c's NVLink edges
 * (every collective's, when made) and sets c->memo when its operations
 * may be replayed. memo_begin: an operation begins (it may arm
 * c->memo_check at once, whose event calls memo_release). memo_join: a
 * member joins, and what the collective does (below). memo_release: the
 * members held, in the order they joined, to send now (their count).
 * memo_post: the replay's events, each calling @on_replay(c, k), which
 * calls memo_replay(c, k): 1 when the operation is over (its statistics
 * set, iteration_done to follow). memo_call: a call about to be made to
 * the owner (rank_done for @rank, or COLL_MEMO_END: the operation is
 * over); memo_over: the operation ended.
 */
#define COLL_MEMO_END UINT32_MAX
enum coll_memo_do {
	COLL_MEMO_SEND,	   /* the member sends as usual */
	COLL_MEMO_HELD,	   /* held: another member may join at this instant */
	COLL_MEMO_RELEASE, /* every member held sends now (memo_release) */
	COLL_MEMO_REPLAY,  /* the operation is replayed (memo_post) */
};
int coll__memo_new(struct coll *c);
void coll__memo_free(struct coll *c);
void coll__memo_begin(struct coll *c, simtime_t now);
enum coll_memo_do coll__memo_join(struct coll *c, uint32_t r);
uint32_t coll__memo_release(struct coll *c, const uint32_t **order);
int coll__memo_post(struct coll *c, evq_fn on_replay);
int coll__memo_replay(struct coll *c, uint32_t k);
void coll__memo_call(struct coll *c, uint32_t rank);
void coll__memo_over(struct coll *c, simtime_t now);

#endif
