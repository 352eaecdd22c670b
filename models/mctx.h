/*
 * The model context: what the models of one simulation share. The event
 * queue, the scenario's seed, the packet pool, the run's totals, the
 * first error of an event, a model's request to stop, and the hook that
 * logs PFC events. The fabric (net.c) holds one; every port, switch, NIC,
 * collective and the deadlock detector keep a pointer to it, so that none
 * of them needs the fabric above it.
 */
#ifndef ROCESIM_MCTX_H
#define ROCESIM_MCTX_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine/evq.h"
#include "sim/engine/mem.h" /* the models' hot arrays */
#include "models/packet.h"

/* Counted by the models as packets move, for the invariants and results. */
struct mctx_totals {
	uint64_t sent_bytes, received_bytes, dropped_bytes;
	uint64_t sent_packets, received_packets, dropped_packets;
	uint64_t packet_hops;	 /* packets serialized onto any link */
	uint64_t data_hops;	 /* ... of them data packets */
	uint64_t unroutable;	 /* drops for want of a route (not lossless drops) */
	uint64_t lossless_drops; /* drops of packets of a lossless priority */
	uint64_t ecn_marked;
	uint64_t watchdog_triggers, watchdog_drops;
	uint64_t cnp_sent, cnp_handled, retransmitted_packets;
};

/* What happened to PFC, for the event log (output.pfc_events). */
enum pfc_event {
	PFC_EV_XOFF,	 /* a PG crossed XOFF: PAUSE sent upstream */
	PFC_EV_REFRESH,	 /* PAUSE re-sent while the PG stays congested */
	PFC_EV_XON,	 /* the PG drained to XON: RESUME sent */
	PFC_EV_RX_PAUSE, /* a transmitter received PAUSE */
	PFC_EV_RX_RESUME,
	PFC_EV_PAUSED,	   /* ... and stopped, after its response delay */
	PFC_EV_UNPAUSED,   /* resumed (RESUME or expiry) */
	PFC_EV_STORM,	   /* a storming port sent PAUSE */
	PFC_EV_WD_TRIGGER, /* PFC watchdog detected a stuck queue */
	PFC_EV_WD_RESTORE,
};

/*
 * The keys that order the models' equal-time events (evq_key): the owner's
 * class and id and which of its timers, never the order of scheduling, so
 * that a fabric split over several processes runs the same order.
 */
enum mctx_key_class {
	MCTX_KEY_RUN,	 /* the run's own timers (sampler, deadlock detector) */
	MCTX_KEY_COLL,	 /* a collective, by index */
	MCTX_KEY_FAULT,	 /* a fault, by index */
	MCTX_KEY_PORT,	 /* a port and what owns it there, by topology port index */
	MCTX_KEY_FLOW,	 /* a flow or queue pair, by index */
	MCTX_KEY_GPU,	 /* a GPU's NVLink receiver, by GPU index */
	MCTX_KEY_CREDIT, /* a collective's credit: its index << 32 | edge */
	MCTX_KEY_TRAIN,	 /* a training job's rank or communicator (train.c) */
	MCTX_KEY_REPLAY, /* a collective's replay: its begin's instant is over (coll_memo.c) */
};

/* The timers of a port (MCTX_KEY_PORT): the link's, the NIC's, the
 * switch's. At one instant, in this order: a transmitter finishing frees
 * its buffer before a packet arriving is charged to one. */
enum mctx_port_timer {
	MCTX_PT_TX_DONE,
	MCTX_PT_ARRIVE,
	MCTX_PT_PAUSE_EXPIRY,
	MCTX_PT_PAUSE_APPLY,
	MCTX_PT_NIC_PACE,
	MCTX_PT_NIC_RTO,
	MCTX_PT_NIC_RX_DRAIN,
	MCTX_PT_NIC_RX_REFRESH,
	MCTX_PT_NIC_TC_SHAPE,	 /* the rate limits of its traffic classes */
	MCTX_PT_PG_REFRESH = 16, /* + priority */
	MCTX_PT_WD_DETECT = 32,	 /* + priority */
	MCTX_PT_WD_RESTORE = 48, /* + priority */
};

/*
 * The seed of entity @entity's own random stream (a switch's ECN marking):
 * per entity rather than one generator for the run, so that a draw does
 * not depend on the other entities' draws (or on which process runs
 * them). GSL's generators take 32 bits of seed; this is a bijection of
 * @entity for a given @seed (a multiply by an odd constant, then murmur3's
 * finalizer), so no two entities of a run share a stream.
 */
