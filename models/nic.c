/*
 * NIC: RC requester and responder, DCQCN reaction and notification points,
 * and the port scheduler that puts ACK/NAK/CNP ahead of paced data (see
 * nic.h).
 */
#include "models/nic.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "models/link.h"
#include "models/mctx.h"
#include "models/nic_impl.h"

/* The message holding @psn; f->tx_msg is a cursor that usually hits. */
static const struct qp_msg *msg_of(struct flow *f, uint32_t psn)
{
	const struct qp_msg *m = &f->msgs[f->tx_msg];
	uint32_t lo = 0, hi = f->n_msgs;

	if (psn >= m->first_psn && psn < m->first_psn + m->n_psn)
		return m;
	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) / 2;

		if (f->msgs[mid].first_psn <= psn)
			lo = mid;
		else
			hi = mid;
	}
	f->tx_msg = lo;
	return &f->msgs[lo];
}

/*
 * The payload of @psn, and in *@last whether it ends its message. A packet
 * before the last of the message last read takes the MTU without reading
 * the message again (the messages are a cache miss on a large fabric).
 */
static uint32_t payload_of(const struct nic *n, struct flow *f, uint32_t psn, uint8_t *last)
{
	const struct qp_msg *m;

	*last = 0;
	if (psn >= f->tx_first && psn + 1 < f->tx_end)
		return n->mtu;
	m = msg_of(f, psn);
	f->tx_first = m->first_psn;
	f->tx_end = m->first_psn + m->n_psn;
	if (psn + 1 < f->tx_end)
		return n->mtu;
	*last = 1;
	return (uint32_t)(m->bytes - (uint64_t)(m->n_psn - 1) * n->mtu);
}

/* ---- the ring of QPs with something to send ------------------------------------ */

/* ---- QPs held back by their pacing rate: a min-heap on when they may send ---- */

static void wait_place(struct nic *n, uint32_t i, struct flow *f)
{
	n->wait[i] = f;
	f->wait_slot = i + 1;
}

