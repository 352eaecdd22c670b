/*
 * The lossless switch against hand-computed cases: where XOFF fires, when
 * the PAUSE arrives and takes effect, how much headroom a congested PG
 * uses, incasts with and without enough headroom, ECN marking, the
 * schedulers, storms and the PFC watchdog. Every run also checks bytes
 * sent = received + dropped + in flight.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/net.h"
#include "models/nic.h"
#include "models/switch.h"
#include "sim/run/results.h"
#include "sim/config/scenario.h"
#include "proc.h"
#include "sim/run/sim.h"
#include "support.h"

#define MTU_WIRE (4096 + 62 + 20)
#define PAUSE_WIRE (64 + 20)

/* What the PFC log saw, for the first events of interest. */
struct pfc_trace {
	struct sim *sim;
	uint32_t xoff_port; /* ingress port whose XOFF we watch */
	uint32_t upstream;  /* its peer port (the transmitter) */
	simtime_t t_xoff, t_rx, t_paused, t_unpaused;
	uint64_t pg_bytes_at_xoff;
	uint64_t up_tx_at_paused, up_tx_at_unpaused;
	int up_busy_at_paused;
	uint32_t n_xoff, n_xon;
};

static void trace(void *ctx, simtime_t t, uint32_t port, uint8_t prio, enum pfc_event ev)
{
	struct pfc_trace *tr = ctx;
	const struct net *n = tr->sim->net;
	const struct port *up = &n->ports[tr->upstream];

	(void)prio;
	if (ev == PFC_EV_XOFF && port == tr->xoff_port && !tr->n_xoff++) {
		const struct topo_port *tp = &tr->sim->topo->ports[port];
		uint32_t local = port - tr->sim->topo->nodes[tp->node].first_port;

		tr->t_xoff = t;
		tr->pg_bytes_at_xoff = sw_pg(n->switches[tp->node], local, 3).bytes;
	}
	if (ev == PFC_EV_XON && port == tr->xoff_port)
		tr->n_xon++;
	if (ev == PFC_EV_RX_PAUSE && port == tr->upstream && !tr->t_rx)
		tr->t_rx = t;
	if (ev == PFC_EV_PAUSED && port == tr->upstream && !tr->t_paused) {
		tr->t_paused = t;
		tr->up_tx_at_paused = up->tx_packets;
		tr->up_busy_at_paused = up->tx_pkt != NULL;
	}
	if (ev == PFC_EV_UNPAUSED && port == tr->upstream && tr->t_paused && !tr->t_unpaused) {
		tr->t_unpaused = t;
		tr->up_tx_at_unpaused = up->tx_packets;
	}
}

/* The switch tests watch the switch: senders stay at line rate (no DCQCN)
 * unless the scenario says otherwise. */
static void load(const char *yaml, struct sim *sim)
{
	static const char *const line_rate[] = {"nic.cc=none"};

	ts_load(yaml, line_rate, strstr(yaml, "cc:") ? 0 : 1, sim);
}

static uint32_t port_id(const struct sim *sim, const char *name)
{
	for (uint32_t i = 0; i < sim->topo->n_ports; i++)
		if (!strcmp(sim->topo->ports[i].name, name))
			return i;
	cr_assert_fail("no port %s", name);
	return 0;
}

/* Two senders into one receiver at 100G over 2 m cables, static XOFF 100 KB. */
static const char incast2[] = "topology: {kind: star, hosts: 3, link: {rate: 100Gbps, cable: 2m}}\n"
			      "switch:\n"
			      "  buffer: {size: 32MB}\n"
			      "  pfc: {xoff: 100KB, xon_offset: 20KB, headroom: 1MB}\n"
			      "  ecn: {enabled: false}\n"
			      "workload: {kind: incast, senders: 2, size: 2MB}\n";

Test(switch, xoff_fires_on_the_byte_that_crosses_the_threshold)
{
	struct sim sim;
	struct pfc_trace tr = {.sim = &sim};
	json_t *j;

	load(incast2, &sim);
	tr.xoff_port = port_id(&sim, "sw0:h0");
	tr.upstream = port_id(&sim, "h0:sw0");
	sim.net->ctx.pfc_log = trace;
	sim.net->ctx.pfc_log_ctx = &tr;
	j = ts_finish(&sim);
	cr_assert_gt(tr.n_xoff, 0);
	/* before the crossing packet the PG held at most XOFF; with it, more */
	cr_assert_leq(tr.pg_bytes_at_xoff, 100000);
	cr_assert_gt(tr.pg_bytes_at_xoff + 4096 + 62, 100000, "PG held %llu B at XOFF",
		     (unsigned long long)tr.pg_bytes_at_xoff);
	cr_assert_eq(tr.n_xon, tr.n_xoff, "every XOFF is followed by an XON");
	cr_assert_eq(ts_metric(j, "lossless_drops"), 0);
	json_decref(j);
	sim_fini(&sim);
}

Test(switch, pause_arrives_after_serialization_and_propagation_then_stops_the_sender)
{
	struct sim sim;
	struct pfc_trace tr = {.sim = &sim};
	/* 84 B at 100 Gb/s = 6.72 ns; 2 m = 10 ns; response 394 quanta = 2.01728 us */
	const simtime_t ser = 6720, prop = 10000, resp = 2017280;
	json_t *j;

	load(incast2, &sim);
	tr.xoff_port = port_id(&sim, "sw0:h0");
	tr.upstream = port_id(&sim, "h0:sw0");
	sim.net->ctx.pfc_log = trace;
	sim.net->ctx.pfc_log_ctx = &tr;
	j = ts_finish(&sim);
	/* the switch's port towards h0 is idle (h0 only sends): no wait */
	cr_assert_eq(tr.t_rx - tr.t_xoff, ser + prop, "PAUSE took %llu ps",
		     (unsigned long long)(tr.t_rx - tr.t_xoff));
	cr_assert_eq(tr.t_paused - tr.t_rx, resp);
	/* the packet on the wire when the pause took effect is finished, no more */
	cr_assert_neq(tr.t_unpaused, 0);
	cr_assert_eq(tr.up_tx_at_unpaused, tr.up_tx_at_paused + (uint64_t)tr.up_busy_at_paused);
	json_decref(j);
	sim_fini(&sim);
}

