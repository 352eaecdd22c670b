/*
 * Fast-forward's span (see ff.h): each QP advanced on its timeline, its
 * messages completing as it says, and the span's end, where QPs, counters
 * and timers move on by its length.
 */
#include <stdlib.h>
#include <string.h>

#include "models/ff_impl.h"
#include "models/net.h"
#include "models/nic.h"
#include "models/switch.h"

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
static void run_next(struct ff_group *f, struct ff_run *r)
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
static simtime_t exit_time(struct ff_group *f)
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

static void arm_exit(struct ff_group *f)
{
	simtime_t t = exit_time(f), now = evq_now(f->q);

	mctx_arm(&f->net->ctx, &f->exit, t > now ? t : now);
}

static void on_msg(void *obj, uint64_t arg)
{
	struct ff_group *f = obj;
	struct ff_run *r = &f->runs[arg];
	struct flow *fl = r->f;

	r->ev = NULL; /* back in the pool already */
	f->st.messages++;
	nic_ff_msg_done(f->net->nics[fl->dst], fl, evq_now(f->q));
	if (f->state == FF_SPAN)
		run_next(f, r);
}

void ff__on_exit(void *obj, uint64_t arg)
{
	struct ff_group *f = obj;

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
	ff__span_end(f, now, now >= f->cap ? FF_END_LIMIT : FF_END_DRY);
}

/* Whether rates @p/@t and @q/@u agree within the tolerance. */
static int same_rate(const struct ff_group *f, uint64_t p, simtime_t t, uint64_t q, simtime_t u)
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
static uint32_t span_longer(struct ff_group *f)
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

static int by_coll(const void *a, const void *b)
{
	const struct ff_run *x = *(const struct ff_run *const *)a,
			    *y = *(const struct ff_run *const *)b;
	uintptr_t p = (uintptr_t)x->f->coll, q = (uintptr_t)y->f->coll;

	return p < q ? -1 : p > q;
}

/*
 * One rate for the QPs of a collective: their packets over their times.
 * A ring goes at its slowest QP's pace: each QP measured on its own, to a
 * packet, made the others wait for it in the span, where in the network a
 * waiting QP's share of its port goes to the others.
 */
static void pool_rates(struct ff_group *f)
{
	struct ff_run **o = f->order;
	uint32_t i = 0;

	for (uint32_t k = 0; k < f->n_runs; k++)
		o[k] = &f->runs[k];
	qsort(o, f->n_runs, sizeof(*o), by_coll);
	while (i < f->n_runs) {
		uint32_t j = i;
		ck_u128 p = 0, t = 0;

		while (j < f->n_runs && o[j]->f->coll == o[i]->f->coll) {
			p += o[j]->p;
			t += o[j]->t;
			j++;
		}
		if (o[i]->f->coll && j - i > 1)
			for (uint32_t k = i; k < j; k++) {
				o[k]->t = (simtime_t)(t * o[k]->p / p);
				o[k]->dry = run_dry(o[k]);
			}
		i = j;
	}
}

/* The longest path the line-rate cap looks along; a longer one is not
 * capped beyond its first hops. */
#define FF_PATH_MAX 32

/* The bits/s run @r puts on the wire: its packets at the mean frame its
 * QP has posted, and with @ack, the ACKs they bring back. */
static uint64_t run_bps(const struct net *n, const struct ff_run *r, int ack)
{
	uint64_t frame = PKT_ACK_FRAME_BYTES + PKT_PREAMBLE_IFG_BYTES, per = n->p.nic.ack_every;

	if (!ack) {
		frame = r->f->n_psn ? r->f->bytes / r->f->n_psn : n->p.nic.mtu;
		frame += PKT_HEADER_BYTES + PKT_PREAMBLE_IFG_BYTES;
		per = 1;
	}
	return (uint64_t)((ck_u128)r->p * frame * 8 * SIMTIME_S /
			  ((ck_u128)r->t * (per ? per : 1)));
}

