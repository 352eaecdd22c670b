/*
 * Fast-forward's watch: the counters saved, a sequence of windows begun,
 * the NICs held, a hold given up. Called by the detector (ff.c) and the
 * span (ff_span.c).
 */
#include "models/ff_impl.h"
#include "models/net.h"
#include "models/nic.h"

void ff__ctr_save(const struct ff_group *f, uint64_t *to)
{
	for (size_t i = 0; i < f->n_ctr; i++)
		to[i] = *f->ctr[i];
}

void ff__seq_start(struct ff_group *f, simtime_t now)
{
	f->n_windows = 0;
	f->t0 = now;
	for (uint32_t j = 0; j < f->nf; j++) {
		uint32_t i = f->flows[j];
		struct ff_qp *s = &f->qp[i];

		s->last = s->at0 = f->net->flows[i].epsn;
		s->snd0 = f->net->flows[i].snd_max;
		s->tx0 = f->net->flows[i].last_tx;
		s->lo = UINT32_MAX;
		s->hi = 0;
		s->rc0 = f->net->flows[i].rp.rc;
		s->wait = s->wait_last = s->wait_at = 0;
	}
	f->ts = 0; /* the counters are saved only when a hold may follow */
	f->cnp0 = ff__cnp_handled(f);
}

uint64_t ff__cnp_handled(const struct ff_group *f)
{
	uint64_t c = 0;

	if (f->whole)
		return f->net->ctx.tot.cnp_handled;
	for (uint32_t j = 0; j < f->nh; j++)
		c += nic_ff_counters(f->net->nics[f->hosts[j]])->rp_cnp_handled;
	return c;
}

void ff__hold_nics(struct ff_group *f, int on)
{
	for (uint32_t j = 0; j < f->nh; j++)
		nic_ff_hold(f->net->nics[f->hosts[j]], on);
}

/* Give up a hold: senders go again, a new sequence starts. */
void ff__abandon(struct ff_group *f)
{
	simtime_t now = evq_now(f->q);

	ff__hold_nics(f, 0);
	if (f->state == FF_DRAIN) /* its senders stood still for nothing */
		f->st.edge_err += now - f->th;
	f->st.abandoned++;
	f->state = FF_WATCH;
	ff__seq_start(f, now);
	mctx_arm(&f->net->ctx, &f->tick, now + f->prm.window);
}

simtime_t ff__path(const struct net *n, const struct flow *fl, int back)
{
	uint32_t frame = n->p.nic.mtu + PKT_HEADER_BYTES + PKT_PREAMBLE_IFG_BYTES;

	return back ? topo_path_delay(n->topo, n->routes, fl->dst, fl->src, fl->hash, frame)
		    : topo_path_delay(n->topo, n->routes, fl->src, fl->dst, fl->hash, frame);
}

uint32_t ff__path_ports(const struct net *n, const struct flow *fl, int back, uint32_t *ports,
			uint32_t max)
{
	uint32_t k =
	    back ? topo_path_ports(n->topo, n->routes, fl->dst, fl->src, fl->hash, ports, max)
		 : topo_path_ports(n->topo, n->routes, fl->src, fl->dst, fl->hash, ports, max);

	return k == UINT32_MAX ? 0 : k < max ? k : max;
}
