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

uint64_t nic_ff_advance(struct flow *f, uint32_t k, uint32_t mtu)
{
	uint32_t from = f->epsn, to = from + k;
	uint64_t bytes = 0;

	for (uint32_t i = k ? msg_at(f, from) : f->n_msgs; i < f->n_msgs; i++) {
		const struct qp_msg *m = &f->msgs[i];
		uint32_t lo = m->first_psn > from ? m->first_psn : from;
		uint32_t end = m->first_psn + m->n_psn;
		uint32_t hi = end < to ? end : to;

		if (lo >= to)
			break;
		bytes += (uint64_t)(hi - lo) * mtu;
		if (hi == end) /* its last packet, shorter */
			bytes -= (uint64_t)m->n_psn * mtu - m->bytes;
	}
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

/* Count @c packets of @frame bytes into @sz (@n groups so far), telling
 * @fn when it is full. */
static void size_add(struct nic_ff_size *sz, uint32_t *n, uint32_t frame, uint64_t c,
		     void (*fn)(void *ctx, const struct nic_ff_size *sz, uint32_t n), void *ctx)
{
	uint32_t i;

	if (!c)
		return;
	for (i = 0; i < *n && sz[i].frame != frame; i++)
		;
	if (i == *n) {
		if (*n == NIC_FF_SIZES) {
			fn(ctx, sz, *n);
			*n = i = 0;
		}
		sz[i].frame = frame;
		sz[i].count = 0;
		(*n)++;
	}
	sz[i].count += c;
}

uint64_t nic_ff_walk(struct flow *f, uint32_t k, uint32_t mtu, uint32_t ack_every,
		     void (*fn)(void *ctx, const struct nic_ff_size *sz, uint32_t n), void *ctx)
{
	uint32_t from = f->epsn, to = from + k, n = 0, per = ack_every ? ack_every : 1;
	uint64_t acks = 0, u = f->unacked;
	struct nic_ff_size sz[NIC_FF_SIZES];

	for (uint32_t i = k ? msg_at(f, from) : f->n_msgs; i < f->n_msgs; i++) {
		const struct qp_msg *m = &f->msgs[i];
		uint32_t lo = m->first_psn > from ? m->first_psn : from;
		uint32_t end = m->first_psn + m->n_psn;
		uint32_t hi = end < to ? end : to;
		uint64_t c = hi - lo;

		if (lo >= to)
			break;
		if (hi == end) {
			/* its last packet, shorter, and ACKed whatever the count */
			size_add(sz, &n,
				 (uint32_t)(m->bytes - (uint64_t)(m->n_psn - 1) * mtu) +
				     PKT_HEADER_BYTES,
				 1, fn, ctx);
			size_add(sz, &n, mtu + PKT_HEADER_BYTES, c - 1, fn, ctx);
			acks += (u + c - 1) / per + 1;
			u = 0;
		} else {
			size_add(sz, &n, mtu + PKT_HEADER_BYTES, c, fn, ctx);
			acks += (u + c) / per;
			u = (u + c) % per;
		}
	}
	if (n)
		fn(ctx, sz, n);
	f->unacked = (uint32_t)u;
	return acks;
}

uint8_t nic_ff_cnp_dscp(const struct nic *n)
{
	return (uint8_t)n->prm->dcqcn.np_cnp_dscp;
}

void nic_ff_msg_done(struct nic *resp, struct flow *f, simtime_t now)
{
	nic__msg_complete(resp, f, now);
}
