/*
 * Switch: MMU (ingress PG accounting, headroom, XOFF/XON), ECN marking,
 * egress scheduling and the PFC watchdog (see switch.h).
 */
#include "models/switch.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/checked.h"
#include "topologies/fib.h"
#include "topologies/topo.h"
#include "models/link.h"
#include "models/mctx.h"

struct sw;

/* Bound on all switches' forwarding tables together (fib_rebuild). */
#define SW_FIB_BUDGET ((uint64_t)64 << 20)

/*
 * An ingress PG's occupancy and its peaks: all that admitting and freeing
 * a packet read and write of the port it came in by, one cache line (its
 * PAUSE refresh apart: sw_pg_refresh). The port's settings are its
 * switch's shared copy (sw_port_cfg), so that forwarding a packet reads
 * no other line of its ingress port's state.
 */
struct sw_pg {
	uint64_t bytes;	   /* min + shared + headroom now */
	uint64_t headroom; /* headroom bytes now */
	uint64_t min_used, shared_used;
	uint64_t peak_bytes, peak_headroom;
	uint64_t lossless_drops;
	uint32_t version; /* counts changes of its bytes (sw_port_version) */
	uint8_t xoff;	  /* PAUSE asserted upstream now */
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct sw_pg) == 64, "a PG is one line");

/* A PG's PAUSE re-sent while XOFF: its timer, and whose it is. */
struct sw_pg_refresh {
	struct evq_timer timer;
	struct sw *sw;
	uint32_t port;
	uint8_t prio;
};

struct sw_wd {
	struct evq_timer detect, restore;
	struct sw *sw;
	uint32_t port;
	uint8_t prio;
	uint8_t storm;
	simtime_t last_rx;     /* the last PFC frame received for this queue */
	simtime_t storm_since; /* when the storm was declared */
};

/* A switch port's state; its settings are in sw_port_cfg. */
struct sw_port {
	struct sw_pg pg[PKT_PRIORITIES];
	/* all PGs of this ingress port, headroom included: kept only under a
	 * per-port cap (sw_params.per_port), the PGs' sum otherwise */
	uint64_t in_used;
	uint8_t storm; /* its queues the PFC watchdog holds as stormed (wd[].storm) */
	uint8_t rr, credited;
	uint32_t deficit[PKT_PRIORITIES];
	struct sw_pg_refresh refresh[PKT_PRIORITIES];
	struct sw_wd wd[PKT_PRIORITIES];
};

struct sw {
	struct mctx *ctx;
	const struct sw_params *prm;
	const struct topo_routes *routes;
	/* the routes' answers for this switch, read with one load a packet;
	 * fib.entry NULL: asked of routes (a fabric too large for a table
	 * per switch, or a switch with more lists of ports than a table names) */
	struct topo_fib fib;
	uint32_t fib_hosts;	  /* hosts a table covers; 0: none */
	const struct sw_ops *ops; /* may be NULL */
	void *up;
	uint32_t node;
	struct port *ports; /* the node's ports */
	uint32_t n_ports;
	struct sw_port *ps;
	/* the ports' settings: one copy of each distinct one (few: a switch's
	 * ports of one speed and cable share theirs), port i's is cfg[cfg_ix[i]] */
	const struct sw_port_cfg *cfg;
	const uint16_t *cfg_ix;
	struct sw_counters c;
	uint8_t enqueue_ecn; /* some port marks at enqueue: forwarding need not look otherwise */
	gsl_rng *rng;	     /* its own stream (RED marking), seeded from its node */
};

/* The settings of port @port of @s. */
static const struct sw_port_cfg *cfg_of(const struct sw *s, uint32_t port)
{
	return &s->cfg[s->cfg_ix[port]];
}

/* Whether class @tc is lossless on a port of settings @pc (PGs in, queues out). */
static int is_lossless(const struct sw_port_cfg *pc, uint8_t tc)
{
	return (pc->lossless >> tc) & 1;
}

/*
 * Drop @pkt, counted on @qc; a lossless drop when @lossless_loss and its
 * class is lossless on the port it came in by.
 */
