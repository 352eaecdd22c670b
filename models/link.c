/*
 * Ports and links: serialization at the link rate, propagation on the wire,
 * delivery to the peer in order, and PFC on the transmitter (see link.h).
 */
#include "models/link.h"

#include <errno.h>

#include "models/mctx.h"

static void on_tx_done(void *obj, uint64_t arg);
static void on_arrive(void *obj, uint64_t arg);
static void on_pause_expiry(void *obj, uint64_t arg);

simtime_t pfc_quanta_time(uint32_t quanta, uint64_t rate_bps)
{
	/* 512 bit times = 64 bytes; exact for every quanta (simtime_tx) */
	return simtime_tx((uint64_t)quanta * 64, rate_bps);
}

simtime_t pfc_response_delay(uint64_t rate_bps)
{
	static const struct {
		uint64_t gbps;
		uint32_t quanta;
	} table[] = {{400, 905}, {200, 453}, {100, 394}, {50, 147}, {40, 118}, {25, 80}, {10, 67}};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (rate_bps >= table[i].gbps * 1000000000ULL)
			return pfc_quanta_time(table[i].quanta, rate_bps);
	return pfc_quanta_time(67, rate_bps);
}

void port_init(struct port *p, struct mctx *ctx, uint32_t id, uint64_t rate_bps, simtime_t delay)
{
	p->ctx = ctx;
	p->id = id;
	p->rate_bps = rate_bps;
	p->delay = delay;
	p->up = 1;
	p->response = pfc_response_delay(rate_bps);
	evq_timer_init(&p->tx_done, on_tx_done, p, mctx_port_key(id, MCTX_PT_TX_DONE));
	evq_timer_init(&p->arrive, on_arrive, p, mctx_port_key(id, MCTX_PT_ARRIVE));
	evq_timer_init(&p->pause_expiry, on_pause_expiry, p,
		       mctx_port_key(id, MCTX_PT_PAUSE_EXPIRY));
}

void port_connect(struct port *p, struct port *peer)
{
	p->peer = peer;
	p->arrive.obj = peer; /* on_arrive works on the receiving end */
}

/* Count the end of @p's lazy packet (its tx_done's counting). */
static void tx_settle(struct port *p)
{
	struct mctx *c = p->ctx;

	p->tx_packets++;
	p->tx_bytes += p->tx_frame;
	c->tot.packet_hops++;
	c->tot.data_hops += (p->tx_open & PORT_TX_DATA) != 0;
	p->tx_open = 0;
}

/* Whether @p's lazy packet ended before (@t, @key) in the queue's order:
 * its tx_done, at (tx_end, its key), would have run before. */
static int ends_before(const struct port *p, simtime_t t, uint64_t key)
{
	return p->tx_end < t || (p->tx_end == t && p->tx_done.key < key);
}

/* ... before the event running now. */
static int tx_ended(const struct port *p)
{
	return ends_before(p, evq_now(p->ctx->q), evq_key_now(p->ctx->q));
}

/* Whether anything waits for lazy port @p's transmitter: a PAUSE to
 * send, or what its owner says (port_ops.waiting). */
static int tx_awaited(const struct port *p)
{
	return p->ctrl.head || p->ops->waiting(p);
}

static void wire_push(struct port *p, struct pkt *pkt);

/* Make lazy port @p's packet end an event if something waits for it. */
static void wait_end(struct port *p)
{
	if (tx_awaited(p) && !evq_pending(p->ctx->q, &p->tx_done))
		mctx_arm(p->ctx, &p->tx_done, p->tx_end);
}

/* @pkt starts on lazy port @p, taking @t, and nothing waits for its end:
 * onto the wire at once (a link delivers in order, so its arrival is
 * known), its end counted later. When something does wait, a packet
 * takes the tx_done path of every port (its arrival armed in key order
 * there, which spares the queue a sort). */
static void start_lazy(struct port *p, struct pkt *pkt, simtime_t t)
{
	p->tx_end = evq_now(p->ctx->q) + t;
	p->tx_frame = pkt->frame;
	p->tx_open = (uint8_t)(PORT_TX_OPEN | (pkt->kind == PKT_DATA ? PORT_TX_DATA : 0));
	pkt->t = p->tx_end + p->delay;
	wire_push(p, pkt);
}

