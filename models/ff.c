/*
 * Fast-forward: the counters a span moves, the detector, the drain and what
 * the network tells it (see ff.h; the span itself is in ff_span.c).
 */
#include "models/ff_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/checked.h"
#include "sim/engine/unionfind.h"
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
	p->groups = 0;
}

/* ---- the counters a span extrapolates ------------------------------------------- */

static size_t ctr_list(struct ff_group *f, uint64_t **out)
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
	if (f->whole) { /* a group's move with its ports' and NICs' (ff_span.c) */
		C(n->ctx.tot.ecn_marked);
		C(n->ctx.tot.cnp_sent);
		C(n->ctx.tot.cnp_handled);
	}
	for (uint32_t j = 0; j < f->np; j++) {
		struct port *p = &n->ports[f->ports[j]];

		for (int prio = 0; prio < PKT_PRIORITIES; prio++) {
			C(p->qcount[prio].ecn_marked);
			C(p->pfc[prio].tx_pause);
			C(p->pfc[prio].tx_resume);
			C(p->pfc[prio].rx_pause);
			C(p->pfc[prio].rx_resume);
			C(p->pfc[prio].paused_time);
		}
	}
	for (uint32_t j = 0; j < f->nh; j++) {
		struct nic_counters *c = nic_ff_counters(n->nics[f->hosts[j]]);

		C(c->np_ecn_marked_roce_packets);
		C(c->np_cnp_sent);
		C(c->rp_cnp_handled);
		C(c->rp_cnp_ignored);
	}
	for (uint32_t j = 0; j < f->nf; j++) {
		C(n->flows[f->flows[j]].rp.cnp_handled);
		C(n->flows[f->flows[j]].rp.cuts);
		C(n->flows[f->flows[j]].rp.increases);
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
static int fault_near(const struct ff_group *f, simtime_t now)
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
static int same_level(const struct ff_group *f, uint64_t a, uint64_t b)
{
	uint64_t d = a > b ? a - b : b - a;

	return (ck_u128)d * 1000000 <= (ck_u128)b * f->prm.tolerance_ppm;
}

/* Add the window that ends now; whether every QP stayed steady in the
 * sequence, and in *@active whether one delivered anything. */
static int seq_add(struct ff_group *f, int *active)
{
	int steady = 1;

	*active = 0;
	f->n_windows++;
	for (uint32_t j = 0; j < f->nf; j++) {
		uint32_t i = f->flows[j];
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

/* Whether no packet is anywhere in @f: queued, being sent, on a wire. */
static int no_packet(const struct ff_group *f)
{
	const struct net *n = f->net;

	if (f->whole)
		return !n->ctx.pool.live;
	for (uint32_t j = 0; j < f->np; j++) {
		const struct port *p = &n->ports[f->ports[j]];

		if (p->nonempty || p->tx_pkt || port_wire_head(p) || p->ctrl.head)
			return 0;
	}
	return 1;
}

static int network_empty(const struct ff_group *f)
{
	const struct net *n = f->net;

	if (!no_packet(f))
		return 0;
	for (uint32_t j = 0; j < f->np; j++)
		if (n->ports[f->ports[j]].paused)
			return 0;
	return 1;
}

/*
 * Whether the sequence is long enough: while DCQCN reacts (CNPs handled in
 * the sequence, or a QP below its line rate, which its timer raises each
 * period), its rates move over its timer periods, and a sequence shorter
 * than `windows` of them would take a slope or a tooth for a level.
 */
static int settled(const struct ff_group *f, simtime_t now)
{
	const struct net *n = f->net;
	simtime_t period = (simtime_t)n->p.nic.dcqcn.rp_time_reset * SIMTIME_US;

	int reacting = ff__cnp_handled(f) != f->cnp0;

	/* a QP below its line rate has its rate raised at each period */
	for (uint32_t j = 0; j < f->nf && !reacting; j++) {
		uint32_t i = f->flows[j];

		if (f->qp[i].hi && n->flows[i].rp.rc < n->flows[i].rp.line_rate)
			reacting = 1;
	}
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
static int backlogged(const struct ff_group *f, simtime_t now)
{
	for (uint32_t j = 0; j < f->nf; j++) {
		uint32_t i = f->flows[j];
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
static int counted(const struct ff_group *f)
{
	uint64_t need = 1000000 / (f->prm.tolerance_ppm ? f->prm.tolerance_ppm : 1);

	for (uint32_t j = 0; j < f->nf; j++) {
		uint32_t i = f->flows[j];
		const struct ff_qp *s = &f->qp[i];

		if (s->hi && f->net->flows[i].epsn - s->at0 < need)
			return 0;
	}
	return 1;
}

/*
 * Whether a span's small error would not stay small: its QPs react to
 * congestion (DCQCN) and flows are still to start among them.
 * Arriving flows that react to congestion amplify a timing difference
 * of nanoseconds into another order of who gets the bandwidth: on 8
 * hosts exchanging WebSearch flows at 20% load over DCQCN, 12 spans of
 * 55 us each (3.3% of the run, error estimate 0.04%) moved the FCTs'
 * p99 by -9.5% and their max by +7%, and by up to 26% with other seeds,
 * with individual flows' FCTs by up to 700 us; and a single span of
 * 30 us, before any CNP, moved a 60 MB flow's end beside WebSearch
 * arrivals by -4.1%. Such runs are not skipped until their last flow
 * has started.
 */
static int chaotic(const struct ff_group *f)
{
	const struct net *n = f->net;

	int reacts = 0;

	for (uint32_t j = 0; j < f->nh && !reacts; j++)
		reacts = nic_ff_dcqcn(n->nics[f->hosts[j]]);
	if (!reacts)
		return 0;
	for (uint32_t j = 0; j < f->nf && f->flows[j] < n->n_wl_flows; j++)
		if (evq_pending(f->q, &n->flows[f->flows[j]].start_timer))
			return 1;
	return 0;
}

static void on_tick(void *obj, uint64_t arg)
{
	struct ff_group *f = obj;
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
		for (uint32_t j = 0; j < f->nf; j++)
			f->qp[f->flows[j]].at_s = f->net->flows[f->flows[j]].epsn;
	} else if (active && f->n_windows >= f->prm.windows && settled(f, now) &&
		   backlogged(f, now) && counted(f) && !fault_near(f, now) && !chaotic(f)) {
		f->th = now;
		ff__ctr_save(f, f->sh);
		for (uint32_t j = 0; j < f->nf; j++)
			f->qp[f->flows[j]].at_h = f->net->flows[f->flows[j]].epsn;
		ff__hold_nics(f, 1);
		f->state = FF_DRAIN;
		mctx_arm(&f->net->ctx, &f->tick, now + FF_POLL);
		return;
	} else if (!active && no_packet(f)) {
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
static void add_wait(struct ff_group *f, const struct flow *fl)
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
	struct ff *set = obj;
	struct ff_group *f;

	if (set->flow_group[fl->id] == UINT32_MAX)
		return;
	f = set->g[set->flow_group[fl->id]];
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

/* A fault, a storm: every group's steady state may end. */
static void on_touch(void *obj)
{
	struct ff *set = obj;

	for (uint32_t g = 0; g < set->n_groups; g++) {
		struct ff_group *f = set->g[g];

		if (f->state == FF_DRAIN)
			ff__abandon(f);
		else if (f->state == FF_SPAN)
			ff__span_end(f, evq_now(f->q), FF_END_TOUCH);
	}
}

/*
 * How long a hold may wait for the network to drain: a window, and the
 * longest way a flow's data and its ACK take on the empty network (a
 * long cable takes more than a window: its holds were all given up).
 */
static simtime_t drain_max(const struct ff_group *f, simtime_t window)
{
	const struct net *n = f->net;
	simtime_t most = 0;

	for (uint32_t j = 0; j < f->nf; j++) {
		const struct flow *fl = &n->flows[f->flows[j]];
		simtime_t there = ff__path(n, fl, 0), back = ff__path(n, fl, 1);

		if (there != SIMTIME_NEVER && back != SIMTIME_NEVER && there + back > most)
			most = there + back;
	}
	return window + most;
}

static void group_free(struct ff_group *f)
{
	if (!f)
		return;
	evq_cancel(f->q, &f->tick);
	evq_cancel(f->q, &f->exit);
	free(f->held);
	free(f->ctr);
	free(f->s0);
	free(f->runs);
	free(f->flows);
	free(f);
}

/* Group @id of @set, its lists filled by the caller, made ready to watch;
 * 0 or -ENOMEM. */
static int group_start(struct ff *set, struct ff_group *f)
{
	struct net *n = set->net;

	f->set = set;
	f->net = n;
	f->q = n->ctx.q;
	f->prm = set->prm;
	f->qp = set->qp;
	f->run_of = set->run_of;
	f->load = set->load;
	f->order = set->order;
	f->path = set->path;
	f->path_tc = set->path_tc;
	f->drain_max = drain_max(f, f->prm.window);
	f->n_ctr = ctr_list(f, NULL);
	f->ctr = malloc((f->n_ctr ? f->n_ctr : 1) * sizeof(*f->ctr));
	f->s0 = malloc(3 * (f->n_ctr ? f->n_ctr : 1) * sizeof(*f->s0));
	f->runs = calloc(f->nf ? f->nf : 1, sizeof(*f->runs));
	if (!f->ctr || !f->s0 || !f->runs)
		return -ENOMEM;
	f->sh = f->s0 + f->n_ctr;
	f->sd = f->sh + f->n_ctr;
	ctr_list(f, f->ctr);
	evq_timer_init(&f->tick, on_tick, f, evq_key(MCTX_KEY_RUN, f->id, 2));
	evq_timer_init(&f->exit, ff__on_exit, f, evq_key(MCTX_KEY_RUN, f->id, 3));
	ff__seq_start(f, evq_now(f->q));
	return evq_arm(f->q, &f->tick, evq_now(f->q) + f->prm.window);
}

/* A host's port (a topology host is one NIC port). */
static uint32_t host_port(const struct topo *t, uint32_t h)
{
	return t->nodes[t->hosts[h]].first_port;
}

/*
 * The groups: QPs joined wherever their data, ACKs or CNPs cross one
 * link (either way: PAUSE frames go back along it) or one switch (its
 * shared buffer, whose drops and thresholds depend on every port's
 * queues, and its one stream of ECN marking draws), with the links and
 * the NICs at their ends. Into set->port_group and set->flow_group; the
 * count, or 0 when out of memory.
 */
static uint32_t find_groups(struct ff *set)
{
	struct net *n = set->net;
	const struct topo *t = n->topo;
	uint32_t *up = malloc((t->n_ports ? t->n_ports : 1) * sizeof(*up));
	uint32_t *root_group = malloc((t->n_ports ? t->n_ports : 1) * sizeof(*root_group));
	uint32_t *at = malloc((t->n_nodes ? t->n_nodes : 1) * sizeof(*at));
	uint32_t k = 0;

	if (!up || !root_group || !at) {
		free(up);
		free(root_group);
		free(at);
		return 0;
	}
	for (uint32_t p = 0; p < t->n_ports; p++) {
		up[p] = p;
		root_group[p] = UINT32_MAX;
	}
	for (uint32_t u = 0; u < t->n_nodes; u++)
		at[u] = UINT32_MAX; /* a port of switch u some path crosses */
	for (uint32_t p = 0; p < t->n_ports; p++)
		uf_join(up, p, n->ports[p].peer ? n->ports[p].peer->id : p);
	for (uint32_t i = 0; i < n->n_flows; i++) {
		const struct flow *fl = &n->flows[i];
		uint32_t a = host_port(t, fl->src);

		uf_join(up, a, host_port(t, fl->dst));
		for (int back = 0; back <= 1; back++) {
			uint32_t m = ff__path_ports(n, fl, back, set->path, t->n_ports);

			for (uint32_t j = 0; j < m; j++) {
				uint32_t x = set->path[j],
					 y = n->ports[x].peer ? n->ports[x].peer->id : x;
				uint32_t ux = t->ports[x].node, uy = t->ports[y].node;

				uf_join(up, a, x);
				/* a switch's buffer and its ECN marking draws are
				 * shared by its ports: the paths through it join */
				if (n->switches[ux])
					uf_join(up, x,
						at[ux] == UINT32_MAX ? (at[ux] = x) : at[ux]);
				if (n->switches[uy])
					uf_join(up, y,
						at[uy] == UINT32_MAX ? (at[uy] = y) : at[uy]);
			}
		}
	}
	for (uint32_t i = 0; i < n->n_flows; i++) {
		uint32_t r = uf_find(up, host_port(t, n->flows[i].src));

		if (root_group[r] == UINT32_MAX)
			root_group[r] = k++;
		set->flow_group[i] = root_group[r];
	}
	for (uint32_t p = 0; p < t->n_ports; p++)
		set->port_group[p] = root_group[uf_find(up, p)];
	free(up);
	free(root_group);
	free(at);
	return k ? k : 1;
}

/* Put @x at *@n in @list when @fill, and count it. */
static void list_put(uint32_t *list, uint32_t *n, int fill, uint32_t x)
{
	if (fill)
		list[*n] = x;
	(*n)++;
}

/* Whether a link goes down or comes up within the run: routes then
 * change, and the groups found on the first ones would not hold (the
 * fabric is then one group). */
static int reroutes(const struct ff *set)
{
	const struct net *n = set->net;

	for (uint32_t i = 0; i < n->p.n_faults; i++) {
		const struct net_fault *x = &n->p.faults[i];

		if ((x->kind == NET_FAULT_LINK_DOWN || x->kind == NET_FAULT_LINK_UP) &&
		    (!set->prm.stop || x->at < set->prm.stop))
			return 1;
	}
	return 0;
}

/* Fill each group's lists: its QPs, ports and NICs, in index order
 * (all of them for the whole fabric, whose port_group and flow_group are
 * all 0): counted, then written. 0 or -ENOMEM. */
static int group_lists(struct ff *set)
{
	const struct net *n = set->net;
	const struct topo *t = n->topo;

	for (int fill = 0; fill <= 1; fill++) {
		for (uint32_t g = 0; fill && g < set->n_groups; g++) {
			struct ff_group *f = set->g[g];

			f->flows = malloc(((size_t)f->nf + f->np + f->nh + 1) * sizeof(*f->flows));
			if (!f->flows)
				return -ENOMEM;
			f->ports = f->flows + f->nf;
			f->hosts = f->ports + f->np;
			f->nf = f->np = f->nh = 0;
		}
		for (uint32_t i = 0; i < n->n_flows; i++) {
			struct ff_group *f = set->g[set->flow_group[i]];

			list_put(f->flows, &f->nf, fill, i);
		}
		for (uint32_t p = 0; p < t->n_ports; p++) {
			uint32_t g = set->port_group[p];

			if (g != UINT32_MAX)
				list_put(set->g[g]->ports, &set->g[g]->np, fill, p);
		}
		for (uint32_t h = 0; h < t->n_hosts; h++) {
			uint32_t g = set->port_group[host_port(t, h)];

			if (n->nics[h] && g != UINT32_MAX)
				list_put(set->g[g]->hosts, &set->g[g]->nh, fill, h);
		}
	}
	return 0;
}

struct ff *ff_new(struct net *n, const struct ff_params *p)
{
	struct ff *set = calloc(1, sizeof(*set));
	size_t nf = n->n_flows ? n->n_flows : 1, np = n->topo->n_ports ? n->topo->n_ports : 1;

	if (!set)
		return NULL;
	set->net = n;
	set->prm = *p;
	set->qp = calloc(nf, sizeof(*set->qp));
	set->run_of = calloc(nf, sizeof(*set->run_of));
	set->flow_group = calloc(nf, sizeof(*set->flow_group));
	set->port_group = calloc(np, sizeof(*set->port_group));
	set->load = calloc(np, sizeof(*set->load));
	set->order = calloc(nf, sizeof(*set->order));
	set->path = calloc(np, sizeof(*set->path));
	set->path_tc = calloc(np, sizeof(*set->path_tc));
	if (!set->qp || !set->run_of || !set->flow_group || !set->port_group || !set->load ||
	    !set->order || !set->path || !set->path_tc)
		goto out_free;
	set->n_groups = p->groups && !reroutes(set) ? find_groups(set) : 1;
	if (!set->n_groups)
		goto out_free;
	if (set->n_groups == 1) {
		memset(set->flow_group, 0, nf * sizeof(*set->flow_group));
		memset(set->port_group, 0, np * sizeof(*set->port_group));
	}
	set->g = calloc(set->n_groups, sizeof(*set->g));
	if (!set->g)
		goto out_free;
	for (uint32_t g = 0; g < set->n_groups; g++) {
		set->g[g] = calloc(1, sizeof(**set->g));
		if (!set->g[g])
			goto out_free;
		set->g[g]->id = g;
		set->g[g]->q = n->ctx.q;
		set->g[g]->whole = set->n_groups == 1;
	}
	if (group_lists(set))
		goto out_free;
	for (uint32_t g = 0; g < set->n_groups; g++)
		if (group_start(set, set->g[g]))
			goto out_free;
	n->ctx.ff = set;
	n->ctx.ff_post = on_post;
	n->ctx.ff_touch = on_touch;
	return set;
out_free:
	ff_free(set);
	return NULL;
}

void ff_end(struct ff *set, simtime_t t)
{
	for (uint32_t g = 0; g < set->n_groups; g++) {
		struct ff_group *f = set->g[g];

		if (f->state == FF_SPAN)
			ff__span_end(f, t, FF_END_RUN);
		else if (f->state == FF_DRAIN)
			ff__abandon(f);
		evq_cancel(f->q, &f->tick);
	}
}

const struct ff_stats *ff_stats(struct ff *set)
{
	struct ff_stats *s = &set->st;

	memset(s, 0, sizeof(*s));
	for (uint32_t g = 0; g < set->n_groups; g++) {
		const struct ff_stats *x = &set->g[g]->st;

		s->spans += x->spans;
		s->abandoned += x->abandoned;
		s->skipped += x->skipped;
		s->drained += x->drained;
		/* a completion is its own group's: the largest group's error
		 * bounds any one of them */
		if (x->rate_err + x->edge_err > s->rate_err + s->edge_err) {
			s->rate_err = x->rate_err;
			s->edge_err = x->edge_err;
		}
		s->packets += x->packets;
		s->messages += x->messages;
		s->capped += x->capped;
		for (int w = 0; w < FF_END_N; w++)
			s->ends[w] += x->ends[w];
	}
	return s;
}

uint32_t ff_groups(const struct ff *set)
{
	return set->n_groups;
}

enum ff_phase ff_group_phase(const struct ff *set, uint32_t g)
{
	const struct ff_group *f = set->g[g];

	return f->state == FF_SPAN    ? FF_PHASE_SPAN
	       : f->state == FF_DRAIN ? FF_PHASE_DRAIN
				      : FF_PHASE_WATCH;
}

enum ff_phase ff_phase(const struct ff *set)
{
	return set->n_groups > 1 ? FF_PHASE_GROUPS : ff_group_phase(set, 0);
}

uint32_t ff_port_group(const struct ff *set, uint32_t port)
{
	return set->port_group[port];
}

enum ff_phase ff_port_phase(const struct ff *set, uint32_t port)
{
	uint32_t g = set->port_group[port];

	return g == UINT32_MAX ? FF_PHASE_WATCH : ff_group_phase(set, g);
}

simtime_t ff_group_seq_t0(const struct ff *set, uint32_t g)
{
	return set->g[g]->t0;
}

simtime_t ff_seq_t0(const struct ff *set)
{
	return ff_group_seq_t0(set, 0);
}

void ff_free(struct ff *set)
{
	if (!set)
		return;
	if (set->net->ctx.ff == set)
		set->net->ctx.ff = NULL;
	for (uint32_t g = 0; set->g && g < set->n_groups; g++)
		group_free(set->g[g]);
	free(set->g);
	free(set->qp);
	free(set->run_of);
	free(set->flow_group);
	free(set->port_group);
	free(set->load);
	free(set->order);
	free(set->path);
	free(set->path_tc);
	free(set);
}
