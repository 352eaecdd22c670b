/*
 * NIC internals that nic.c, nic_rto.c, nic_absorb.c and nic_life.c
 * share: the NIC's state, the few functions of nic.c that the
 * retransmission timeout (nic_rto.c) uses, and the handlers that nic_new
 * (nic_life.c) wires.
 * Nothing outside models/nic*.c includes this, and only after
 * models/nic.h (not included here: a .c and its header count as one in the
 * check of the models' includes, and nic.c includes this).
 */
#ifndef ROCESIM_NIC_IMPL_H
#define ROCESIM_NIC_IMPL_H

#include <stdint.h>

#include "models/link.h"
#include "models/nic_tc.h"
#include "sim/engine/evq.h"

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

/* @f's responder at NIC @n has its next message whole: a workload flow
 * is done, and the NIC's owner is told (nic_ops.msg_done). */
void nic__msg_complete(struct nic *n, struct flow *f, simtime_t now);
void nic__ring_remove(struct nic *n, struct flow *f);
/* Send @f again from @psn on (a NAK, a timeout). */
void nic__go_back(struct nic *n, struct flow *f, uint32_t psn);
/* Take @f out of the ring of QPs with packets to send, wherever it is. */
void nic__ring_unlink(struct nic *n, struct flow *f);
/* The NIC's retransmission timer fired (nic_rto.c). */
void nic__on_rto(void *obj, uint64_t arg);
/* The handlers of nic.c that nic_new (nic_life.c) wires: the pacing
 * timer, the receive buffer's drain and PAUSE refresh, and the port's
 * operations, without classes and with them. */
void nic__on_pace(void *obj, uint64_t arg);
void nic__on_rx_drain(void *obj, uint64_t arg);
void nic__on_rx_refresh(void *obj, uint64_t arg);
extern const struct port_ops nic__port_ops, nic__port_tc_ops, nic__port_held_ops;

/* The ring @f waits in to send: its class's, or the NIC's one. */
static inline struct nic_ring *nic__ring_of(struct nic *n, const struct flow *f)
{
	return n->tcs ? &n->tcs->ring[n->tcs->prio_tc[f->prio & 7]] : &n->ring;
}
#endif