/* The next packet for @p, a PAUSE first; its serialization time in @t. */
static inline __attribute__((always_inline)) struct pkt *take_next(struct port *p, simtime_t *t)
{
	struct pkt *pkt = pktq_pop(&p->ctrl);

	if (!pkt)
		pkt = p->ops->next(p);
	if (pkt) {
		*t = simtime_tx(pkt_wire_bytes(pkt), p->rate_bps);
		p->busy_time += *t;
	}
	return pkt;
}

/* The tx_done path: @pkt's end, after @t, is an event. */
static inline __attribute__((always_inline)) void start_timed(struct port *p, struct pkt *pkt,
							      simtime_t t)
{
	p->tx_pkt = pkt;
	p->tx_done.arg = (uint64_t)(uintptr_t)pkt; /* for the queue to prefetch (evq_timer.h) */
	mctx_arm(p->ctx, &p->tx_done, evq_now(p->ctx->q) + t);
}

/* port_start for a lazy port (port_set_lazy). */
static __attribute__((noinline)) void start_lazy_port(struct port *p)
{
	struct pkt *pkt;
	simtime_t t;

	if (p->tx_open) {
		if (!tx_ended(p)) {
			wait_end(p); /* busy: what waits goes at its end */
			return;
		}
		tx_settle(p);
	}
	if (!(pkt = take_next(p, &t)))
		return;
	if (!tx_awaited(p))
		start_lazy(p, pkt, t); /* nothing waits for its end */
	else
		start_timed(p, pkt, t);
}

void port_start(struct port *p)
{
	struct pkt *pkt;
	simtime_t t;

	if (p->lazy)
		start_lazy_port(p);
	else if ((pkt = take_next(p, &t)))
		start_timed(p, pkt, t);
}

void port_set_lazy(struct port *p, int lazy)
{
	p->lazy = lazy && p->ops->waiting && !p->ops->sent;
}

simtime_t port_settle(struct port *p, simtime_t t, uint64_t key)
{
	if (!p->tx_open || !ends_before(p, t, key))
		return 0;
	tx_settle(p);
	return p->tx_end;
}

int port_send_pause(struct port *p, uint8_t prio, uint16_t quanta)
{
	struct pkt *pkt = pkt_alloc(&p->ctx->pool);

	if (!pkt)
		return -ENOMEM;
	pkt->kind = PKT_PAUSE;
	pkt->prio = prio;
	pkt->psn = quanta;
	pkt->payload = 0;
	pkt->frame = PKT_PAUSE_FRAME_BYTES;
	pkt->flow = UINT32_MAX;
	pkt->acct = PKT_ACCT_NONE;
	if (quanta)
		p->pfc[prio].tx_pause++;
	else
		p->pfc[prio].tx_resume++;
	pktq_push(&p->ctrl, pkt);
	port_kick(p);
	return 0;
}

static void lose(struct port *p, struct pkt *pkt)
{
	struct mctx *c = p->ctx;

	/* counted as summary.drops counts them: PAUSE frames are no flow's */
	if (pkt->kind != PKT_PAUSE) {
		p->lost_packets++;
		p->lost_bytes += pkt->frame;
		c->tot.dropped_packets++;
		c->tot.dropped_bytes += pkt->payload;
	}
	pkt_free(&c->pool, pkt);
}

/*
 * @pkt, whose pkt->t is its arrival, goes on @p's wire. The arrival is
 * kept by the packet ahead of it on the wire (read when that one arrives,
 * from a cache line the arrival reads anyway), or by the link's timer when
 * the wire is empty: arriving never reads the next packet, which on a
 * large fabric is a cache miss per hop.
 */
static void wire_push(struct port *p, struct pkt *pkt)
{
	pkt->next = NULL;
	if (!port_wire_head(p)) {
		p->arrive.arg = (uint64_t)(uintptr_t)pkt;
		mctx_arm(p->ctx, &p->arrive, pkt->t);
	} else {
		p->wire_tail->t = pkt->t;
		p->wire_tail->next = pkt;
	}
	p->wire_tail = pkt;
}

/* Take the wire's head off (it arrived, or is lost). */
static struct pkt *wire_pop(struct port *p)
{
	struct pkt *pkt = port_wire_head(p);

