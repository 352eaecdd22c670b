/*
 * Results: turns the counters of a finished run into results.json, prints
 * the summary, and checks expect: gates (see results.h). Everything outside
 * "run" is a pure function of the scenario, the seed and the version.
 */
#include "sim/run/results.h"

#include <errno.h>
#include <gsl/gsl_sort.h>
#include <math.h>
#include <gsl/gsl_statistics_double.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "models/collective.h"
#include "sim/engine/textsafe.h"
#include "sim/engine/units.h"
#include "models/deadlock.h"
#include "models/nic.h"
#include "models/packet.h"
#include "models/switch.h"

#define RES_SCHEMA_VERSION 1

/* Round to 1/1000 so that printed reals are stable. */
static json_t *real3(double v)
{
	return json_real((double)llround(v * 1000.0) / 1000.0);
}

static json_t *uint_j(uint64_t v)
{
	return json_integer((json_int_t)v);
}

/* A whole number as an integer, any other as a real. */
static json_t *num_j(double v)
{
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		return json_integer((json_int_t)v);
	return json_real(v);
}

/*
 * Append @v to the array @a, both stolen: @a, or NULL when either is NULL
 * or the append fails. An allocation that fails anywhere so reaches the
 * root (json_pack fails on a NULL "o"), instead of leaving a value out.
 */
static json_t *push(json_t *a, json_t *v)
{
	if (!a || !v) {
		json_decref(a);
		json_decref(v);
		return NULL;
	}
	if (json_array_append_new(a, v)) {
		json_decref(a);
		return NULL;
	}
	return a;
}