struct hdrm_case {
	uint64_t gbps;
	uint32_t metres;
};

static const struct hdrm_case hdrm_cases[] = {
    {100, 2}, {100, 100}, {100, 300}, {100, 1000}, {400, 2}, {400, 100}, {400, 300}, {400, 1000},
};

static void headroom_case(const struct hdrm_case *c)
{
	char yaml[1024];
	struct sim sim;
	json_t *j;
	struct sw_pg_stats pg;
	double bytes_per_ps = (double)c->gbps * 1e9 / 8 / 1e12;
	double prop = c->metres * 5000.0,
	       resp = (c->gbps == 100 ? 394 : 905) * 512.0 / (c->gbps * 1e9) * 1e12;
	double bound;

	/*
	 * A 15:1 incast: each ingress PG drains at 1/15 of the port, so the
	 * headroom it uses is close to everything that arrives after XOFF.
	 */
	snprintf(yaml, sizeof(yaml),
		 "topology: {kind: star, hosts: 16, link: {rate: %lluGbps, cable: %um}}\n"
		 "switch:\n"
		 "  buffer: {size: 256MB}\n"
		 "  pfc: {xoff: 200KB, headroom: 4MB}\n"
		 "  ecn: {enabled: false}\n"
		 "workload: {kind: incast, senders: 15, size: 2MB}\n",
		 (unsigned long long)c->gbps, c->metres);
	load(yaml, &sim);
	j = ts_finish(&sim);
	pg = sw_pg(sim.net->switches[sim.topo->ports[port_id(&sim, "sw0:h0")].node], 0, 3);
	/* 2 x propagation x rate + 2 x MTU wire bytes + PAUSE + response x rate */
	bound = 2 * prop * bytes_per_ps + 2 * MTU_WIRE + PAUSE_WIRE + resp * bytes_per_ps;
	cr_assert_leq((double)pg.peak_headroom, bound, "%lluG %um: peak headroom %llu > bound %.0f",
		      (unsigned long long)c->gbps, c->metres, (unsigned long long)pg.peak_headroom,
		      bound);
	cr_assert_geq((double)pg.peak_headroom, 0.8 * bound,
		      "%lluG %um: peak headroom %llu < 80%% of bound %.0f",
		      (unsigned long long)c->gbps, c->metres, (unsigned long long)pg.peak_headroom,
		      bound);
	cr_assert_eq(ts_metric(j, "lossless_drops"), 0);
	json_decref(j);
	sim_fini(&sim);
}

/* Each speed and cable length in turn (a loop: Criterion's parameterized
 * tests are dropped by this build's link-time optimizer). */
Test(switch, headroom_used_stays_within_the_round_trip_bound)
{
	for (size_t i = 0; i < sizeof(hdrm_cases) / sizeof(hdrm_cases[0]); i++)
		headroom_case(&hdrm_cases[i]);
}

Test(switch, incast_with_ample_headroom_is_lossless_and_on_time)
{
	static const char yaml[] =
	    "topology: {kind: star, hosts: 9, link: {rate: 100Gbps, cable: 2m}}\n"
	    "switch:\n"
	    "  buffer: {size: 32MB}\n"
	    "  pfc: {xoff: 200KB, xon_offset: 50KB}\n"
	    "workload: {kind: incast, senders: 8, size: 4MB}\n";
	/* 8 x (4 MB + 977 packets x 82 B) through the receiver's 100G port */
	const double wire_us = 8.0 * (4000000 + 977 * 82) * 8 / 100e9 * 1e6;
	struct sim sim;
	json_t *j;

	load(yaml, &sim);
	j = ts_finish(&sim);
	cr_assert_eq(ts_metric(j, "lossless_drops"), 0);
	cr_assert_eq(ts_metric(j, "drops"), 0);
	cr_assert_gt(ts_metric(j, "pfc_pause_frames"), 0);
	cr_assert_eq(ts_metric(j, "paused_ports"), 8);
	cr_assert_leq(ts_metric(j, "fct_us.max"), wire_us * 1.05, "%.1f us vs wire %.1f us",
		      ts_metric(j, "fct_us.max"), wire_us);
	json_decref(j);
	sim_fini(&sim);
}

Test(switch, long_cables_with_short_headroom_lose_lossless_packets)
{
	static const char yaml[] =
	    "topology: {kind: star, hosts: 9, link: {rate: 100Gbps, cable: 2km}}\n"
	    "switch:\n"
	    "  buffer: {size: 32MB}\n"
	    "  pfc: {xoff: 200KB, headroom: 50KB}\n"
	    "workload: {kind: incast, senders: 8, size: 4MB}\n";
	struct sim sim;
	json_t *j;

	load(yaml, &sim);
	j = ts_finish(&sim);
	/* the round trip alone is 2 x 10 us x 12.5 GB/s = 250 KB */
	cr_assert_gt(ts_metric(j, "lossless_drops"), 0);
	cr_assert_eq(ts_metric(j, "lossless_drops"), ts_metric(j, "drops"));
	cr_assert_gt(ts_metric(j, "retransmitted_packets"), 0, "go-back-N pays for each drop");
	json_decref(j);
	sim_fini(&sim);
}