	if (pkt)
		p->arrive.arg = (uint64_t)(uintptr_t)pkt->next;
	return pkt;
}

/* The last bit left: the packet propagates; the transmitter takes the next. */
static void on_tx_done(void *obj, uint64_t arg)
{
	struct port *p = obj;
	struct pkt *pkt = p->tx_pkt;
	struct mctx *c = p->ctx;

	(void)arg;
	if (!pkt) {
		/* a lazy port's packet: something waits for its end */
		tx_settle(p);
		port_kick(p);
		return;
	}
	p->tx_pkt = NULL;
	if (pkt->kind != PKT_PAUSE && p->ops->sent)
		p->ops->sent(p, pkt); /* the buffer it held is free either way */
	if (!p->up) {
		lose(p, pkt);
		return;
	}
	p->tx_packets++;
	p->tx_bytes += pkt->frame;
	c->tot.packet_hops++;
	c->tot.data_hops += pkt->kind == PKT_DATA;
	pkt->t = evq_now(c->q) + p->delay;
	if (p->remote) {
		/* the far end's part puts it on its copy of this wire */
		c->part->cross(c->part->ctx, p, pkt);
		pkt_free(&c->pool, pkt);
	} else {
		wire_push(p, pkt);
	}
	port_kick(p);
}

int port_wire_in(struct port *p, const struct pkt *in)
{
	struct pkt *pkt = pkt_alloc(&p->ctx->pool);

	if (!pkt)
		return -ENOMEM;
	*pkt = *in;
	if (!p->up)
		lose(p, pkt); /* it was on the wire when the link went down */
	else
		wire_push(p, pkt);
	return 0;
}

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

void port_absorb(struct port *dst, const struct port *src)
{
	dst->rx_packets += src->rx_packets;
	dst->rx_bytes += src->rx_bytes;
	dst->paused |= src->paused;
	dst->queued_bytes += src->queued_bytes;
	dst->qversion += src->qversion;
	dst->tx_packets += src->tx_packets;
	dst->tx_bytes += src->tx_bytes;
	dst->busy_time += src->busy_time;
	dst->lost_packets += src->lost_packets;
	dst->lost_bytes += src->lost_bytes;
	for (int i = 0; i < PKT_PRIORITIES; i++) {
		struct port_queue *q = &dst->queue[i];
		const struct port_queue *s = &src->queue[i];
		struct port_qcount *qc = &dst->qcount[i];
		const struct port_qcount *sc = &src->qcount[i];
		struct port_pfc *f = &dst->pfc[i];
		const struct port_pfc *g = &src->pfc[i];

		q->bytes += s->bytes;
		q->max_bytes = max64(q->max_bytes, s->max_bytes);
		qc->drops += sc->drops;
		qc->drop_bytes += sc->drop_bytes;
		q->tx_packets += s->tx_packets;
		q->tx_bytes += s->tx_bytes;
		qc->ecn_marked += sc->ecn_marked;
		q->last_dequeue = max64(q->last_dequeue, s->last_dequeue);
		f->tx_pause += g->tx_pause;
		f->tx_resume += g->tx_resume;
		f->rx_pause += g->rx_pause;
		f->rx_resume += g->rx_resume;
		f->paused_time += g->paused_time;
		f->paused_until = max64(f->paused_until, g->paused_until);
		f->paused_since = max64(f->paused_since, g->paused_since);
	}
}

/*
 * Make sure the expiry timer fires by the earliest pause end. Lazy: a
 * refreshed pause only moves its end later, and the timer, firing early,
 * finds nothing expired and re-arms; so a refresh costs no heap operation.
 */
static void arm_expiry(struct port *p)
{
	simtime_t first = SIMTIME_NEVER;

	for (int prio = 0; prio < PKT_PRIORITIES; prio++)
		if ((p->paused & (1u << prio)) && p->pfc[prio].paused_until < first)
			first = p->pfc[prio].paused_until;
	if (first == SIMTIME_NEVER)
		evq_cancel(p->ctx->q, &p->pause_expiry);
	else if (!evq_pending(p->ctx->q, &p->pause_expiry) || p->pause_expiry.when > first)
		mctx_arm(p->ctx, &p->pause_expiry, first);
}