/* Set @o's @key to @v, both stolen: @o, or NULL (see push). */
static json_t *put(json_t *o, const char *key, json_t *v)
{
	if (!o || !v) {
		json_decref(o);
		json_decref(v);
		return NULL;
	}
	if (json_object_set_new(o, key, v)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *fct_stats(const struct net *n)
{
	double *v = malloc((n->n_wl_flows ? n->n_wl_flows : 1) * sizeof(*v));
	size_t k = 0;
	json_t *o;

	if (!v)
		return NULL;
	for (uint32_t i = 0; i < n->n_wl_flows; i++)
		if (n->flows[i].finish)
			v[k++] = simtime_to_us(n->flows[i].finish - n->flows[i].start);
	if (!k) {
		free(v);
		return json_pack("{s:n,s:n,s:n}", "p50", "p99", "max");
	}
	gsl_sort(v, 1, k);
	o = json_pack(
	    "{s:o,s:o,s:o}", "p50", real3(gsl_stats_quantile_from_sorted_data(v, 1, k, 0.5)), "p99",
	    real3(gsl_stats_quantile_from_sorted_data(v, 1, k, 0.99)), "max", real3(v[k - 1]));
	free(v);
	return o;
}

simtime_t res_ideal_fct(const struct topo *t, const struct topo_routes *r, uint32_t src,
			uint32_t dst, uint64_t bytes, uint32_t mtu)
{
	uint64_t packets = bytes / mtu + (bytes % mtu != 0), first, bottleneck = UINT64_MAX;
	uint32_t node = t->hosts[src], hops = 0;
	simtime_t ideal = 0, sf = 0;

	if (!packets)
		packets = 1;
	first = (bytes < mtu ? bytes : mtu) + PKT_HEADER_BYTES + PKT_PREAMBLE_IFG_BYTES;
	while (node != t->hosts[dst]) {
		uint32_t count, port;
		const uint16_t *next = topo_next_hops(r, node, dst, &count);
		const struct topo_link *link;

		if (!next || !count || ++hops > t->n_nodes)
			return SIMTIME_NEVER;
		port = t->nodes[node].first_port + next[0];
		link = &t->links[t->ports[port].link];
		ideal += link->delay;
		sf += simtime_tx(first, link->rate_bps);
		if (link->rate_bps < bottleneck)
			bottleneck = link->rate_bps;
		node = t->ports[port].peer;
	}
	if (!hops)
		return SIMTIME_NEVER;
	/* on the bottleneck, the whole flow's serialization instead of a frame's */
	return ideal + sf - simtime_tx(first, bottleneck) +
	       simtime_tx(bytes + packets * (PKT_HEADER_BYTES + PKT_PREAMBLE_IFG_BYTES),
			  bottleneck);
}

/*
 * A size label: "10KB", "1.5MB", or bytes when no SI unit gives it in
 * three significant digits.
 */
static void size_label(uint64_t b, char *buf, size_t size)
{
	static const char *const unit[] = {"B", "KB", "MB", "GB", "TB"};
	uint64_t div = 1;
	int u = 0;

	while (u < 4 && b >= div * 1000 && b % (div * 10) == 0) {
		div *= 1000;
		u++;
	}
	if (b % div == 0)
		snprintf(buf, size, "%llu%s", (unsigned long long)(b / div), unit[u]);
	else
		snprintf(buf, size, "%g%s", (double)b / (double)div, unit[u]);
}

/*
 * summary.fct_slowdown: per size bucket (output.fct_buckets), the flows
 * that finished and their FCT over the ideal FCT (res_ideal_fct) at p50,
 * p95, p99.
 */
static json_t *fct_slowdown(const struct sim *sim)
{
	const struct net *n = sim->net;
	const struct scenario *s = sim->scn;
	uint32_t nb = s->out.n_fct_buckets + 1;
	double *v = malloc((n->n_wl_flows ? n->n_wl_flows : 1) * sizeof(*v));
	uint32_t *bucket = malloc((n->n_wl_flows ? n->n_wl_flows : 1) * sizeof(*bucket));
	json_t *a = json_array();

	if (!v || !bucket) {
		free(v);
		free(bucket);
		json_decref(a);
		return NULL;
	}
	for (uint32_t i = 0; i < n->n_wl_flows; i++) {
		const struct flow *f = &n->flows[i];
		uint32_t b = 0;

		while (b < s->out.n_fct_buckets && f->bytes >= s->out.fct_buckets[b])
			b++;
		bucket[i] = b;
	}
	for (uint32_t b = 0; b < nb; b++) {
		uint64_t lo = b ? s->out.fct_buckets[b - 1] : 0;
		uint64_t hi = b < s->out.n_fct_buckets ? s->out.fct_buckets[b] : 0;
		char label[64], l1[24], l2[24];
		size_t k = 0;

		for (uint32_t i = 0; i < n->n_wl_flows; i++) {
			const struct flow *f = &n->flows[i];
			simtime_t ideal;

			if (bucket[i] != b || !f->finish)
				continue;
			ideal = res_ideal_fct(sim->topo, n->routes, f->src, f->dst, f->bytes,
					      s->nic.mtu);
			if (ideal == SIMTIME_NEVER || !ideal)
				continue;
			v[k++] = (double)(f->finish - f->start) / (double)ideal;
		}
		size_label(lo, l1, sizeof(l1));
		size_label(hi, l2, sizeof(l2));
		if (!b && hi)
			snprintf(label, sizeof(label), "<%s", l2);
		else if (!hi)
			snprintf(label, sizeof(label), ">=%s", l1);
		else
			snprintf(label, sizeof(label), "%s-%s", l1, l2);
		if (k)
			gsl_sort(v, 1, k);
		a = push(a, json_pack("{s:s,s:o,s:o,s:o,s:o,s:o,s:o}", "bucket", label, "min_bytes",
				      uint_j(lo), "max_bytes", hi ? uint_j(hi) : json_null(), "n",
				      uint_j(k), "p50",
				      k ? real3(gsl_stats_quantile_from_sorted_data(v, 1, k, 0.5))
					: json_null(),
				      "p95",
				      k ? real3(gsl_stats_quantile_from_sorted_data(v, 1, k, 0.95))
					: json_null(),
				      "p99",
				      k ? real3(gsl_stats_quantile_from_sorted_data(v, 1, k, 0.99))
					: json_null()));
	}
	free(v);
	free(bucket);
	return a;
}

static uint64_t peak_rss_kb(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (uint64_t)ru.ru_maxrss; /* kilobytes on Linux */
}

static json_t *pfc_json(const struct port *p, simtime_t end)
{
	json_t *a = json_array();

	for (uint8_t prio = 0; prio < PKT_PRIORITIES; prio++) {
		const struct port_pfc *c = &p->pfc[prio];
		simtime_t paused = port_paused_time(p, prio, end);

		if (!c->tx_pause && !c->tx_resume && !c->rx_pause && !c->rx_resume && !paused)
			continue;
		a = push(a, json_pack("{s:i,s:o,s:o,s:o,s:o,s:o}", "priority", prio, "tx_pause",
				      uint_j(c->tx_pause), "tx_resume", uint_j(c->tx_resume),
				      "rx_pause", uint_j(c->rx_pause), "rx_resume",
				      uint_j(c->rx_resume), "paused_us",
				      real3(simtime_to_us(paused))));
	}
	return a;
}

static json_t *port_json(const struct sim *sim, const struct sw *s, uint32_t i, uint32_t local,
			 uint64_t *max_q)
{
	const struct port *p = &sim->net->ports[i];
	json_t *queues = json_array(), *pgs = json_array(), *o;
	uint64_t drops = 0, peak = 0;

	for (uint8_t prio = 0; prio < PKT_PRIORITIES; prio++) {
		const struct port_queue *q = &p->queue[prio];
		const struct port_qcount *qc = &p->qcount[prio];
		struct sw_pg_stats pg = sw_pg(s, local, prio);

		drops += qc->drops;
		if (q->max_bytes > peak)
			peak = q->max_bytes;
		if (q->tx_packets || qc->drops || q->max_bytes)
			queues =
			    push(queues, json_pack("{s:i,s:o,s:o,s:o,s:o,s:o,s:o}", "queue", prio,
						   "tx_packets", uint_j(q->tx_packets), "tx_bytes",
						   uint_j(q->tx_bytes), "max_bytes",
						   uint_j(q->max_bytes), "drops", uint_j(qc->drops),
						   "drop_bytes", uint_j(qc->drop_bytes),
						   "ecn_marked", uint_j(qc->ecn_marked)));
		if (pg.peak_bytes || pg.lossless_drops)
			pgs = push(pgs, json_pack("{s:i,s:o,s:o,s:o}", "pg", prio, "peak_bytes",
						  uint_j(pg.peak_bytes), "peak_headroom_bytes",
						  uint_j(pg.peak_headroom), "lossless_drops",
						  uint_j(pg.lossless_drops)));
	}
	if (peak > *max_q)
		*max_q = peak;
	o = json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "name",
		      txt_json(sim->topo->ports[i].name), "peer",
		      txt_json(sim->topo->nodes[sim->topo->ports[i].peer].name), "tx_packets",
		      uint_j(p->tx_packets), "tx_bytes", uint_j(p->tx_bytes), "rx_packets",
		      uint_j(p->rx_packets), "rx_bytes", uint_j(p->rx_bytes), "drops",
		      uint_j(drops), "max_queue_bytes", uint_j(peak), "utilization",
		      real3(sim->end_time ? (double)p->busy_time / (double)sim->end_time : 0.0),
		      "pfc", pfc_json(p, sim->end_time), "pgs", pgs, "queues", queues);
	return o;
}

/* mlx5 ethtool -S names for the priorities that saw PFC, added to @o
 * (stolen): @o, or NULL (see push). */
static json_t *nic_pfc_counters(json_t *o, const struct port *p, simtime_t end)
{
	char key[64];

	for (uint8_t prio = 0; prio < PKT_PRIORITIES; prio++) {
		const struct port_pfc *c = &p->pfc[prio];

		if (!(p->pfc_obey & (1u << prio)) && !c->tx_pause && !c->rx_pause)
			continue;
		snprintf(key, sizeof(key), "tx_prio%u_pause", prio);
		o = put(o, key, uint_j(c->tx_pause + c->tx_resume));
		snprintf(key, sizeof(key), "rx_prio%u_pause", prio);
		o = put(o, key, uint_j(c->rx_pause + c->rx_resume));
		snprintf(key, sizeof(key), "rx_prio%u_pause_duration", prio);
		o = put(o, key, uint_j(port_paused_time(p, prio, end) / SIMTIME_US));
	}
	return o;
}

/* One collective as nccl-tests reports it: times per iteration, and the
 * mean completion time with its algorithm and bus bandwidth (GB/s = 1e9). */
static json_t *coll_json(const struct coll *c, const struct topo *t)
{
	struct coll_stats st;
	json_t *iters = json_array(), *ranks = json_array(), *o, *nics = NULL;
	double sum = 0, mean, algbw = 0;

	coll_stats(c, &st);
	/* servers with several NICs: what the collective sent from each */
	if (t->n_hosts != t->n_servers) {
		uint64_t *tx = calloc(t->n_hosts, sizeof(*tx));

		nics = json_object();
		for (uint32_t i = 0; tx && i < st.n_qps; i++)
			tx[st.qps[i].src] += st.qps[i].received;
		for (uint32_t h = 0; tx && nics && h < t->n_hosts; h++)
			if (tx[h] &&
			    txt_json_set_new(nics, t->nodes[t->hosts[h]].name, uint_j(tx[h])))
				break;
		if (!tx) {
			json_decref(nics);
			nics = NULL;
		}
		free(tx);
	}
	for (uint32_t i = 0; i < st.done; i++) {
		sum += simtime_to_us(st.times[i]);
		iters = push(iters, real3(simtime_to_us(st.times[i])));
	}
	mean = st.done ? sum / st.done : 0;
	for (uint32_t r = 0; r < st.ranks; r++)
		ranks = push(ranks,
			     st.rank_done[r] ? real3(simtime_to_us(st.rank_done[r])) : json_null());
	if (mean > 0)
		algbw = (double)st.bytes / (mean * 1e-6) / 1e9;
	o = json_pack("{s:s,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "op",
		      coll_op_name(st.op), "algorithm", st.algo == COLL_TREE ? "tree" : "ring",
		      "bytes", uint_j(st.bytes), "ranks", uint_j(st.ranks), "iterations",
		      uint_j(st.iterations), "iterations_done", uint_j(st.done),
		      "completion_time_us", st.done ? real3(mean) : json_null(), "algbw_GBps",
		      st.done ? real3(algbw) : json_null(), "busbw_GBps",
		      st.done ? real3(algbw * coll_busbw_factor(st.op, st.ranks)) : json_null(),
		      "network_bytes", uint_j(st.network_bytes), "nvlink_bytes",
		      uint_j(st.nvlink_bytes), "iteration_times_us", iters, "rank_done_us", ranks);
	if (o && nics && json_object_set(o, "nic_bytes", nics)) {
		json_decref(o);
		o = NULL;
	}
	/* several QPs per connection: said, and how many QPs that made (one
	 * QP per connection, the default, leaves results as they were) */
	if (o && st.qps_per_conn > 1 &&
	    (json_object_set_new(o, "qps_per_connection", uint_j(st.qps_per_conn)) ||
	     json_object_set_new(o, "split_data_on_qps", json_boolean(st.split)) ||
	     json_object_set_new(o, "network_qps", uint_j(st.n_qps)))) {
		json_decref(o);
		o = NULL;
	}
	json_decref(nics);
	return o;
}

/* summary.deadlock: the static cycles found before the run and the
 * deadlock detected during it, each as a chain of ingress buffers. */
static json_t *deadlock_json(const struct sim *sim)
{
	const struct deadlock_report *rep =
	    sim->net->deadlock ? deadlock_report(sim->net->deadlock) : NULL;
	json_t *cycles = json_array(), *detected = json_array();

	for (uint32_t i = 0; i < sim->cbd.n_cycles; i++) {
		const struct cbd_cycle *c = &sim->cbd.cycles[i];
		json_t *ports = json_array();

		for (uint32_t k = 0; k < c->n; k++)
			ports = push(ports, txt_json(sim->topo->ports[c->ports[k]].name));
		cycles = push(cycles, json_pack("{s:i,s:o}", "priority", c->prio, "ports", ports));
	}
	if (rep && rep->detected) {
		json_t *ports = json_array();

		for (uint32_t k = 0; k < rep->n; k++)
			ports = push(ports, txt_json(sim->topo->ports[rep->ports[k]].name));
		detected =
		    push(detected, json_pack("{s:i,s:o}", "priority", rep->prio, "ports", ports));
	}
	return json_pack("{s:o,s:b,s:o,s:o,s:o,s:o}", "static_cycles", uint_j(sim->cbd.n_cycles),
			 "detected", rep && rep->detected, "detected_at_us",
			 rep && rep->detected ? real3(simtime_to_us(rep->detected_at))
					      : json_null(),
			 "formed_at_us",
			 rep && rep->detected ? real3(simtime_to_us(rep->formed_at)) : json_null(),
			 "cycles", cycles, "detected_cycles", detected);
}

json_t *res_build(const struct sim *sim)
{
	const struct net *n = sim->net;
	const struct mctx_totals *tot = &n->ctx.tot;
	const struct topo *t = sim->topo;
	const struct scenario *scn = sim->scn;
	json_t *root, *switches = json_array(), *hosts = json_array(), *flows = json_array(),
		      *colls;
	json_t *summary;
	uint64_t max_q = 0, pause_frames = 0, paused_ports = 0, hdrm_peak = 0, unroutable_flows = 0;
	simtime_t paused_time = 0;
	double sim_s = simtime_to_s(sim->end_time);
	int err;

	/* workload flows and collective QPs that lost packets for want of a route */
	for (uint32_t i = 0; i < n->n_flows; i++)
		unroutable_flows += n->flows[i].unroutable > 0;

	for (uint32_t i = 0; i < t->n_ports; i++) {
		const struct port *p = &n->ports[i];
		int got = 0;

		for (uint8_t prio = 0; prio < PKT_PRIORITIES; prio++) {
			pause_frames += p->pfc[prio].tx_pause;
			paused_time += port_paused_time(p, prio, sim->end_time);
			got |= p->pfc[prio].rx_pause > 0;
		}
		paused_ports += (uint64_t)got;
	}
	for (uint32_t u = 0; u < t->n_nodes; u++) {
		const struct topo_node *tn = &t->nodes[u];
		const struct sw_counters *c;
		json_t *ports;

		if (tn->kind != TOPO_SWITCH)
			continue;
		c = sw_counters(n->switches[u]);
		ports = json_array();
		for (uint32_t k = 0; k < tn->n_ports; k++)
			for (uint8_t prio = 0; prio < PKT_PRIORITIES; prio++)
				if (sw_pg(n->switches[u], k, prio).peak_headroom > hdrm_peak)
					hdrm_peak = sw_pg(n->switches[u], k, prio).peak_headroom;
		for (uint32_t k = 0; k < tn->n_ports; k++)
			ports = push(ports,
				     port_json(sim, n->switches[u], tn->first_port + k, k, &max_q));
		switches =
		    push(switches,
			 json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "name",
				   txt_json(tn->name), "shared_bytes", uint_j(c->shared_size),
				   "shared_peak_bytes", uint_j(c->shared_peak),
				   "headroom_peak_bytes", uint_j(c->headroom_peak), "drops",
				   uint_j(c->drops), "lossless_drops", uint_j(c->lossless_drops),
				   "unroutable_packets", uint_j(c->unroutable), "watchdog_triggers",
				   uint_j(c->watchdog_triggers), "watchdog_drops",
				   uint_j(c->watchdog_drops), "ports", ports));
	}
	for (uint32_t h = 0; h < t->n_hosts; h++) {
		const struct nic_counters *c = nic_counters(n->nics[h]);
		const struct port *p = &n->ports[t->nodes[t->hosts[h]].first_port];
		json_t *o = json_pack(
		    "{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "name",
		    txt_json(t->nodes[t->hosts[h]].name), "tx_packets_phy",
		    uint_j(c->tx_packets_phy), "tx_bytes_phy", uint_j(c->tx_bytes_phy),
		    "rx_packets_phy", uint_j(c->rx_packets_phy), "rx_bytes_phy",
		    uint_j(c->rx_bytes_phy), "rx_discards_phy", uint_j(c->rx_discards_phy),
		    "np_ecn_marked_roce_packets", uint_j(c->np_ecn_marked_roce_packets),
		    "np_cnp_sent", uint_j(c->np_cnp_sent), "rp_cnp_handled",
		    uint_j(c->rp_cnp_handled), "rp_cnp_ignored", uint_j(c->rp_cnp_ignored),
		    "out_of_sequence", uint_j(c->out_of_sequence), "duplicate_request",
		    uint_j(c->duplicate_request), "packet_seq_err", uint_j(c->packet_seq_err),
		    "local_ack_timeout_err", uint_j(c->local_ack_timeout_err),
		    "retransmitted_packets", uint_j(c->retransmitted_packets),
		    "retransmitted_bytes", uint_j(c->retransmitted_bytes));

		hosts = push(hosts, nic_pfc_counters(o, p, sim->end_time));
	}
	for (uint32_t i = 0; i < n->n_wl_flows; i++) {
		const struct flow *f = &n->flows[i];
		json_t *fj;

		fj = push(
		    flows,
		    json_pack("{s:i,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "id", (int)i, "src",
			      txt_json(t->nodes[t->hosts[f->src]].name), "dst",
			      txt_json(t->nodes[t->hosts[f->dst]].name), "bytes", uint_j(f->bytes),
			      "received", uint_j(f->received), "start_us",
			      real3(simtime_to_us(f->start)), "fct_us",
			      f->finish ? real3(simtime_to_us(f->finish - f->start)) : json_null(),
			      "acked_us",
			      f->acked ? real3(simtime_to_us(f->acked - f->start)) : json_null(),
			      "unroutable_packets", uint_j(f->unroutable)));
		/* only a QP that failed has the key (others are unchanged) */
		if (fj && f->qp_error &&
		    json_object_set_new(json_array_get(fj, json_array_size(fj) - 1), "error",
					json_string("retry_exceeded"))) {
			json_decref(fj);
			fj = NULL;
		}
		flows = fj;
	}
	colls = json_array();
	for (uint32_t i = 0; i < n->n_colls; i++)
		colls = push(colls, coll_json(n->colls[i], n->topo));
	root = json_pack(
	    "{s:i,s:o,s:o,s:{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:s,s:o,s:o,s:o},"
	    "s:{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,"
	    "s:{s:o,s:o,s:o,s:o}},s:o,s:o,s:o}",
	    "schema_version", RES_SCHEMA_VERSION, "scenario", txt_json(sim->scn->name), "seed",
	    uint_j(sim->scn->seed), "run", "events", uint_j(sim->events), "wall_s",
	    json_real(sim->wall_s), "events_per_s",
	    json_real(sim->wall_s > 0 ? (double)sim->events / sim->wall_s : 0.0), "packet_hops",
	    uint_j(tot->packet_hops), "packet_hops_per_s",
	    json_real(sim->wall_s > 0 ? (double)tot->packet_hops / sim->wall_s : 0.0),
	    "data_packet_hops", uint_j(tot->data_hops), "sim_time_us",
	    real3(simtime_to_us(sim->end_time)), "end", sim_end_str(sim->end), "peak_packets",
	    uint_j(n->ctx.pool.peak), "peak_rss_kb", uint_j(peak_rss_kb()), "queue_peak",
	    uint_j(evq_peak(sim->q)), "summary", "sim_time_us", real3(simtime_to_us(sim->end_time)),
	    "flows", uint_j(n->n_wl_flows), "flows_done", uint_j(n->flows_done), "pfc_pause_frames",
	    uint_j(pause_frames), "pfc_pause_rate_per_s",
	    real3(sim_s > 0 ? (double)pause_frames / sim_s : 0.0), "pfc_paused_time_us",
	    real3(simtime_to_us(paused_time)), "paused_ports", uint_j(paused_ports),
	    "ecn_marked_packets", uint_j(tot->ecn_marked), "drops", uint_j(tot->dropped_packets),
	    "lossless_drops", uint_j(tot->lossless_drops), "unroutable_packets",
	    uint_j(tot->unroutable), "unroutable_flows", uint_j(unroutable_flows),
	    "watchdog_triggers", uint_j(tot->watchdog_triggers), "watchdog_drops",
	    uint_j(tot->watchdog_drops), "cnp_sent", uint_j(tot->cnp_sent), "cnp_handled",
	    uint_j(tot->cnp_handled), "retransmitted_packets", uint_j(tot->retransmitted_packets),
	    "max_queue_bytes", uint_j(max_q), "max_headroom_bytes", uint_j(hdrm_peak), "fct_us",
	    fct_stats(n), "bytes", "sent", uint_j(tot->sent_bytes), "received",
	    uint_j(tot->received_bytes), "dropped", uint_j(tot->dropped_bytes), "in_flight",
	    uint_j(sim->inflight), "switches", switches, "hosts", hosts, "flows", flows);
	if (!root || !colls)
		goto fail;
	summary = json_object_get(root, "summary");
	if (json_object_set_new(summary, "done_us",
				sim->end == SIM_END_DONE ? real3(simtime_to_us(sim->done_at))
							 : json_null()) ||
	    json_object_set_new(summary, "deadlock", deadlock_json(sim)) ||
	    /* the thresholds the pictures draw */
	    json_object_set_new(root, "config", res_thresholds(scn, sim->topo)))
		goto fail;
	if (n->n_wl_flows && json_object_set_new(summary, "fct_slowdown", fct_slowdown(sim)))
		goto fail;
	if (res_add_rc_timeouts(summary, sim) || res_add_wire_losses(root, sim) ||
	    res_add_training(root, sim) || res_add_fast_forward(root, sim))
		goto fail;
	/* the flows' sizes summed: what compare checks besides their count */
	if (n->n_wl_flows) {
		uint64_t wl_bytes = 0;

		for (uint32_t i = 0; i < n->n_wl_flows; i++)
			wl_bytes += n->flows[i].bytes;
		if (json_object_set_new(summary, "workload_bytes", uint_j(wl_bytes)))
			goto fail;
	}
	/* the load the poisson workloads offered: their bytes over what their
	 * hosts' links carry at line rate over their durations */
	if (scn->wl.offered_capacity > 0 &&
	    json_object_set_new(summary, "offered_load",
				json_real((double)llround((double)scn->wl.offered_bytes /
							  scn->wl.offered_capacity * 1e4) /
					  1e4)))
		goto fail;
	if (json_array_size(colls)) {
		if (json_object_set(summary, "collective", json_array_get(colls, 0)))
			goto fail;
		err = json_object_set_new(summary, "collectives", colls);
		colls = NULL; /* taken, even when it failed */
		if (err)
			goto fail;
	}
	json_decref(colls);
	return root;
fail:
	json_decref(colls);
	json_decref(root);
	return NULL;
}

