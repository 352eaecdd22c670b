/*
 * Switch: routing lookup, buffer admission, per-priority egress FIFOs and
 * the strict-priority scheduler (see switch.h).
 */
#include "switch.h"

#include <stdlib.h>

#include "net.h"

struct sw {
	struct net *net;
	uint32_t node;
	struct port *ports; /* the node's ports, contiguous in net->ports */
	uint32_t n_ports;
	uint64_t buffer, per_port;
	struct sw_counters c;
};

static void drop(struct sw *s, struct port_queue *pq, struct pkt *pkt)
{
	struct net *n = s->net;

	pq->drops++;
	pq->drop_bytes += pkt->frame;
	s->c.drops++;
	s->c.drop_bytes += pkt->frame;
	n->tot.dropped_packets++;
	n->tot.dropped_bytes += pkt->payload;
	pkt_free(&n->pool, pkt);
}

static void sw_rx(struct port *in, struct pkt *pkt)
{
	struct sw *s = in->owner;
	struct net *n = s->net;
	const uint16_t *hops;
	uint32_t count;
	struct port *out;
	struct port_queue *pq;

	hops = topo_next_hops(n->routes, s->node, pkt->dst, &count);
	if (!count) {
		s->c.unroutable++;
		n->tot.unroutable++;
		drop(s, &in->queue[pkt->prio], pkt);
		return;
	}
	out = &s->ports[hops[count == 1 ? 0 : topo_ecmp_pick(pkt->hash, s->node, count)]];
	pq = &out->queue[pkt->prio];
	if (!out->up || s->c.buffer_used + pkt->frame > s->buffer ||
	    (s->per_port && out->queued_bytes + pkt->frame > s->per_port)) {
		drop(s, pq, pkt);
		return;
	}
	pkt->in_port = (uint16_t)in->local;
	s->c.buffer_used += pkt->frame;
	if (s->c.buffer_used > s->c.buffer_peak)
		s->c.buffer_peak = s->c.buffer_used;
	out->queued_bytes += pkt->frame;
	pq->bytes += pkt->frame;
	if (pq->bytes > pq->max_bytes)
		pq->max_bytes = pq->bytes;
	pktq_push(&pq->q, pkt);
	out->nonempty |= (uint8_t)(1u << pkt->prio);
	port_kick(out);
}

/* Strict priority: the highest non-empty priority goes first. */
static struct pkt *sw_next(struct port *p)
{
	struct sw *s = p->owner;
	struct port_queue *pq;
	struct pkt *pkt;
	int prio;

	if (!p->nonempty)
		return NULL;
	prio = 31 - __builtin_clz(p->nonempty);
	pq = &p->queue[prio];
	pkt = pktq_pop(&pq->q);
	if (!pq->q.head)
		p->nonempty &= (uint8_t)~(1u << prio);
	pq->bytes -= pkt->frame;
	pq->tx_packets++;
	pq->tx_bytes += pkt->frame;
	p->queued_bytes -= pkt->frame;
	s->c.buffer_used -= pkt->frame;
	return pkt;
}

static const struct port_ops sw_ops = {.next = sw_next, .rx = sw_rx};

struct sw *sw_new(struct net *net, uint32_t node)
{
	const struct topo_node *tn = &net->topo->nodes[node];
	struct sw *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->net = net;
	s->node = node;
	s->ports = &net->ports[tn->first_port];
	s->n_ports = tn->n_ports;
	s->buffer = net->scn->sw.buffer;
	s->per_port = net->scn->sw.per_port;
	for (uint32_t i = 0; i < s->n_ports; i++) {
		s->ports[i].ops = &sw_ops;
		s->ports[i].owner = s;
	}
	return s;
}

void sw_free(struct sw *s)
{
	free(s);
}

void sw_port_down(struct sw *s, uint32_t local_port)
{
	struct port *p = &s->ports[local_port];

	for (int prio = 0; prio < PKT_PRIORITIES; prio++) {
		struct port_queue *pq = &p->queue[prio];
		struct pkt *pkt;

		while ((pkt = pktq_pop(&pq->q))) {
			pq->bytes -= pkt->frame;
			p->queued_bytes -= pkt->frame;
			s->c.buffer_used -= pkt->frame;
			drop(s, pq, pkt);
		}
	}
	p->nonempty = 0;
}

const struct sw_counters *sw_counters(const struct sw *s)
{
	return &s->c;
}