static void drop_as(struct sw *s, struct port_qcount *qc, struct pkt *pkt, int lossless_loss)
{
	struct mctx *c = s->ctx;

	qc->drops++;
	qc->drop_bytes += pkt->frame;
	s->c.drops++;
	s->c.drop_bytes += pkt->frame;
	if (lossless_loss && is_lossless(cfg_of(s, pkt->in_port), pkt->prio)) {
		s->c.lossless_drops++;
		c->tot.lossless_drops++;
	}
	c->tot.dropped_packets++;
	c->tot.dropped_bytes += pkt->payload;
	pkt_free(&c->pool, pkt);
}

static void drop(struct sw *s, struct port_qcount *qc, struct pkt *pkt)
{
	drop_as(s, qc, pkt, 1);
}

/*
 * No route leads on from here (a partition): counted as unroutable, on the
 * switch, the run and the packet's QP, and not as a lossless drop: no
 * buffer overflowed, and PFC could not have saved it.
 */
static void drop_unroutable(struct sw *s, struct port_qcount *qc, struct pkt *pkt)
{
	s->c.unroutable++;
	s->ctx->tot.unroutable++;
	if (s->ops && s->ops->unroutable)
		s->ops->unroutable(s->up, pkt->flow);
	drop_as(s, qc, pkt, 0);
}

/* ---- PFC generation ---------------------------------------------------------- */

/* Shared bytes a PG under @pfc may hold before XOFF, now. */
static uint64_t xoff_limit(const struct sw *s, const struct sw_pfc *pfc)
{
	uint64_t free_b;

	if (!pfc->dynamic)
		return pfc->xoff;
	free_b = s->c.shared_size - s->c.shared_used;
	if (pfc->dynamic_th < 0)
		return free_b >> -pfc->dynamic_th;
	/* 2^7 x a buffer beyond 2^57 B passes 2^64: the limit is then no limit */
	return ck_mul(free_b, 1ULL << pfc->dynamic_th, &free_b) ? UINT64_MAX : free_b;
}

static uint64_t xon_limit(const struct sw *s, const struct sw_pfc *pfc)
{
	uint64_t lim;

	if (pfc->has_xon)
		return pfc->xon;
	lim = xoff_limit(s, pfc);
	lim = lim > pfc->xon_offset ? lim - pfc->xon_offset : 0;
	return lim > pfc->xon_floor ? lim : pfc->xon_floor;
}

static simtime_t refresh_period(const struct sw *s, const struct port *p)
{
	const struct sw_pfc *pfc = &s->prm->pfc;

	return pfc->refresh ? pfc->refresh : pfc_quanta_time(pfc->quanta, p->rate_bps) / 2;
}

static void send_pause(struct sw *s, uint32_t port, uint8_t prio, uint32_t quanta,
		       enum pfc_event ev)
{
	struct port *p = &s->ports[port];

	if (s->ps[port].wd[prio].storm && s->prm->wd.action == SW_WD_DROP)
		return; /* the watchdog stopped pauses from this queue */
	mctx_fail(s->ctx, port_send_pause(p, prio, (uint16_t)quanta));
	mctx_pfc_event(s->ctx, p->id, prio, ev);
}

/* A PAUSE of the full quanta from PG @prio of ingress port @port, sent
 * again every refresh period while it stays XOFF. */
static void pause_and_refresh(struct sw *s, uint32_t port, uint8_t prio, enum pfc_event ev)
{
	send_pause(s, port, prio, s->prm->pfc.quanta, ev);
	mctx_arm(s->ctx, &s->ps[port].refresh[prio].timer,
		 evq_now(s->ctx->q) + refresh_period(s, &s->ports[port]));
}

static void on_refresh(void *obj, uint64_t arg)
{
	struct sw_pg_refresh *r = obj;

	(void)arg;
	if (r->sw->ps[r->port].pg[r->prio].xoff)
		pause_and_refresh(r->sw, r->port, r->prio, PFC_EV_REFRESH);
}

/* PG @prio of ingress port @port pauses its sender. */
static void xoff(struct sw *s, uint32_t port, uint8_t prio)
{
	s->ps[port].pg[prio].xoff = 1;
	pause_and_refresh(s, port, prio, PFC_EV_XOFF);
}