int res_write_json(const json_t *j, FILE *f)
{
	/* the text whole, then one write: json_dumpf writes token by token */
	char *text = json_dumps(j, JSON_INDENT(1) | JSON_REAL_PRECISION(12));
	size_t len;
	int err = 0;

	if (!text)
		return -ENOMEM;
	len = strlen(text);
	errno = 0;
	if (fwrite(text, 1, len, f) != len)
		err = errno ? -errno : -EIO;
	free(text);
	return err;
}

int res_metric(const json_t *j, const char *metric, double *out)
{
	const json_t *v = json_object_get(j, "summary");
	char buf[96], *part, *save = NULL;

	snprintf(buf, sizeof(buf), "%s%s", metric, strcmp(metric, "deadlock") ? "" : ".detected");
	for (part = strtok_r(buf, ".", &save); part && v; part = strtok_r(NULL, ".", &save))
		v = json_object_get(v, part);
	if (json_is_integer(v))
		*out = (double)json_integer_value(v);
	else if (json_is_real(v))
		*out = json_real_value(v);
	else if (json_is_boolean(v))
		*out = json_is_true(v);
	else
		return -ENOENT;
	return 0;
}

/* Gate @e on the results @j: 1 met, 0 missed, -1 not measured (*@v: the value). */
static int expect_eval(const json_t *j, const struct scn_expect *e, double *v)
{
	if (res_metric(j, e->metric, v))
		return -1;
	return e->op == SCN_EXPECT_EQ	 ? *v == e->value
	       : e->op == SCN_EXPECT_MIN ? *v >= e->value
					 : *v <= e->value;
}

