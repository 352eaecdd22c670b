/*
 * Fast-forward: the counters a span moves, the detector, the drain and what
 * the network tells it (see ff.h; the span itself is in ff_span.c).
 */
#include "models/ff_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/checked.h"
#include "models/link.h"
#include "models/mctx.h"
#include "models/net.h"
#include "models/nic.h"
#include "models/switch.h"
void ff_params_default(struct ff_params *p)
{
	p->enabled = 1; /* on by default: every experiment holds both ways */
	p->tolerance_ppm = 10000;
	p->window = 20 * SIMTIME_US;
	p->windows = 3;
	p->span_seqs = 64;
	p->stop = 0;
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
	/* what packets did on the ports they crossed, counted exactly
	 * (ff_traffic.c), is not here */
	C(n->ctx.tot.ecn_marked);
	C(n->ctx.tot.cnp_sent);
	C(n->ctx.tot.cnp_handled);
	for (uint32_t i = 0; i < n->topo->n_ports; i++) {
		struct port *p = &n->ports[i];

		for (int prio = 0; prio < PKT_PRIORITIES; prio++) {
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

/* ---- the detector ---------------------------------------------------------------------- */

/*
 * Whether a fault strikes before a span could pay, or a fault that loses
 * or stops packets (a link or node down, a PFC storm) is still to strike.
 * A hold and its drain change which packets are where when one strikes.
 * And what a loss drops, with the timeouts that follow, depends on the
 * traffic's exact phase then (how much each QP has posted and not sent),
 * which a span before it moves by up to its error: the seed cluster losing
 * spine0 at 10 ms dropped 10,986 lossless packets after two spans, 11,738
 * packet by packet. A link's new rate, or a link back up, stops no
 * packet by itself (a slower link may tail-drop a lossy class:
 * --verify-fast-forward compares drops).
 */
static int fault_near(const struct ff *f, simtime_t now)
{
	simtime_t room = 2 * f->drain_max + (simtime_t)f->prm.windows * f->prm.window;

	for (uint32_t i = 0; i < f->net->p.n_faults; i++) {
		const struct net_fault *x = &f->net->p.faults[i];

		if (x->at >= now && ff__strikes(f, x->at) &&
		    (x->at - now < room || x->kind == NET_FAULT_LINK_DOWN ||
		     x->kind == NET_FAULT_PFC_STORM))
			return 1;
	}
	return 0;
}

/* Whether DCQCN rates @a and @b agree within the tolerance. */
static int same_level(const struct ff *f, uint64_t a, uint64_t b)
{
	uint64_t d = a > b ? a - b : b - a;

	return (ck_u128)d * 1000000 <= (ck_u128)b * f->prm.tolerance_ppm;
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
		/* a QP with so few packets a window that one is more than the
		 * tolerance: its count cannot tell a slow climb (DCQCN raising
		 * it by R_AI a period) from a level; its rate must hold */
		if (!slack && !same_level(f, fl->rp.rc, s->rc0))
			steady = 0;
		/* below its line rate, DCQCN raises a QP's rate every period
		 * until a CNP cuts it: a sawtooth, or a slow climb (R_AI a
		 * period) that looks level within a sequence and goes on for
		 * milliseconds. A span would keep it where it was: the paper
		 * DCQCN 2:1 incast at 40G delivered 8.9% less by 100 ms, with
		 * 13 ECN marks where the packet run had 371 */
		if (fl->rp.rc < fl->rp.line_rate && !same_level(f, fl->rp.rc, fl->rp.line_rate))
			steady = 0;
	}
	return steady;
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
static int backlogged(const struct ff *f, simtime_t now)
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
		/* a flow's QP that runs dry within two drains: the span would
		 * end about where it began, and the hold cost more than it
		 * saves (a 2:1 incast over 2 km, 27 packets from its end: an
		 * empty span, its FCT 8.5% late) */
		if (!fl->coll && (ck_u128)(fl->n_psn - fl->snd_nxt) * (now - f->t0) <
				     (ck_u128)(fl->epsn - s->at0) * 2 * f->drain_max)
			return 0;
		sent = fl->snd_max - s->snd0;
		got = fl->epsn - s->at0;
		slack = (uint64_t)got * f->prm.tolerance_ppm / 1000000;
		if ((sent > got ? sent - got : got - sent) > (slack > 2 ? slack : 2))
			return 0;
	}
	return 1;
}

/*
 * Whether every QP that delivered in the sequence was counted on enough
 * packets for its rate to be known within the tolerance: a rate counted
 * on p packets is known to about one of them, and a span extrapolates it
 * over up to FF_LONGER_MAX x span_seqs sequences (an 8-host ring's QPs,
 * 45 packets a sequence, ran 0.3% slow over 38 ms of spans).
 */
static int counted(const struct ff *f)
{
	uint64_t need = 1000000 / (f->prm.tolerance_ppm ? f->prm.tolerance_ppm : 1);

	for (uint32_t i = 0; i < f->net->n_flows; i++) {
		const struct ff_qp *s = &f->qp[i];

		if (s->hi && f->net->flows[i].epsn - s->at0 < need)
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
			ff__span_begin(f);
			return;
		}
		if (now - f->th > f->drain_max) {
			ff__abandon(f);
			return;
		}
		mctx_arm(&f->net->ctx, &f->tick, now + FF_POLL);
		return;
	}
	if (!seq_add(f, &active)) {
		ff__seq_start(f, now);
	} else if (!f->ts && f->n_windows + 1 >= f->prm.windows) {
		/* a window from a hold: the counters' rates are taken from here
		 * (saving them all each window would cost a large fabric more
		 * than a window of its packets) */
		ff__ctr_save(f, f->s0);
		f->ts = now;
		for (uint32_t i = 0; i < f->net->n_flows; i++)
			f->qp[i].at_s = f->net->flows[i].epsn;
	} else if (active && f->n_windows >= f->prm.windows && settled(f, now) &&
		   backlogged(f, now) && counted(f) && !fault_near(f, now)) {
		f->th = now;
		ff__ctr_save(f, f->sh);
		for (uint32_t i = 0; i < f->net->n_flows; i++)
			f->qp[i].at_h = f->net->flows[i].epsn;
		ff__hold_nics(f, 1);
		f->state = FF_DRAIN;
		mctx_arm(&f->net->ctx, &f->tick, now + FF_POLL);
		return;
	} else if (!active && !f->net->ctx.pool.live) {
		return; /* nothing moves: the next message posted wakes it */
	}
	mctx_arm(&f->net->ctx, &f->tick, now + f->prm.window);
}
/* ---- what the network tells it ------------------------------------------------------------ */