/* PG @prio of ingress port @port, which is XOFF, resumes its sender if it
 * fell to XON (its callers check XOFF: a packet freed checks it inline). */
static void maybe_xon(struct sw *s, uint32_t port, uint8_t prio)
{
	struct sw_port *ps = &s->ps[port];
	struct sw_pg *pg = &ps->pg[prio];

	if (pg->headroom || pg->shared_used > xon_limit(s, &cfg_of(s, port)->pfc))
		return;
	pg->xoff = 0;
	evq_cancel(s->ctx->q, &ps->refresh[prio].timer);
	send_pause(s, port, prio, 0, PFC_EV_XON);
}

/* ---- ECN --------------------------------------------------------------------- */

/*
 * RED as DCQCN's CP marks (Zhu et al., SIGCOMM'15): p = 0 at q <= kmin,
 * pmax (q - kmin) / (kmax - kmin) for kmin < q <= kmax, 1 above kmax. With
 * kmin == kmax the ramp is empty: step marking at K, none at or below, all
 * above (DCTCP marks when the queue is above K).
 */
int sw_red_mark(const struct sw_ecn *e, uint64_t q, gsl_rng *rng)
{
	double p;

	if (q <= e->kmin)
		return 0;
	if (q > e->kmax)
		return 1;
	p = e->pmax * (double)(q - e->kmin) / (double)(e->kmax - e->kmin);
	return p >= 1.0 || gsl_rng_uniform(rng) < p;
}

/* RED on the egress queue depth @q of an ECN-capable packet. */
static void ecn_mark(struct sw *s, const struct sw_ecn *e, struct port_qcount *qc, struct pkt *pkt,
		     uint64_t q)
{
	if (pkt->ecn != PKT_ECT || !sw_red_mark(e, q, s->rng))
		return;
	pkt->ecn = PKT_CE;
	qc->ecn_marked++;
	s->ctx->tot.ecn_marked++;
}

/* ---- ingress ------------------------------------------------------------------- */

/* Charge @pkt to its ingress PG; 0 if admitted, -ENOBUFS if it must be
 * dropped. */
static int admit(struct sw *s, struct sw_port *ps, const struct sw_port_cfg *pc, struct pkt *pkt)
{
	const struct sw_params *prm = s->prm;
	struct sw_pg *pg = &ps->pg[pkt->prio];
	uint64_t b = pkt->frame;

	if (prm->per_port && ps->in_used + b > prm->per_port)
		return -ENOBUFS;
	if (!is_lossless(pc, pkt->prio)) {
		if (s->c.shared_used + b > s->c.shared_size)
			return -ENOBUFS;
		pkt->acct = PKT_ACCT_SHARED;
	} else if (pg->min_used + b <= prm->pg_min) {
		pkt->acct = PKT_ACCT_MIN;
	} else if (!pg->xoff && pg->shared_used + b <= xoff_limit(s, &pc->pfc) &&
		   s->c.shared_used + b <= s->c.shared_size) {
		pkt->acct = PKT_ACCT_SHARED;
	} else {
		if (!pg->xoff)
			xoff(s, pkt->in_port, pkt->prio); /* this packet crosses the limit */
		if (pg->headroom + b > pc->headroom ||
		    (prm->headroom_pool && s->c.headroom_used + b > prm->headroom_pool)) {
			/* an empty PG must not stay paused */
			maybe_xon(s, pkt->in_port, pkt->prio);
			return -ENOBUFS;
		}
		pkt->acct = PKT_ACCT_HEADROOM;
	}
	switch (pkt->acct) {
	case PKT_ACCT_MIN:
		pg->min_used += b;
		break;
	case PKT_ACCT_SHARED:
		pg->shared_used += b;
		s->c.shared_used += b;
		if (s->c.shared_used > s->c.shared_peak)
			s->c.shared_peak = s->c.shared_used;
		break;
	default:
		pg->headroom += b;
		s->c.headroom_used += b;
		if (pg->headroom > pg->peak_headroom)
			pg->peak_headroom = pg->headroom;
		if (s->c.headroom_used > s->c.headroom_peak)
			s->c.headroom_peak = s->c.headroom_used;
		break;
	}
	if (prm->per_port)
		ps->in_used += b;
	pg->version++;
	pg->bytes += b;
	if (pg->bytes > pg->peak_bytes)
		pg->peak_bytes = pg->bytes;
	return 0;
}