Test(switch, computed_headroom_covers_the_round_trip)
{
	static const char yaml[] =
	    "topology: {kind: star, hosts: 9, link: {rate: 100Gbps, cable: 300m}}\n"
	    "switch: {buffer: {size: 32MB}, pfc: {xoff: 200KB}}\n"
	    "workload: {kind: incast, senders: 8, size: 2MB}\n";
	struct sim sim;
	json_t *j;

	load(yaml, &sim);
	j = ts_finish(&sim);
	cr_assert_eq(ts_metric(j, "lossless_drops"), 0);
	cr_assert_gt(ts_metric(j, "pfc_pause_frames"), 0);
	cr_assert_eq(ts_metric(j, "flows_done"), 8);
	json_decref(j);
	sim_fini(&sim);
}

/* The headroom need in long double: 3 x (MTU + 82) + 84 + (2 d + r) x rate / 8. */
static long double headroom_ld(uint64_t rate, simtime_t delay, simtime_t response, uint32_t mtu)
{
	return 3.0L * (mtu + 82) + 84 +
	       floorl((2.0L * (long double)delay + (long double)response) *
		      (long double)(rate / 8) / 1e12L);
}

/*
 * Long and fast links, where (2 x delay + response) x rate / 8 leaves 64
 * bits (400G x 40 km, 1.6T x 10 km, a 1 s delay): the need is the formula,
 * not a wrapped remainder.
 */
Test(switch, headroom_need_holds_on_long_and_fast_links)
{
	static const struct {
		uint64_t rate;
		simtime_t delay;
	} links[] = {
	    {400000000000ULL, 40000000 * SIMTIME_PS_PER_MM},  /* 40 km */
	    {1600000000000ULL, 10000000 * SIMTIME_PS_PER_MM}, /* 10 km */
	    {100000000000ULL, SIMTIME_S},
	    {400000000000ULL, SIMTIME_S},
	    {1600000000000ULL, SIMTIME_S},
	    {10000000000ULL, SIMTIME_S},
	    {100000000000ULL, 2000 * SIMTIME_PS_PER_MM},	/* 2 m */
	    {1600000000000ULL, 1000000000 * SIMTIME_PS_PER_MM}, /* 1000 km */
	};
	static const uint32_t mtus[] = {256, 1024, 4096};

	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		for (size_t m = 0; m < sizeof(mtus) / sizeof(mtus[0]); m++) {
			uint64_t r = links[i].rate;
			simtime_t resp = pfc_response_delay(r);
			uint64_t got = pfc_headroom_need(r, links[i].delay, resp, mtus[m]);
			long double want = headroom_ld(r, links[i].delay, resp, mtus[m]);

			cr_assert(fabsl((long double)got - want) <= 1,
				  "%llu b/s, %llu ps, MTU %u: %llu B, formula %.1Lf B",
				  (unsigned long long)r, (unsigned long long)links[i].delay,
				  mtus[m], (unsigned long long)got, want);
		}
	}
	/* 400G x 40 km, MTU 4096: 20 MB, not the 1.6 MB of a wrapped product */
	cr_assert_eq(pfc_headroom_need(400000000000ULL, 200 * SIMTIME_US,
				       pfc_response_delay(400000000000ULL), 4096),
		     20070538);
	/* a need beyond 2^64 B is "more than any buffer", not a small number */
	cr_assert_eq(pfc_headroom_need(UINT64_MAX, UINT64_MAX, 0, 4096), UINT64_MAX);
}

Test(switch, lossy_priority_tail_drops_without_pause)
{
	static const char yaml[] = "topology: {kind: star, hosts: 9}\n"
				   "switch: {buffer: {size: 2MB}, dscp_to_tc: {26: 1}}\n"
				   "workload: {kind: incast, senders: 8, size: 1MB}\n";
	struct sim sim;
	json_t *j;

	load(yaml, &sim);
	j = ts_finish(&sim);
	cr_assert_gt(ts_metric(j, "drops"), 0);
	cr_assert_eq(ts_metric(j, "lossless_drops"), 0, "priority 3 is lossy here");
	cr_assert_eq(ts_metric(j, "pfc_pause_frames"), 0);
	json_decref(j);
	sim_fini(&sim);
}

static double marks_received(const struct sim *sim)
{
	double sum = 0;

	for (uint32_t h = 0; h < sim->topo->n_hosts; h++)
		sum += (double)nic_counters(sim->net->nics[h])->np_ecn_marked_roce_packets;
	return sum;
}

static double ecn_run(const char *kmin, const char *kmax, const char *ect, double *received,
		      double *at_nics)
{
	static const char base[] =
	    "topology: {kind: star, hosts: 9}\n"
	    "switch: {buffer: {size: 64MB}, ecn: {kmin: %s, kmax: %s, pmax: 1%%}}\n"
	    "nic: {ecn: %s}\n"
	    "workload: {kind: incast, senders: 8, size: 1MB}\n";
	char yaml[512];
	struct sim sim;
	json_t *j;
	double marks;

	snprintf(yaml, sizeof(yaml), base, kmin, kmax, ect);
	load(yaml, &sim);
	j = ts_finish(&sim);
	marks = ts_metric(j, "ecn_marked_packets");
	*received = (double)sim.net->ctx.tot.received_packets;
	*at_nics = marks_received(&sim);
	json_decref(j);
	sim_fini(&sim);
	return marks;
}

Test(switch, ecn_marks_follow_the_red_profile)
{
	double received, at_nics, marks;

	/* above kmax every packet leaving a backlogged queue is marked */
	marks = ecn_run("1B", "2B", "true", &received, &at_nics);
	cr_assert_geq(marks, 0.95 * received, "%.0f marks of %.0f packets", marks, received);
	cr_assert_eq(marks, at_nics, "every CE mark reaches its receiver");
	/* the queue never reaches a 20 MB kmin */
	marks = ecn_run("20MB", "30MB", "true", &received, &at_nics);
	cr_assert_eq(marks, 0);
	/* packets that are not ECN-capable are never marked */
	marks = ecn_run("1B", "2B", "false", &received, &at_nics);
	cr_assert_eq(marks, 0);
}

