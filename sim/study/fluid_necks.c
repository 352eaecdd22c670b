/*
 * The fluid model's bottlenecks (fluid_necks.h). A bottleneck is a switch
 * egress port that N >= 2 flows cross, along the fabric's routes, and
 * whose flows can bring more than its rate (an incast's receiver, an
 * oversubscribed uplink; fluid_neck_find says how); a port that carries
 * one flow has no queue to model. A collective's flows are its QPs between
 * servers (fluid_neck_flows). The model's packet is a data frame of the
 * NIC's MTU (MTU + 62 B of headers, 20 B of preamble and gap on the wire,
 * as the packet model counts them); the ECN thresholds and pmax are the
 * switch's; the DCQCN constants come from nic.dcqcn (the paper variant's
 * as the paper states them; mlx5's mapped as docs/fluid.md says). The
 * feedback delay is the loop a mark takes: from the bottleneck to the
 * receiver, then the whole path back to the sender (the longest of the
 * port's flows), plus a data frame's serialization at the bottleneck.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/coll_layout.h"
#include "models/fluid.h"
#include "models/packet.h"
#include "sim/config/scenario.h"
#include "sim/engine/units.h"
#include "sim/study/fluid_necks.h"
#include "topologies/topo.h"

/* The model's constants from @s for a bottleneck of @n flows at @rate. */
static void params(const struct scenario *s, uint32_t n, uint64_t rate, simtime_t loop,
		   simtime_t step, struct fluid_neck *k)
{
	const struct dcqcn_params *d = &s->nic.dcqcn;
	struct fluid_params *fp = &k->fp;
	double frame = (double)s->nic.mtu + PKT_HEADER_BYTES;
	double wire = frame + PKT_PREAMBLE_IFG_BYTES;
	double pkts_per_bit = 1 / (8 * wire);

	k->frame = frame;
	k->rate_bps = (double)rate;
	fp->n = n;
	fp->c = (double)rate * pkts_per_bit;
	fp->kmin = (double)s->sw.ecn.kmin / frame;
	fp->kmax = (double)s->sw.ecn.kmax / frame;
	fp->pmax = s->sw.ecn.pmax;
	fp->g = (1024.0 - d->rp_dce_tcp_g) / 1024.0;
	fp->tau_alpha = d->rp_dce_tcp_rtt * 1e-6;
	fp->t = d->rp_time_reset * 1e-6;
	fp->b = (double)d->rp_byte_reset * d->byte_reset_unit / frame;
	fp->f = d->rp_threshold;
	fp->r_ai = d->rp_ai_rate * 1e6 * pkts_per_bit;
	fp->r_min = d->rp_min_rate * 1e6 * pkts_per_bit;
	if (d->variant == DCQCN_PAPER) {
		fp->tau = d->np_min_time_between_cnps * 1e-6;
		fp->cut_scale = 0.5;
		fp->cut_max = 1;
		fp->clamp_always = 1;
	} else {
		/* cuts at most once per monitor period, CNPs once per np spacing */
		fp->tau =
		    fmax(d->np_min_time_between_cnps, d->rp_rate_reduce_monitor_period) * 1e-6;
		fp->cut_scale = ldexp(1, 10 - (int)d->rp_gd);
		fp->cut_max = 1 - d->rp_min_dec_fac / 100.0;
		fp->alpha_per_window = 1;
		fp->clamp_always = d->rp_clamp_tgt_rate != 0;
		fp->clamp_after_timer = d->rp_clamp_tgt_rate_ati != 0;
	}
	if (!(fp->tau > 0))
		fp->tau = 1e-6;
	if (!(fp->tau_alpha > 0))
		fp->tau_alpha = 1e-6;
	fp->delay = fmax(simtime_to_s(loop) + wire * 8 / (double)rate, simtime_to_s(step));
}

/* The link of host @h to its switch, or NULL. */
static const struct topo_link *access_link(const struct topo *t, uint32_t h)
{
	const struct topo_node *n = &t->nodes[t->hosts[h]];

	return n->n_ports ? &t->links[t->ports[n->first_port].link] : NULL;
}

/*
 * The switch egress ports (global indices) that flow @f crosses, into
 * @path (@n of them), each with the delay from it to the receiver in
 * @down; the whole path's delay in *@all. At a switch with several next
 * hops the first is taken: the packet model hashes each flow onto one of
 * them, so it may spread flows that this puts on one port. 0, or -1 when
 * no route joins the two hosts.
 */
