/*
 * NIC: a NIC made and wired to its port and its timers, and freed. It
 * wires what the other files of the NIC handle: the port's operations,
 * with classes (nic_tc.h) or not, and the timers of pacing and of the
 * receive buffer (nic.c) and of retransmission (nic_rto.c); none of them
 * uses this file.
 */
#include "models/nic.h"

#include <stdlib.h>

#include "models/link.h"
#include "models/mctx.h"
#include "models/nic_impl.h"

struct nic *nic_new(struct mctx *ctx, const struct nic_params *prm, uint32_t host,
		    struct port *port, struct flow *flows, const struct nic_ops *ops, void *up)
{
	struct nic *n = mem_arena_lines(&ctx->mem, 1, sizeof(*n)); /* freed with ctx */

	if (!n)
		return NULL;
	n->ctx = ctx;
	n->prm = prm;
	n->flows = flows;
	n->ops = ops;
	n->up = up;
	n->host = host;
	n->port = port;
	n->rate_bps = port->rate_bps;
	n->port->ops = &nic__port_ops;
	n->port->owner = n;
	port_set_lazy(n->port, 1); /* a paced sender's and an ACK's end are no event */
	n->mtu = prm->mtu;
	n->ecn = prm->ecn ? PKT_ECT : PKT_NOT_ECT;
	n->dcqcn = prm->cc == NIC_CC_DCQCN;
	n->port->pfc_obey = prm->pfc;
	evq_timer_init(&n->pace, nic__on_pace, n, mctx_port_key(port->id, MCTX_PT_NIC_PACE));
	evq_timer_init(&n->rto, nic__on_rto, n, mctx_port_key(port->id, MCTX_PT_NIC_RTO));
	evq_timer_init(&n->rx_drain, nic__on_rx_drain, n,
		       mctx_port_key(port->id, MCTX_PT_NIC_RX_DRAIN));
	evq_timer_init(&n->rx_refresh, nic__on_rx_refresh, n,
		       mctx_port_key(port->id, MCTX_PT_NIC_RX_REFRESH));
	if (n->prm->rx_buffer) {
		/* XOFF leaves the headroom the link needs; XON two frames lower */
		uint64_t hdrm = pfc_headroom(n->port, n->mtu);
		uint64_t frame = n->mtu + PKT_HEADER_BYTES;

		n->rx_xoff_at = n->prm->rx_buffer > hdrm + frame ? n->prm->rx_buffer - hdrm
								 : n->prm->rx_buffer / 2;
		n->rx_xon_at = n->rx_xoff_at > 2 * frame ? n->rx_xoff_at - 2 * frame : 0;
	}
	if (prm->tc_on) {
		if (nic__tc_init(&n->tcs, ctx, port, n->rate_bps, n->mtu, prm->prio_tc, prm->tc))
			return NULL;
		n->port->ops = &nic__port_tc_ops;
	}
	return n;
}

void nic_free(struct nic *n)
{
	if (!n)
		return;
	free(n->wait);
	free(n->qps);
}
