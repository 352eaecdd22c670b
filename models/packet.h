/*
 * Packets: small structs (no payload bytes) recycled through a free list.
 * Sizes: `payload` is the RDMA payload; `frame` adds the RoCEv2 headers
 * (Eth 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 = 62 B) and is what a
 * switch buffer holds; `wire` adds preamble and inter-frame gap (20 B) and
 * is what the link serializes.
 */
#ifndef ROCESIM_PACKET_H
#define ROCESIM_PACKET_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine/mem.h"
#include "sim/engine/simtime.h"

#define PKT_HEADER_BYTES 62
#define PKT_PREAMBLE_IFG_BYTES 20
#define PKT_PRIORITIES 8
/* An 802.1Qbb PFC frame: 64 bytes (with pad and FCS) on the wire plus 20. */
#define PKT_PAUSE_FRAME_BYTES 64

/* RoCEv2 ACK/NAK: headers + AETH 4; CNP: headers + 16 reserved bytes. */
#define PKT_ACK_FRAME_BYTES (PKT_HEADER_BYTES + 4)
#define PKT_CNP_FRAME_BYTES (PKT_HEADER_BYTES + 16)

enum pkt_kind { PKT_DATA, PKT_PAUSE, PKT_ACK, PKT_NAK, PKT_CNP };

/* ECN field of the IP header. */
enum pkt_ecn { PKT_NOT_ECT = 0, PKT_ECT = 2, PKT_CE = 3 };

/* Where a switch charged a packet's bytes, so that it releases them there. */
enum pkt_acct { PKT_ACCT_NONE, PKT_ACCT_MIN, PKT_ACCT_SHARED, PKT_ACCT_HEADROOM };

struct pkt {
	struct pkt *next; /* queue or free-list link */
	simtime_t t;	  /* on a link: when the last bit of the packet behind it
			   * reaches the far end (its own arrival until one follows) */
	uint32_t flow;
	uint32_t psn;	   /* data: its PSN; ACK/NAK: the next PSN expected;
			    * PAUSE: quanta */
	uint32_t src, dst; /* host indices */
	uint32_t hash;	   /* ECMP hash of the flow */
	uint16_t payload;
	uint16_t frame;
	uint16_t in_port; /* local ingress port at the switch holding it */
	uint8_t prio;	  /* 802.1p priority; at a switch, the traffic class */
	uint8_t kind;
	uint8_t dscp;
	uint8_t ecn;
	uint8_t acct;		/* enum pkt_acct */
	uint8_t last;		/* data: the last of its message (RoCE's opcode *_LAST
				 * or *_ONLY), what the responder completes it by */
} __attribute__((aligned(64))); /* one cache line: at 48 bytes, half straddled two */

/* A FIFO of packets linked through `next`. */
struct pktq {
	struct pkt *head, *tail;
	uint32_t len;
};

static inline void pktq_push(struct pktq *q, struct pkt *p)
{
	p->next = NULL;
	if (q->tail)
		q->tail->next = p;
	else
		q->head = p;
	q->tail = p;
	q->len++;
}

/*
 * Pop the head. The new head is prefetched: a queued packet was last
 * touched when it was queued, long ago in a deep queue, and is read next
 * when it leaves; fetching it now hides that cache miss.
 */
static inline struct pkt *pktq_pop(struct pktq *q)
{
	struct pkt *p = q->head;

	if (p) {
		q->head = p->next;
		if (!q->head)
			q->tail = NULL;
		else
			__builtin_prefetch(q->head);
		q->len--;
	}
	return p;
}

static inline uint32_t pkt_wire_bytes(const struct pkt *p)
{
	return (uint32_t)p->frame + PKT_PREAMBLE_IFG_BYTES;
}

struct pkt_pool {
	struct pkt *free;
	struct mem_arena mem; /* the chunks */
	uint64_t cap;	      /* packets in them */
	uint64_t live, peak;
};

__attribute__((warn_unused_result)) struct pkt *pkt_alloc(struct pkt_pool *pool);
static inline void pkt_free(struct pkt_pool *pool, struct pkt *p)
{
	p->next = pool->free;
	pool->free = p;
	pool->live--;
}
void pkt_pool_destroy(struct pkt_pool *pool);

#endif
