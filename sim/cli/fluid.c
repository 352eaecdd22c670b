/*
 * rocesim fluid: the DCQCN fluid model (models/fluid.h) on each
 * bottleneck of a scenario's workload, in milliseconds: where DCQCN
 * settles (the fixed point, in closed form, and the integrated queue),
 * and whether it oscillates.
 *
 * A bottleneck is a switch egress port that N >= 2 flows cross, along the
 * fabric's routes, and whose flows can bring more than its rate (an
 * incast's receiver, an oversubscribed uplink; find_necks says how); a
 * port that carries one flow has no queue to model. A collective's flows
 * are its QPs between servers (model_flows). The model's packet is
 * a data frame of the NIC's MTU (MTU + 62 B of headers, 20 B of preamble
 * and gap on the wire, as the packet model counts them); the ECN
 * thresholds and pmax are the switch's; the DCQCN constants come from
 * nic.dcqcn (the paper variant's as the paper states them; mlx5's mapped
 * as docs/fluid.md says). The feedback delay is the loop a mark takes: from the
 * bottleneck to the receiver, then the whole path back to the sender (the
 * longest of the port's flows), plus a data frame's serialization at the
 * bottleneck.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "models/coll_layout.h"
#include "models/fluid.h"
#include "models/packet.h"
#include "sim/cli/cli.h"
#include "sim/config/scenario.h"
#include "sim/engine/units.h"
#include "topologies/topo.h"

static const char usage[] =
    "usage: rocesim fluid SCENARIO.yaml [--json] [-o DIR] [--with OVERLAY.yaml]...\n"
    "                     [--set KEY=VALUE]... [--duration T] [--step T] [--quiet]\n"
    "\n"
    "Solves the DCQCN fluid model (Zhu et al., CoNEXT 2016) for each bottleneck\n"
    "of the scenario's flows: a switch port that N >= 2 flows cross (along the\n"
    "routes, the first next hop where ECMP offers several) and whose flows can\n"
    "bring more than its rate: a receiver's port, an oversubscribed uplink; a\n"
    "collective's flows are its QPs between servers, all at once.\n"
    "Prints the fixed point (queue, marking probability, rate per flow, alpha)\n"
    "and the integrated trajectory's settled queue, amplitude and period:\n"
    "whether DCQCN converges or oscillates there, or the model is unsure (it\n"
    "converges where the packet model may drain the queue or swing).\n"
    "\n"
    "options:\n"
    "  --json          print {\"bottlenecks\": [...]} instead of the table\n"
    "  -o, --out DIR   also write DIR/fluid.json, DIR/fluid-<port>.csv (the\n"
    "                  trajectory: t_us, queue_bytes, rc_gbps, rt_gbps, alpha) and\n"
    "                  DIR/results.json (summary.fluid: the bottleneck with the\n"
    "                  largest queue, what sweep and tune --model fluid read;\n"
    "                  a packet run's results.json in DIR is kept, so that\n"
    "                  `rocesim plot DIR` draws both models side by side)\n"
    "  --with FILE     merge a partial scenario onto SCENARIO, as run does\n"
    "  --set KEY=VALUE override a scenario key (repeatable)\n"
    "  --seed N        taken and ignored: the model has no randomness\n"
    "  --quiet         print nothing on stdout\n"
    "  --duration T    model time integrated (default 50ms)\n"
    "  --step T        the integration step, and the shortest feedback delay\n"
    "                  (default 1us)\n"
    "\n"
    "exit codes: 0 ok; 2 bad input (no shared port, ECN off, DCQCN off).\n";

struct fluid_args {
	const char *scenario, *outdir;
	const char **sets, **overlays;
	size_t n_sets, n_overlays;
	int json, quiet;
	simtime_t duration, step;
};

/* One bottleneck: its name, the model's parameters and what it gives. */
struct neck {
	char port[2 * TOPO_NAME_MAX + 8];
	uint32_t *flow_ids; /* the workload's flows that cross it */
	uint32_t n_ids;
	struct fluid_params fp;
	double frame; /* bytes per model packet (queue accounting) */
	double rate_bps;
	struct fluid_point fixed;
	int has_fixed;
	struct fluid_run run;
	enum fluid_verdict verdict;
	unsigned why; /* an unsure verdict's reasons: FLUID_THIN_* */
};

