/*
 * Fast-forward: the detector, the drain, the span and its end (see ff.h).
 */
#include "models/ff.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/checked.h"
#include "models/link.h"
#include "models/mctx.h"
#include "models/net.h"
#include "models/nic.h"
#include "models/switch.h"

/* While draining, how often it looks whether the network is empty. */
#define FF_POLL (500 * SIMTIME_NS)

enum ff_state { FF_WATCH, FF_DRAIN, FF_SPAN };

/* What the detector keeps of a QP. */
struct ff_qp {
	uint32_t last;	 /* epsn at the last window's end */
	uint32_t at0;	 /* ... at the sequence's start */
	uint32_t lo, hi; /* fewest and most packets a window of the sequence delivered */
	/* the sender at the sequence's start: packets sent, and when the last
	 * of them left (its rate is measured between two packets, exactly) */
	uint32_t snd0;
	simtime_t tx0;
	/* its rate in the last span it ran in, and that span's number */
	uint64_t rp;
	simtime_t rt;
	uint64_t rspan;
};

/* A span that ran its whole length, whose rates the next sequence finds
 * again, lets the next one run twice as long, up to this many times. */
#define FF_LONGER_MAX 64

/*
 * A QP advanced by a span, at p packets every t ps while it has packets
 * posted. A collective's QP may run dry in a span and wait for its next
 * message, as a ring's does for its neighbour's data: it then goes on
 * from the post, so its timeline is jb packets at time b, and p every t
 * after.
 */
struct ff_run {
	struct flow *f;
	uint32_t x; /* epsn when the span began */
	uint64_t p;
	simtime_t t;
	simtime_t b;	      /* the timeline's base ... */
	uint32_t jb;	      /* ... and the packets delivered by then */
	uint32_t room;	      /* the packets it may deliver, as of its last post */
	simtime_t dry;	      /* when it will have delivered them */
	int waited;	      /* it ran dry and waited in this span */
	simtime_t pipe;	      /* a data packet's latency on its empty path */
	struct evq_timer *ev; /* its next message's completion, pooled */
};

struct ff {
	struct net *net;
	struct evq *q;
	struct ff_params prm;
	struct ff_stats st;
	enum ff_state state;
	struct evq_timer tick; /* a window's end; while draining, the poll */
	struct evq_timer exit; /* the span's end */
	uint32_t n_windows;    /* windows in the current sequence */
	simtime_t t0, th, td;  /* the sequence's start, the hold, the span's start */
	simtime_t ts;	       /* when s0 was saved in the sequence, or 0 */
	simtime_t cap;	       /* the span's longest end (span_seqs) */
	simtime_t coll_dry;    /* when the last collective QP runs dry, or 0 */
	simtime_t plain_dry;   /* the first of the cap and the flows' QPs running dry */
	uint32_t longer;       /* this span may last longer times span_seqs sequences */
	int exit_later;	       /* 1: the end waits for messages completing now; 2: waited */
	uint32_t last_runs;    /* QPs the last span advanced */
	enum ff_end_why last_end;
	uint64_t cnp0;	  /* CNPs handled at the sequence's start */
	struct ff_qp *qp; /* per flow */
	uint32_t *run_of; /* per flow: its index in runs + 1, or 0 */
	struct ff_run *runs;
	uint32_t n_runs;
	/* the counters extrapolated over a span, and their values a window
	 * before the hold (at ts), at the hold and at the span's start */
	uint64_t **ctr;
	uint64_t *s0, *sh, *sd;
	size_t n_ctr;
	struct evq_timer **held;
	size_t n_held;
};

void ff_params_default(struct ff_params *p)
{
	p->enabled = 0;
	p->tolerance_ppm = 10000;
	p->window = 20 * SIMTIME_US;
	p->windows = 3;
	p->span_seqs = 64;
}

/* ---- the counters a span extrapolates ------------------------------------------- */

