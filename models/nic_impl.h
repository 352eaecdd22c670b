/*
 * NIC internals that nic.c and nic_rto.c share: the NIC's state and the
 * few functions of nic.c that the retransmission timeout (nic_rto.c) uses.
 * Nothing outside models/nic*.c includes this, and only after
 * models/nic.h (not included here: a .c and its header count as one in the
 * check of the models' includes, and nic.c includes this).
 */
#ifndef ROCESIM_NIC_IMPL_H
#define ROCESIM_NIC_IMPL_H

#include <stdint.h>

#include "models/link.h"
#include "sim/engine/evq.h"

/* A circular ring of QPs with packets to send: cur sends next, prev is before it. */
struct nic_ring {
	struct flow *cur, *prev;
	uint32_t len;
};

/*
 * The classes of a NIC with nic_params.tc_on (nic_tc.c): a ring per class,
 * and the groups the port serves in turn, the first before the next (as
 * the mlx5 driver's TC groups, highest first); in a group, the class that
 * sent the fewest bytes per share goes next, and a class with a rate
 * limit waits for its token bucket.
 */
struct nic_tcs {
	struct nic_ring ring[8];
	uint8_t prio_tc[8];
	uint8_t n_groups;
	uint8_t group_n[8];	/* classes in each group */
	uint8_t group_tc[8][8]; /* ... which, highest group first */
	uint8_t group_of[8];
	uint64_t cost[8];	/* virtual time a byte costs the class: 1/its share */
	uint64_t credit[8];	/* the most it may lag the group's virtual time */
	uint64_t vt[8];		/* the class's virtual time: bytes sent x cost */
	uint64_t vnow[8];	/* per group: the virtual time of the class served last */
	uint64_t rate[8];	/* rate limit, bit/s; 0 = none */
	simtime_t tat[8];	/* a limited class's bucket is full again then (GCRA) */
	simtime_t burst[8];	/* ... and may send while tat - now is within this */
	simtime_t free_at[8];	/* tat - burst: a limited class may send from then on */
	struct evq_timer shape; /* the earliest free_at of a limited class */
};

struct nic {
	/* what a packet sent or received reads, in its first cache lines */
	struct mctx *ctx;
	struct flow *flows; /* the fabric's QPs, by id (pkt->flow) */
	struct port *port;
	const struct nic_params *prm;
	struct nic_ring ring; /* QPs with packets to send (one class) */
	struct nic_tcs *tcs;  /* or a ring per class (nic_params.tc_on), else NULL */
	struct pktq ctrl;     /* ACK, NAK, CNP: ahead of data */
	uint64_t rate_bps;    /* the port's */
	uint32_t mtu;
	uint32_t n_wait, cap_wait;
	struct flow **wait; /* min-heap of QPs held back by pacing, by wait_key */
	uint8_t ecn;
	uint8_t dcqcn;
	struct nic_counters c;
	/* the rest */
	const struct nic_ops *ops;
	void *up;
	uint32_t host;
	/* the earliest paced QP may send (a line of its own: a paced QP's
	 * every packet waits for it) */
	struct evq_timer pace __attribute__((aligned(64)));
	struct evq_timer rto; /* retransmission deadlines of all its QPs */
	struct flow **qps;    /* the QPs it is the requester of */
	uint32_t n_qps, cap_qps;
	/* receive buffer (nic.rx_buffer drained at nic.rx_rate), or none */
	struct pktq rxq;
	uint64_t rx_used, rx_xoff_at, rx_xon_at;
	int rx_xoff;
	struct evq_timer rx_drain, rx_refresh;
	/* NP with nic.dcqcn.cnp_scope port: when its last CNP left */
	simtime_t last_cnp;
	uint8_t cnp_sent_once;
};

/* Send @f again from @psn on (a NAK, a timeout). */
void nic__go_back(struct nic *n, struct flow *f, uint32_t psn);
/* Take @f out of the ring of QPs with packets to send, wherever it is. */
void nic__ring_unlink(struct nic *n, struct flow *f);
/* The NIC's retransmission timer fired (nic_rto.c). */
void nic__on_rto(void *obj, uint64_t arg);

/* The ring @f waits in to send: its class's, or the NIC's one. */
static inline struct nic_ring *nic__ring_of(struct nic *n, const struct flow *f)
{
	return n->tcs ? &n->tcs->ring[n->tcs->prio_tc[f->prio & 7]] : &n->ring;
}
/* The next data packet of ring @r (nic.c), or NULL: none that may send now
 * (priorities @paused stopped by PFC). */
struct pkt *nic__ring_take(struct nic *n, struct nic_ring *r, uint8_t paused, simtime_t now);

/* nic_tc.c: the classes of @n when its params have tc_on (else nothing). 0 or -ENOMEM. */
int nic__tc_init(struct nic *n);
/* The next data packet, class by class, or NULL. */
struct pkt *nic__tc_next(struct nic *n, uint8_t paused, simtime_t now);
/* Whether a QP of a class that may send now waits for the port. */
int nic__tc_waiting(const struct nic *n, simtime_t now);

#endif