/*
 * A message posted on collective QP @fl while watching: if it had sent all
 * it had, it waited from when it could have sent its next packet (its
 * last one's time on the wire at line rate after it) until now.
 */
static void add_wait(struct ff *f, const struct flow *fl)
{
	struct ff_qp *s = &f->qp[fl->id];
	uint32_t before = fl->n_psn - fl->msgs[fl->n_msgs - 1].n_psn;
	simtime_t now = evq_now(f->q), ready;

	if (fl->snd_nxt < before || !fl->last_tx || !fl->rp.line_rate)
		return;
	ready = fl->last_tx + simtime_tx(fl->last_wire, fl->rp.line_rate);
	if (now <= ready)
		return;
	s->wait_last = now - ready;
	s->wait_at = now;
	s->wait += s->wait_last;
}

static void on_post(void *obj, struct flow *fl)
{
	struct ff *f = obj;

	switch (f->state) {
	case FF_WATCH:
		if (!evq_pending(f->q, &f->tick)) {
			ff__seq_start(f, evq_now(f->q));
			mctx_arm(&f->net->ctx, &f->tick, evq_now(f->q) + f->prm.window);
		}
		if (fl->coll)
			add_wait(f, fl);
		return;
	case FF_DRAIN:
		if (!f->qp[fl->id].hi)
			ff__abandon(f); /* a QP that was not sending starts */
		return;
	case FF_SPAN:
		ff__span_post(f, fl);
		return;
	}
}