static size_t ctr_list(struct ff *f, uint64_t **out)
{
	struct net *n = f->net;
	size_t k = 0;

#define C(x)                                                                                       \
	do {                                                                                       \
		if (out)                                                                           \
			out[k] = &(x);                                                             \
		k++;                                                                               \
	} while (0)
	C(n->ctx.tot.packet_hops);
	C(n->ctx.tot.data_hops);
	C(n->ctx.tot.ecn_marked);
	C(n->ctx.tot.cnp_sent);
	C(n->ctx.tot.cnp_handled);
	for (uint32_t i = 0; i < n->topo->n_ports; i++) {
		struct port *p = &n->ports[i];

		C(p->rx_packets);
		C(p->rx_bytes);
		C(p->tx_packets);
		C(p->tx_bytes);
		C(p->busy_time);
		for (int prio = 0; prio < PKT_PRIORITIES; prio++) {
			C(p->queue[prio].tx_packets);
			C(p->queue[prio].tx_bytes);
			C(p->qcount[prio].ecn_marked);
			C(p->pfc[prio].tx_pause);
			C(p->pfc[prio].tx_resume);
			C(p->pfc[prio].rx_pause);
			C(p->pfc[prio].rx_resume);
			C(p->pfc[prio].paused_time);
		}
	}
	for (uint32_t h = 0; h < n->topo->n_hosts; h++) {
		struct nic_counters *c;

		if (!n->nics[h])
			continue;
		c = nic_ff_counters(n->nics[h]);
		C(c->tx_packets_phy);
		C(c->tx_bytes_phy);
		C(c->rx_packets_phy);
		C(c->rx_bytes_phy);
		C(c->np_ecn_marked_roce_packets);
		C(c->np_cnp_sent);
		C(c->rp_cnp_handled);
		C(c->rp_cnp_ignored);
	}
	for (uint32_t i = 0; i < n->n_flows; i++) {
		C(n->flows[i].rp.cnp_handled);
		C(n->flows[i].rp.cuts);
		C(n->flows[i].rp.increases);
	}
#undef C
	return k;
}

static void ctr_save(const struct ff *f, uint64_t *to)
{
	for (size_t i = 0; i < f->n_ctr; i++)
		to[i] = *f->ctr[i];
}

/* @a x @b / @c without overflow (c > 0). */
static uint64_t muldiv(uint64_t a, uint64_t b, uint64_t c)
{
	return (uint64_t)((ck_u128)a * b / c);
}

/* ---- the detector ---------------------------------------------------------------------- */

static void seq_start(struct ff *f, simtime_t now)
{
	f->n_windows = 0;
	f->t0 = now;
	for (uint32_t i = 0; i < f->net->n_flows; i++) {
		struct ff_qp *s = &f->qp[i];

		s->last = s->at0 = f->net->flows[i].epsn;
		s->snd0 = f->net->flows[i].snd_max;
		s->tx0 = f->net->flows[i].last_tx;
		s->lo = UINT32_MAX;
		s->hi = 0;
	}
	f->ts = 0; /* the counters are saved only when a hold may follow */
	f->cnp0 = f->net->ctx.tot.cnp_handled;
}

/* Add the window that ends now; whether every QP stayed steady in the
 * sequence, and in *@active whether one delivered anything. */
static int seq_add(struct ff *f, int *active)
{
	int steady = 1;

	*active = 0;
	f->n_windows++;
	for (uint32_t i = 0; i < f->net->n_flows; i++) {
		const struct flow *fl = &f->net->flows[i];
		struct ff_qp *s = &f->qp[i];
		uint32_t d = fl->epsn - s->last;
		uint64_t slack;

		s->last = fl->epsn;
		if (d < s->lo)
			s->lo = d;
		if (d > s->hi)
			s->hi = d;
		if (!s->hi) {
			/* delivered nothing: steady only if it has nothing to deliver */
			if (fl->nic && fl->epsn < fl->n_psn)
				steady = 0;
			continue;
		}
		*active = 1;
		slack = (uint64_t)s->hi * f->prm.tolerance_ppm / 1000000;
		if (s->hi - s->lo > (slack > 1 ? slack : 1))
			steady = 0;
	}
	return steady;
}

static void hold_nics(struct ff *f, int on)
{
	for (uint32_t h = 0; h < f->net->topo->n_hosts; h++)
		if (f->net->nics[h])
			nic_ff_hold(f->net->nics[h], on);
}