static const char *const expect_op[] = {"==", ">=", "<="};

int res_check_expects(const json_t *j, const struct scenario *s, FILE *f)
{
	int failed = 0;

	for (uint32_t i = 0; i < s->n_expects; i++) {
		const struct scn_expect *e = &s->expects[i];
		char w[4 * sizeof(e->where)];
		double v;
		int ok = expect_eval(j, e, &v);

		txt_term(w, sizeof(w), e->where);
		if (ok < 0) {
			fprintf(f, "%s: expect %s %s %g: FAILED, not measured in this run\n", w,
				e->metric, expect_op[e->op], e->value);
			failed++;
			continue;
		}
		if (ok)
			continue;
		failed++;
		if (e->value != 0)
			fprintf(f, "%s: expect %s %s %g: FAILED, got %g (%+.1f%%)\n", w, e->metric,
				expect_op[e->op], e->value, v, 100.0 * (v - e->value) / e->value);
		else
			fprintf(f, "%s: expect %s %s %g: FAILED, got %g\n", w, e->metric,
				expect_op[e->op], e->value, v);
	}
	return failed;
}

int res_add_expects(json_t *j, const struct scenario *s)
{
	json_t *a = json_array();
	int met = 0;

	for (uint32_t i = 0; i < s->n_expects; i++) {
		const struct scn_expect *e = &s->expects[i];
		double v;
		int ok = expect_eval(j, e, &v);

		met += ok > 0;
		a = push(a, json_pack("{s:o,s:s,s:o,s:o,s:b,s:o}", "metric", txt_json(e->metric),
				      "op", expect_op[e->op], "limit", num_j(e->value), "value",
				      ok < 0 ? json_null() : num_j(v), "pass", ok > 0, "where",
				      txt_json(e->where)));
	}
	if (!a || json_object_set_new(j, "expect", a))
		return -ENOMEM;
	return met;
}