/*
 * The packet's last bit left: free what it held at its ingress PG. Bytes
 * leave the headroom first (the PG's occupancy above its limit is what
 * headroom means), then the shared pool; then XON is checked.
 */
static void sw_sent(struct port *out, struct pkt *pkt)
{
	struct sw *s = out->owner;
	struct sw_port *ps = &s->ps[pkt->in_port];
	struct sw_pg *pg = &ps->pg[pkt->prio];
	uint64_t b = pkt->frame;

	if (s->prm->per_port)
		ps->in_used -= b;
	pg->version++;
	pg->bytes -= b;
	if (pkt->acct == PKT_ACCT_MIN) {
		pg->min_used -= b;
	} else {
		uint64_t h = pg->headroom < b ? pg->headroom : b;

		pg->headroom -= h;
		s->c.headroom_used -= h;
		pg->shared_used -= b - h;
		s->c.shared_used -= b - h;
	}
	pkt->acct = PKT_ACCT_NONE;
	if (pg->xoff && is_lossless(cfg_of(s, pkt->in_port), pkt->prio))
		maybe_xon(s, pkt->in_port, pkt->prio);
}

static void sw_rx(struct port *in, struct pkt *pkt)
{
	struct sw *s = in->owner;
	const uint16_t *hops;
	uint32_t count;
	struct port *out;
	struct port_queue *pq;
	struct sw_port *ps = &s->ps[in->local];
	const struct sw_port_cfg *pc = cfg_of(s, in->local);

	/* the port it came in by classes it, and answers for its loss */
	pkt->in_port = (uint16_t)in->local;
	pkt->prio = pc->dscp_to_tc[pkt->dscp];
	if (s->fib.entry && pkt->dst < s->fib.n_hosts)
		hops = topo_fib_hops(&s->fib, pkt->dst, &count);
	else
		hops = topo_next_hops(s->routes, s->node, pkt->dst, &count);
	if (!count) {
		drop_unroutable(s, &in->qcount[pkt->prio], pkt);
		return;
	}
	out = &s->ports[hops[count == 1 ? 0 : topo_ecmp_pick(pkt->hash, s->node, count)]];
	pq = &out->queue[pkt->prio];
	if (!out->up) {
		drop(s, &out->qcount[pkt->prio], pkt);
		return;
	}
	/* the egress port's state is not read unless something there needs it */
	if (s->prm->wd.enabled && s->prm->wd.action == SW_WD_DROP &&
	    ((ps->storm | s->ps[out->local].storm) & (1u << pkt->prio))) {
		s->c.watchdog_drops++;
		s->ctx->tot.watchdog_drops++;
		drop(s, &out->qcount[pkt->prio], pkt);
		return;
	}
	if (admit(s, ps, pc, pkt)) {
		if (is_lossless(pc, pkt->prio))
			ps->pg[pkt->prio].lossless_drops++;
		drop(s, &out->qcount[pkt->prio], pkt);
		return;
	}
	if (s->enqueue_ecn && cfg_of(s, out->local)->ecn.enabled &&
	    cfg_of(s, out->local)->ecn.at_enqueue)
		ecn_mark(s, &cfg_of(s, out->local)->ecn, &out->qcount[pkt->prio], pkt, pq->bytes);
	out->queued_bytes += pkt->frame;
	out->qversion++;
	pq->bytes += pkt->frame;
	if (pq->bytes > pq->max_bytes)
		pq->max_bytes = pq->bytes;
	pktq_push(&pq->q, pkt);
	out->nonempty |= (uint8_t)(1u << pkt->prio);
	port_kick(out);
}

/* ---- egress -------------------------------------------------------------------- */