/* The model's constants from @s for a bottleneck of @n flows at @rate. */
static void params(const struct scenario *s, uint32_t n, uint64_t rate, simtime_t loop,
		   simtime_t step, struct neck *k)
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
static int find_necks(const struct scenario *s, const struct topo *t, const struct wl_params *wl,
		      simtime_t step, struct neck **out, size_t *n)
{
	struct port_load *pl = calloc(t->n_ports, sizeof(*pl));
	uint32_t *sends =
	    calloc(t->n_hosts ? t->n_hosts : 1, sizeof(*sends)); /* flows a host sends */
	uint32_t *path = calloc(t->n_nodes + 1, sizeof(*path)), len;
	simtime_t *down = calloc(t->n_nodes + 1, sizeof(*down)), all;
	struct topo_routes *r = NULL;
	struct neck *k = NULL;
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
		struct neck *e = &k[pl[i].neck < 0 ? 0 : pl[i].neck];

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
				struct neck *e = &k[pl[path[i]].neck];

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
static int model_flows(const struct scenario *s, struct wl_params *wl)
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
static int filling(const struct neck *k)
{
	return k->fp.n * k->run.mean.rate >= 0.99 * k->fp.c;
}

/* Why a bottleneck's verdict is unsure, for people. */
static void unsure_why(const struct neck *k, char *buf, size_t size)
{
	char delay[64];

	snprintf(delay, sizeof(delay), "it oscillates at %.0fx the feedback delay",
		 FLUID_DELAY_MARGIN);
	snprintf(buf, size, "%s%s%s",
		 k->why & FLUID_THIN_SLOPE ? "the fixed point is on RED's slope, below Kmax" : "",
		 k->why == (FLUID_THIN_SLOPE | FLUID_THIN_DELAY) ? "; " : "",
		 k->why & FLUID_THIN_DELAY ? delay : "");
}

static json_t *why_json(const struct neck *k)
{
	json_t *a = json_array();

	if (k->why & FLUID_THIN_SLOPE)
		json_array_append_new(a, json_string("red_slope"));
	if (k->why & FLUID_THIN_DELAY)
		json_array_append_new(a, json_string("delay_margin"));
	return a;
}

static json_t *neck_json(const struct neck *k)
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
	json_object_set_new(j, "settled_at_end", json_boolean(k->run.oscillates || filling(k)));
	json_object_set_new(j, "model_time_us", json_real(k->run.t[k->run.n - 1] * 1e6));
	json_object_set_new(j, "amplitude_bytes", json_real(k->run.amplitude * k->frame));
	json_object_set_new(j, "period_us", json_real(k->run.period * 1e6));
	return j;
}

/* Does @path hold a packet run's results.json (one without "model": "fluid")? */
static int packet_run_in(const char *path)
{
	json_t *j = json_load_file(path, 0, NULL);
	const char *model = json_string_value(json_object_get(j, "model"));
	int run = json_is_object(j) && !(model && !strcmp(model, "fluid"));

	json_decref(j);
	return run;
}

/*
 * The verdict over all bottlenecks @k (@n), the worst: oscillates at one,
 * else unsure at one, else settling at one, else converges.
 */
static enum fluid_verdict worst_verdict(const struct neck *k, size_t n)
{
	static const enum fluid_verdict order[] = {FLUID_OSCILLATES, FLUID_UNSURE, FLUID_SETTLING};

	for (size_t o = 0; o < sizeof(order) / sizeof(order[0]); o++)
		for (size_t i = 0; i < n; i++)
			if (k[i].verdict == order[o])
				return order[o];
	return FLUID_CONVERGES;
}

/*
 * DIR/results.json for a sweep or a tune of the fluid model: its summary is
 * summary.fluid of the bottleneck with the largest settled queue, the
 * names the metrics of `tune --model fluid` take; but the verdict, and
 * oscillates, converges and unsure, are the worst of all the bottlenecks:
 * a point passes only when every one does.
 */
