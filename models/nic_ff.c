/*
 * NIC: what a fast-forward (models/ff.h) does to a NIC and its QPs: hold
 * their data while the network drains, move their times on, and advance
 * a QP by the packets its steady rate delivered meanwhile, its messages
 * completed at the times that rate gives.
 */
#include "models/nic.h"

#include "models/link.h"
#include "models/mctx.h"
#include "models/nic_impl.h"

void nic_ff_hold(struct nic *n, int on)
{
	if (on) {
		n->port->ops = &nic__port_held_ops;
		return;
	}
	n->port->ops = n->tcs ? &nic__port_tc_ops : &nic__port_ops;
	port_kick(n->port);
}

int nic_ff_dcqcn(const struct nic *n)
{
	return n->dcqcn;
}

struct nic_counters *nic_ff_counters(struct nic *n)
{
	return &n->c;
}

void nic_ff_shift(struct nic *n, simtime_t dt)
{
	if (n->cnp_sent_once)
		n->last_cnp += dt;
}

void nic_ff_flow_shift(struct flow *f, simtime_t dt)
{
	f->last_tx += dt;
	if (f->wait_slot)
		f->wait_key += dt; /* all of the heap alike: its order holds */
	if (f->inc_armed != SIMTIME_NEVER)
		f->inc_armed += dt;
	if (f->rto_at)
		f->rto_at += dt;
	if (f->rto_since)
		f->rto_since += dt;
	if (f->cnp_sent_once)
		f->last_cnp += dt;
	dcqcn_rp_shift(&f->rp, dt);
}

/* The first message of @f whose packets reach @psn or beyond. */
static uint32_t msg_at(const struct flow *f, uint32_t psn)
{
	uint32_t lo = 0, hi = f->n_msgs;

	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) / 2;

		if (f->msgs[mid].first_psn <= psn)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* One message's share of the packets a QP delivers: @c of them, the last
 * its message's last (@ends) of @last payload bytes. */
struct segment {
	uint64_t c;
	int ends;
	uint32_t last;
};

/* The next @k packets of @f, from its epsn, message by message into @each
 * (when not NULL); their payload bytes. */
static uint64_t segments(const struct flow *f, uint32_t k, uint32_t mtu,
			 void (*each)(void *ctx, const struct segment *sg), void *ctx)
{
	uint32_t from = f->epsn, to = from + k;
	uint64_t bytes = 0;

	for (uint32_t i = k ? msg_at(f, from) : f->n_msgs; i < f->n_msgs; i++) {
		const struct qp_msg *m = &f->msgs[i];
		uint32_t lo = m->first_psn > from ? m->first_psn : from;
		uint32_t end = m->first_psn + m->n_psn;
		uint32_t hi = end < to ? end : to;
		struct segment sg = {.c = hi - lo, .ends = hi == end, .last = mtu};

		if (lo >= to)
			break;
		bytes += sg.c * mtu;
		if (sg.ends) { /* its last packet, shorter */
			bytes -= (uint64_t)m->n_psn * mtu - m->bytes;
			sg.last = (uint32_t)(m->bytes - (uint64_t)(m->n_psn - 1) * mtu);
		}
		if (each)
			each(ctx, &sg);
	}
	return bytes;
}

uint64_t nic_ff_advance(struct flow *f, uint32_t k, uint32_t mtu)
{
	uint64_t bytes = segments(f, k, mtu, NULL, NULL);

	f->snd_nxt += k;
	if (f->snd_max < f->snd_nxt)
		f->snd_max = f->snd_nxt;
	f->snd_una += k;
	f->sent += bytes;
	f->tx_first = f->tx_end = 0; /* the cursor reads the messages again */
	f->epsn += k;
	f->received += bytes;
	f->nak_sent = 0;
	if (f->snd_nxt == f->n_psn && f->nic)
		nic__ring_remove(f->nic, f); /* nothing left to send */
	return bytes;
}

/* nic_ff_walk's state: the sizes gathered, the ACKs counted. */
struct walk {
	struct nic_ff_size sz[NIC_FF_SIZES];
	uint32_t n, mtu, per;
	uint64_t acks, unacked;
	void (*fn)(void *ctx, const struct nic_ff_size *sz, uint32_t n);
	void *ctx;
};

/* Count @c packets of @frame bytes, telling w->fn when the sizes are full. */
static void size_add(struct walk *w, uint32_t frame, uint64_t c)
{
	uint32_t i;

	if (!c)
		return;
	for (i = 0; i < w->n && w->sz[i].frame != frame; i++)
		;
	if (i == w->n) {
		if (w->n == NIC_FF_SIZES) {
			w->fn(w->ctx, w->sz, w->n);
			w->n = i = 0;
		}
		w->sz[i].frame = frame;
		w->sz[i].count = 0;
		w->n++;
	}
	w->sz[i].count += c;
}

static void walk_segment(void *ctx, const struct segment *sg)
{
	struct walk *w = ctx;

	if (sg->ends) {
		/* its last packet, shorter, and ACKed whatever the count */
		size_add(w, sg->last + PKT_HEADER_BYTES, 1);
		size_add(w, w->mtu + PKT_HEADER_BYTES, sg->c - 1);
		w->acks += (w->unacked + sg->c - 1) / w->per + 1;
		w->unacked = 0;
	} else {
		size_add(w, w->mtu + PKT_HEADER_BYTES, sg->c);
		w->acks += (w->unacked + sg->c) / w->per;
		w->unacked = (w->unacked + sg->c) % w->per;
	}
}

uint64_t nic_ff_walk(struct flow *f, uint32_t k, uint32_t mtu, uint32_t ack_every,
		     void (*fn)(void *ctx, const struct nic_ff_size *sz, uint32_t n), void *ctx)
{
	struct walk w = {.mtu = mtu,
			 .per = ack_every ? ack_every : 1,
			 .unacked = f->unacked,
			 .fn = fn,
			 .ctx = ctx};

	segments(f, k, mtu, walk_segment, &w);
	if (w.n)
		fn(ctx, w.sz, w.n);
	f->unacked = (uint32_t)w.unacked;
	return w.acks;
}

uint8_t nic_ff_cnp_dscp(const struct nic *n)
{
	return (uint8_t)n->prm->dcqcn.np_cnp_dscp;
}

void nic_ff_msg_done(struct nic *resp, struct flow *f, simtime_t now)
{
	nic__msg_complete(resp, f, now);
}