static int flow_path(const struct topo *t, const struct topo_routes *r, const struct wl_flow *f,
		     uint32_t *path, simtime_t *down, uint32_t *n, simtime_t *all)
{
	const struct topo_link *l = access_link(t, f->src);
	uint32_t node, dst = t->hosts[f->dst];

	*n = 0;
	if (!l)
		return -1;
	*all = l->delay;
	node = l->a == t->hosts[f->src] ? l->b : l->a;
	while (node != dst) {
		uint32_t count, gp;
		const uint16_t *hops = topo_next_hops(r, node, f->dst, &count);

		if (!count || *n >= t->n_nodes)
			return -1;
		gp = t->nodes[node].first_port + hops[0];
		path[*n] = gp;
		down[(*n)++] = *all; /* the delay so far: made "to the receiver" below */
		*all += t->links[t->ports[gp].link].delay;
		node = t->ports[gp].peer;
	}
	for (uint32_t i = 0; i < *n; i++)
		down[i] = *all - down[i];
	return 0;
}

/* What the flows that cross a switch egress port put on it. */
struct port_load {
	uint32_t flows;
	double line_bps; /* what they can bring, summed (line rates, or less) */
	simtime_t loop;	 /* the longest mark's loop of its flows */
	int32_t neck;	 /* its index among the bottlenecks, or -1 */
};

/*
 * The bottlenecks of @s's flows @wl on @t into *@out (@n): each switch egress port that
 * two flows or more cross (along the routes, the first next hop at each
 * ECMP choice) and whose flows can bring more than its link's rate, in
 * port order. A flow brings its NIC's line rate shared among the NIC's
 * flows, or the share of the
 * narrowest port before this one on its path (that port's rate over its
 * flows): a spine's port behind an oversubscribed uplink is no bottleneck
 * when the uplink already holds its flows to its rate. The feedback delay
 * is the longest loop of its flows: from the port to the receiver, back
 * along the whole path to the sender.
 */
int fluid_neck_find(const struct scenario *s, const struct topo *t, const struct wl_params *wl,
		    simtime_t step, struct fluid_neck **out, size_t *n)
{
	struct port_load *pl = calloc(t->n_ports, sizeof(*pl));
	uint32_t *sends =
	    calloc(t->n_hosts ? t->n_hosts : 1, sizeof(*sends)); /* flows a host sends */
	uint32_t *path = calloc(t->n_nodes + 1, sizeof(*path)), len;
	simtime_t *down = calloc(t->n_nodes + 1, sizeof(*down)), all;
	struct topo_routes *r = NULL;
	struct fluid_neck *k = NULL;
	int err = -ENOMEM;

	*n = 0;
	if (!pl || !sends || !path || !down || topo_routes_build(t, &r))
		goto out;
	for (uint32_t f = 0; f < wl->n_flows; f++) {
		const struct wl_flow *fl = &wl->flows[f];

		if (flow_path(t, r, fl, path, down, &len, &all))
			continue;
		for (uint32_t i = 0; i < len; i++) {
			struct port_load *p = &pl[path[i]];

			p->flows++;
			if (down[i] + all > p->loop)
				p->loop = down[i] + all;
		}
	}
	/* what each flow can bring to a port: its NIC's line rate shared with
	 * the NIC's other flows (a collective's channels and QPs), or less when
	 * a port before it on its path shares a smaller rate among its flows */
	for (uint32_t f = 0; f < wl->n_flows; f++)
		if (wl->flows[f].src < t->n_hosts)
			sends[wl->flows[f].src]++;
	for (uint32_t f = 0; f < wl->n_flows; f++) {
		const struct topo_link *sl = access_link(t, wl->flows[f].src);
		double rate;

		if (flow_path(t, r, &wl->flows[f], path, down, &len, &all))
			continue;
		rate = (double)sl->rate_bps / sends[wl->flows[f].src];
		for (uint32_t i = 0; i < len; i++) {
			double cap = (double)t->links[t->ports[path[i]].link].rate_bps;

			pl[path[i]].line_bps += rate;
			rate = fmin(rate, cap / pl[path[i]].flows);
		}
	}
	for (uint32_t i = 0; i < t->n_ports; i++) {
		const struct topo_link *l = &t->links[t->ports[i].link];

		pl[i].neck = -1;
		if (pl[i].flows > 1 && pl[i].line_bps > (double)l->rate_bps)
			pl[i].neck = (int32_t)(*n)++;
	}
	if (!(k = calloc(*n ? *n : 1, sizeof(*k))))
		goto out;
	for (uint32_t i = 0; i < t->n_ports; i++) {
		struct fluid_neck *e = &k[pl[i].neck < 0 ? 0 : pl[i].neck];

		if (pl[i].neck < 0)
			continue;
		snprintf(e->port, sizeof(e->port), "%s", t->ports[i].name);
		e->flow_ids = calloc(pl[i].flows, sizeof(*e->flow_ids));
		if (!e->flow_ids)
			goto out;
		params(s, pl[i].flows, t->links[t->ports[i].link].rate_bps, pl[i].loop, step, e);
	}
	/* the flows of each bottleneck, for plot to find their QPs */
	for (uint32_t f = 0; f < wl->n_flows; f++) {
		if (flow_path(t, r, &wl->flows[f], path, down, &len, &all))
			continue;
		for (uint32_t i = 0; i < len; i++)
			if (pl[path[i]].neck >= 0) {
				struct fluid_neck *e = &k[pl[path[i]].neck];

				e->flow_ids[e->n_ids++] = f;
			}
	}
	*out = k;
	k = NULL;
	err = 0;
out:
	if (k)
		for (size_t i = 0; i < *n; i++)
			free(k[i].flow_ids);
	free(k);
	if (err)
		*n = 0;
	topo_routes_free(r);
	free(pl);
	free(sends);
	free(path);
	free(down);
	return err;
}