static double num(const json_t *o, const char *path)
{
	double v = 0;

	res_metric(o, path, &v);
	return v;
}

/* nccl-tests' columns, one row per iteration (float, sum as nccl-tests'
 * default data type and reduction). */
static void print_collectives(const json_t *j, FILE *f)
{
	const json_t *cs = json_object_get(json_object_get(j, "summary"), "collectives");
	size_t i;
	json_t *c;

	json_array_foreach(cs, i, c) {
		const char *op = json_string_value(json_object_get(c, "op"));
		double bytes = (double)json_integer_value(json_object_get(c, "bytes"));
		double ranks = (double)json_integer_value(json_object_get(c, "ranks"));
		double factor =
		    !strcmp(op, "allreduce") ? 2 * (ranks - 1) / ranks : (ranks - 1) / ranks;
		const json_t *it = json_object_get(c, "iteration_times_us");
		const char *algo = json_string_value(json_object_get(c, "algorithm"));
		size_t k;
		json_t *t;

		fprintf(f, "  %-10s %.0f ranks, %zu of %lld iterations done%s\n", op, ranks,
			json_array_size(it),
			(long long)json_integer_value(json_object_get(c, "iterations")),
			algo && !strcmp(algo, "tree") ? " (tree)" : "");
		fprintf(f, "  #%14s %12s %6s %6s %11s %11s %11s\n", "size", "count", "type",
			"redop", "time(us)", "algbw(GB/s)", "busbw(GB/s)");
		json_array_foreach(it, k, t) {
			double us = json_real_value(t), algbw = bytes / (us * 1e-6) / 1e9;

			fprintf(f, "  %15.0f %12.0f %6s %6s %11.1f %11.2f %11.2f\n", bytes,
				bytes / 4, "float",
				!strcmp(op, "alltoall") || !strcmp(op, "allgather") ? "none"
										    : "sum",
				us, algbw, algbw * factor);
		}
		if (json_integer_value(json_object_get(c, "nvlink_bytes")))
			fprintf(f, "  %-10s %lld bytes over NVLink, %lld over the network\n",
				"gpus",
				(long long)json_integer_value(json_object_get(c, "nvlink_bytes")),
				(long long)json_integer_value(json_object_get(c, "network_bytes")));
	}
}