static void on_touch(void *obj)
{
	struct ff *f = obj;

	if (f->state == FF_DRAIN)
		ff__abandon(f);
	else if (f->state == FF_SPAN)
		ff__span_end(f, evq_now(f->q), FF_END_TOUCH);
}

/*
 * How long a hold may wait for the network to drain: a window, and the
 * longest way a flow's data and its ACK take on the empty network (a
 * long cable takes more than a window: its holds were all given up).
 */
static simtime_t drain_max(const struct net *n, simtime_t window)
{
	simtime_t most = 0;

	for (uint32_t i = 0; i < n->n_flows; i++) {
		simtime_t there = ff__path(n, &n->flows[i], 0), back = ff__path(n, &n->flows[i], 1);

		if (there != SIMTIME_NEVER && back != SIMTIME_NEVER && there + back > most)
			most = there + back;
	}
	return window + most;
}

struct ff *ff_new(struct net *n, const struct ff_params *p)
{
	struct ff *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->net = n;
	f->q = n->ctx.q;
	f->prm = *p;
	f->drain_max = drain_max(n, p->window);
	f->n_ctr = ctr_list(f, NULL);
	f->ctr = malloc(f->n_ctr * sizeof(*f->ctr));
	f->s0 = malloc(3 * f->n_ctr * sizeof(*f->s0));
	f->qp = calloc(n->n_flows ? n->n_flows : 1, sizeof(*f->qp));
	f->run_of = calloc(n->n_flows ? n->n_flows : 1, sizeof(*f->run_of));
	f->runs = calloc(n->n_flows ? n->n_flows : 1, sizeof(*f->runs));
	f->load = calloc(n->topo->n_ports ? n->topo->n_ports : 1, sizeof(*f->load));
	f->order = calloc(n->n_flows ? n->n_flows : 1, sizeof(*f->order));
	f->path = calloc(n->topo->n_ports ? n->topo->n_ports : 1, sizeof(*f->path));
	f->path_tc = calloc(n->topo->n_ports ? n->topo->n_ports : 1, sizeof(*f->path_tc));
	if (!f->ctr || !f->s0 || !f->qp || !f->run_of || !f->runs || !f->load || !f->order ||
	    !f->path || !f->path_tc) {
		ff_free(f);
		return NULL;
	}
	f->sh = f->s0 + f->n_ctr;
	f->sd = f->sh + f->n_ctr;
	ctr_list(f, f->ctr);
	evq_timer_init(&f->tick, on_tick, f, evq_key(MCTX_KEY_RUN, 0, 2));
	evq_timer_init(&f->exit, ff__on_exit, f, evq_key(MCTX_KEY_RUN, 0, 3));
	ff__seq_start(f, evq_now(f->q));
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
		ff__span_end(f, t, FF_END_RUN);
	else if (f->state == FF_DRAIN)
		ff__abandon(f);
	evq_cancel(f->q, &f->tick);
}

const struct ff_stats *ff_stats(const struct ff *f)
{
	return &f->st;
}

enum ff_phase ff_phase(const struct ff *f)
{
	return f->state == FF_SPAN    ? FF_PHASE_SPAN
	       : f->state == FF_DRAIN ? FF_PHASE_DRAIN
				      : FF_PHASE_WATCH;
}

simtime_t ff_seq_t0(const struct ff *f)
{
	return f->t0;
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
	free(f->load);
	free(f->order);
	free(f->path);
	free(f->path_tc);
	free(f);
}
