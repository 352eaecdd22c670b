/* NIC: packet generation at line rate and flow completion (see nic.h). */
#include "nic.h"

#include <stdlib.h>

#include "net.h"

struct nic {
	struct net *net;
	uint32_t host;
	struct port *port;
	struct flow *cur, *prev; /* circular ring of active flows */
	uint32_t mtu;
	uint8_t ecn;
	struct nic_counters c;
};

/* The next active flow, from the ring's current one, whose priority is
 * not paused; NULL if none. Moves the ring's current position to it. */
static struct flow *pick_flow(struct nic *n, uint8_t paused)
{
	struct flow *f = n->cur;

	if (!f || !paused)
		return f;
	do {
		if (!(paused & (1u << f->prio)))
			return f;
		n->prev = f;
		f = f->next_active;
	} while (f != n->cur);
	return NULL;
}

static struct pkt *nic_next(struct port *p)
{
	struct nic *n = p->owner;
	struct flow *f = pick_flow(n, p->paused);
	struct pkt *pkt;
	uint64_t left;

	if (!f)
		return NULL;
	n->cur = f;
	pkt = pkt_alloc(&n->net->pool);
	if (!pkt) {
		n->net->error = -1;
		return NULL;
	}
	left = f->bytes - f->sent;
	pkt->payload = (uint16_t)(left < n->mtu ? left : n->mtu);
	pkt->frame = (uint16_t)(pkt->payload + PKT_HEADER_BYTES);
	pkt->flow = f->id;
	pkt->psn = f->next_psn++;
	pkt->src = f->src;
	pkt->dst = f->dst;
	pkt->hash = f->hash;
	pkt->prio = f->prio;
	pkt->dscp = f->dscp;
	pkt->ecn = n->ecn;
	pkt->acct = PKT_ACCT_NONE;
	pkt->kind = PKT_DATA;
	f->sent += pkt->payload;
	n->net->tot.sent_bytes += pkt->payload;
	n->net->tot.sent_packets++;
	n->c.tx_packets_phy++;
	n->c.tx_bytes_phy += pkt->frame;
	if (f->sent == f->bytes) {
		/* all sent: leave the ring */
		if (f->next_active == f) {
			n->cur = n->prev = NULL;
		} else {
			n->prev->next_active = f->next_active;
			n->cur = f->next_active;
		}
		f->next_active = NULL;
	} else {
		n->prev = f;
		n->cur = f->next_active;
	}
	return pkt;
}

static void nic_rx(struct port *p, struct pkt *pkt)
{
	struct nic *n = p->owner;
	struct net *net = n->net;
	struct flow *f = &net->flows[pkt->flow];

	n->c.rx_packets_phy++;
	n->c.rx_bytes_phy += pkt->frame;
	if (pkt->ecn == PKT_CE)
		n->c.np_ecn_marked_roce_packets++;
	f->received += pkt->payload;
	net->tot.received_bytes += pkt->payload;
	net->tot.received_packets++;
	if (f->received == f->bytes) {
		f->finish = evq_now(net->q);
		net->flows_done++;
		n->c.flows_done++;
	}
	pkt_free(&net->pool, pkt);
}

static const struct port_ops nic_ops = {.next = nic_next, .rx = nic_rx};

struct nic *nic_new(struct net *net, uint32_t host)
{
	const struct topo_node *tn = &net->topo->nodes[net->topo->hosts[host]];
	struct nic *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->net = net;
	n->host = host;
	n->port = &net->ports[tn->first_port];
	n->port->ops = &nic_ops;
	n->port->owner = n;
	n->mtu = net->scn->nic.mtu;
	n->ecn = net->scn->nic.ecn ? PKT_ECT : PKT_NOT_ECT;
	n->port->pfc_obey = net->scn->nic.pfc;
	if (net->scn->sw.pfc.response)
		n->port->response = net->scn->sw.pfc.response;
	return n;
}

void nic_free(struct nic *n)
{
	free(n);
}

void nic_start_flow(struct nic *n, struct flow *f)
{
	n->c.flows_started++;
	if (!n->cur) {
		f->next_active = f;
		n->cur = n->prev = f;
	} else {
		/* join at the back of the ring: just before cur */
		f->next_active = n->cur;
		n->prev->next_active = f;
		n->prev = f;
	}
	port_kick(n->port);
}

const struct nic_counters *nic_counters(const struct nic *n)
{
	return &n->c;
}