/* Give up a hold: senders go again, a new sequence starts. */
static void abandon(struct ff *f)
{
	simtime_t now = evq_now(f->q);

	hold_nics(f, 0);
	f->st.abandoned++;
	f->state = FF_WATCH;
	seq_start(f, now);
	mctx_arm(&f->net->ctx, &f->tick, now + f->prm.window);
}

static int network_empty(const struct ff *f)
{
	const struct net *n = f->net;

	if (n->ctx.pool.live)
		return 0;
	for (uint32_t i = 0; i < n->topo->n_ports; i++)
		if (n->ports[i].paused)
			return 0;
	return 1;
}

static void span_begin(struct ff *f);

/*
 * Whether the sequence is long enough: while DCQCN reacts (CNPs handled in
 * the sequence, or a QP below its line rate, which its timer raises each
 * period), its rates move over its timer periods, and a sequence shorter
 * than `windows` of them would take a slope or a tooth for a level.
 */
static int settled(const struct ff *f, simtime_t now)
{
	const struct net *n = f->net;
	simtime_t period = (simtime_t)n->p.nic.dcqcn.rp_time_reset * SIMTIME_US;

	int reacting = n->ctx.tot.cnp_handled != f->cnp0;

	/* a QP below its line rate has its rate raised at each period */
	for (uint32_t i = 0; i < n->n_flows && !reacting; i++)
		if (f->qp[i].hi && n->flows[i].rp.rc < n->flows[i].rp.line_rate)
			reacting = 1;
	if (!reacting || period <= f->prm.window)
		return 1;
	return now - f->t0 >= (simtime_t)f->prm.windows * period;
}

/*
 * Whether every QP that delivered in the sequence has more posted, and
 * sent as many packets as it delivered (within the tolerance, and a
 * packet either way): a QP that sends faster than its packets arrive
 * fills a queue on its path, and its sending rate is not what the network
 * delivers.
 */
static int backlogged(const struct ff *f)
{
	for (uint32_t i = 0; i < f->net->n_flows; i++) {
		const struct flow *fl = &f->net->flows[i];
		const struct ff_qp *s = &f->qp[i];
		uint32_t sent, got;
		uint64_t slack;

		if (!s->hi)
			continue;
		if (fl->n_psn - fl->snd_nxt < 2)
			return 0;
		sent = fl->snd_max - s->snd0;
		got = fl->epsn - s->at0;
		slack = (uint64_t)got * f->prm.tolerance_ppm / 1000000;
		if ((sent > got ? sent - got : got - sent) > (slack > 2 ? slack : 2))
			return 0;
	}
	return 1;
}

static void on_tick(void *obj, uint64_t arg)
{
	struct ff *f = obj;
	simtime_t now = evq_now(f->q);
	int active;

	(void)arg;
	if (f->state == FF_DRAIN) {
		if (network_empty(f)) {
			span_begin(f);
			return;
		}
		if (now - f->th > f->prm.window) {
			abandon(f);
			return;
		}
		mctx_arm(&f->net->ctx, &f->tick, now + FF_POLL);
		return;
	}
	if (!seq_add(f, &active)) {
		seq_start(f, now);
	} else if (!f->ts && f->n_windows + 1 >= f->prm.windows) {
		/* a window from a hold: the counters' rates are taken from here
		 * (saving them all each window would cost a large fabric more
		 * than a window of its packets) */
		ctr_save(f, f->s0);
		f->ts = now;
	} else if (active && f->n_windows >= f->prm.windows && settled(f, now) && backlogged(f)) {
		f->th = now;
		ctr_save(f, f->sh);
		hold_nics(f, 1);
		f->state = FF_DRAIN;
		mctx_arm(&f->net->ctx, &f->tick, now + FF_POLL);
		return;
	} else if (!active && !f->net->ctx.pool.live) {
		return; /* nothing moves: the next message posted wakes it */
	}
	mctx_arm(&f->net->ctx, &f->tick, now + f->prm.window);
}

/* ---- the span ------------------------------------------------------------------------------ */

/* When run @r will have delivered its @j-th packet from the span's start
 * (j > r->jb). */
static simtime_t run_time(const struct ff_run *r, uint64_t j)
{
	return r->b + (simtime_t)(((ck_u128)(j - r->jb) * r->t + r->p - 1) / r->p);
}