static void unpause(struct port *p, uint8_t prio, simtime_t now)
{
	struct port_pfc *c = &p->pfc[prio];

	p->paused &= (uint8_t) ~(1u << prio);
	c->paused_time += now - c->paused_since;
	mctx_pfc_event(p->ctx, p->id, prio, PFC_EV_UNPAUSED);
}

static void on_pause_expiry(void *obj, uint64_t arg)
{
	struct port *p = obj;
	simtime_t now = evq_now(p->ctx->q);

	(void)arg;
	for (uint8_t prio = 0; prio < PKT_PRIORITIES; prio++)
		if ((p->paused & (1u << prio)) && p->pfc[prio].paused_until <= now)
			unpause(p, prio, now);
	arm_expiry(p);
	port_kick(p);
}

/* A PAUSE received at @p takes effect now (after the response delay). */
static void on_pause_apply(void *obj, uint64_t arg)
{
	struct port *p = obj;
	uint8_t prio = (uint8_t)(arg >> 32);
	uint32_t quanta = (uint32_t)arg;
	simtime_t now = evq_now(p->ctx->q);
	struct port_pfc *c = &p->pfc[prio];

	if (!(p->pfc_obey & (1u << prio)) || (p->pfc_ignore & (1u << prio)) || !p->up)
		return;
	if (!quanta) {
		if (p->paused & (1u << prio))
			unpause(p, prio, now);
		arm_expiry(p);
		port_kick(p);
		return;
	}
	c->paused_until = ck_add_sat(now, pfc_quanta_time(quanta, p->rate_bps));
	if (!(p->paused & (1u << prio))) {
		p->paused |= (uint8_t)(1u << prio);
		c->paused_since = now;
		mctx_pfc_event(p->ctx, p->id, prio, PFC_EV_PAUSED);
	}
	arm_expiry(p);
}

static void pause_rx(struct port *p, struct pkt *pkt)
{
	uint8_t prio = pkt->prio;
	uint32_t quanta = pkt->psn;

	if (quanta)
		p->pfc[prio].rx_pause++;
	else
		p->pfc[prio].rx_resume++;
	mctx_pfc_event(p->ctx, p->id, prio, quanta ? PFC_EV_RX_PAUSE : PFC_EV_RX_RESUME);
	if (p->ops->pause_rx)
		p->ops->pause_rx(p, prio, quanta);
	if (!evq_post(p->ctx->q, evq_now(p->ctx->q) + p->response, on_pause_apply, p,
		      ((uint64_t)prio << 32) | quanta, mctx_port_key(p->id, MCTX_PT_PAUSE_APPLY)))
		mctx_fail(p->ctx, -ENOMEM);
	pkt_free(&p->ctx->pool, pkt);
}

/*
 * The head of the wire reached the peer. The timer is the sending end's,
 * its obj the receiving end (port_connect) and its arg the head: what an
 * arrival reads is the timer, the packet (which the queue prefetched) and
 * the receiving port, and no line of the sender's but the timer's.
 */
static void on_arrive(void *obj, uint64_t arg)
{
	struct port *peer = obj;
	struct port *p = peer->peer;
	struct pkt *pkt = wire_pop(p); /* arg: the queue prefetched it */

	(void)arg;
	if (pkt->next) /* the next one's arrival (wire_push); both ends share ctx */
		mctx_arm(peer->ctx, &p->arrive, pkt->t);
	peer->rx_packets++;
	peer->rx_bytes += pkt->frame;
	if (pkt->kind == PKT_PAUSE)
		pause_rx(peer, pkt);
	else
		peer->ops->rx(peer, pkt);
}

static void down_one(struct port *p)
{
	struct pkt *pkt, *sending = NULL;

	p->up = 0;
	evq_cancel(p->ctx->q, &p->arrive);
	if (p->tx_open && tx_ended(p)) {
		tx_settle(p); /* it left: lost on the wire below */
	} else if (p->tx_open) {
		/* a lazy port's packet still being serialized is the wire's
		 * last: it is lost at its end, as any port's */
		sending = p->wire_tail;
		p->tx_open = 0;
		p->tx_pkt = sending;
		p->tx_done.arg = (uint64_t)(uintptr_t)sending;
		mctx_arm(p->ctx, &p->tx_done, p->tx_end);
	}
	while ((pkt = wire_pop(p)))
		if (pkt != sending)
			lose(p, pkt);
	while ((pkt = pktq_pop(&p->ctrl)))
		lose(p, pkt);
	/* a packet being serialized is lost when its tx_done fires */
}