/* FCT slowdown per size bucket that holds finished flows. */
static void print_slowdown(const json_t *j, FILE *f)
{
	const json_t *a = json_object_get(json_object_get(j, "summary"), "fct_slowdown"), *b;
	size_t i;

	json_array_foreach(a, i, b) {
		if (json_integer_value(json_object_get(b, "n")) <= 0)
			continue;
		fprintf(
		    f, "  slowdown   %-12s %6lld flows: FCT / ideal p50 %.2f, p95 %.2f, p99 %.2f\n",
		    json_string_value(json_object_get(b, "bucket")),
		    (long long)json_integer_value(json_object_get(b, "n")),
		    json_number_value(json_object_get(b, "p50")),
		    json_number_value(json_object_get(b, "p95")),
		    json_number_value(json_object_get(b, "p99")));
	}
}

/*
 * Where the time went when retransmission timeouts fired: the QP that waited
 * longest, against the time the workload took (or the run, unfinished).
 */
static void print_rc_timeouts(const json_t *j, FILE *f)
{
	const json_t *sum = json_object_get(j, "summary");
	const json_t *done = json_object_get(sum, "done_us");
	const json_t *rc = json_object_get(sum, "rc_timeouts");
	const json_t *tr =
	    json_object_get(json_object_get(json_object_get(j, "effective"), "nic"), "transport");
	char waited[32], whole[32], first[32], last[32], how[96];
	double n = num(j, "rc_timeouts.qp_timeouts"), failed = num(j, "rc_timeouts.qp_errors");

	if (!rc)
		return;
	units_show_time(num(j, "rc_timeouts.timeout_us"), last, sizeof(last));
	if (json_is_true(json_object_get(tr, "adaptive_retrans")))
		snprintf(
		    how, sizeof(how), "adaptive, %s doubling up to %s",
		    units_show_time(json_number_value(json_object_get(tr, "adaptive_first_us")),
				    first, sizeof(first)),
		    last);
	else
		snprintf(how, sizeof(how), "%s each", last);
	fprintf(
	    f,
	    "  timeouts   %s of %s waiting for %.0f RC timeout%s on QP %s->%s (%s); "
	    "%.0f in all\n",
	    units_show_time(num(j, "rc_timeouts.qp_waited_us"), waited, sizeof(waited)),
	    units_show_time(json_is_number(done) ? json_number_value(done) : num(j, "sim_time_us"),
			    whole, sizeof(whole)),
	    n, n == 1 ? "" : "s", json_string_value(json_object_get(rc, "qp_src")),
	    json_string_value(json_object_get(rc, "qp_dst")), how, num(j, "rc_timeouts.timeouts"));
	if (failed > 0)
		fprintf(f,
			"  qp errors  %.0f QP%s failed, retry count exceeded "
			"(IBV_WC_RETRY_EXC_ERR): %s and whatever waits on %s never complete%s\n",
			failed, failed == 1 ? "" : "s",
			failed == 1 ? "its message" : "their messages", failed == 1 ? "it" : "them",
			json_is_true(json_object_get(rc, "qp_failed"))
			    ? " (the QP above among them)"
			    : "");
}