static int pick_dwrr(struct sw_port *ps, const struct sw_port_cfg *pc, const struct port *p,
		     uint8_t avail)
{
	for (int i = 0; i <= 2 * PKT_PRIORITIES; i++) {
		uint8_t q = ps->rr;

		if (avail & (1u << q)) {
			if (!ps->credited) {
				ps->deficit[q] += pc->quantum[q];
				ps->credited = 1;
			}
			if (p->queue[q].q.head->frame <= ps->deficit[q]) {
				ps->deficit[q] -= p->queue[q].q.head->frame;
				return q;
			}
		} else {
			ps->deficit[q] = 0;
		}
		ps->rr = (uint8_t)((q + 1) % PKT_PRIORITIES);
		ps->credited = 0;
	}
	return 31 - __builtin_clz(avail); /* unreachable with quanta >= a frame */
}

static struct pkt *sw_next(struct port *p)
{
	struct sw *s = p->owner;
	const struct sw_port_cfg *pc = cfg_of(s, p->local);
	uint8_t avail = p->nonempty & (uint8_t)~p->paused;
	uint8_t strict;
	struct port_queue *pq;
	struct pkt *pkt;
	int prio;

	if (!avail)
		return NULL;
	strict = avail & pc->strict;
	if (strict)
		prio = 31 - __builtin_clz(strict);
	else
		prio = pick_dwrr(&s->ps[p->local], pc, p, avail);
	pq = &p->queue[prio];
	pkt = pktq_pop(&pq->q);
	if (!pq->q.head) {
		p->nonempty &= (uint8_t) ~(1u << prio);
		/* DWRR's deficit of an empty queue (strict never reads it) */
		if (pc->sched == SW_SCHED_DWRR)
			s->ps[p->local].deficit[prio] = 0;
	}
	pq->bytes -= pkt->frame;
	pq->tx_packets++;
	pq->last_dequeue = evq_now(s->ctx->q);
	pq->tx_bytes += pkt->frame;
	p->queued_bytes -= pkt->frame;
	p->qversion++;
	if (pc->ecn.enabled && !pc->ecn.at_enqueue)
		ecn_mark(s, &pc->ecn, &p->qcount[prio], pkt, pq->bytes);
	return pkt;
}

/* ---- PFC watchdog ------------------------------------------------------------------ */

static void flush_queue(struct sw *s, struct port *p, uint8_t prio, int watchdog)
{
	struct port_queue *pq = &p->queue[prio];
	struct pkt *pkt;

	while ((pkt = pktq_pop(&pq->q))) {
		pq->bytes -= pkt->frame;
		p->queued_bytes -= pkt->frame;
		p->qversion++;
		sw_sent(p, pkt); /* frees its buffer */
		if (watchdog) {
			s->c.watchdog_drops++;
			s->ctx->tot.watchdog_drops++;
		}
		drop(s, &p->qcount[prio], pkt);
	}
	p->nonempty &= (uint8_t) ~(1u << prio);
}

/*
 * When a queue in storm is restored: once no PFC frame has arrived for the
 * restoration time, the quiet time counted from the detection at the
 * earliest (SONiC's pfc_restore.lua starts the count when the storm is
 * declared and starts it over at each PFC frame). So a restoration shorter
 * than the storm's PAUSE interval restores between two of its frames, and
 * never at the detection itself.
 */
static simtime_t wd_restore_due(const struct sw *s, const struct sw_wd *wd)
{
	simtime_t from = wd->last_rx > wd->storm_since ? wd->last_rx : wd->storm_since;

	return from + s->prm->wd.restoration;
}

static void on_wd_restore(void *obj, uint64_t arg)
{
	struct sw_wd *wd = obj;
	struct sw *s = wd->sw;
	simtime_t now = evq_now(s->ctx->q), due = wd_restore_due(s, wd);

	(void)arg;
	if (now < due) {
		mctx_arm(s->ctx, &wd->restore, due);
		return;
	}
	wd->storm = 0;
	s->ps[wd->port].storm &= (uint8_t) ~(1u << wd->prio);
	if (s->prm->wd.action == SW_WD_FORWARD)
		port_pfc_ignore(&s->ports[wd->port], wd->prio, 0);
	mctx_pfc_event(s->ctx, s->ports[wd->port].id, wd->prio, PFC_EV_WD_RESTORE);
	port_kick(&s->ports[wd->port]);
}