/* Append flow @f to @wl (*@cap its room). 0, or -ENOMEM. */
static int add_flow(struct wl_params *wl, uint32_t *cap, const struct wl_flow *f)
{
	if (wl->n_flows == *cap) {
		uint32_t more = *cap ? 2 * *cap : 64;
		struct wl_flow *p = more > *cap ? realloc(wl->flows, more * sizeof(*p)) : NULL;

		if (!p)
			return -ENOMEM;
		wl->flows = p;
		*cap = more;
	}
	wl->flows[wl->n_flows++] = *f;
	return 0;
}

/*
 * The flows the model takes from @s into @wl (free wl->flows): the flow
 * workloads' flows, then each collective's traffic through the fabric as
 * flows: every edge between two servers (a ring's hops on every channel,
 * an All-to-All's pairs, a tree's edges up and down), each of its QPs a
 * flow from its NIC to the peer's, all at once, as a ring's steps
 * pipeline over all its hops and an All-to-All's pairs run together; an
 * edge over NVLink crosses no switch. 0, or -ENOMEM.
 */
int fluid_neck_flows(const struct scenario *s, struct wl_params *wl)
{
	uint32_t cap = 0;

	memset(wl, 0, sizeof(*wl));
	for (uint32_t f = 0; f < s->wl.n_flows; f++)
		if (add_flow(wl, &cap, &s->wl.flows[f]))
			return -ENOMEM;
	for (uint32_t c = 0; c < s->n_colls; c++) {
		const struct coll_spec *cs = &s->colls[c];
		struct coll_place pl = coll_place_of(cs);
		struct coll_layout l;
		int err = 0;

		if (coll_layout_build(&pl, &l))
			return -ENOMEM;
		for (uint32_t e = 0; e < l.n_edges && !err; e++) {
			struct wl_flow f = {.bytes = cs->bytes, .start = cs->start};

			if (l.edge_qp[e] == COLL_NVLINK)
				continue;
			coll_layout_nics(&pl, &l, e, &f.src, &f.dst);
			for (uint32_t q = 0; q < (pl.qps > 1 ? pl.qps : 1) && !err; q++)
				err = add_flow(wl, &cap, &f);
		}
		coll_layout_free(&l);
		if (err)
			return -ENOMEM;
	}
	return 0;
}

/* Do the flows fill the port over the settled part (within 1%)? */
int fluid_neck_filling(const struct fluid_neck *k)
{
	return k->fp.n * k->run.mean.rate >= 0.99 * k->fp.c;
}

/* Why a bottleneck's verdict is unsure, for people. */
void fluid_neck_unsure_why(const struct fluid_neck *k, char *buf, size_t size)
{
	char delay[64];

	snprintf(delay, sizeof(delay), "it oscillates at %.0fx the feedback delay",
		 FLUID_DELAY_MARGIN);
	snprintf(buf, size, "%s%s%s",
		 k->why & FLUID_THIN_SLOPE ? "the fixed point is on RED's slope, below Kmax" : "",
		 k->why == (FLUID_THIN_SLOPE | FLUID_THIN_DELAY) ? "; " : "",
		 k->why & FLUID_THIN_DELAY ? delay : "");
}