void port_link_down(struct port *p)
{
	down_one(p);
	down_one(p->peer);
}

void port_link_up(struct port *p)
{
	p->up = 1;
	p->peer->up = 1;
	port_kick(p);
	port_kick(p->peer);
}

void port_set_rate(struct port *p, uint64_t rate_bps)
{
	p->rate_bps = rate_bps;
	p->peer->rate_bps = rate_bps;
	p->response = pfc_response_delay(rate_bps);
	p->peer->response = p->response;
}

uint64_t port_inflight_payload(const struct port *p)
{
	uint64_t b = p->tx_pkt ? p->tx_pkt->payload : 0;

	for (const struct pkt *k = port_wire_head(p); k; k = k->next)
		b += k->payload;
	for (int i = 0; i < PKT_PRIORITIES; i++)
		for (const struct pkt *k = p->queue[i].q.head; k; k = k->next)
			b += k->payload;
	return b;
}

void port_shift(struct port *p, simtime_t dt)
{
	p->tx_end += dt;
	for (uint8_t prio = 0; prio < PKT_PRIORITIES; prio++) {
		p->queue[prio].last_dequeue += dt;
		if (p->paused & (1u << prio)) {
			p->pfc[prio].paused_until = ck_add_sat(p->pfc[prio].paused_until, dt);
			p->pfc[prio].paused_since += dt;
		}
	}
}

simtime_t port_paused_time(const struct port *p, uint8_t prio, simtime_t now)
{
	const struct port_pfc *c = &p->pfc[prio];

	return c->paused_time + ((p->paused & (1u << prio)) ? now - c->paused_since : 0);
}

void port_pfc_ignore(struct port *p, uint8_t prio, int ignore)
{
	if (ignore) {
		p->pfc_ignore |= (uint8_t)(1u << prio);
		if (p->paused & (1u << prio))
			unpause(p, prio, evq_now(p->ctx->q));
		arm_expiry(p);
		port_kick(p);
	} else {
		p->pfc_ignore &= (uint8_t) ~(1u << prio);
	}
}

/*
 * What can still arrive at @p after it asks its peer to pause: the
 * crossing packet, one frame @p may be sending when the PAUSE is queued (a
 * PAUSE cannot preempt it), one the peer is serializing when the PAUSE
 * takes effect (3 frames of MTU), the PAUSE frame itself, the peer's
 * response time at line rate, and two propagation delays (the PAUSE going
 * up, the data already on the wire coming down). SONiC's headroom
 * calculation (sonic-swss buffer_headroom_mellanox.lua, with Cisco's
 * own-frame term) without the gearbox, PHY and cell-occupancy terms.
 * The wire term is taken in 128 bits: in 64 it wraps on long or fast
 * links (400G over 40 km); a need beyond 2^64 B is UINT64_MAX, more than
 * any buffer.
 */
uint64_t pfc_headroom_need(uint64_t rate_bps, simtime_t delay, simtime_t response, uint32_t mtu)
{
	uint64_t frames = 3 * ((uint64_t)mtu + PKT_HEADER_BYTES + PKT_PREAMBLE_IFG_BYTES) +
			  PKT_PAUSE_FRAME_BYTES + PKT_PREAMBLE_IFG_BYTES;
	ck_u128 wire = ((ck_u128)delay * 2 + response) * (rate_bps / 8) / SIMTIME_S;

	return wire > UINT64_MAX - frames ? UINT64_MAX : frames + (uint64_t)wire;
}

uint64_t pfc_headroom_kib(uint64_t need)
{
	return need > UINT64_MAX - 1023 ? UINT64_MAX : (need + 1023) / 1024 * 1024;
}

uint64_t pfc_headroom(const struct port *p, uint32_t mtu)
{
	return pfc_headroom_kib(pfc_headroom_need(p->rate_bps, p->delay, p->peer->response, mtu));
}
