/*
 * The fabric: every switch, NIC and port of one simulation, built from a
 * topology and a scenario, plus the totals that the invariants and results
 * read. sim/ builds it, runs the event loop and reads the counters; it does
 * not reach into a model's internals.
 */
#ifndef ROCESIM_NET_H
#define ROCESIM_NET_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

#include "sim/engine/evq.h"
#include "topologies/topo.h"
#include "models/collective.h"
#include "models/dcqcn.h"
#include "models/deadlock.h"
#include "models/link.h"
#include "models/nic.h"
#include "models/packet.h"
#include "models/switch.h"
#include "models/workload.h"

struct sw;
struct nic;

enum net_fault_kind { NET_FAULT_LINK_DOWN, NET_FAULT_PFC_STORM };

/* Something that goes wrong at a time of the run. */
struct net_fault {
	enum net_fault_kind kind;
	uint32_t link;      /* link_down: index in topo.links */
	uint32_t port;      /* pfc_storm: index in topo.ports of the sender */
	uint8_t priorities; /* pfc_storm: bit mask of the paused priorities */
	simtime_t at;
	simtime_t duration; /* pfc_storm: 0 = without end */
};

/*
 * Everything the fabric is built from besides the topology. The arrays
 * (flows, collectives, faults) are borrowed: they must outlive the net.
 */
struct net_params {
	uint64_t seed;          /* of the flows' ECMP hashes */
	struct sw_params sw;
	struct nic_params nic;
	struct wl_params wl;
	const struct coll_spec *colls;
	uint32_t n_colls;
	const struct net_fault *faults;
	uint32_t n_faults;
	simtime_t convergence;  /* routes follow a link failure after this */
	struct deadlock_params deadlock;
};

/* A message posted on a queue pair. */
struct qp_msg {
	uint64_t bytes;
	uint32_t first_psn, n_psn;
	uint32_t tag; /* the poster's own id (a collective's step and piece) */
};

/*
 * A flow: one RC queue pair from src to dst, with the requester's state
 * (at src) and the responder's (at dst). A workload flow carries one
 * message; a collective's QP carries one message per step it takes part in,
 * posted as its data dependencies are met.
 */
struct flow {
	uint32_t id;
	uint32_t src, dst;
	uint64_t bytes;   /* posted so far */
	simtime_t start;
	simtime_t finish; /* workload flow: last byte received in order, 0 until then */
	simtime_t acked;  /* workload flow: the requester saw the last ACK, 0 until then */
	struct qp_msg *msgs;
	uint32_t n_msgs, cap_msgs;
	uint32_t tx_msg;  /* requester: message holding snd_nxt (a cursor) */
	uint32_t rx_msg;  /* responder: next message to complete */
	struct coll *coll; /* the collective this QP belongs to, or NULL */
	uint32_t hash;
	uint8_t dscp, prio;
	uint64_t unroutable; /* its packets (data, ACK, CNP) dropped for want of a route */
	struct net *net;
	struct evq_timer start_timer;

	/* requester */
	uint32_t n_psn;              /* packets posted so far */
	uint32_t snd_nxt, snd_una, snd_max; /* next, oldest unacked, highest sent + 1 */
	uint64_t sent;               /* payload bytes sent, first transmissions */
	simtime_t last_tx;           /* pacing: when the last data packet started */
	uint32_t last_wire;          /* ... and its wire bytes */
	uint8_t in_ring;
	uint32_t wait_slot;          /* position + 1 in the NIC's pacing heap, 0 = not there */
	simtime_t wait_key;          /* when it may send, as last computed */
	struct flow *next_active;    /* the NIC's round-robin ring */
	simtime_t rto_at;            /* retransmission deadline, 0 = none (nic.c) */
	struct evq_timer cut_timer, inc_timer; /* DCQCN */
	struct dcqcn_rp rp;

	/* responder */
	uint32_t epsn;               /* next PSN expected */
	uint64_t received;           /* payload bytes accepted in order */
	uint32_t unacked;            /* accepted since the last ACK */
	uint8_t nak_sent;            /* one NAK per gap */
	simtime_t last_cnp;          /* NP: when the last CNP left for this QP */
	uint8_t cnp_sent_once;
};