static inline unsigned long mctx_stream_seed(uint64_t seed, uint32_t entity)
{
	uint32_t x = (uint32_t)(seed ^ (seed >> 32)) + entity * 0x9e3779b9u;

	x ^= x >> 16;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	x *= 0xc2b2ae35u;
	x ^= x >> 16;
	return x;
}

static inline uint64_t mctx_port_key(uint32_t port, unsigned timer)
{
	return evq_key(MCTX_KEY_PORT, port, timer);
}

typedef void (*pfc_log_fn)(void *ctx, simtime_t t, uint32_t port, uint8_t prio, enum pfc_event ev);

struct port;
struct flow;
struct qp_msg;

/*
 * A fabric split over several processes (a parallel run, sim/run/par.h):
 * what leaves this process's part goes through these, to be handed to the
 * process that holds the far end before it could matter there.
 */
struct mctx_part {
	/* @pkt finished leaving @p, whose peer is in another part; it
	 * reaches the far end at pkt->t (then port_wire_in there) */
	void (*cross)(void *ctx, const struct port *p, const struct pkt *pkt);
	/* a message was posted on @f, whose responder is in another part
	 * (then nic_msg_in there) */
	void (*post)(void *ctx, const struct flow *f, const struct qp_msg *m);
	/* collective @coll gives a slot back to a sender in part @to, at @at
	 * (then coll_credit_in there with @arg and @key) */
	void (*credit)(void *ctx, uint32_t to, uint32_t coll, simtime_t at, uint64_t arg,
		       uint64_t key);
	void *ctx;
};

struct mctx {
	struct evq *q;
	uint64_t seed; /* the scenario's: each model seeds its own streams from it */
	struct pkt_pool pool;
	struct mem_arena mem; /* switch ports and NICs, freed with the fabric */
	struct mctx_totals tot;
	int error; /* the first error inside the loop (negative errno), see mctx_fail */
	int stop;  /* a model asks the run to end (deadlock.stop_on_detect) */
	/* the loop looks after the event: error or stop set, or a flow or a
	 * collective finished (mctx_finished: all may have) */
	int halt;
	const struct mctx_part *part; /* NULL unless the fabric is split */
	pfc_log_fn pfc_log;	      /* optional: told of every PFC event */
	void *pfc_log_ctx;
	/* a fast-forward (models/ff.h), or NULL: told of every message
	 * posted, and of anything else about to change the network */
	void *ff;
	void (*ff_post)(void *ff, struct flow *f);
	void (*ff_touch)(void *ff);
	/* a collective may replay an operation measured before that ends by
	 * then (models/coll_memo.c); 0: none does. And what was replayed. */
	simtime_t replay_until;
	struct {
		uint64_t ops;
		simtime_t time;
	} replayed;
};

/* Something other than a message posted is about to change the network
 * (a fault, a storm): a fast-forward in progress ends first. */
static inline void mctx_ff_touch(struct mctx *c)
{
	if (c->ff)
		c->ff_touch(c->ff);
}

/*
 * Note an error of an event (a negative errno; 0 is ignored): the run
 * loop ends with SIM_END_ERROR after the event, and sim_run returns the
 * first one. Models call this where they cannot return the error, inside
 * event callbacks.
 */
static inline void mctx_fail(struct mctx *c, int err)
{
	if (err < 0 && !c->error) {
		c->error = err;
		c->halt = 1;
	}
}

/* A model asks the run to end after this event (deadlock.stop_on_detect). */
static inline void mctx_stop(struct mctx *c)
{
	c->stop = 1;
	c->halt = 1;
}

/* A flow or a collective finished: the loop looks whether all have. */
static inline void mctx_finished(struct mctx *c)
{
	c->halt = 1;
}

/* evq_arm from inside an event: a failure ends the run (mctx_fail). */
static inline void mctx_arm(struct mctx *c, struct evq_timer *t, simtime_t when)
{
	mctx_fail(c, evq_arm(c->q, t, when));
}

/* Report @ev on priority @prio of port @port (an index in topo.ports). */
static inline void mctx_pfc_event(struct mctx *c, uint32_t port, uint8_t prio, enum pfc_event ev)
{
	if (c->pfc_log)
		c->pfc_log(c->pfc_log_ctx, evq_now(c->q), port, prio, ev);
}

/* The event's name in pfc_events.csv ("xoff", "watchdog_trigger"). */
const char *pfc_event_str(enum pfc_event ev);

#endif