/* Packets run @r may deliver in the span: all posted on a collective's
 * QP, whose messages the span completes; all but the last of a flow's,
 * whose end is simulated packet by packet. */
static uint32_t run_room(const struct ff_run *r)
{
	uint32_t room = r->f->n_psn - r->x;

	if (r->f->coll)
		return room;
	return room ? room - 1 : 0;
}

/* When run @r runs dry: a collective's QP when its timeline delivers all
 * posted; a flow's when its last packet, sent then, arrives as its
 * timeline says (a path's latency before). */
static simtime_t run_dry(const struct ff_run *r)
{
	simtime_t t;

	if (r->f->coll)
		return run_time(r, r->room);
	t = run_time(r, (uint64_t)r->room + 1);
	return t > r->b + r->pipe ? t - r->pipe : r->b;
}

/* The packets run @r has delivered by @u. */
static uint64_t run_done(const struct ff_run *r, simtime_t u)
{
	uint64_t k = r->jb;

	if (u > r->b)
		k += muldiv(u - r->b, r->p, r->t);
	return k < r->room ? k : r->room;
}

static void on_msg(void *obj, uint64_t arg);

/* Arm @r's next message completion, if its last packet is posted. */
static void run_next(struct ff *f, struct ff_run *r)
{
	const struct flow *fl = r->f;
	simtime_t at;
	uint32_t last;

	if (r->ev || !fl->coll || fl->rx_msg >= fl->n_msgs)
		return;
	last = fl->msgs[fl->rx_msg].first_psn + fl->msgs[fl->rx_msg].n_psn - 1;
	at = run_time(r, (uint64_t)last - r->x + 1);
	if (at < evq_now(f->q))
		at = evq_now(f->q);
	r->ev = evq_post(f->q, at, on_msg, f, (uint64_t)(r - f->runs),
			 evq_key(MCTX_KEY_FLOW, fl->id, NIC_FLOW_FF));
	if (!r->ev)
		mctx_fail(&f->net->ctx, -ENOMEM);
}

/*
 * Arm the span's end: at the first of its length's limit, a flow's QP
 * running dry (its end is simulated packet by packet), and the moment the
 * last of the collectives' QPs has run dry (nothing moves then).
 */
static simtime_t exit_time(struct ff *f)
{
	simtime_t first = f->cap, coll = 0;

	for (uint32_t i = 0; i < f->n_runs; i++) {
		const struct ff_run *r = &f->runs[i];

		if (!r->f->coll && r->dry < first)
			first = r->dry;
		if (r->f->coll && r->dry > coll)
			coll = r->dry;
	}
	f->coll_dry = coll;
	f->plain_dry = first;
	if (coll && coll < first)
		first = coll;
	return first;
}

static void arm_exit(struct ff *f)
{
	simtime_t t = exit_time(f), now = evq_now(f->q);

	mctx_arm(&f->net->ctx, &f->exit, t > now ? t : now);
}

static void span_end(struct ff *f, simtime_t tx, enum ff_end_why why);

static void on_msg(void *obj, uint64_t arg)
{
	struct ff *f = obj;
	struct ff_run *r = &f->runs[arg];
	struct flow *fl = r->f;

	r->ev = NULL; /* back in the pool already */
	f->st.messages++;
	nic_ff_msg_done(f->net->nics[fl->dst], fl, evq_now(f->q));
	if (f->state == FF_SPAN)
		run_next(f, r);
}

static void on_exit(void *obj, uint64_t arg)
{
	struct ff *f = obj;

	simtime_t now = evq_now(f->q);

	(void)arg;
	if (now < f->cap) {
		/* the collectives' QPs all ran dry: a message completing at
		 * this instant, whose event comes after this one, may post
		 * more; look again a picosecond later */
		for (uint32_t i = 0; i < f->n_runs && !f->exit_later; i++)
			if (f->runs[i].ev && f->runs[i].ev->when <= now)
				f->exit_later = 1;
		if (f->exit_later == 1) {
			f->exit_later = 2;
			mctx_arm(&f->net->ctx, &f->exit, now + 1);
			return;
		}
		f->exit_later = 0;
		if (exit_time(f) > now) {
			arm_exit(f); /* they were given more */
			return;
		}
	}
	f->exit_later = 0;
	span_end(f, now, now >= f->cap ? FF_END_LIMIT : FF_END_DRY);
}