struct net_totals {
	uint64_t sent_bytes, received_bytes, dropped_bytes;
	uint64_t sent_packets, received_packets, dropped_packets;
	uint64_t packet_hops;    /* packets serialized onto any link */
	uint64_t unroutable;	 /* drops for want of a route (not lossless drops) */
	uint64_t lossless_drops; /* drops of packets of a lossless priority */
	uint64_t ecn_marked;
	uint64_t watchdog_triggers, watchdog_drops;
	uint64_t cnp_sent, cnp_handled, retransmitted_packets;
};

/* What happened to PFC, for the event log (output.pfc_events). */
enum net_pfc_event {
	NET_PFC_XOFF,      /* a PG crossed XOFF: PAUSE sent upstream */
	NET_PFC_REFRESH,   /* PAUSE re-sent while the PG stays congested */
	NET_PFC_XON,       /* the PG drained to XON: RESUME sent */
	NET_PFC_RX_PAUSE,  /* a transmitter received PAUSE */
	NET_PFC_RX_RESUME,
	NET_PFC_PAUSED,    /* ... and stopped, after its response delay */
	NET_PFC_UNPAUSED,  /* resumed (RESUME or expiry) */
	NET_PFC_STORM,     /* a storming port sent PAUSE */
	NET_PFC_WD_TRIGGER, /* PFC watchdog detected a stuck queue */
	NET_PFC_WD_RESTORE,
};

typedef void (*net_pfc_log_fn)(void *ctx, simtime_t t, uint32_t port, uint8_t prio,
			       enum net_pfc_event ev);

struct net {
	struct evq *q;
	gsl_rng *rng;
	struct pkt_pool pool;
	struct net_params p; /* a copy: the models point into it */
	struct topo *topo;
	struct topo_routes *routes;

	struct port *ports; /* one per topo port */
	struct sw **switches; /* per node, NULL for hosts */
	struct nic **nics;    /* per host index */

	struct flow *flows;          /* workload flows first, then collective QPs */
	uint32_t n_flows, flows_done;
	uint32_t n_wl_flows;         /* the workload flows among them */
	struct coll **colls;
	uint32_t n_colls, colls_done;
	struct net_totals tot;
	int error; /* the first error inside the loop (negative errno), see net_fail */
	int stop;  /* a model asks the run to end (deadlock.stop_on_detect) */
	struct deadlock *deadlock; /* the detector, or NULL */
	net_pfc_log_fn pfc_log; /* optional */
	void *pfc_log_ctx;
	struct storm *storms;
};

/* Build the fabric of @p on @t (routes built here); flows start on time.
 * -EINVAL (with @d) when a switch's reserved headroom exceeds its buffer. */
int net_build(const struct net_params *p, struct topo *t, struct evq *q, gsl_rng *rng,
	      struct net **out, struct diag *d);
void net_free(struct net *n);
/* Payload bytes in queues, being serialized, or on wires right now. */
uint64_t net_inflight_bytes(const struct net *n);
int net_done(const struct net *n);

/*
 * Note an error of an event (a negative errno; 0 is ignored): the run
 * loop ends with SIM_END_ERROR after the event, and sim_run returns the
 * first one. Models call this where they cannot return the error, inside
 * event callbacks.
 */
static inline void net_fail(struct net *n, int err)
{
	if (err < 0 && !n->error)
		n->error = err;
}

/* evq_arm from inside an event: a failure ends the run (net_fail). */
static inline void net_arm(struct net *n, struct evq_timer *t, simtime_t when)
{
	net_fail(n, evq_arm(n->q, t, when));
}

static inline void net_pfc_event(struct net *n, uint32_t port, uint8_t prio,
				 enum net_pfc_event ev)
{
	if (n->pfc_log)
		n->pfc_log(n->pfc_log_ctx, evq_now(n->q), port, prio, ev);
}

const char *net_pfc_event_str(enum net_pfc_event ev);

#endif
