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
 * the peer's owner through port_ops.rx. PFC is handled here for every kind
 * of port: PAUSE frames go out ahead of data (after the packet on the
 * wire), and a received PAUSE stops the transmitter's priority after the
 * response delay, for quanta x 512 bit times or until a RESUME.
 */
#ifndef ROCESIM_LINK_H
#define ROCESIM_LINK_H

#include <stdint.h>

#include "sim/engine/evq.h"
#include "models/packet.h"

struct mctx;
struct port;

struct port_ops {
	struct pkt *(*next)(struct port *p);
	void (*rx)(struct port *p, struct pkt *pkt);
	/* optional: a data packet's last bit left (the switch frees its buffer) */
	void (*sent)(struct port *p, struct pkt *pkt);
	/* optional: a PFC frame arrived (the PFC watchdog watches these) */
	void (*pause_rx)(struct port *p, uint8_t prio, uint32_t quanta);
	/* optional: whether the owner has something that waits for the
	 * transmitter now (a port whose owner answers this and has no `sent`
	 * may finish a packet without an event: port_set_lazy) */
	int (*waiting)(const struct port *p);
};

/* Egress queue state per priority: what every packet queued and sent
 * touches, one cache line (the counters of the few dropped or marked
 * apart: port_qcount). */
struct port_queue {
	struct pktq q;
	uint64_t bytes;	    /* frame bytes queued now */
	uint64_t max_bytes; /* peak */
	uint64_t tx_packets, tx_bytes;
	simtime_t last_dequeue; /* when a packet last left this queue */
} __attribute__((aligned(64)));

/* What an egress queue dropped and marked. */
struct port_qcount {
	uint64_t drops, drop_bytes;
	uint64_t ecn_marked;
};

/* PFC counters per priority, as pfcstat and ethtool -S name them. */
struct port_pfc {
	uint64_t tx_pause;  /* PAUSE frames sent (XOFF and refresh) */
	uint64_t tx_resume; /* RESUME (quanta 0) frames sent */
	uint64_t rx_pause;  /* PAUSE frames received */
	uint64_t rx_resume;
	simtime_t paused_time; /* time this transmitter spent paused */
	simtime_t paused_until, paused_since;
};

/* port.tx_open: a lazy packet's end is not counted yet; it is a data packet */
enum { PORT_TX_OPEN = 1, PORT_TX_DATA = 2 };

/*
 * The fields every packet touches come first, those of PFC and failures
 * last, and a port starts a cache line: a large fabric has tens of
 * thousands of ports and a packet's hop touches two of them, so the lines
 * it needs are what make it fast. The first line is what an arrival reads
 * of the receiving port; the second, the transmitter.
 */
struct port {
	struct mctx *ctx;
	const struct port_ops *ops;
	void *owner;
	struct port *peer;
	/* counters, as the far end would also see them */
	uint64_t rx_packets, rx_bytes;
	uint32_t id;	/* index in topo.ports */
	uint32_t local; /* index among the owner's ports */
	uint8_t up;
	uint8_t paused;	   /* PFC: priorities stopped by the peer now */
	uint8_t nonempty;  /* bit p set while queue[p] holds packets */
	uint8_t remote;	   /* its peer is in another part of a split fabric */
	uint8_t lazy;	   /* finishes a packet without an event (port_set_lazy) */
	uint8_t tx_open;   /* lazy: a packet's end not yet counted (PORT_TX_*) */
	uint16_t tx_frame; /* lazy: that packet's frame bytes */

	/* transmitter */
	struct pkt *tx_pkt; /* being serialized, unless lazy (then on the wire) */
	simtime_t tx_end;   /* lazy: when the last packet's last bit leaves */
	uint64_t rate_bps;
	simtime_t delay;
	uint64_t queued_bytes; /* all priorities */
	uint32_t qversion;     /* counts bytes joining or leaving its queues (time series) */
	uint64_t tx_packets, tx_bytes;
	simtime_t busy_time;
	struct pktq ctrl; /* PAUSE frames waiting to go out */
	/* the wire towards the peer, a FIFO: its head is arrive.arg (see
	 * port_wire_head), its last wire_tail (stale once the wire empties) */
	struct pkt *wire_tail;
	/* a timer a line each (the queue reads and writes it); tx_done's
	 * arg is the packet being sent; arrive's obj is the peer and its arg
	 * the wire's head, so an arrival reads no other line of this port
	 * than the timer's; the queue prefetches the arg an event ahead */
	struct evq_timer tx_done __attribute__((aligned(64)));
	struct evq_timer arrive;

	struct port_queue queue[PKT_PRIORITIES];
	struct port_qcount qcount[PKT_PRIORITIES];

	/* PFC on this transmitter */
	uint8_t pfc_obey;   /* priorities whose PAUSE this transmitter obeys */
	uint8_t pfc_ignore; /* obeyed but ignored now (PFC watchdog "forward") */
	simtime_t response; /* reaction time to a received PAUSE */
	struct evq_timer pause_expiry;
	struct port_pfc pfc[PKT_PRIORITIES];
	uint64_t lost_packets, lost_bytes; /* lost on a failed link (no PAUSE) */
} __attribute__((aligned(64)));