/* Whether rates @p/@t and @q/@u agree within the tolerance. */
static int same_rate(const struct ff *f, uint64_t p, simtime_t t, uint64_t q, simtime_t u)
{
	ck_u128 a = (ck_u128)p * u, b = (ck_u128)q * t;

	return (a > b ? a - b : b - a) <= b * f->prm.tolerance_ppm / 1000000;
}

/*
 * How many times span_seqs sequences the span beginning may last: twice
 * the last one's when that one ran its whole length and every QP runs
 * again at the rate it had in it (the same steady state, confirmed by a
 * sequence measured anew), once otherwise.
 */
static uint32_t span_longer(struct ff *f)
{
	int same = f->last_end == FF_END_LIMIT && f->n_runs == f->last_runs;

	for (uint32_t i = 0; i < f->n_runs; i++) {
		const struct ff_run *r = &f->runs[i];
		struct ff_qp *s = &f->qp[r->f->id];

		if (same && (s->rspan != f->st.spans || !same_rate(f, r->p, r->t, s->rp, s->rt)))
			same = 0;
		s->rp = r->p;
		s->rt = r->t;
		s->rspan = f->st.spans + 1;
	}
	f->last_runs = f->n_runs;
	if (!same)
		return 1;
	return f->longer < FF_LONGER_MAX ? 2 * f->longer : FF_LONGER_MAX;
}

static void span_begin(struct ff *f)
{
	struct net *n = f->net;
	simtime_t now = evq_now(f->q);
	int err;

	f->td = now;
	net_settle(n, now, evq_key_now(f->q));
	f->n_runs = 0;
	for (uint32_t i = 0; i < n->n_flows; i++) {
		struct flow *fl = &n->flows[i];
		struct ff_run *r;

		f->run_of[i] = 0;
		if (!f->qp[i].hi)
			continue;
		if (fl->snd_nxt != fl->epsn) { /* something was lost: not steady */
			abandon(f);
			return;
		}
		r = &f->runs[f->n_runs++];
		r->f = fl;
		r->x = fl->epsn;
		/* the rate between the packet sent last before the sequence and
		 * the one sent last before the hold; the windows' count if the
		 * sender's is not to be had: none sent before, or its last one
		 * a window or more before the sequence (it was not sending) */
		r->p = fl->snd_max - f->qp[i].snd0;
		r->t = fl->last_tx - f->qp[i].tx0;
		if (!r->p || !r->t || !f->qp[i].tx0 || f->qp[i].tx0 + f->prm.window < f->t0) {
			r->p = fl->epsn - f->qp[i].at0;
			r->t = f->th - f->t0;
		}
		r->ev = NULL;
		/* its deliveries go on from its last one, as they would have
		 * without the hold: the drain that followed (the last ACKs back,
		 * the look every FF_POLL) costs it nothing */
		r->b = fl->rx_at && fl->rx_at <= now ? fl->rx_at : now;
		r->jb = 0;
		r->pipe = topo_path_delay(n->topo, n->routes, fl->src, fl->dst, fl->hash,
					  n->p.nic.mtu + PKT_HEADER_BYTES + PKT_PREAMBLE_IFG_BYTES);
		if (r->pipe == SIMTIME_NEVER)
			r->pipe = 0;
		r->waited = 0;
		r->room = run_room(r);
		r->dry = run_dry(r);
		f->run_of[i] = f->n_runs;
	}
	if (!f->n_runs) {
		abandon(f);
		return;
	}
	ctr_save(f, f->sd);
	err = evq_hold(f->q, (1u << MCTX_KEY_PORT) | (1u << MCTX_KEY_FLOW), &f->held, &f->n_held);
	if (err) {
		mctx_fail(&n->ctx, err);
		return;
	}
	/* a flow's start is the workload's, not the network's: it stays */
	for (size_t i = 0; i < f->n_held;) {
		struct evq_timer *t = f->held[i];

		if ((t->key >> 60) == MCTX_KEY_FLOW &&
		    ((t->key >> 44) & 0xffff) == NIC_FLOW_START) {
			mctx_arm(&n->ctx, t, t->when);
			f->held[i] = f->held[--f->n_held];
		} else {
			i++;
		}
	}
	f->longer = span_longer(f);
	f->cap = now + (simtime_t)f->longer * f->prm.span_seqs * (f->th - f->t0);
	f->state = FF_SPAN;
	f->st.spans++;
	for (uint32_t i = 0; i < f->n_runs; i++)
		run_next(f, &f->runs[i]);
	arm_exit(f);
}