/*
 * No port carries more than its line rate in a span: the rates are
 * measured to about a packet, and QPs sharing a port at line rate may add
 * up to a little over it (the 8-host ring AllGather: 100.27 Gb/s on a
 * 100G port, faster than the wire). The QPs through such a port slow by
 * as much as its busiest port is over.
 */
static void cap_rates(struct ff_group *f)
{
	const struct net *n = f->net;
	uint32_t pt[FF_PATH_MAX], k;

	for (uint32_t i = 0; i < f->n_runs; i++)
		for (int back = 0; back <= 1; back++) {
			uint64_t bps = run_bps(n, &f->runs[i], back);

			k = ff__path_ports(n, f->runs[i].f, back, pt, FF_PATH_MAX);
			for (uint32_t j = 0; j < k; j++)
				f->load[pt[j]] += bps;
		}
	for (uint32_t i = 0; i < f->n_runs; i++) {
		struct ff_run *r = &f->runs[i];
		uint64_t over = 1000000; /* ppm of the line rate */

		k = ff__path_ports(n, r->f, 0, pt, FF_PATH_MAX);
		for (uint32_t j = 0; j < k; j++) {
			uint64_t rate = n->topo->links[n->topo->ports[pt[j]].link].rate_bps;

			if (rate && f->load[pt[j]] > rate &&
			    muldiv(f->load[pt[j]], 1000000, rate) > over)
				over = muldiv(f->load[pt[j]], 1000000, rate);
		}
		if (over > 1000000) {
			r->t = (simtime_t)(((ck_u128)r->t * over + 999999) / 1000000);
			r->dry = run_dry(r);
			f->st.capped++;
		}
	}
	memset(f->load, 0, n->topo->n_ports * sizeof(*f->load));
}

/* Whether a timer of key @key is one of group @ctx's ports' or QPs'. */
static int in_group(void *ctx, uint64_t key)
{
	const struct ff_group *f = ctx;
	uint64_t id = key & ((1ULL << 44) - 1);

	switch (key >> 60) {
	case MCTX_KEY_PORT:
		return id < f->net->topo->n_ports && f->set->port_group[id] == f->id;
	case MCTX_KEY_FLOW:
		return id < f->net->n_flows && f->set->flow_group[id] == f->id;
	default:
		return 0;
	}
}

/* The run's totals its NICs and ports count too: ECN marks, CNPs sent
 * and handled, added into @c[3]. */
static void group_totals(const struct ff_group *f, uint64_t *c)
{
	const struct net *n = f->net;

	for (uint32_t j = 0; j < f->np; j++)
		for (int prio = 0; prio < PKT_PRIORITIES; prio++)
			c[0] += n->ports[f->ports[j]].qcount[prio].ecn_marked;
	for (uint32_t j = 0; j < f->nh; j++) {
		const struct nic_counters *k = nic_ff_counters(n->nics[f->hosts[j]]);

		c[1] += k->np_cnp_sent;
		c[2] += k->rp_cnp_handled;
	}
}

