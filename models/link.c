/*
 * Ports and links: serialization at the link rate, propagation on the wire,
 * delivery to the peer in order (see link.h).
 */
#include "link.h"

#include "net.h"

static void on_tx_done(void *obj, uint64_t arg);
static void on_arrive(void *obj, uint64_t arg);

void port_init(struct port *p, struct net *net, uint32_t id, uint64_t rate_bps,
	       simtime_t delay)
{
	p->net = net;
	p->id = id;
	p->rate_bps = rate_bps;
	p->delay = delay;
	p->up = 1;
	evq_timer_init(&p->tx_done, on_tx_done, p);
	evq_timer_init(&p->arrive, on_arrive, p);
}

void port_kick(struct port *p)
{
	struct pkt *pkt;
	simtime_t t;

	if (p->tx_pkt || !p->up)
		return;
	pkt = p->ops->next(p);
	if (!pkt)
		return;
	p->tx_pkt = pkt;
	t = simtime_tx(pkt_wire_bytes(pkt), p->rate_bps);
	p->busy_time += t;
	evq_arm(p->net->q, &p->tx_done, evq_now(p->net->q) + t);
}

static void lose(struct port *p, struct pkt *pkt)
{
	struct net *n = p->net;

	p->lost_packets++;
	p->lost_bytes += pkt->frame;
	n->tot.dropped_packets++;
	n->tot.dropped_bytes += pkt->payload;
	pkt_free(&n->pool, pkt);
}

/* The last bit left: the packet propagates; the transmitter takes the next. */
static void on_tx_done(void *obj, uint64_t arg)
{
	struct port *p = obj;
	struct pkt *pkt = p->tx_pkt;
	struct net *n = p->net;

	(void)arg;
	p->tx_pkt = NULL;
	if (!p->up) {
		lose(p, pkt);
		return;
	}
	p->tx_packets++;
	p->tx_bytes += pkt->frame;
	n->tot.packet_hops++;
	pkt->t = evq_now(n->q) + p->delay;
	if (!p->wire.head)
		evq_arm(n->q, &p->arrive, pkt->t);
	pktq_push(&p->wire, pkt);
	port_kick(p);
}

/* The head of the wire reached the peer. */
static void on_arrive(void *obj, uint64_t arg)
{
	struct port *p = obj;
	struct port *peer = p->peer;
	struct pkt *pkt = pktq_pop(&p->wire);

	(void)arg;
	if (p->wire.head)
		evq_arm(p->net->q, &p->arrive, p->wire.head->t);
	peer->rx_packets++;
	peer->rx_bytes += pkt->frame;
	peer->ops->rx(peer, pkt);
}

static void down_one(struct port *p)
{
	struct pkt *pkt;

	p->up = 0;
	evq_cancel(p->net->q, &p->arrive);
	while ((pkt = pktq_pop(&p->wire)))
		lose(p, pkt);
	/* a packet being serialized is lost when its tx_done fires */
}

void port_link_down(struct port *p)
{
	down_one(p);
	down_one(p->peer);
}

uint64_t port_inflight_payload(const struct port *p)
{
	uint64_t b = p->tx_pkt ? p->tx_pkt->payload : 0;

	for (const struct pkt *k = p->wire.head; k; k = k->next)
		b += k->payload;
	for (int i = 0; i < PKT_PRIORITIES; i++)
		for (const struct pkt *k = p->queue[i].q.head; k; k = k->next)
			b += k->payload;
	return b;
}