/* Load @yaml as a scenario (no simulation); 0 or the loader's error. */
static int load_only(const char *yaml, struct scenario **s, struct diag *d)
{
	memset(d, 0, sizeof(*d));
	*s = NULL;
	return scn_load_text(ts_src("tests/step.yaml"), yaml, strlen(yaml), NULL, 0, s, d);
}

/*
 * Step marking (DCTCP's K, a SONiC WRED profile with min == max): kmin ==
 * kmax is accepted from the scenario and from config_db.json; kmin above
 * kmax is still refused.
 */
Test(switch, step_marking_is_accepted_by_the_loader)
{
	struct scenario *s;
	struct diag d;
	char yaml[512];

	cr_assert_eq(load_only("topology: {kind: star, hosts: 3}\n"
			       "switch: {ecn: {kmin: 100KB, kmax: 100KB}}\n"
			       "workload: {kind: incast, senders: 2, size: 1MB}\n",
			       &s, &d),
		     0, "%s: %s", d.path, d.msg);
	cr_assert_eq(s->sw.ecn.kmin, 100000);
	cr_assert_eq(s->sw.ecn.kmax, 100000);
	scn_free(s);

	/* kmin alone at kmax's default */
	cr_assert_eq(load_only("topology: {kind: star, hosts: 3}\n"
			       "switch: {ecn: {kmin: 1.2MB}}\n"
			       "workload: {kind: incast, senders: 2, size: 1MB}\n",
			       &s, &d),
		     0, "%s: %s", d.path, d.msg);
	scn_free(s);

	cr_assert_eq(load_only("topology: {kind: star, hosts: 3}\n"
			       "switch: {ecn: {kmin: 100KB, kmax: 99999}}\n"
			       "workload: {kind: incast, senders: 2, size: 1MB}\n",
			       &s, &d),
		     -EINVAL);
	cr_assert_str_eq(d.path, "switch.ecn.kmax");
	cr_assert(strstr(d.msg, "kmin (100000 B) must not be above kmax (99999 B)"), "%s", d.msg);

	/* a SONiC WRED profile with green_min_threshold == green_max_threshold */
	snprintf(yaml, sizeof(yaml),
		 "topology: {kind: star, hosts: 3}\n"
		 "switch: {sonic: %s}\n"
		 "workload: {kind: incast, senders: 2, size: 1MB}\n",
		 ts_src("tests/sonic/wred-step.json"));
	cr_assert_eq(load_only(yaml, &s, &d), 0, "%s: %s", d.path, d.msg);
	cr_assert_eq(s->sw.ecn.kmin, 200000);
	cr_assert_eq(s->sw.ecn.kmax, 200000);
	scn_free(s);
}

/* The model's marking decision at depth @q, @n draws: how many marked. */
static unsigned red_marks(const struct sw_ecn *e, uint64_t q, unsigned n, gsl_rng *rng)
{
	unsigned marked = 0;

	for (unsigned i = 0; i < n; i++)
		marked += (unsigned)sw_red_mark(e, q, rng);
	return marked;
}

/* Step marking in the switch: none at or below K, every packet above. */
Test(switch, step_marking_marks_every_packet_above_k_and_none_at_k)
{
	const struct sw_ecn e = {.enabled = 1, .kmin = 100000, .kmax = 100000, .pmax = 0.05};
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);

	gsl_rng_set(rng, 1);
	cr_assert_eq(red_marks(&e, 0, 1000, rng), 0);
	cr_assert_eq(red_marks(&e, 99999, 1000, rng), 0);
	cr_assert_eq(red_marks(&e, 100000, 1000, rng), 0, "at K: not marked");
	cr_assert_eq(red_marks(&e, 100001, 1000, rng), 1000, "above K: always, whatever pmax");
	cr_assert_eq(red_marks(&e, 10000000, 1000, rng), 1000);
	gsl_rng_free(rng);
}

/*
 * The RED ramp: at (kmin + kmax) / 2 the probability is pmax / 2. 10,000
 * draws (binomial, sigma = sqrt(n p (1 - p))) must land within 3 sigma;
 * at kmax it is pmax, above kmax 1, at kmin 0.
 */
Test(switch, red_marks_pmax_half_way_up_the_ramp)
{
	const struct sw_ecn e = {.enabled = 1, .kmin = 150000, .kmax = 1200000, .pmax = 0.2};
	const unsigned n = 10000;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double p, sigma;
	unsigned m;

	gsl_rng_set(rng, 42);
	p = e.pmax / 2;
	sigma = sqrt(n * p * (1 - p));
	m = red_marks(&e, (e.kmin + e.kmax) / 2, n, rng);
	cr_assert(fabs(m - n * p) <= 3 * sigma, "%u marks of %u at mid-ramp, expected %.0f +- %.0f",
		  m, n, n * p, 3 * sigma);
	p = e.pmax / 4;
	sigma = sqrt(n * p * (1 - p));
	m = red_marks(&e, e.kmin + (e.kmax - e.kmin) / 4, n, rng);
	cr_assert(fabs(m - n * p) <= 3 * sigma, "%u marks of %u at a quarter, expected %.0f", m, n,
		  n * p);
	p = e.pmax;
	sigma = sqrt(n * p * (1 - p));
	m = red_marks(&e, e.kmax, n, rng);
	cr_assert(fabs(m - n * p) <= 3 * sigma, "%u marks of %u at kmax, expected %.0f", m, n,
		  n * p);
	cr_assert_eq(red_marks(&e, e.kmin, n, rng), 0);
	cr_assert_eq(red_marks(&e, e.kmax + 1, n, rng), n);
	gsl_rng_free(rng);
}