void ff__span_begin(struct ff_group *f)
{
	struct net *n = f->net;
	simtime_t now = evq_now(f->q);
	int err;

	f->td = now;
	for (uint32_t j = 0; j < f->np; j++)
		port_settle(&n->ports[f->ports[j]], now, evq_key_now(f->q));
	f->n_runs = 0;
	for (uint32_t j = 0; j < f->nf; j++) {
		uint32_t i = f->flows[j];
		struct flow *fl = &n->flows[i];
		struct ff_run *r;

		f->run_of[i] = 0;
		if (!f->qp[i].hi)
			continue;
		if (fl->snd_nxt != fl->epsn) { /* something was lost: not steady */
			ff__abandon(f);
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
		} else if (fl->coll) {
			/* its rate while it had something to send: in the span
			 * it waits for its messages itself */
			simtime_t w = f->qp[i].wait;

			if (f->qp[i].wait_at > fl->last_tx)
				w -= f->qp[i].wait_last; /* it sent nothing after */
			if (w < r->t)
				r->t -= w;
		}
		r->ev = NULL;
		/* its deliveries go on from its last one, as they would have
		 * without the hold: the drain that followed (the last ACKs back,
		 * the look every FF_POLL) costs it nothing */
		r->b = fl->rx_at && fl->rx_at <= now ? fl->rx_at : now;
		r->jb = 0;
		r->pipe = ff__path(n, fl, 0);
		if (r->pipe == SIMTIME_NEVER)
			r->pipe = 0;
		r->waited = 0;
		r->room = run_room(r);
		r->dry = run_dry(r);
		f->run_of[i] = f->n_runs;
	}
	if (!f->n_runs) {
		ff__abandon(f);
		return;
	}
	pool_rates(f);
	cap_rates(f);
	ff__ctr_save(f, f->sd);
	err = f->whole ? evq_hold(f->q, (1u << MCTX_KEY_PORT) | (1u << MCTX_KEY_FLOW), &f->held,
				  &f->n_held)
		       : evq_hold_if(f->q, in_group, f, &f->held, &f->n_held);
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
	/* packets flow again a drain's time before a fault, as they would be
	 * without the span when it strikes */
	for (uint32_t i = 0; i < n->p.n_faults; i++) {
		simtime_t at = n->p.faults[i].at;

		if (at > now && at - f->drain_max < f->cap && ff__strikes(f, at))
			f->cap = at > now + f->drain_max ? at - f->drain_max : now;
	}
	f->state = FF_SPAN;
	f->st.spans++;
	for (uint32_t i = 0; i < f->n_runs; i++)
		run_next(f, &f->runs[i]);
	arm_exit(f);
}

void ff__span_end(struct ff_group *f, simtime_t tx, enum ff_end_why why)
{
	struct net *n = f->net;
	simtime_t dt = tx - f->td, seq = f->th - f->ts, busy = dt;
	uint64_t min_p = UINT64_MAX, got = 0, rated = 0;
	simtime_t gap = 0;
	uint64_t tot0[3] = {0}, tot1[3] = {0};
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
		ff__traffic_run(f, fl, (uint32_t)k);
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
	ff__traffic_save(f);
	if (!f->whole) /* the run's totals move as its own counters do */
		group_totals(f, tot0);
	if (seq)
		for (size_t i = 0; i < f->n_ctr; i++)
			*f->ctr[i] = f->sd[i] + muldiv(f->sh[i] - f->s0[i], busy, seq);
	if (!f->whole) {
		group_totals(f, tot1);
		n->ctx.tot.ecn_marked += tot1[0] - tot0[0];
		n->ctx.tot.cnp_sent += tot1[1] - tot0[1];
		n->ctx.tot.cnp_handled += tot1[2] - tot0[2];
	}
	ff__traffic_ctrl(f);
	for (uint32_t j = 0; j < f->np; j++) {
		uint32_t i = f->ports[j];
		const struct topo_port *tp = &n->topo->ports[i];

		port_shift(&n->ports[i], dt);
		if (n->switches[tp->node])
			sw_shift_port(n->switches[tp->node],
				      i - n->topo->nodes[tp->node].first_port, dt);
	}
	for (uint32_t j = 0; j < f->nh; j++)
		nic_ff_shift(n->nics[f->hosts[j]], dt);
	for (uint32_t j = 0; j < f->nf; j++)
		if (n->flows[f->flows[j]].nic)
			nic_ff_flow_shift(&n->flows[f->flows[j]], dt);
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
	ff__hold_nics(f, 0);
	ff__seq_start(f, evq_now(f->q));
	mctx_arm(&n->ctx, &f->tick, evq_now(f->q) + f->prm.window);
}

/* A message posted on @fl during a span: its QP has more room, or, if it
 * was not sending, the span ends. */
void ff__span_post(struct ff_group *f, struct flow *fl)
{
	struct ff_run *r;
	simtime_t old;

	if (!f->run_of[fl->id]) {
		ff__span_end(f, evq_now(f->q), FF_END_POST);
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
}