void port_init(struct port *p, struct mctx *ctx, uint32_t id, uint64_t rate_bps, simtime_t delay);
/* @p's far end is @peer (one direction: each end is connected to the other). */
void port_connect(struct port *p, struct port *peer);
/* The first packet on @p's wire (the next to reach the peer), or NULL. */
static inline struct pkt *port_wire_head(const struct port *p)
{
	return (struct pkt *)(uintptr_t)p->arrive.arg;
}

/* port_kick's work, once the transmitter is up and not serializing a
 * packet of the tx_done path. */
void port_start(struct port *p);
/* Start transmitting if idle and there is something to send. Inline: a
 * switch kicks the port a packet leaves by, busy more often than not. */
static inline void port_kick(struct port *p)
{
	if (!p->tx_pkt && p->up)
		port_start(p);
}
/*
 * Let @p (whose ops have `waiting` and no `sent`) finish its packets
 * without an event: a packet goes on the wire as it starts, at the time
 * its last bit will leave, and its tx_done is armed only when something
 * waits for the transmitter then (the owner's `waiting`, a PAUSE to send,
 * a kick while it is busy). Its end is counted (tx_packets, tx_bytes,
 * packet hops) when the port is next looked at after it, in the queue's
 * order, or by port_settle: so results are those of a tx_done per packet,
 * with one event a packet fewer when the sender has nothing else to do
 * (a paced DCQCN sender, an ACK). Not for a port of a split fabric.
 */
void port_set_lazy(struct port *p, int lazy);
/*
 * Count @p's lazy packet's end if it came before (@t, @key) in the
 * queue's order: the run's last event, or (@t, UINT64_MAX) when every
 * event up to @t ran. Returns that end (the time its tx_done would have
 * run), or 0 when nothing was counted.
 */
simtime_t port_settle(struct port *p, simtime_t t, uint64_t key);
/* Queue a PFC frame for @prio: @quanta 0 is a RESUME. 0 or -ENOMEM. */
__attribute__((warn_unused_result)) int port_send_pause(struct port *p, uint8_t prio,
							uint16_t quanta);
/* A packet from another part (mctx_part.cross) enters @p's wire, to
 * reach @p's peer at pkt->t. 0 or -ENOMEM. */
__attribute__((warn_unused_result)) int port_wire_in(struct port *p, const struct pkt *pkt);
/*
 * Add what @src, a copy of @dst's port kept by another part of a split
 * fabric, counted to @dst: counters summed, peaks and times the larger,
 * paused priorities joined (a part counts only what it ran, so each event
 * is counted by one part). Queues and timers are @dst's.
 */
void port_absorb(struct port *dst, const struct port *src);
/* Take the link down (both directions): what is on the wire is lost. */
void port_link_down(struct port *p);
/* Bring the link back up (both directions): each end sends what waits. */
void port_link_up(struct port *p);
/*
 * The link renegotiated to @rate_bps (both ends), as a degraded optic
 * does: packets from the next one on serialize at it, PAUSE quanta last
 * 512 bit times of it. A packet being serialized ends at the old rate.
 */
void port_set_rate(struct port *p, uint64_t rate_bps);
/* Payload bytes queued, being serialized, or on the wire (conservation). */
uint64_t port_inflight_payload(const struct port *p);
/* Move every time @p keeps on by @dt: a fast-forward (models/ff.h) set the
 * network aside for that long, and its timers are re-armed that much later. */
void port_shift(struct port *p, simtime_t dt);
/* Time @prio has been paused up to @now, including a pause still running. */
simtime_t port_paused_time(const struct port *p, uint8_t prio, simtime_t now);
/* Stop or restart obeying PAUSE on @prio (PFC watchdog "forward"). */
void port_pfc_ignore(struct port *p, uint8_t prio, int ignore);

/*
 * Time a transmitter at @rate_bps takes to react to a PAUSE: the peer
 * response allowance SONiC's headroom calculation uses, in pause quanta
 * per speed (sonic-swss buffer_headroom_mellanox.lua): 10G 67, 25G 80,
 * 40G 118, 50G 147, 100G 394, 200G 453, 400G and above 905; slower links
 * take the 10G figure.
 */
simtime_t pfc_response_delay(uint64_t rate_bps);
/* Bytes a receiver at @p needs after XOFF for MTU @mtu, rounded up to
 * 1 KiB: see link.c. */
uint64_t pfc_headroom(const struct port *p, uint32_t mtu);
/* The same need, not rounded, for a link of @rate_bps and @delay whose far
 * end reacts in @response (rocesim check uses it before any port exists). */
uint64_t pfc_headroom_need(uint64_t rate_bps, simtime_t delay, simtime_t response, uint32_t mtu);
/* @need rounded up to 1 KiB, as a computed headroom is (UINT64_MAX stays). */
uint64_t pfc_headroom_kib(uint64_t need);
/* Duration of @quanta pause quanta (512 bit times each) at @rate_bps,
 * exact for every quanta and rate (SIMTIME_NEVER beyond 2^64 ps). */
simtime_t pfc_quanta_time(uint32_t quanta, uint64_t rate_bps);

#endif