/* Two flows into h2 on two traffic classes: DSCP 8 -> TC 1, DSCP 16 -> TC 2. */
static void two_classes(const char *sched, double *tc1_share)
{
	char yaml[1024];
	struct sim sim;
	json_t *j;
	const struct flow *a, *b;

	snprintf(yaml, sizeof(yaml),
		 "topology: {kind: star, hosts: 3}\n"
		 "switch:\n"
		 "  buffer: {size: 64MB}\n"
		 "  lossless: []\n"
		 "  dscp_to_tc: {8: 1, 16: 2}\n"
		 "  %s\n"
		 "workload:\n"
		 "  kind: flows\n"
		 "  flows:\n"
		 "    - {src: h0, dst: h2, size: 4MB, dscp: 8}\n"
		 "    - {src: h1, dst: h2, size: 4MB, dscp: 16}\n",
		 sched);
	load(yaml, &sim);
	j = ts_finish(&sim);
	a = &sim.net->flows[0];
	b = &sim.net->flows[1];
	cr_assert(a->finish && b->finish);
	/* share of the bottleneck the first class got while both were queued:
	 * its bytes delivered by the time the first flow completed */
	{
		simtime_t first = a->finish < b->finish ? a->finish : b->finish;
		if (a->finish != first) {
			/* b finished first: a's share is what a had delivered by then,
			 * approximated from its finish time at line rate afterwards */
			double after = (double)(a->finish - b->finish) * 100e9 / 8 / 1e12;
			double wire = (double)a->bytes * (4096 + 82) / 4096;

			*tc1_share =
			    (wire - after) / (wire - after + (double)b->bytes * (4096 + 82) / 4096);
		} else {
			double after = (double)(b->finish - a->finish) * 100e9 / 8 / 1e12;
			double wire = (double)b->bytes * (4096 + 82) / 4096;

			*tc1_share = (double)a->bytes * (4096 + 82) / 4096 /
				     ((double)a->bytes * (4096 + 82) / 4096 + wire - after);
		}
	}
	json_decref(j);
	sim_fini(&sim);
}

Test(switch, strict_priority_serves_the_higher_class_first)
{
	double share;

	two_classes("scheduler: strict", &share);
	cr_assert_lt(share, 0.05, "TC 1 got %.3f of the port while TC 2 waited", share);
}

Test(switch, dwrr_shares_the_port_by_weight)
{
	double share;

	two_classes("scheduler: dwrr\n  weights: [1, 3, 1, 1, 1, 1, 1, 1]", &share);
	cr_assert_float_eq(share, 0.75, 0.03, "TC 1 with weight 3 of 4 got %.3f", share);
	two_classes("scheduler: dwrr\n  weights: [1, 1, 1, 1, 1, 1, 1, 1]", &share);
	cr_assert_float_eq(share, 0.5, 0.03, "equal weights, TC 1 got %.3f", share);
}

/* h0..h3 on leaf0 send to h4 on leaf1, which storms from 100 us. */
static const char storm[] =
    "stop: 20ms\n"
    "topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4,\n"
    "           link: {rate: 100Gbps, cable: 2m}, uplink: {rate: 100Gbps, cable: 10m}}\n"
    "switch:\n"
    "  buffer: {size: 16MB}\n"
    "  pfc: {xoff: 300KB, xon_offset: 50KB}\n"
    "%s"
    "workload:\n"
    "  kind: flows\n"
    "  flows:\n"
    "    - {src: h0, dst: h4, size: 20MB}\n"
    "    - {src: h1, dst: h4, size: 20MB}\n"
    "    - {src: h2, dst: h4, size: 20MB}\n"
    "    - {src: h3, dst: h4, size: 20MB}\n"
    "faults: [{kind: pfc_storm, host: h4, at: 100us}]\n";

static uint64_t rx_pause_at(const struct sim *sim, const char *port)
{
	return sim->net->ports[port_id(sim, port)].pfc[3].rx_pause;
}

Test(switch, a_storm_spreads_beyond_the_first_hop)
{
	char yaml[2048];
	struct sim sim;
	json_t *j;

	snprintf(yaml, sizeof(yaml), storm, "");
	load(yaml, &sim);
	j = ts_finish(&sim);
	cr_assert_gt(rx_pause_at(&sim, "leaf1:h4"), 0, "the storm pauses its own switch port");
	cr_assert_gt(rx_pause_at(&sim, "spine0:leaf1") + rx_pause_at(&sim, "spine1:leaf1"), 0,
		     "leaf1 pauses the spines");
	cr_assert_gt(rx_pause_at(&sim, "leaf0:spine0") + rx_pause_at(&sim, "leaf0:spine1"), 0,
		     "the spines pause leaf0");
	cr_assert_gt(rx_pause_at(&sim, "h0:leaf0"), 0, "leaf0 pauses the senders");
	cr_assert_eq(ts_metric(j, "flows_done"), 0, "nothing gets through a storm");
	cr_assert_eq(ts_metric(j, "lossless_drops"), 0);
	cr_assert_eq(ts_metric(j, "watchdog_triggers"), 0);
	json_decref(j);
	sim_fini(&sim);
}

Test(switch, the_watchdog_breaks_a_storm)
{
	char yaml[2048];
	struct sim sim;
	json_t *j;

	snprintf(yaml, sizeof(yaml), storm,
		 "  watchdog: {detection: 1ms, restoration: 2ms, action: drop}\n");
	load(yaml, &sim);
	j = ts_finish(&sim);
	cr_assert_gt(ts_metric(j, "watchdog_triggers"), 0);
	cr_assert_gt(ts_metric(j, "watchdog_drops"), 0, "drop action discards the stuck queue");
	/* the fabric behind the stormed port drains: leaf0's senders resume */
	cr_assert_gt(sim.net->ports[port_id(&sim, "h0:leaf0")].tx_packets,
		     sim.net->ports[port_id(&sim, "leaf0:h0")].pfc[3].tx_pause);
	json_decref(j);
	sim_fini(&sim);
}