static json_t *why_json(const struct fluid_neck *k)
{
	json_t *a = json_array();

	if (k->why & FLUID_THIN_SLOPE)
		json_array_append_new(a, json_string("red_slope"));
	if (k->why & FLUID_THIN_DELAY)
		json_array_append_new(a, json_string("delay_margin"));
	return a;
}

json_t *fluid_neck_json(const struct fluid_neck *k)
{
	json_t *j = json_object(), *fx = json_object(), *in = json_object(), *ids;

	json_object_set_new(j, "port", json_string(k->port));
	json_object_set_new(j, "flows", json_integer(k->fp.n));
	ids = json_array();
	for (uint32_t i = 0; i < k->n_ids; i++)
		json_array_append_new(ids, json_integer(k->flow_ids[i]));
	json_object_set_new(j, "flow_ids", ids);
	json_object_set_new(j, "rate_bps", json_real(k->rate_bps));
	json_object_set_new(j, "feedback_delay_us", json_real(k->fp.delay * 1e6));
	if (k->has_fixed) {
		json_object_set_new(fx, "queue_bytes", json_real(k->fixed.q * k->frame));
		json_object_set_new(fx, "marking_probability", json_real(k->fixed.p));
		json_object_set_new(fx, "rate_bps", json_real(k->rate_bps / k->fp.n));
		json_object_set_new(fx, "alpha", json_real(k->fixed.alpha));
		json_object_set_new(j, "fixed_point", fx);
	} else {
		json_decref(fx);
		json_object_set_new(j, "fixed_point", json_null());
	}
	json_object_set_new(in, "queue_bytes", json_real(k->run.mean.q * k->frame));
	json_object_set_new(in, "queue_min_bytes", json_real(k->run.q_min * k->frame));
	json_object_set_new(in, "queue_max_bytes", json_real(k->run.q_max * k->frame));
	json_object_set_new(in, "rate_bps", json_real(k->run.mean.rate / k->fp.c * k->rate_bps));
	json_object_set_new(in, "alpha", json_real(k->run.mean.alpha));
	json_object_set_new(j, "settled", in);
	json_object_set_new(j, "verdict", json_string(fluid_verdict_name(k->verdict)));
	json_object_set_new(j, "unsure_because", why_json(k));
	json_object_set_new(j, "oscillates", json_boolean(k->run.oscillates));
	json_object_set_new(j, "settled_at_end",
			    json_boolean(k->run.oscillates || fluid_neck_filling(k)));
	json_object_set_new(j, "model_time_us", json_real(k->run.t[k->run.n - 1] * 1e6));
	json_object_set_new(j, "amplitude_bytes", json_real(k->run.amplitude * k->frame));
	json_object_set_new(j, "period_us", json_real(k->run.period * 1e6));
	return j;
}

/*
 * The verdict over all bottlenecks @k (@n), the worst: oscillates at one,
 * else unsure at one, else settling at one, else converges.
 */
enum fluid_verdict fluid_neck_worst(const struct fluid_neck *k, size_t n)
{
	static const enum fluid_verdict order[] = {FLUID_OSCILLATES, FLUID_UNSURE, FLUID_SETTLING};

	for (size_t o = 0; o < sizeof(order) / sizeof(order[0]); o++)
		for (size_t i = 0; i < n; i++)
			if (k[i].verdict == order[o])
				return order[o];
	return FLUID_CONVERGES;
}

int fluid_neck_solve(struct fluid_neck *k, simtime_t duration, simtime_t step)
{
	int err;

	k->has_fixed = !fluid_fixed_point(&k->fp, &k->fixed);
	err = fluid_integrate(&k->fp, simtime_to_s(duration), simtime_to_s(step),
			      fmax(simtime_to_s(step), 1e-6), &k->run);
	if (!err) {
		int v = fluid_judge(&k->fp, k->has_fixed ? &k->fixed : NULL, &k->run,
				    simtime_to_s(duration), simtime_to_s(step),
				    fmax(simtime_to_s(step), 1e-6), &k->why);

		err = v < 0 ? v : 0;
		k->verdict = v < 0 ? FLUID_SETTLING : (enum fluid_verdict)v;
	}
	return err;
}

void fluid_neck_free(struct fluid_neck *k, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fluid_run_free(&k[i].run);
		free(k[i].flow_ids);
	}
	free(k);
}