static int write_results(const char *dir, const struct scenario *s, const struct neck *k, size_t n)
{
	const struct neck *w = &k[0];
	enum fluid_verdict v = worst_verdict(k, n);
	char path[4200], tmp[4300];
	json_t *j, *f;
	int err = 0;

	for (size_t i = 1; i < n; i++)
		if (k[i].run.mean.q * k[i].frame > w->run.mean.q * w->frame)
			w = &k[i];
	f = json_object();
	json_object_set_new(f, "port", json_string(w->port));
	json_object_set_new(f, "queue_bytes", json_real(w->run.mean.q * w->frame));
	json_object_set_new(f, "queue_max_bytes", json_real(w->run.q_max * w->frame));
	json_object_set_new(f, "fixed_point_queue_bytes",
			    w->has_fixed ? json_real(w->fixed.q * w->frame) : json_null());
	json_object_set_new(f, "marking_probability",
			    w->has_fixed ? json_real(w->fixed.p) : json_null());
	json_object_set_new(f, "rate_bps", json_real(w->run.mean.rate / w->fp.c * w->rate_bps));
	json_object_set_new(f, "oscillates", json_boolean(v == FLUID_OSCILLATES));
	json_object_set_new(f, "verdict", json_string(fluid_verdict_name(v)));
	json_object_set_new(f, "converges", json_boolean(v == FLUID_CONVERGES));
	json_object_set_new(f, "unsure", json_boolean(v == FLUID_UNSURE));
	json_object_set_new(f, "amplitude_bytes", json_real(w->run.amplitude * w->frame));
	json_object_set_new(f, "period_us", json_real(w->run.period * 1e6));
	j = json_pack("{s:i,s:s,s:s,s:{s:o}}", "schema_version", 1, "scenario", s->name, "model",
		      "fluid", "summary", "fluid", f);
	snprintf(path, sizeof(path), "%s/results.json", dir);
	if (packet_run_in(path)) {
		/* the packet run's results stay; fluid.json sits beside them */
		json_decref(j);
		return 0;
	}
	snprintf(tmp, sizeof(tmp), "%s/.results.json.fluid", dir);
	/* whole or not at all: a sweep takes results.json for a finished run */
	if (!j || json_dump_file(j, tmp, JSON_INDENT(2)) || rename(tmp, path))
		err = -EIO;
	json_decref(j);
	return err;
}

