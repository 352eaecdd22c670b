/*
 * nic_tc: the NIC's egress per traffic class (nic_params.tc_on; the
 * scheduler is described in nic_tc.c): a class's parameters, the ring of
 * QPs of each class and the state that picks the class to serve. It knows
 * the rings, not the NIC: the NIC passes the function that takes a ring's
 * next packet (nic.c's own), so that this file uses nothing of nic.c.
 */
#ifndef ROCESIM_NIC_TC_H
#define ROCESIM_NIC_TC_H

#include <stdint.h>

#include "sim/engine/evq_timer.h"
#include "sim/engine/simtime.h"

struct flow;
struct mctx;
struct pkt;
struct port;

/*
 * Transmission selection of a traffic class (IEEE 802.1Qaz, as mlnx_qos
 * --tsa sets it): strict priority, ETS (a share of what the strict classes
 * leave) or the firmware's own ("vendor").
 */
enum nic_tsa { NIC_TSA_STRICT, NIC_TSA_ETS, NIC_TSA_VENDOR };

/* One traffic class of the NIC's egress (nic_tc.c). */
struct nic_tc_params {
	uint8_t tsa;	    /* enum nic_tsa */
	uint8_t bw;	    /* ETS: percent of the port that strict classes leave */
	uint64_t ratelimit; /* bit/s on the wire (preamble and IFG counted), 0 = none */
};

/* A circular ring of QPs with packets to send: cur sends next, prev is
 * before it (the NIC's one ring, or a class's). */
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
	struct mctx *ctx;	/* the shaper's queue */
	struct port *port;	/* kicked when a limited class may send again */
};

/* The next data packet of ring @r of NIC @nic, or NULL: none that may send
 * now (priorities @paused stopped by PFC). */
typedef struct pkt *(*nic_ring_take_fn)(void *nic, struct nic_ring *r, uint8_t paused,
					simtime_t now);

/*
 * The classes of a NIC on @port of @rate_bps bit/s and @mtu: @prio_tc[8]
 * the class of each priority, @params[8] the classes'. Allocated in
 * @ctx's arena (freed with it) into *@out: 0, or -ENOMEM.
 */
int nic__tc_init(struct nic_tcs **out, struct mctx *ctx, struct port *port, uint64_t rate_bps,
		 uint32_t mtu, const uint8_t *prio_tc, const struct nic_tc_params *params);
/* The next data packet, class by class, each class's ring taken by @take
 * (told @nic), or NULL. */
struct pkt *nic__tc_next(struct nic_tcs *t, nic_ring_take_fn take, void *nic, uint8_t paused,
			 simtime_t now);
/* Whether a QP of a class that may send now waits for the port. */
int nic__tc_waiting(const struct nic_tcs *t, simtime_t now);

#endif