static void wait_up(struct nic *n, uint32_t i, struct flow *f)
{
	while (i > 0 && n->wait[(i - 1) / 2]->wait_key > f->wait_key) {
		wait_place(n, i, n->wait[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	wait_place(n, i, f);
}

static void wait_down(struct nic *n, uint32_t i, struct flow *f)
{
	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= n->n_wait)
			break;
		if (c + 1 < n->n_wait && n->wait[c + 1]->wait_key < n->wait[c]->wait_key)
			c++;
		if (n->wait[c]->wait_key >= f->wait_key)
			break;
		wait_place(n, i, n->wait[c]);
		i = c;
	}
	wait_place(n, i, f);
}

static int wait_push(struct nic *n, struct flow *f, simtime_t key)
{
	if (n->n_wait == n->cap_wait) {
		uint32_t cap = n->cap_wait ? 2 * n->cap_wait : 16;
		struct flow **w = realloc(n->wait, cap * sizeof(*w));

		if (!w)
			return -ENOMEM;
		n->wait = w;
		n->cap_wait = cap;
	}
	f->wait_key = key;
	wait_up(n, n->n_wait++, f);
	return 0;
}

static struct flow *wait_pop(struct nic *n)
{
	struct flow *top = n->wait[0], *last = n->wait[--n->n_wait];

	top->wait_slot = 0;
	if (n->n_wait)
		wait_down(n, 0, last);
	return top;
}

static void arm_pace(struct nic *n)
{
	simtime_t first;

	if (!n->n_wait)
		return;
	first = n->wait[0]->wait_key;
	if (first < evq_now(n->ctx->q))
		first = evq_now(n->ctx->q); /* a rate that rose made it due already */
	if (!evq_pending(n->ctx->q, &n->pace) || n->pace.when > first)
		mctx_arm(n->ctx, &n->pace, first);
}

static void ring_add(struct nic *n, struct flow *f)
{
	struct nic_ring *r;

	if (f->in_ring || f->wait_slot)
		return; /* already sending, or back when its pacing allows */
	r = nic__ring_of(n, f);
	f->in_ring = 1;
	r->len++;
	if (!r->cur) {
		f->next_active = f;
		r->cur = r->prev = f;
	} else {
		/* join at the back: just before cur */
		f->next_active = r->cur;
		r->prev->next_active = f;
		r->prev = f;
	}
	port_kick(n->port);
}

/* Take r->cur out of the ring; the next QP becomes current. */
static void ring_remove_cur(struct nic_ring *r)
{
	struct flow *f = r->cur;

	f->in_ring = 0;
	r->len--;
	if (f->next_active == f) {
		r->cur = r->prev = NULL;
	} else {
		r->prev->next_active = f->next_active;
		r->cur = f->next_active;
	}
	f->next_active = NULL;
}

/* Take @f out of its ring, wherever it is in it (a fast-forward that
 * delivered all posted on it: models/nic_ff.c). */
void nic__ring_remove(struct nic *n, struct flow *f)
{
	struct nic_ring *r = nic__ring_of(n, f);
	struct flow *p = r->prev;

	if (!f->in_ring)
		return;
	while (p->next_active != f)
		p = p->next_active;
	r->prev = p;
	if (r->cur != f) {
		/* make it current: the ring's order after it is kept */
		p->next_active = f->next_active;
		f->in_ring = 0;
		r->len--;
		f->next_active = NULL;
		return;
	}
	ring_remove_cur(r);
}

/* ---- control packets --------------------------------------------------------------- */

static void send_ctrl(struct nic *n, const struct flow *f, enum pkt_kind kind, uint32_t psn)
{
	struct pkt *pkt = pkt_alloc(&n->ctx->pool);

	if (!pkt) {
		mctx_fail(n->ctx, -ENOMEM);
		return;
	}
	pkt->kind = (uint8_t)kind;
	pkt->flow = f->id;
	pkt->psn = psn;
	pkt->src = n->host;
	pkt->dst = n->host == f->src ? f->dst : f->src;
	pkt->hash = f->hash;
	pkt->payload = 0;
	pkt->ecn = PKT_NOT_ECT;
	pkt->acct = PKT_ACCT_NONE;
	if (kind == PKT_CNP) {
		pkt->frame = PKT_CNP_FRAME_BYTES;
		pkt->dscp = (uint8_t)n->prm->dcqcn.np_cnp_dscp;
		/* np_cnp_prio_mode 1: the priority of the data it answers (Linux
		 * mlx5 cong.c, cnp_prio_mode) */
		pkt->prio =
		    n->prm->dcqcn.np_cnp_prio_mode ? f->prio : (uint8_t)n->prm->dcqcn.np_cnp_prio;
	} else {
		pkt->frame = PKT_ACK_FRAME_BYTES;
		pkt->dscp = f->dscp;
		pkt->prio = f->prio;
	}
	pktq_push(&n->ctrl, pkt);
	port_kick(n->port);
}

/* The first control packet whose priority is not paused, or NULL. */
static struct pkt *take_ctrl(struct nic *n, uint8_t paused)
{
	struct pkt *pkt = n->ctrl.head, *before = NULL;

	while (pkt && (paused & (1u << pkt->prio))) {
		before = pkt;
		pkt = pkt->next;
	}
	if (!pkt)
		return NULL;
	if (before)
		before->next = pkt->next;
	else
		n->ctrl.head = pkt->next;
	if (n->ctrl.tail == pkt)
		n->ctrl.tail = before;
	n->ctrl.len--;
	return pkt;
}

/* ---- DCQCN timers ------------------------------------------------------------------- */

static void sync_increase_timer(struct flow *f)
{
	struct evq *q = f->nic->ctx->q;

	if (f->rp.next_increase == SIMTIME_NEVER)
		evq_cancel(q, &f->inc_timer);
	else if (f->inc_armed != f->rp.next_increase)
		mctx_arm(f->nic->ctx, &f->inc_timer, f->rp.next_increase);
	f->inc_armed = f->rp.next_increase;
}

static void on_cut(void *obj, uint64_t arg)
{
	struct flow *f = obj;

	(void)arg;
	dcqcn_rp_cut(&f->rp, evq_now(f->nic->ctx->q));
	sync_increase_timer(f);
}

static void rate_rose(struct nic *n, struct flow *f);

static void on_increase(void *obj, uint64_t arg)
{
	struct flow *f = obj;

	(void)arg;
	f->inc_armed = SIMTIME_NEVER; /* it fired */
	dcqcn_rp_timer(&f->rp, evq_now(f->nic->ctx->q));
	sync_increase_timer(f);
	rate_rose(f->nic, f);
}

/* ---- requester --------------------------------------------------------------------------- */

static void ring_add(struct nic *n, struct flow *f);

void nic__on_pace(void *obj, uint64_t arg)
{
	struct nic *n = obj;
	simtime_t now = evq_now(n->ctx->q);

	(void)arg;
	while (n->n_wait && n->wait[0]->wait_key <= now) {
		struct flow *f = wait_pop(n);

		if (f->snd_nxt < f->n_psn)
			ring_add(n, f);
	}
	arm_pace(n);
	port_kick(n->port);
}

void nic__go_back(struct nic *n, struct flow *f, uint32_t psn)
{
	f->snd_nxt = psn;
	if (f->snd_nxt < f->n_psn)
		ring_add(n, f);
}

/*
 * Push @f's retransmission deadline out: progress (or a first packet). One
 * timer per NIC serves all its QPs, lazily: it waits for the earliest
 * deadline it knew of and, firing, looks at every QP (deadlines only move
 * later, on progress). So an ACK costs a store, and the event queue holds
 * one entry per NIC, not one per QP (an All-to-All of 1024 ranks has a
 * million QPs). With adaptive retransmission a deadline after progress
 * (the short first timeout) may come before one a QP backed off to: the
 * timer then moves earlier.
 */
static void arm_rto(struct nic *n, struct flow *f)
{
	struct evq *q = n->ctx->q;
	const struct nic_params *prm = n->prm;

	f->rto_at = evq_now(q) + (prm->rto_first ? prm->rto_first : prm->timeout);
	if (!evq_pending(q, &n->rto) || n->rto.when > f->rto_at)
		mctx_arm(n->ctx, &n->rto, f->rto_at);
}

void nic__ring_unlink(struct nic *n, struct flow *f)
{
	struct nic_ring *r = nic__ring_of(n, f);
	struct flow *prev = r->prev;

	if (!f->in_ring)
		return;
	while (prev->next_active != f)
		prev = prev->next_active;
	if (f == r->cur) {
		ring_remove_cur(r);
		return;
	}
	prev->next_active = f->next_active;
	if (f == r->prev)
		r->prev = prev;
	f->in_ring = 0;
	r->len--;
	f->next_active = NULL;
}

/*
 * When @f may send again: its last packet's wire time at the QP's current
 * rate after that packet started. Computed when asked, so that a rate
 * that rises (DCQCN increase) takes effect at once, as in a NIC's rate
 * limiter; a QP at line rate is never held back (the port paces it).
 */
static simtime_t next_tx(const struct nic *n, const struct flow *f)
{
	uint64_t rate;

	if (!n->dcqcn || !f->last_wire)
		return 0;
	rate = dcqcn_rp_rate(&f->rp);
	if (rate >= n->rate_bps)
		return 0;
	return f->last_tx + simtime_tx(f->last_wire, rate);
}

/* @f's rate went up: a QP held back by pacing may be free earlier. */
static void rate_rose(struct nic *n, struct flow *f)
{
	if (f->wait_slot) {
		simtime_t t = next_tx(n, f);

		if (t < f->wait_key) {
			f->wait_key = t;
			wait_up(n, f->wait_slot - 1, f);
			arm_pace(n);
		}
	}
	if (f->in_ring)
		port_kick(n->port); /* nothing, if it is sending */
}

/* Build the next data packet of @f (its snd_nxt). */
static struct pkt *data_packet(struct nic *n, struct flow *f, simtime_t now)
{
	struct pkt *pkt = pkt_alloc(&n->ctx->pool);

	if (!pkt) {
		mctx_fail(n->ctx, -ENOMEM);
		return NULL;
	}
	pkt->kind = PKT_DATA;
	pkt->payload = (uint16_t)payload_of(n, f, f->snd_nxt, &pkt->last);
	pkt->frame = (uint16_t)(pkt->payload + PKT_HEADER_BYTES);
	pkt->flow = f->id;
	pkt->psn = f->snd_nxt;
	pkt->src = f->src;
	pkt->dst = f->dst;
	pkt->hash = f->hash;
	pkt->prio = f->prio;
	pkt->dscp = f->dscp;
	pkt->ecn = n->ecn;
	pkt->acct = PKT_ACCT_NONE;
	if (f->snd_nxt < f->snd_max) {
		n->c.retransmitted_packets++;
		n->c.retransmitted_bytes += pkt->payload;
		n->ctx->tot.retransmitted_packets++;
	} else {
		f->sent += pkt->payload;
		f->snd_max = f->snd_nxt + 1;
	}
	f->snd_nxt++;
	n->ctx->tot.sent_bytes += pkt->payload;
	n->ctx->tot.sent_packets++;
	n->c.tx_packets_phy++;
	n->c.tx_bytes_phy += pkt->frame;
	if (n->dcqcn) {
		dcqcn_rp_sent(&f->rp, pkt->frame, now);
		if (f->rp.next_increase != f->inc_armed)
			sync_increase_timer(f);
	}
	f->last_tx = now;
	f->last_wire = pkt_wire_bytes(pkt);
	if (!f->rto_at)
		arm_rto(n, f);
	return pkt;
}

/*
 * The next QP of ring @r that may send, and its packet. QPs whose rate
 * holds them back leave the ring for the wait heap and come back when
 * their time comes (nic__on_pace), so the ring holds only QPs that may send now
 * or wait for PFC: a NIC with a thousand rate-limited QPs does O(log n)
 * per packet, not O(n).
 */
static inline __attribute__((always_inline)) struct pkt *
ring_take(struct nic *n, struct nic_ring *r, uint8_t paused, simtime_t now)
{
	uint32_t skipped = 0;
	struct pkt *pkt;
	struct flow *f;

	while (r->cur) {
		simtime_t t;

		f = r->cur;
		t = next_tx(n, f);
		if (t > now) {
			/* held back by its rate: wait aside, off the ring */
			ring_remove_cur(r);
			mctx_fail(n->ctx, wait_push(n, f, t));
			continue;
		}
		if (paused & (1u << f->prio)) {
			/* paused QPs stay in the ring; try the next one once round */
			if (++skipped > r->len)
				break;
			r->prev = f;
			r->cur = f->next_active;
			continue;
		}
		pkt = data_packet(n, f, now);
		if (f->snd_nxt >= f->n_psn) {
			ring_remove_cur(r);
		} else if ((t = next_tx(n, f)) > now) {
			ring_remove_cur(r);
			mctx_fail(n->ctx, wait_push(n, f, t));
		} else {
			r->prev = f;
			r->cur = f->next_active;
		}
		arm_pace(n);
		return pkt;
	}
	arm_pace(n);
	return NULL;
}

/* ring_take for the classes (nic_tc.h), which know the rings, not the NIC. */
static struct pkt *ring_take_tc(void *nic, struct nic_ring *r, uint8_t paused, simtime_t now)
{
	return ring_take(nic, r, paused, now);
}

/* The first control packet that may go, counted as sent, or NULL. */
static inline __attribute__((always_inline)) struct pkt *ctrl_next(struct nic *n, uint8_t paused)
{
	struct pkt *pkt = n->ctrl.head ? take_ctrl(n, paused) : NULL;

	if (pkt) {
		n->c.tx_packets_phy++;
		n->c.tx_bytes_phy += pkt->frame;
	}
	return pkt;
}

/* The port is free: control packets first, then the next QP that may send. */
static struct pkt *nic_next(struct port *p)
{
	struct nic *n = p->owner;
	struct pkt *pkt = ctrl_next(n, p->paused);

	return pkt ? pkt : ring_take(n, &n->ring, p->paused, evq_now(n->ctx->q));
}

/* ... with classes: the next QP of the class whose turn it is. */
static struct pkt *nic_next_tc(struct port *p)
{
	struct nic *n = p->owner;
	struct pkt *pkt = ctrl_next(n, p->paused);

	return pkt ? pkt : nic__tc_next(n->tcs, ring_take_tc, n, p->paused, evq_now(n->ctx->q));
}

static void requester_ack(struct nic *n, struct flow *f, uint32_t epsn, simtime_t now)
{
	if (epsn <= f->snd_una)
		return;
	f->snd_una = epsn;
	if (f->snd_una >= f->n_psn) {
		if (!f->coll)
			f->acked = now;
		f->rto_at = 0;
	} else {
		arm_rto(n, f);
	}
}

static void requester_cnp(struct nic *n, struct flow *f, simtime_t now)
{
	simtime_t cut;

	if (!n->dcqcn) {
		n->c.rp_cnp_ignored++;
		return;
	}
	n->c.rp_cnp_handled++;
	n->ctx->tot.cnp_handled++;
	cut = dcqcn_rp_cnp(&f->rp, now);
	if (cut == now)
		dcqcn_rp_cut(&f->rp, now);
	else if (cut != SIMTIME_NEVER)
		mctx_arm(n->ctx, &f->cut_timer, cut);
	sync_increase_timer(f);
}

/* ---- responder ---------------------------------------------------------------------------- */

/*
 * The notification point: does a CE mark on @f at @now send a CNP?
 * np_min_time_between_cnps spaces the CNPs of the whole port (cnp_scope
 * port: mlxconfig's "from the port") or of each QP; gap mode sends when
 * that long has passed since the last one, window mode on the first mark
 * of each aligned window of that length.
 */
static int np_cnp_due(struct nic *n, struct flow *f, simtime_t now)
{
	const struct dcqcn_params *d = &n->prm->dcqcn;
	simtime_t gap = d->np_min_time_between_cnps * SIMTIME_US;
	simtime_t *last = d->cnp_per_port ? &n->last_cnp : &f->last_cnp;
	uint8_t *sent = d->cnp_per_port ? &n->cnp_sent_once : &f->cnp_sent_once;

	if (*sent && (d->np_cnp_window && gap ? now / gap == *last / gap : now - *last < gap))
		return 0;
	*sent = 1;
	*last = now;
	return 1;
}

void nic__msg_complete(struct nic *n, struct flow *f, simtime_t now)
{
	uint32_t tag = f->msgs[f->rx_msg].tag;

	f->rx_msg++;
	if (!f->coll) {
		f->finish = now;
		n->c.flows_done++;
	}
	n->ops->msg_done(n->up, f, tag, now);
}

static void responder_data(struct nic *n, struct flow *f, struct pkt *pkt, simtime_t now)
{
	const struct nic_params *prm = n->prm;

	if (pkt->ecn == PKT_CE) {
		n->c.np_ecn_marked_roce_packets++;
		if (n->dcqcn && np_cnp_due(n, f, now)) {
			n->c.np_cnp_sent++;
			n->ctx->tot.cnp_sent++;
			send_ctrl(n, f, PKT_CNP, 0);
		}
	}
	if (pkt->psn == f->epsn) {
		int msg_done = pkt->last;

		f->received += pkt->payload;
		f->epsn++;
		f->rx_at = now;
		f->nak_sent = 0;
		if (++f->unacked >= prm->ack_every || msg_done) {
			f->unacked = 0;
			send_ctrl(n, f, PKT_ACK, f->epsn);
		}
		if (msg_done)
			nic__msg_complete(n, f, now);
	} else if (pkt->psn > f->epsn) {
		n->c.out_of_sequence++;
		if (!f->nak_sent) {
			f->nak_sent = 1;
			send_ctrl(n, f, PKT_NAK, f->epsn);
		}
	} else {
		n->c.duplicate_request++;
		send_ctrl(n, f, PKT_ACK, f->epsn);
	}
}

/* ---- receive buffer: a slow host, and the NIC's own PAUSE --------------------------------- */

static void rx_pause(struct nic *n, uint16_t quanta)
{
	for (uint8_t prio = 0; prio < PKT_PRIORITIES; prio++) {
		if (!(n->prm->pfc & (1u << prio)))
			continue;
		mctx_fail(n->ctx, port_send_pause(n->port, prio, quanta));
		mctx_pfc_event(n->ctx, n->port->id, prio, quanta ? PFC_EV_XOFF : PFC_EV_XON);
	}
}

static simtime_t rx_refresh_period(const struct nic *n)
{
	return pfc_quanta_time(0xffff, n->port->rate_bps) / 2;
}

void nic__on_rx_refresh(void *obj, uint64_t arg)
{
	struct nic *n = obj;

	(void)arg;
	if (!n->rx_xoff)
		return;
	rx_pause(n, 0xffff);
	mctx_arm(n->ctx, &n->rx_refresh, evq_now(n->ctx->q) + rx_refresh_period(n));
}

static void arm_drain(struct nic *n)
{
	const struct pkt *head = n->rxq.head;

	mctx_arm(n->ctx, &n->rx_drain,
		 evq_now(n->ctx->q) + simtime_tx(head->frame, n->prm->rx_rate));
}

/* The host took the packet at the head of the receive buffer. */
void nic__on_rx_drain(void *obj, uint64_t arg)
{
	struct nic *n = obj;
	struct pkt *pkt = pktq_pop(&n->rxq);

	(void)arg;
	n->rx_used -= pkt->frame;
	responder_data(n, &n->flows[pkt->flow], pkt, evq_now(n->ctx->q));
	pkt_free(&n->ctx->pool, pkt);
	if (n->rxq.head)
		arm_drain(n);
	if (n->rx_xoff && n->rx_used <= n->rx_xon_at) {
		n->rx_xoff = 0;
		evq_cancel(n->ctx->q, &n->rx_refresh);
		rx_pause(n, 0);
	}
}

/* Data into the receive buffer; 0, or -ENOBUFS when it is full (a discard). */
static int rx_buffer(struct nic *n, struct pkt *pkt)
{
	if (n->rx_used + pkt->frame > n->prm->rx_buffer)
		return -ENOBUFS;
	if (!n->rxq.head)
		mctx_arm(n->ctx, &n->rx_drain,
			 evq_now(n->ctx->q) + simtime_tx(pkt->frame, n->prm->rx_rate));
	pktq_push(&n->rxq, pkt);
	n->rx_used += pkt->frame;
	if (!n->rx_xoff && n->rx_used >= n->rx_xoff_at && n->prm->pfc) {
		n->rx_xoff = 1;
		rx_pause(n, 0xffff);
		mctx_arm(n->ctx, &n->rx_refresh, evq_now(n->ctx->q) + rx_refresh_period(n));
	}
	return 0;
}

static void nic_rx(struct port *p, struct pkt *pkt)
{
	struct nic *n = p->owner;
	struct mctx *c = n->ctx;
	struct flow *f = &n->flows[pkt->flow];
	simtime_t now = evq_now(c->q);

	n->c.rx_packets_phy++;
	n->c.rx_bytes_phy += pkt->frame;
	switch (pkt->kind) {
	case PKT_DATA:
		if (n->prm->rx_buffer) {
			if (rx_buffer(n, pkt)) {
				n->c.rx_discards_phy++;
				c->tot.dropped_packets++;
				c->tot.dropped_bytes += pkt->payload;
				break;
			}
			c->tot.received_bytes += pkt->payload;
			c->tot.received_packets++;
			return; /* the host takes it later */
		}
		c->tot.received_bytes += pkt->payload;
		c->tot.received_packets++;
		responder_data(n, f, pkt, now);
		break;
	case PKT_ACK:
		requester_ack(n, f, pkt->psn, now);
		break;
	case PKT_NAK:
		n->c.packet_seq_err++;
		requester_ack(n, f, pkt->psn, now);
		if (pkt->psn >= f->snd_una && pkt->psn < f->snd_nxt)
			nic__go_back(n, f, pkt->psn);
		break;
	case PKT_CNP:
		requester_cnp(n, f, now);
		break;
	default:
		break;
	}
	pkt_free(&c->pool, pkt);
}

/* Whether something waits for the port: a control packet, or a QP in the
 * ring (one that may send, or one that waits for PFC). QPs held back by
 * their rate, or by their class's, wait for a timer, not for the port. */
static int nic_waiting(const struct port *p)
{
	const struct nic *n = p->owner;

	return n->ctrl.head || n->ring.cur;
}

static int nic_waiting_tc(const struct port *p)
{
	const struct nic *n = p->owner;

	return n->ctrl.head || nic__tc_waiting(n->tcs, evq_now(n->ctx->q));
}

/* While a fast-forward holds the NIC (nic_ff_hold): control packets
 * only, so that what its QPs have in flight drains. */
static struct pkt *nic_next_held(struct port *p)
{
	return ctrl_next(p->owner, p->paused);
}

static int nic_waiting_held(const struct port *p)
{
	const struct nic *n = p->owner;

	return n->ctrl.head != NULL;
}

const struct port_ops nic__port_ops = {.next = nic_next, .rx = nic_rx, .waiting = nic_waiting};
const struct port_ops nic__port_held_ops = {
    .next = nic_next_held, .rx = nic_rx, .waiting = nic_waiting_held};
/* with classes: a port does not look for them when it has none */
const struct port_ops nic__port_tc_ops = {
    .next = nic_next_tc, .rx = nic_rx, .waiting = nic_waiting_tc};

/* ---- QPs and their messages ------------------------------------------------------------- */

int nic_open_qp(struct nic *n, struct flow *f)
{
	if (n->n_qps == n->cap_qps) {
		uint32_t cap = n->cap_qps ? 2 * n->cap_qps : 4;
		struct flow **q = realloc(n->qps, cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		n->qps = q;
		n->cap_qps = cap;
	}
	n->qps[n->n_qps++] = f;
	f->nic = n;
	evq_timer_init(&f->cut_timer, on_cut, f, evq_key(MCTX_KEY_FLOW, f->id, NIC_FLOW_CUT));
	evq_timer_init(&f->inc_timer, on_increase, f, evq_key(MCTX_KEY_FLOW, f->id, NIC_FLOW_INC));
	f->inc_armed = SIMTIME_NEVER;
	dcqcn_rp_init(&f->rp, &n->prm->dcqcn, n->port->rate_bps);
	return 0;
}

/*
 * Drop the messages both ends are done with (acknowledged to the requester,
 * completed at the responder): a collective's QP posts one per ring step,
 * thousands, of which a few are in flight at a time.
 */
static void drop_done_msgs(struct flow *f)
{
	/* in a split fabric a part sees only its end's progress */
	uint32_t dead = f->side == NIC_SIDE_REQUESTER ? f->n_msgs : f->rx_msg;

	if (f->side != NIC_SIDE_RESPONDER && f->snd_una < f->n_psn) {
		uint32_t tx = (uint32_t)(msg_of(f, f->snd_una) - f->msgs);

		if (tx < dead)
			dead = tx;
	}
	if (!dead)
		return;
	memmove(f->msgs, f->msgs + dead, (f->n_msgs - dead) * sizeof(*f->msgs));
	f->n_msgs -= dead;
	f->rx_msg -= dead;
	f->tx_msg = f->tx_msg > dead ? f->tx_msg - dead : 0;
}

/* Room for one more message on @f. 0 or -ENOMEM. */
static int msg_room(struct flow *f)
{
	if (f->n_msgs == f->cap_msgs && f->n_msgs)
		drop_done_msgs(f);
	if (f->n_msgs == f->cap_msgs) {
		uint32_t cap = f->cap_msgs ? 2 * f->cap_msgs : 4;
		struct qp_msg *m = realloc(f->msgs, cap * sizeof(*m));

		if (!m)
			return -ENOMEM;
		f->msgs = m;
		f->cap_msgs = cap;
	}
	return 0;
}

int nic_msg_in(struct flow *f, const struct qp_msg *m)
{
	int err = msg_room(f);

	if (!err)
		f->msgs[f->n_msgs++] = *m;
	return err;
}

int nic_post(struct nic *n, struct flow *f, uint64_t bytes, uint32_t tag)
{
	struct qp_msg *m;
	int err = msg_room(f);

	if (err)
		return err;
	m = &f->msgs[f->n_msgs++];
	m->bytes = bytes;
	m->first_psn = f->n_psn;
	m->n_psn = (uint32_t)((bytes + n->mtu - 1) / n->mtu);
	m->tag = tag;
	f->n_psn += m->n_psn;
	f->bytes += bytes;
	if (f->side == NIC_SIDE_REQUESTER)
		n->ctx->part->post(n->ctx->part->ctx, f, m);
	if (!f->qp_error)
		ring_add(n, f);
	if (n->ctx->ff)
		n->ctx->ff_post(n->ctx->ff, f);
	return 0;
}

void nic_start_flow(struct nic *n, struct flow *f)
{
	uint64_t bytes = f->bytes;
	int err;

	n->c.flows_started++;
	f->bytes = 0;
	err = nic_open_qp(n, f);
	mctx_fail(n->ctx, err ? err : nic_post(n, f, bytes, 0));
}

const struct nic_counters *nic_counters(const struct nic *n)
{
	return &n->c;
}