static void on_wd_detect(void *obj, uint64_t arg)
{
	struct sw_wd *wd = obj;
	struct sw *s = wd->sw;
	struct port *p = &s->ports[wd->port];
	simtime_t now = evq_now(s->ctx->q), due;

	(void)arg;
	if (wd->storm || !(p->paused & (1u << wd->prio)))
		return; /* not paused now: the next PAUSE re-arms detection */
	due = p->pfc[wd->prio].paused_since + s->prm->wd.detection;
	if (now < due) {
		mctx_arm(s->ctx, &wd->detect, due);
		return;
	}
	wd->storm = 1;
	s->ps[wd->port].storm |= (uint8_t)(1u << wd->prio);
	wd->storm_since = now;
	s->c.watchdog_triggers++;
	s->ctx->tot.watchdog_triggers++;
	mctx_pfc_event(s->ctx, p->id, wd->prio, PFC_EV_WD_TRIGGER);
	if (s->prm->wd.action == SW_WD_DROP) {
		flush_queue(s, p, wd->prio, 1);
	} else if (s->prm->wd.action == SW_WD_FORWARD) {
		port_pfc_ignore(p, wd->prio, 1);
	}
	mctx_arm(s->ctx, &wd->restore, wd_restore_due(s, wd));
}

static void sw_pause_rx(struct port *p, uint8_t prio, uint32_t quanta)
{
	struct sw *s = p->owner;
	struct sw_wd *wd = &s->ps[p->local].wd[prio];

	if (!s->prm->wd.enabled || !is_lossless(cfg_of(s, p->local), prio))
		return;
	wd->last_rx = evq_now(s->ctx->q);
	if (quanta && !wd->storm && !evq_pending(s->ctx->q, &wd->detect))
		mctx_arm(s->ctx, &wd->detect, wd->last_rx + p->response + s->prm->wd.detection);
}

static const struct port_ops sw_ops = {
    .next = sw_next,
    .rx = sw_rx,
    .sent = sw_sent,
    .pause_rx = sw_pause_rx,
};

/* ---- life cycle ---------------------------------------------------------------------- */

/*
 * The settings of each port of @s (sw_local_port), one copy of each
 * distinct one on the context's arena; 0 or -ENOMEM.
 */
static int port_settings(struct sw *s, const struct sw_params *prm, uint32_t mtu,
			 const struct topo *t, const struct topo_node *tn)
{
	struct sw_port_cfg *all = calloc(s->n_ports ? s->n_ports : 1, sizeof(*all)), *cfg;
	uint16_t *ix = mem_arena_lines(&s->ctx->mem, s->n_ports, sizeof(*ix));
	uint32_t n = 0;

	if (!all || !ix) {
		free(all);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < s->n_ports; i++) {
		const struct topo_link *l = &t->links[t->ports[tn->first_port + i].link];
		uint32_t k = 0;

		sw_local_port(prm, i, mtu, l, &all[n]);
		while (k < n && !sw_port_cfg_same(&all[k], &all[n]))
			k++;
		ix[i] = (uint16_t)k; /* a switch has at most 2^16 ports (pkt.in_port) */
		n += k == n;
		s->enqueue_ecn |= all[k].ecn.enabled && all[k].ecn.at_enqueue;
	}
	cfg = mem_arena_lines(&s->ctx->mem, n, sizeof(*cfg));
	if (cfg)
		memcpy(cfg, all, n * sizeof(*cfg));
	free(all);
	s->cfg = cfg;
	s->cfg_ix = ix;
	return cfg ? 0 : -ENOMEM;
}

/*
 * @s's forwarding table from its routes, or none when the fabric is too
 * large for one or the switch has more lists of ports than it can name
 * (forwarding then asks the routes, the same answer at some loads more a
 * packet); -ENOMEM, leaving none.
 */
static int fib_rebuild(struct sw *s)
{
	int err = 0;

	topo_fib_free(&s->fib);
	if (s->fib_hosts && s->routes)
		err = topo_fib_build(s->routes, s->node, s->fib_hosts, &s->fib);
	return err == -E2BIG ? 0 : err;
}