/* What the watchdog did, per port and priority, checked as it happens. */
struct wd_trace {
	simtime_t t1;	    /* switch.watchdog.restoration */
	simtime_t *last_rx; /* the last PFC frame received, per port x priority */
	simtime_t *since;   /* when the storm was declared */
	uint32_t triggers, restores, wrong;
	simtime_t first_wrong, wrong_due;
	uint32_t watch; /* the stormed port: its own triggers and restores */
	uint32_t watch_triggers, watch_restores;
};

static void wd_log(void *ctx, simtime_t t, uint32_t port, uint8_t prio, enum pfc_event ev)
{
	struct wd_trace *tr = ctx;
	size_t i = (size_t)port * PKT_PRIORITIES + prio;
	simtime_t due;

	switch (ev) {
	case PFC_EV_RX_PAUSE:
	case PFC_EV_RX_RESUME:
		tr->last_rx[i] = t;
		break;
	case PFC_EV_WD_TRIGGER:
		tr->triggers++;
		tr->watch_triggers += port == tr->watch;
		tr->since[i] = t;
		break;
	case PFC_EV_WD_RESTORE:
		/* restored once no PFC frame came for T1, counted from the trigger */
		tr->restores++;
		tr->watch_restores += port == tr->watch;
		due = (tr->last_rx[i] > tr->since[i] ? tr->last_rx[i] : tr->since[i]) + tr->t1;
		if (t != due && !tr->wrong++) {
			tr->first_wrong = t;
			tr->wrong_due = due;
		}
		break;
	default:
		break;
	}
}

/* The storm with watchdog detection 1 ms and restoration @t1 (text). */
static json_t *storm_watchdog(const char *t1, struct sim *sim, struct wd_trace *tr)
{
	char yaml[2048], wd[128];
	json_t *j;

	snprintf(wd, sizeof(wd), "  watchdog: {detection: 1ms, restoration: %s, action: drop}\n",
		 t1);
	snprintf(yaml, sizeof(yaml), storm, wd);
	load(yaml, sim);
	tr->t1 = sim->scn->sw.wd.restoration;
	tr->last_rx = calloc((size_t)sim->topo->n_ports * PKT_PRIORITIES, sizeof(simtime_t));
	tr->since = calloc((size_t)sim->topo->n_ports * PKT_PRIORITIES, sizeof(simtime_t));
	cr_assert(tr->last_rx && tr->since);
	tr->watch = port_id(sim, "leaf1:h4");
	sim->net->ctx.pfc_log = wd_log;
	sim->net->ctx.pfc_log_ctx = tr;
	j = ts_finish(sim);
	free(tr->last_rx);
	free(tr->since);
	return j;
}

/*
 * A restoration shorter than the storm's PAUSE interval (a PAUSE every
 * 167.8 us at 100G) and than the detection: each quiet 10 us after a
 * trigger restores the queue, the storm's next PAUSE triggers it again
 * after the detection time.
 */
Test(switch, a_restoration_shorter_than_the_pause_interval_restores_after_quiet_t1)
{
	struct wd_trace tr = {0};
	struct sim sim;
	json_t *j = storm_watchdog("10us", &sim, &tr);

	cr_assert_gt(tr.watch_restores, 1, "%u restores", tr.watch_restores);
	cr_assert_geq(tr.watch_triggers, tr.watch_restores);
	cr_assert_leq(tr.watch_triggers, tr.watch_restores + 1, "%u triggers, %u restores",
		      tr.watch_triggers, tr.watch_restores);
	cr_assert_eq(tr.wrong, 0, "%u restores off; the first at %llu ps, due %llu ps", tr.wrong,
		     (unsigned long long)tr.first_wrong, (unsigned long long)tr.wrong_due);
	cr_assert_eq(ts_metric(j, "watchdog_triggers"), tr.triggers);
	json_decref(j);
	sim_fini(&sim);
}

/* A restoration longer than the PAUSE interval: the stormed queue is never
 * restored while the storm lasts. */
Test(switch, a_storm_that_keeps_pausing_is_never_restored)
{
	struct wd_trace tr = {0};
	struct sim sim;
	json_t *j = storm_watchdog("2ms", &sim, &tr);

	cr_assert_eq(tr.watch_triggers, 1);
	cr_assert_eq(tr.watch_restores, 0);
	/* the ports it stopped pausing upstream are restored on time */
	cr_assert_eq(tr.wrong, 0, "%u restores off; the first at %llu ps, due %llu ps", tr.wrong,
		     (unsigned long long)tr.first_wrong, (unsigned long long)tr.wrong_due);
	json_decref(j);
	sim_fini(&sim);
}

static void cli_setup(void)
{
	ts_proc_setup("switch");
}

/* The command line that aborted on an assertion (the restore timer armed in
 * the past) now runs to its stop: 10 ms, a trigger every ~1 ms. */
Test(switch, the_storm_experiment_runs_with_a_restoration_of_10us, .init = cli_setup,
     .fini = ts_proc_teardown)
{
	struct ts_proc p;
	json_error_t jerr;
	json_t *res;
	double triggers;

	ts_exec(&p, (const char *[]){"run", "experiments/pfc-storm-watchdog.yaml", "--set",
				     "switch.watchdog.restoration=10us", "-o", ts_tmp("wd"), "-q",
				     NULL});
	cr_assert_eq(p.code, 0, "exit %d, stderr: %s", p.code, p.err);
	ts_proc_free(&p);
	res = json_load_file(ts_tmp("wd/results.json"), 0, &jerr);
	cr_assert_not_null(res, "%s", jerr.text);
	triggers = ts_metric(res, "watchdog_triggers");
	cr_assert_gt(triggers, 5, "%g watchdog triggers", triggers);
	json_decref(res);
}