/* The overlays and overrides a run applied to its scenario, as given. */
static void print_changes(const json_t *prov, FILE *f)
{
	const char *sep = "; with ";
	size_t i;
	json_t *v;

	json_array_foreach(json_object_get(prov, "overlays"), i, v) {
		fputs(sep, f);
		txt_fputs_term(json_string_value(v), f);
		sep = ", ";
	}
	json_array_foreach(json_object_get(prov, "overrides"), i, v) {
		fprintf(f, "%s--set ", sep);
		txt_fputs_term(json_string_value(v), f);
		sep = ", ";
	}
}

void res_print_summary(const json_t *j, FILE *f)
{
	const json_t *run = json_object_get(j, "run");

	const json_t *done = json_object_get(json_object_get(j, "summary"), "done_us");

	/* a completed workload: when it completed (the run goes on a little) */
	fputs("scenario ", f);
	txt_fputs_term(json_string_value(json_object_get(j, "scenario")), f);
	fprintf(f, " (seed %lld", (long long)json_integer_value(json_object_get(j, "seed")));
	print_changes(json_object_get(j, "provenance"), f);
	fprintf(f, "): %s at %.3f us simulated\n", json_string_value(json_object_get(run, "end")),
		json_is_number(done) ? json_number_value(done)
				     : json_real_value(json_object_get(run, "sim_time_us")));
	if (num(j, "flows") > 0 && num(j, "flows_done") > 0)
		fprintf(
		    f,
		    "  flows      %.0f of %.0f done; FCT p50 %.3f us, p99 %.3f us, max %.3f us\n",
		    num(j, "flows_done"), num(j, "flows"), num(j, "fct_us.p50"),
		    num(j, "fct_us.p99"), num(j, "fct_us.max"));
	else if (num(j, "flows") > 0) /* results.json's FCTs are null then */
		fprintf(f, "  flows      0 of %.0f done; FCT none finished\n", num(j, "flows"));
	print_slowdown(j, f);
	if (json_object_get(json_object_get(j, "summary"), "offered_load"))
		fprintf(
		    f, "  load       %.2f%% of the hosts' links offered by the poisson workloads\n",
		    100 * num(j, "offered_load"));
	print_collectives(j, f);
	res_print_training(j, f);
	fprintf(
	    f,
	    "  pfc        %.0f PAUSE frames (%.1f/s), %.3f us paused in all, %.0f ports paused, "
	    "peak headroom %.0f bytes\n",
	    num(j, "pfc_pause_frames"), num(j, "pfc_pause_rate_per_s"),
	    num(j, "pfc_paused_time_us"), num(j, "paused_ports"), num(j, "max_headroom_bytes"));
	fprintf(f,
		"  fabric     %.0f drops (%.0f lossless), %.0f ECN marks, peak egress queue %.0f "
		"bytes\n",
		num(j, "drops"), num(j, "lossless_drops"), num(j, "ecn_marked_packets"),
		num(j, "max_queue_bytes"));
	fprintf(f, "  transport  %.0f CNPs sent, %.0f handled, %.0f packets retransmitted\n",
		num(j, "cnp_sent"), num(j, "cnp_handled"), num(j, "retransmitted_packets"));
	print_rc_timeouts(j, f);
	res_print_fast_forward(j, f);
	if (num(j, "unroutable_flows") > 0)
		fprintf(
		    f,
		    "  unroutable %.0f flows (or collective QPs) lost %.0f packets for want of a "
		    "route: the fabric is partitioned between their hosts and they cannot "
		    "finish (rocesim check names the pairs)\n",
		    num(j, "unroutable_flows"), num(j, "unroutable_packets"));
	if (num(j, "deadlock.static_cycles") > 0 || num(j, "deadlock.detected") > 0)
		fprintf(f, "  deadlock   %.0f static cycles; %s\n",
			num(j, "deadlock.static_cycles"),
			num(j, "deadlock.detected") > 0 ? "a deadlock formed during the run"
							: "none formed during the run");
	if (num(j, "watchdog_triggers") > 0)
		fprintf(f, "  watchdog   %.0f triggers, %.0f packets dropped\n",
			num(j, "watchdog_triggers"), num(j, "watchdog_drops"));
	fprintf(f, "  bytes      sent %.0f = received %.0f + dropped %.0f + in flight %.0f\n",
		num(j, "bytes.sent"), num(j, "bytes.received"), num(j, "bytes.dropped"),
		num(j, "bytes.in_flight"));
	fprintf(f,
		"  speed      %lld events in %.3f s wall = %.2fM events/s, %.2fM packet-hops/s, "
		"peak RSS %.1f MB\n",
		(long long)json_integer_value(json_object_get(run, "events")),
		json_real_value(json_object_get(run, "wall_s")),
		json_real_value(json_object_get(run, "events_per_s")) / 1e6,
		json_real_value(json_object_get(run, "packet_hops_per_s")) / 1e6,
		(double)json_integer_value(json_object_get(run, "peak_rss_kb")) / 1024.0);
}