int sw_new(struct mctx *ctx, const struct sw_params *prm, uint32_t mtu, const struct topo *t,
	   const struct topo_routes *routes, uint32_t node, struct port *ports, struct sw **out,
	   struct diag *d)
{
	const struct topo_node *tn = &t->nodes[node];
	struct sw *s;
	uint64_t shared;
	int err;

	*out = NULL;
	err = sw_buffer_plan(prm, mtu, t, node, &shared, d);
	if (err)
		return err;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->ctx = ctx;
	s->prm = prm;
	s->routes = routes;
	s->node = node;
	s->ports = ports;
	s->n_ports = tn->n_ports;
	/* a byte per (switch, host): 10.5 MB on a k = 32 fat-tree */
	if ((uint64_t)t->n_switches * t->n_hosts * sizeof(*s->fib.entry) <= SW_FIB_BUDGET)
		s->fib_hosts = t->n_hosts;
	/* a port's PGs on lines of their own; the ports of all switches on few pages */
	s->ps = mem_arena_lines(&ctx->mem, s->n_ports, sizeof(*s->ps));
	/* taus2: small state (24 B a switch), fast, equidistributed (L'Ecuyer 1996) */
	s->rng = gsl_rng_alloc(gsl_rng_taus2);
	if (!s->ps || !s->rng || fib_rebuild(s)) {
		sw_free(s);
		return -ENOMEM;
	}
	gsl_rng_set(s->rng, mctx_stream_seed(ctx->seed, node));
	s->c.shared_size = shared;
	err = port_settings(s, prm, mtu, t, tn);
	if (err) {
		sw_free(s);
		return err;
	}
	for (uint32_t i = 0; i < s->n_ports; i++) {
		struct port *p = &s->ports[i];

		p->ops = &sw_ops;
		p->owner = s;
		p->pfc_obey = cfg_of(s, i)->lossless;
		for (uint8_t q = 0; q < PKT_PRIORITIES; q++) {
			struct sw_pg_refresh *r = &s->ps[i].refresh[q];
			struct sw_wd *wd = &s->ps[i].wd[q];

			*r = (struct sw_pg_refresh){.sw = s, .port = i, .prio = q};
			evq_timer_init(&r->timer, on_refresh, r,
				       mctx_port_key(p->id, MCTX_PT_PG_REFRESH + q));
			*wd = (struct sw_wd){.sw = s, .port = i, .prio = q};
			evq_timer_init(&wd->detect, on_wd_detect, wd,
				       mctx_port_key(p->id, MCTX_PT_WD_DETECT + q));
			evq_timer_init(&wd->restore, on_wd_restore, wd,
				       mctx_port_key(p->id, MCTX_PT_WD_RESTORE + q));
		}
	}
	*out = s;
	return 0;
}

int sw_set_routes(struct sw *s, const struct topo_routes *r)
{
	s->routes = r;
	return fib_rebuild(s);
}

void sw_set_ops(struct sw *s, const struct sw_ops *ops, void *up)
{
	s->ops = ops;
	s->up = up;
}

void sw_free(struct sw *s)
{
	if (!s)
		return;
	if (s->rng)
		gsl_rng_free(s->rng);
	topo_fib_free(&s->fib);
	free(s);
}

void sw_port_down(struct sw *s, uint32_t local_port)
{
	for (uint8_t prio = 0; prio < PKT_PRIORITIES; prio++)
		flush_queue(s, &s->ports[local_port], prio, 0);
}

uint64_t sw_headroom(const struct sw *s, uint32_t local_port)
{
	return cfg_of(s, local_port)->headroom;
}

uint8_t sw_tc_of(const struct sw *s, uint32_t local_port, uint8_t dscp)
{
	return cfg_of(s, local_port)->dscp_to_tc[dscp];
}

const struct sw_counters *sw_counters(const struct sw *s)
{
	return &s->c;
}

struct sw_pg_stats sw_pg(const struct sw *s, uint32_t local_port, uint8_t prio)
{
	const struct sw_pg *pg = &s->ps[local_port].pg[prio];