Test(switch, dynamic_threshold_is_alpha_times_free_shared_buffer)
{
	static const char yaml[] =
	    "topology: {kind: star, hosts: 3, link: {rate: 100Gbps, cable: 2m}}\n"
	    "switch:\n"
	    "  buffer: {size: 4MB}\n"
	    "  pfc: {dynamic_th: 0, headroom: 200KB}\n"
	    "  ecn: {enabled: false}\n"
	    "workload: {kind: incast, senders: 2, size: 4MB}\n";
	struct sim sim;
	struct pfc_trace tr = {.sim = &sim};
	const struct sw_counters *c;
	double third;
	json_t *j;

	load(yaml, &sim);
	tr.xoff_port = port_id(&sim, "sw0:h0");
	tr.upstream = port_id(&sim, "h0:sw0");
	sim.net->ctx.pfc_log = trace;
	sim.net->ctx.pfc_log_ctx = &tr;
	c = sw_counters(sim.net->switches[sim.topo->ports[tr.xoff_port].node]);
	/* 4 MB - 3 ports x 200 KB of headroom = 3.4 MB shared */
	cr_assert_eq(c->shared_size, 3400000);
	j = ts_finish(&sim);
	/* two PGs fill in step; alpha = 1: XOFF when x = S - 2x, x = S / 3 */
	third = (double)c->shared_size / 3;
	cr_assert_float_eq((double)tr.pg_bytes_at_xoff, third, 2 * (4096 + 62),
			   "PG held %llu B at XOFF, S/3 = %.0f",
			   (unsigned long long)tr.pg_bytes_at_xoff, third);
	cr_assert_eq(ts_metric(j, "lossless_drops"), 0);
	json_decref(j);
	sim_fini(&sim);
}

/*
 * 2^dynamic_th x free buffer saturates. Here the shared pool is 2^57 B +
 * 500 KB (3 ports x 38912 B of headroom reserved): with dynamic_th 7 the
 * limit is 2^64 + 128 x (500 KB - used), which wrapped to 128 x (500 KB -
 * used), so the incast's queue reached XOFF near 496 KB and paused the
 * senders. The real limit is beyond any queue: no PAUSE.
 */
Test(switch, dynamic_threshold_of_a_huge_buffer_does_not_wrap)
{
	static const char yaml[] =
	    "topology: {kind: star, hosts: 3, link: {rate: 100Gbps, cable: 2m}}\n"
	    "switch: {buffer: {size: 144115188076472608}, pfc: {dynamic_th: 7},\n"
	    "         ecn: {enabled: false}}\n"
	    "workload: {kind: incast, senders: 2, size: 1MB}\n";
	struct sim sim;
	json_t *j;

	load(yaml, &sim);
	j = ts_finish(&sim);
	cr_assert_eq(ts_metric(j, "pfc_pause_frames"), 0);
	cr_assert_eq(ts_metric(j, "flows_done"), 2);
	json_decref(j);
	sim_fini(&sim);
}

Test(switch, headroom_that_does_not_fit_the_buffer_is_refused)
{
	static const char yaml[] = "topology: {kind: star, hosts: 9}\n"
				   "switch: {buffer: {size: 8MB}, pfc: {headroom: 1MB}}\n"
				   "workload: {kind: incast, senders: 8, size: 1MB}\n";
	struct scenario *s;
	struct diag d = {0};
	struct sim sim;

	cr_assert_eq(scn_load_text("h.yaml", yaml, strlen(yaml), NULL, 0, &s, &d), 0);
	cr_assert_eq(sim_init(&sim, s, &d), -EINVAL);
	cr_assert_str_eq(d.path, "switch.pfc.headroom");
	cr_assert_eq(d.line, 2);
	cr_assert(strstr(d.msg, "9 ports"), "%s", d.msg);
	sim_fini(&sim);
}

/* sim_init's refusal of @yaml: -EINVAL at @path, @msg in its message. */
static void refused(const char *yaml, const char *path, const char *msg)
{
	struct scenario *s;
	struct diag d = {0};
	struct sim sim;

	cr_assert_eq(scn_load_text("h.yaml", yaml, strlen(yaml), NULL, 0, &s, &d), 0, "%s", d.msg);
	cr_assert_eq(sim_init(&sim, s, &d), -EINVAL, "%s", yaml);
	cr_assert_str_eq(d.path, path, "%s", yaml);
	cr_assert(strstr(d.msg, msg), "%s: %s", yaml, d.msg);
	sim_fini(&sim);
}

/*
 * The reservation is summed with checked arithmetic: 4 ports x 2^62 B of
 * headroom is 2^64, which wrapped to 0 and ran; so did 2^62 B of pg_min.
 * A computed headroom too large for the buffer (40 km at 400G) is refused.
 */
Test(switch, headroom_reservation_that_wraps_is_refused)
{
	refused("topology: {kind: star, hosts: 4}\n"
		"switch: {pfc: {headroom: 4611686018427387904}}\n"
		"workload: {kind: incast, senders: 3, size: 1MB}\n",
		"switch.pfc.headroom",
		"sw0: 4 ports x 1 lossless priority of headroom reserve more than 2^64 B");
	refused("topology: {kind: star, hosts: 2}\n"
		"switch: {lossless: [3, 4], pfc: {headroom: 4611686018427387904}}\n"
		"workload: {kind: incast, senders: 1, size: 1MB}\n",
		"switch.pfc.headroom", "2 ports x 2 lossless priorities of headroom reserve more");
	refused("topology: {kind: star, hosts: 4}\n"
		"switch: {buffer: {pg_min: 4611686018427387904}, pfc: {headroom: 1KB}}\n"
		"workload: {kind: incast, senders: 3, size: 1MB}\n",
		"switch.pfc.headroom", "of headroom and pg_min reserve more than 2^64 B");
	refused("topology: {kind: star, hosts: 4, link: {rate: 400Gbps, cable: 40km}}\n"
		"workload: {kind: incast, senders: 3, size: 1MB}\n",
		"switch.buffer.size",
		"of headroom (computed for each port's link, up to 20071424 B) reserve 80285696 B, "
		"and switch.buffer.size is 32000000 B");
}

