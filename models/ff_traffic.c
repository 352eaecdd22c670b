/*
 * Fast-forward's traffic: the packets a span delivered, counted on the
 * ports and NICs they crossed exactly, not at measured rates. A span
 * knows each QP's packets (their sizes, from its messages), the path they
 * take and the ACKs its responder sends for them, so a port's tx_packets,
 * its bytes, its busy time and its queues' counts come out as a packet
 * run gives them. CNPs and PAUSE frames, whose numbers a span extrapolates,
 * are put on their ports in those numbers.
 */
#include "models/ff_impl.h"

#include "models/link.h"
#include "models/net.h"
#include "models/nic.h"
#include "models/packet.h"
#include "models/switch.h"

/* The path last looked up: f->path's ports, f->path_tc their classes. */
struct route {
	struct ff_group *f;
	const struct flow *fl;
	uint32_t k;
	uint32_t from, to; /* the hosts at its ends */
};

/* @fl's path (@back: the way its ACKs and CNPs take), each switch port
 * with the class that a packet of @dscp has there. */
static struct route route_of(struct ff_group *f, const struct flow *fl, int back, uint8_t dscp)
{
	struct net *n = f->net;
	struct route r = {
	    .f = f, .fl = fl, .from = back ? fl->dst : fl->src, .to = back ? fl->src : fl->dst};

	r.k = ff__path_ports(n, fl, back, f->path, n->topo->n_ports);
	for (uint32_t j = 0; j < r.k; j++) {
		struct sw *s = n->switches[n->topo->ports[f->path[j]].node];

		/* classed by the port it came in by (sw_rx); a NIC's port has no
		 * queues of its own */
		f->path_tc[j] =
		    s && j ? (int8_t)sw_tc_of(s, n->ports[f->path[j - 1]].peer->local, dscp) : -1;
	}
	return r;
}

/* @c packets of @frame bytes out of port @p, in class @tc (-1: not a
 * switch's queue), and into its peer. */
static void hop(struct net *n, struct port *p, int tc, uint64_t c, uint64_t frame, int data)
{
	p->tx_packets += c;
	p->tx_bytes += c * frame;
	p->busy_time += c * simtime_tx(frame + PKT_PREAMBLE_IFG_BYTES, p->rate_bps);
	if (tc >= 0) {
		p->queue[tc].tx_packets += c;
		p->queue[tc].tx_bytes += c * frame;
	}
	p->peer->rx_packets += c;
	p->peer->rx_bytes += c * frame;
	n->ctx.tot.packet_hops += c;
	if (data)
		n->ctx.tot.data_hops += c;
}

/* @c packets of @frame bytes along route @r, from one NIC to the other. */
static void along(const struct route *r, uint64_t c, uint32_t frame, int data)
{
	struct net *n = r->f->net;
	struct nic_counters *nc;

	if (!c || !r->k)
		return;
	for (uint32_t j = 0; j < r->k; j++)
		hop(n, &n->ports[r->f->path[j]], r->f->path_tc[j], c, frame, data);
	if (n->nics[r->from]) {
		nc = nic_ff_counters(n->nics[r->from]);
		nc->tx_packets_phy += c;
		nc->tx_bytes_phy += c * frame;
	}
	if (n->nics[r->to]) {
		nc = nic_ff_counters(n->nics[r->to]);
		nc->rx_packets_phy += c;
		nc->rx_bytes_phy += c * frame;
	}
}

static void data_sizes(void *ctx, const struct nic_ff_size *sz, uint32_t m)
{
	for (uint32_t i = 0; i < m; i++)
		along(ctx, sz[i].count, sz[i].frame, 1);
}

void ff__traffic_run(struct ff_group *f, struct flow *fl, uint32_t k)
{
	struct net *n = f->net;
	struct route r;
	uint64_t acks;

	if (!k)
		return;
	r = route_of(f, fl, 0, fl->dscp);
	acks = nic_ff_walk(fl, k, n->p.nic.mtu, n->p.nic.ack_every, data_sizes, &r);
	r = route_of(f, fl, 1, fl->dscp);
	along(&r, acks, PKT_ACK_FRAME_BYTES, 0);
}

void ff__traffic_save(struct ff_group *f)
{
	struct net *n = f->net;

	for (uint32_t j = 0; j < f->nf; j++)
		f->qp[f->flows[j]].cnp_was = n->flows[f->flows[j]].rp.cnp_handled;
	for (uint32_t j = 0; j < f->np; j++) {
		uint32_t i = f->ports[j];

		for (int prio = 0; prio < PKT_PRIORITIES; prio++)
			f->load[i] +=
			    n->ports[i].pfc[prio].tx_pause + n->ports[i].pfc[prio].tx_resume;
	}
}

void ff__traffic_ctrl(struct ff_group *f)
{
	struct net *n = f->net;

	for (uint32_t j = 0; j < f->nf; j++) {
		uint32_t i = f->flows[j];
		struct flow *fl = &n->flows[i];
		uint64_t c;
		struct route r;

		if (fl->rp.cnp_handled <= f->qp[i].cnp_was || !n->nics[fl->dst])
			continue;
		c = fl->rp.cnp_handled - f->qp[i].cnp_was;
		r = route_of(f, fl, 1, nic_ff_cnp_dscp(n->nics[fl->dst]));
		along(&r, c, PKT_CNP_FRAME_BYTES, 0);
	}
	for (uint32_t j = 0; j < f->np; j++) {
		uint32_t i = f->ports[j];
		uint64_t c = 0;

		for (int prio = 0; prio < PKT_PRIORITIES; prio++)
			c += n->ports[i].pfc[prio].tx_pause + n->ports[i].pfc[prio].tx_resume;
		if (c > f->load[i])
			hop(n, &n->ports[i], -1, c - f->load[i], PKT_PAUSE_FRAME_BYTES, 0);
		f->load[i] = 0;
	}
}
