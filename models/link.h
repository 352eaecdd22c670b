/*
 * Ports and links. A port is one end of a full-duplex link: it owns the
 * transmitter towards its peer (busy while it serializes a packet at the
 * link rate) and the wire in that direction. Packets on the wire wait in a
 * FIFO with their arrival times; only the head is in the event queue (one
 * re-armed timer per direction), so the queue holds O(links), not
 * O(packets in flight).
 *
 * What the port sends next comes from its owner through port_ops.next
 * (switch: its egress queues; NIC: its queue pairs); what arrives goes to
 * the peer's owner through port_ops.rx.
 */
#ifndef ROCESIM_LINK_H
#define ROCESIM_LINK_H

#include <stdint.h>

#include "../sim/evq.h"
#include "packet.h"

struct net;
struct port;

struct port_ops {
	struct pkt *(*next)(struct port *p);
	void (*rx)(struct port *p, struct pkt *pkt);
};

/* Egress queue counters per priority, plain data for results. */
struct port_queue {
	struct pktq q;
	uint64_t bytes;     /* frame bytes queued now */
	uint64_t max_bytes; /* peak */
	uint64_t drops, drop_bytes;
	uint64_t tx_packets, tx_bytes;
};

struct port {
	struct net *net;
	const struct port_ops *ops;
	void *owner;
	struct port *peer;
	uint32_t id;    /* index in topo.ports */
	uint32_t local; /* index among the owner's ports */
	uint64_t rate_bps;
	simtime_t delay;
	int up;

	/* transmitter */
	struct pkt *tx_pkt;
	struct evq_timer tx_done;
	/* the wire towards the peer */
	struct pktq wire;
	struct evq_timer arrive;

	uint64_t queued_bytes; /* all priorities */
	uint8_t nonempty;      /* bit p set while queue[p] holds packets */
	struct port_queue queue[PKT_PRIORITIES];

	/* counters, as the far end would also see them */
	uint64_t tx_packets, tx_bytes, rx_packets, rx_bytes;
	uint64_t lost_packets, lost_bytes; /* lost on a failed link */
	simtime_t busy_time;
};

void port_init(struct port *p, struct net *net, uint32_t id, uint64_t rate_bps,
	       simtime_t delay);
/* Start transmitting if idle and the owner has something to send. */
void port_kick(struct port *p);
/* Take the link down (both directions): what is on the wire is lost. */
void port_link_down(struct port *p);
/* Bytes of payload on the wire or being serialized (for conservation). */
uint64_t port_inflight_payload(const struct port *p);

#endif