	return (struct sw_pg_stats){
	    .bytes = pg->bytes,
	    .headroom = pg->headroom,
	    .peak_bytes = pg->peak_bytes,
	    .peak_headroom = pg->peak_headroom,
	    .lossless_drops = pg->lossless_drops,
	    .xoff = pg->xoff,
	};
}

void sw_shift_port(struct sw *s, uint32_t port, simtime_t dt)
{
	for (uint8_t prio = 0; prio < PKT_PRIORITIES; prio++) {
		s->ps[port].wd[prio].last_rx += dt;
		s->ps[port].wd[prio].storm_since += dt;
	}
}

size_t sw_stats_size(const struct sw *s)
{
	return sizeof(s->c) + (size_t)s->n_ports * PKT_PRIORITIES * sizeof(struct sw_pg_stats);
}

void sw_stats_save(const struct sw *s, void *buf)
{
	char *at = (char *)buf + sizeof(s->c);

	/* byte copies: @buf need not be aligned */
	memcpy(buf, &s->c, sizeof(s->c));
	for (uint32_t i = 0; i < s->n_ports; i++)
		for (uint8_t prio = 0; prio < PKT_PRIORITIES;
		     prio++, at += sizeof(struct sw_pg_stats)) {
			struct sw_pg_stats st = sw_pg(s, i, prio);

			memcpy(at, &st, sizeof(st));
		}
}

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

void sw_stats_absorb(struct sw *s, const void *buf)
{
	struct sw_counters c;
	const char *at = (const char *)buf + sizeof(c);

	memcpy(&c, buf, sizeof(c));
	s->c.shared_used += c.shared_used;
	s->c.shared_peak = max64(s->c.shared_peak, c.shared_peak);
	s->c.headroom_used += c.headroom_used;
	s->c.headroom_peak = max64(s->c.headroom_peak, c.headroom_peak);
	s->c.drops += c.drops;
	s->c.drop_bytes += c.drop_bytes;
	s->c.lossless_drops += c.lossless_drops;
	s->c.unroutable += c.unroutable;
	s->c.watchdog_triggers += c.watchdog_triggers;
	s->c.watchdog_drops += c.watchdog_drops;
	for (uint32_t i = 0; i < s->n_ports; i++)
		for (int prio = 0; prio < PKT_PRIORITIES;
		     prio++, at += sizeof(struct sw_pg_stats)) {
			struct sw_pg *d = &s->ps[i].pg[prio];
			struct sw_pg_stats g;

			memcpy(&g, at, sizeof(g));
			d->bytes += g.bytes;
			d->headroom += g.headroom;
			d->peak_bytes = max64(d->peak_bytes, g.peak_bytes);
			d->peak_headroom = max64(d->peak_headroom, g.peak_headroom);
			d->lossless_drops += g.lossless_drops;
			d->xoff |= (uint8_t)(g.xoff != 0);
		}
}

uint32_t sw_port_version(const struct sw *s, uint32_t local_port)
{
	const struct sw_port *ps = &s->ps[local_port];
	uint32_t v = s->ports[local_port].qversion;

	/* all only grow: the sum stands still only when none moves */
	for (int prio = 0; prio < PKT_PRIORITIES; prio++)
		v += ps->pg[prio].version;
	return v;
}

uint8_t sw_pg_busy(const struct sw *s, uint32_t local_port)
{
	const struct sw_port *ps = &s->ps[local_port];
	uint8_t busy = 0;

	for (int prio = 0; prio < PKT_PRIORITIES; prio++)
		if (ps->pg[prio].bytes)
			busy |= (uint8_t)(1u << prio);
	return busy;
}

uint64_t sw_ingress_bytes(const struct sw *s, uint32_t local_port)
{
	const struct sw_port *ps = &s->ps[local_port];
	uint64_t b = 0;

	for (int prio = 0; prio < PKT_PRIORITIES; prio++)
		b += ps->pg[prio].bytes;
	return b;
}

int sw_watchdog_storm(const struct sw *s, uint32_t local_port, uint8_t prio)
{
	return s->ps[local_port].wd[prio].storm;
}