static void span_end(struct ff *f, simtime_t tx, enum ff_end_why why)
{
	struct net *n = f->net;
	simtime_t dt = tx - f->td, seq = f->th - f->ts, busy = dt;
	uint64_t min_p = UINT64_MAX, got = 0, rated = 0;
	simtime_t gap = 0;
	int waited = 0;

	evq_cancel(f->q, &f->exit);
	f->st.ends[why]++;
	f->last_end = why;
	for (uint32_t i = 0; i < f->n_runs; i++) {
		struct ff_run *r = &f->runs[i];
		struct flow *fl = r->f;
		/* without the span, the packets its timeline delivers within a
		 * path's latency of the end would be on their way: they count
		 * as delivered, and the next one, sent now, arrives when its
		 * timeline says */
		uint64_t k = run_done(r, tx + r->pipe), bytes;

		if (r->p < min_p)
			min_p = r->p;
		if (r->t / r->p > gap)
			gap = r->t / r->p;
		if (r->ev)
			evq_cancel(f->q, r->ev);
		r->ev = NULL;
		waited |= r->waited;
		rated += muldiv(dt, r->p, r->t);
		if (fl->coll && fl->rx_msg < fl->n_msgs) {
			/* short of the last packet of a message not completed yet */
			uint32_t last =
			    fl->msgs[fl->rx_msg].first_psn + fl->msgs[fl->rx_msg].n_psn - 1;

			if (k > last - r->x)
				k = last - r->x;
		}
		got += k;
		bytes = nic_ff_advance(fl, (uint32_t)k, n->p.nic.mtu);
		n->ctx.tot.sent_bytes += bytes;
		n->ctx.tot.received_bytes += bytes;
		n->ctx.tot.sent_packets += k;
		n->ctx.tot.received_packets += k;
		f->st.packets += k;
		f->run_of[fl->id] = 0;
	}
	/* QPs that waited for their data in the span sent less than their
	 * rates give: the counters move by the share they sent */
	if (waited && rated && got < rated)
		busy = muldiv(dt, got, rated);
	if (seq)
		for (size_t i = 0; i < f->n_ctr; i++)
			*f->ctr[i] = f->sd[i] + muldiv(f->sh[i] - f->s0[i], busy, seq);
	for (uint32_t i = 0; i < n->topo->n_ports; i++)
		port_shift(&n->ports[i], dt);
	for (uint32_t i = 0; i < n->topo->n_nodes; i++)
		if (n->switches[i])
			sw_shift(n->switches[i], dt);
	for (uint32_t h = 0; h < n->topo->n_hosts; h++)
		if (n->nics[h])
			nic_ff_shift(n->nics[h], dt);
	for (uint32_t i = 0; i < n->n_flows; i++)
		if (n->flows[i].nic)
			nic_ff_flow_shift(&n->flows[i], dt);
	for (size_t i = 0; i < f->n_held; i++)
		mctx_arm(&n->ctx, f->held[i], f->held[i]->when + dt);
	free(f->held);
	f->held = NULL;
	f->n_held = 0;
	f->n_runs = 0;
	f->st.skipped += dt;
	f->st.drained += f->td - f->th;
	/* a rate measured over p packets is known to about one of them */
	if (min_p != UINT64_MAX)
		f->st.rate_err += dt / min_p;
	/* and each end puts a QP's packets within one of their timeline */
	f->st.edge_err += 2 * gap;
	f->state = FF_WATCH;
	hold_nics(f, 0);
	seq_start(f, evq_now(f->q));
	mctx_arm(&n->ctx, &f->tick, evq_now(f->q) + f->prm.window);
}

/* ---- what the network tells it ------------------------------------------------------------ */