static int write_csv(const char *dir, const struct neck *k)
{
	char path[4200], name[sizeof(k->port)];
	FILE *f;
	int err = 0;

	snprintf(name, sizeof(name), "%s", k->port);
	for (char *c = name; *c; c++)
		if (*c == ':' || *c == '/')
			*c = '-';
	snprintf(path, sizeof(path), "%s/fluid-%s.csv", dir, name);
	if (!(f = fopen(path, "w")))
		return -errno;
	fputs("t_us,queue_bytes,rc_gbps,rt_gbps,alpha\n", f);
	for (size_t i = 0; i < k->run.n; i++)
		fprintf(f, "%.3f,%.1f,%.4f,%.4f,%.5f\n", k->run.t[i] * 1e6, k->run.q[i] * k->frame,
			k->run.rc[i] / k->fp.c * k->rate_bps / 1e9,
			k->run.rt[i] / k->fp.c * k->rate_bps / 1e9, k->run.alpha[i]);
	if (ferror(f))
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

static void print_neck(const struct neck *k, const struct scenario *s)
{
	printf("bottleneck %s: %u flows at %.0f Gb/s, feedback delay %.2f us (%s variant)\n",
	       k->port, k->fp.n, k->rate_bps / 1e9, k->fp.delay * 1e6,
	       s->nic.dcqcn.variant == DCQCN_PAPER ? "paper" : "mlx5");
	if (k->has_fixed)
		printf("  fixed point  queue %.1f KB, marking %.4f%%, %.2f Gb/s per flow, alpha "
		       "%.4f\n",
		       k->fixed.q * k->frame / 1e3, k->fixed.p * 100, k->rate_bps / k->fp.n / 1e9,
		       k->fixed.alpha);
	else
		printf(
		    "  fixed point  none: the flows do not fill the port with a queue to mark\n");
	printf("  settled      queue %.1f KB (%.1f-%.1f KB over the last %s), %.2f Gb/s per "
	       "flow: %s",
	       k->run.mean.q * k->frame / 1e3, k->run.q_min * k->frame / 1e3,
	       k->run.q_max * k->frame / 1e3,
	       k->run.converged_early ? "tenth, converged early" : "40% of the run",
	       k->run.mean.rate / k->fp.c * k->rate_bps / 1e9,
	       k->verdict == FLUID_SETTLING ? "still settling at the end of the run"
					    : fluid_verdict_name(k->verdict));
	if (k->verdict == FLUID_UNSURE) {
		char why[160];

		unsure_why(k, why, sizeof(why));
		printf(" (it converges, but %s: the packet model may drain the queue or swing; "
		       "confirm with rocesim run)",
		       why);
	}
	if (k->verdict == FLUID_SETTLING)
		printf(" (the flows fill %.0f%% of the port; try --duration)",
		       100 * k->fp.n * k->run.mean.rate / k->fp.c);
	if (k->run.oscillates)
		printf(", amplitude %.1f KB, period %.1f us", k->run.amplitude * k->frame / 1e3,
		       k->run.period * 1e6);
	printf("\n");
}

static int fluid_main(const struct fluid_args *a)
{
	struct scenario *s = NULL;
	struct topo *t = NULL;
	struct neck *necks = NULL;
	struct diag d = {0};
	struct wl_params wl = {0};
	size_t n = 0;
	int err, rc = ROCESIM_EXIT_INPUT;
	json_t *all = NULL;

	err = scn_load_with(a->scenario,
			    &(struct scn_load_opts){.overlays = a->overlays,
						    .n_overlays = a->n_overlays,
						    .sets = a->sets,
						    .n_sets = a->n_sets},
			    &s, &d);
	if (!err && (err = topo_build(&s->topo, &t, &d)))
		scn_locate(s, &d);
	else if (!err)
		err = scn_resolve(s, t, &d);
	if (err) {
		fputs("rocesim: ", stderr);
		if (err == -ENOMEM)
			fputs("out of memory\n", stderr);
		else
			diag_print(&d, stderr);
		goto out;
	}
	if (s->nic.cc != NIC_CC_DCQCN || !s->sw.ecn.enabled) {
		fprintf(stderr,
			"rocesim: %s: the fluid model needs DCQCN (nic.cc: dcqcn) and ECN "
			"marking (switch.ecn)\n",
			a->scenario);
		goto out;
	}
	if ((err = model_flows(s, &wl)) || (err = find_necks(s, t, &wl, a->step, &necks, &n))) {
		fputs("rocesim: out of memory\n", stderr);
		goto out;
	}
	if (!n) {
		fprintf(
		    stderr,
		    "rocesim: %s: no bottleneck: no switch port is shared by more flows than it "
		    "carries (the fluid model takes the shared ports of flow workloads and of "
		    "collectives between servers)\n",
		    a->scenario);
		goto out;
	}
	all = json_array();
	for (size_t i = 0; i < n; i++) {
		necks[i].has_fixed = !fluid_fixed_point(&necks[i].fp, &necks[i].fixed);
		err =
		    fluid_integrate(&necks[i].fp, simtime_to_s(a->duration), simtime_to_s(a->step),
				    fmax(simtime_to_s(a->step), 1e-6), &necks[i].run);
		if (!err) {
			int v = fluid_judge(
			    &necks[i].fp, necks[i].has_fixed ? &necks[i].fixed : NULL,
			    &necks[i].run, simtime_to_s(a->duration), simtime_to_s(a->step),
			    fmax(simtime_to_s(a->step), 1e-6), &necks[i].why);

			err = v < 0 ? v : 0;
			necks[i].verdict = v < 0 ? FLUID_SETTLING : (enum fluid_verdict)v;
		}
		if (err) {
			fprintf(stderr, "rocesim: %s: %s\n", necks[i].port,
				err == -ENOMEM ? "out of memory"
					       : "the model cannot be integrated");
			goto out;
		}
		json_array_append_new(all, neck_json(&necks[i]));
		if (!a->json && !a->quiet)
			print_neck(&necks[i], s);
	}
	if (a->json && !a->quiet) {
		json_t *j = json_pack("{s:O}", "bottlenecks", all);

		json_dumpf(j, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(j);
	}
	rc = 0;
	if (a->outdir) {
		json_t *j = json_pack("{s:O}", "bottlenecks", all);

		if (mkdir(a->outdir, 0777) && errno != EEXIST) {
			fprintf(stderr, "rocesim: cannot write in %s\n", a->outdir);
			rc = ROCESIM_EXIT_IO;
		} else {
			char path[4200];

			snprintf(path, sizeof(path), "%s/fluid.json", a->outdir);
			if (json_dump_file(j, path, JSON_INDENT(2)))
				rc = ROCESIM_EXIT_IO;
			if (!rc && write_results(a->outdir, s, necks, n))
				rc = ROCESIM_EXIT_IO;
			for (size_t i = 0; i < n && !rc; i++)
				if (write_csv(a->outdir, &necks[i]))
					rc = ROCESIM_EXIT_IO;
			if (rc)
				fprintf(stderr, "rocesim: cannot write in %s\n", a->outdir);
		}
		json_decref(j);
	}
out:
	for (size_t i = 0; i < n; i++) {
		fluid_run_free(&necks[i].run);
		free(necks[i].flow_ids);
	}
	free(necks);
	free(wl.flows);
	json_decref(all);
	topo_free(t);
	scn_free(s);
	return rc;
}

static int parse_time(const char *pre, const char *o, const char *v, simtime_t *out)
{
	if (!v || units_time(v, out) || !*out)
		return cli_usage_error(pre, usage, "%s needs a time above 0 (e.g. 50ms)", o);
	return -1;
}

int cmd_fluid(int argc, char **argv)
{
	static const char pre[] = "rocesim fluid: ";
	struct fluid_args a = {.duration = 100 * SIMTIME_MS, .step = SIMTIME_US};
	int rc = -1;

	a.sets = calloc((size_t)argc + 1, sizeof(*a.sets));
	a.overlays = calloc((size_t)argc + 1, sizeof(*a.overlays));
	if (!a.sets || !a.overlays) {
		free(a.sets);
		free(a.overlays);
		fputs("rocesim: out of memory\n", stderr);
		return ROCESIM_EXIT_INPUT;
	}
	for (int i = 0; i < argc && rc < 0; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(o, "--json")) {
			a.json = 1;
		} else if (!strcmp(o, "-o") || !strcmp(o, "--out")) {
			if (!v)
				rc = cli_usage_error(pre, usage, "%s needs a folder", o);
			a.outdir = argv[++i];
		} else if (!strcmp(o, "--with")) {
			if (!v)
				rc = cli_usage_error(pre, usage, "%s needs an overlay file", o);
			else
				a.overlays[a.n_overlays++] = argv[++i];
		} else if (!strcmp(o, "--seed")) {
			/* the model has no randomness: taken, as a sweep passes it */
			if (!v)
				rc = cli_usage_error(pre, usage, "%s needs a number", o);
			i++;
		} else if (!strcmp(o, "--quiet") || !strcmp(o, "-q")) {
			a.quiet = 1;
		} else if (!strcmp(o, "--set")) {
			if (!v || !strchr(v, '='))
				rc = cli_usage_error(pre, usage, "%s needs KEY=VALUE", o);
			else
				a.sets[a.n_sets++] = argv[++i];
		} else if (!strcmp(o, "--duration")) {
			rc = parse_time(pre, o, v, &a.duration);
			i++;
		} else if (!strcmp(o, "--step")) {
			rc = parse_time(pre, o, v, &a.step);
			i++;
		} else {
			rc = cli_scenario_arg(o, pre, usage, &a.scenario);
		}
	}
	if (rc < 0 && !a.scenario)
		rc = cli_usage_error(pre, usage, "%s", "fluid needs a scenario file");
	if (rc < 0 && a.duration < 20 * a.step)
		rc = cli_usage_error(pre, usage, "%s", "--duration must be at least 20 steps");
	if (rc < 0 && (double)a.duration / (double)a.step > FLUID_MAX_STEPS)
		rc = cli_usage_error(
		    pre, usage, "%s",
		    "--duration is more than 10,000,000 steps of --step (16 bytes of "
		    "history each): give a longer --step or a shorter --duration");
	if (rc < 0)
		rc = fluid_main(&a);
	free(a.sets);
	free(a.overlays);
	return rc;
}