/* ---- the switch alone, built from its params struct ------------------------------ */

/* The first time and the count of each PFC event on each port. */
struct pfc_seen {
	simtime_t first[16][PFC_EV_WD_RESTORE + 1];
	uint32_t count[16][PFC_EV_WD_RESTORE + 1];
};

static void seen_log(void *ctx, simtime_t t, uint32_t port, uint8_t prio, enum pfc_event ev)
{
	struct pfc_seen *s = ctx;

	(void)prio;
	cr_assert_lt(port, 16);
	if (!s->count[port][ev]++)
		s->first[port][ev] = t;
}

/* A RESUME (quanta 0) for priority @prio from port @obj, now. */
static void send_resume(void *obj, uint64_t prio)
{
	cr_assert_eq(port_send_pause(obj, (uint8_t)prio, 0), 0);
}

/*
 * h0 sends 50 packets of 1000 B (1082 B on the wire: 86.56 ns at 100G)
 * from 5 us to h2 on lossless TC 3, through sw0 whose port to h2 h2 has
 * paused. Every packet stays in h0's PG: 9 x 1062 B fit under XOFF 10000 B,
 * the 10th crosses it and goes to headroom, and PAUSE goes to h0. It
 * arrives 16.72 ns later (84 B at 100G + 10 ns) and stops h0 after its
 * response (394 quanta: 2017.28 ns), when h0 is serializing its 34th
 * packet: 25 packets of headroom. When h2 resumes, sw0 drains h0's PG at
 * line rate: headroom first, then shared bytes down to XON (10000 - 2000
 * B) after the 27th packet.
 */
Test(switch, built_from_params_xoff_on_the_crossing_packet_and_xon_after_the_drain)
{
	const simtime_t ser = 86560, prop = 10000, pause = 6720 + prop, resp = 2017280;
	const simtime_t start = 5000000, resume = 20000000;
	struct sw_params p = {
	    .buffer = 1000000,
	    .lossless = 1u << 3,
	    .cnp_priority = 6,
	    .pfc = {.enabled = 1,
		    .xoff = 10000,
		    .xon_offset = 2000,
		    .headroom = 100000,
		    .quanta = 0xffff},
	    .sched = SW_SCHED_STRICT,
	};
	struct pfc_seen seen = {0};
	struct rig r;
	struct rig_host h0, h2;
	struct sw *s;
	struct diag d = {0};
	uint32_t node, sw_h0, sw_h2, h0_sw;
	simtime_t xoff, unpaused;

	for (int i = 0; i < 64; i++)
		p.dscp_to_tc[i] = (uint8_t)(i >> 3);
	rig_init(&r, rig_star(3, 100000000000ULL, prop));
	r.ctx.pfc_log = seen_log;
	r.ctx.pfc_log_ctx = &seen;
	sw_h0 = rig_port(&r, "sw0:h0");
	sw_h2 = rig_port(&r, "sw0:h2");
	h0_sw = rig_port(&r, "h0:sw0");
	node = (uint32_t)topo_find_node(r.topo, "sw0");
	cr_assert_eq(r.topo->nodes[node].first_port, sw_h0);
	cr_assert_eq(sw_new(&r.ctx, &p, 1000, r.topo, r.routes, node, &r.ports[sw_h0], &s, &d), 0,
		     "%s", d.msg);
	rig_host_init(&h0, &r, h0_sw);
	rig_host_init(&h2, &r, rig_port(&r, "h2:sw0"));
	cr_assert_eq(port_send_pause(h2.port, 3, 0xffff), 0);
	rig_host_send(&h0, start, 50, 1000, 2, 26, 3);
	rig_run(&r, resume - 1);

	xoff = start + 10 * ser + prop;
	cr_assert_eq(seen.count[sw_h0][PFC_EV_XOFF], 1);
	cr_assert_eq(seen.first[sw_h0][PFC_EV_XOFF], xoff);
	cr_assert_eq(seen.first[h0_sw][PFC_EV_PAUSED], xoff + pause + resp);
	cr_assert_eq(h0.sent, 34);
	cr_assert_eq(sw_pg(s, 0, 3).bytes, 34 * 1062);
	cr_assert_eq(sw_pg(s, 0, 3).headroom, 25 * 1062);
	cr_assert_eq(h2.rx_packets, 0);

	cr_assert_not_null(
	    evq_post(r.q, resume, send_resume, h2.port, 3, evq_key(MCTX_KEY_RUN, 0, 200)));
	rig_run(&r, SIMTIME_NEVER);
	unpaused = resume + pause + resp;
	cr_assert_eq(seen.first[sw_h2][PFC_EV_UNPAUSED], unpaused);
	cr_assert_eq(seen.count[sw_h0][PFC_EV_XON], 1);
	cr_assert_eq(seen.first[sw_h0][PFC_EV_XON], unpaused + 27 * ser);
	cr_assert_eq(seen.first[h0_sw][PFC_EV_UNPAUSED], unpaused + 27 * ser + pause + resp);
	cr_assert_eq(h2.rx_packets, 50);
	cr_assert_eq(sw_counters(s)->drops, 0);
	cr_assert_eq(sw_pg(s, 0, 3).bytes, 0);
	sw_free(s);
	rig_fini(&r);
}