static void on_post(void *obj, struct flow *fl)
{
	struct ff *f = obj;
	struct ff_run *r;
	simtime_t old;

	switch (f->state) {
	case FF_WATCH:
		if (!evq_pending(f->q, &f->tick)) {
			seq_start(f, evq_now(f->q));
			mctx_arm(&f->net->ctx, &f->tick, evq_now(f->q) + f->prm.window);
		}
		return;
	case FF_DRAIN:
		if (!f->qp[fl->id].hi)
			abandon(f); /* a QP that was not sending starts */
		return;
	case FF_SPAN:
		if (!f->run_of[fl->id]) {
			span_end(f, evq_now(f->q), FF_END_POST);
			return;
		}
		r = &f->runs[f->run_of[fl->id] - 1];
		old = r->dry;
		if (r->f->coll && evq_now(f->q) >= r->dry) {
			/* it ran dry and waited: it goes on from now */
			r->jb = r->room;
			r->b = evq_now(f->q);
			r->waited = 1;
		}
		r->room = run_room(r);
		r->dry = run_dry(r);
		run_next(f, r);
		if (!r->f->coll) {
			if (old <= f->exit.when) /* it was the first to run dry */
				arm_exit(f);
		} else if (r->dry > f->coll_dry) {
			/* the last collective QP to run dry: the span lasts as
			 * long, within its other ends */
			old = f->coll_dry;
			f->coll_dry = r->dry;
			if (f->exit.when == old)
				mctx_arm(&f->net->ctx, &f->exit,
					 f->coll_dry < f->plain_dry ? f->coll_dry : f->plain_dry);
		}
		return;
	}
}

static void on_touch(void *obj)
{
	struct ff *f = obj;

	if (f->state == FF_DRAIN)
		abandon(f);
	else if (f->state == FF_SPAN)
		span_end(f, evq_now(f->q), FF_END_TOUCH);
}

struct ff *ff_new(struct net *n, const struct ff_params *p)
{
	struct ff *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->net = n;
	f->q = n->ctx.q;
	f->prm = *p;
	f->n_ctr = ctr_list(f, NULL);
	f->ctr = malloc(f->n_ctr * sizeof(*f->ctr));
	f->s0 = malloc(3 * f->n_ctr * sizeof(*f->s0));
	f->qp = calloc(n->n_flows ? n->n_flows : 1, sizeof(*f->qp));
	f->run_of = calloc(n->n_flows ? n->n_flows : 1, sizeof(*f->run_of));
	f->runs = calloc(n->n_flows ? n->n_flows : 1, sizeof(*f->runs));
	if (!f->ctr || !f->s0 || !f->qp || !f->run_of || !f->runs) {
		ff_free(f);
		return NULL;
	}
	f->sh = f->s0 + f->n_ctr;
	f->sd = f->sh + f->n_ctr;
	ctr_list(f, f->ctr);
	evq_timer_init(&f->tick, on_tick, f, evq_key(MCTX_KEY_RUN, 0, 2));
	evq_timer_init(&f->exit, on_exit, f, evq_key(MCTX_KEY_RUN, 0, 3));
	seq_start(f, evq_now(f->q));
	if (evq_arm(f->q, &f->tick, evq_now(f->q) + f->prm.window)) {
		ff_free(f);
		return NULL;
	}
	n->ctx.ff = f;
	n->ctx.ff_post = on_post;
	n->ctx.ff_touch = on_touch;
	return f;
}

void ff_end(struct ff *f, simtime_t t)
{
	if (f->state == FF_SPAN)
		span_end(f, t, FF_END_RUN);
	else if (f->state == FF_DRAIN)
		abandon(f);
	evq_cancel(f->q, &f->tick);
}

const struct ff_stats *ff_stats(const struct ff *f)
{
	return &f->st;
}

void ff_free(struct ff *f)
{
	if (!f)
		return;
	if (f->net->ctx.ff == f)
		f->net->ctx.ff = NULL;
	evq_cancel(f->q, &f->tick);
	evq_cancel(f->q, &f->exit);
	free(f->held);
	free(f->ctr);
	free(f->s0);
	free(f->qp);
	free(f->run_of);
	free(f->runs);
	free(f);
}
