/*
 * The RoCE NIC end to end: RC transport (ACK, NAK and go-back-N, the
 * retransmission timeout) and DCQCN in the loop with the switch's ECN and
 * PFC. Every run checks bytes sent = received + dropped + in flight.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/net.h"
#include "models/nic.h"
#include "sim/run/results.h"
#include "sim/config/scenario.h"
#include "sim/run/sim.h"
#include "support.h"

/* Run @yaml and return one metric. */
static double run_metric(const char *yaml, const char *m)
{
	struct sim sim;
	json_t *j = ts_run(yaml, &sim);
	double v = ts_metric(j, m);

	json_decref(j);
	sim_fini(&sim);
	return v;
}

Test(nic, one_flow_is_acked_after_its_last_byte)
{
	static const char yaml[] =
	    "topology: {kind: star, hosts: 2}\n"
	    "workload: {kind: flows, flows: [{src: h0, dst: h1, size: 1MB}]}\n";
	struct sim sim;
	json_t *j = ts_run(yaml, &sim);
	const struct flow *f = &sim.net->flows[0];

	cr_assert_neq(f->finish, 0);
	/* the run ends when the last byte lands; the ACK is on its way */
	cr_assert_eq(ts_metric(j, "retransmitted_packets"), 0);
	cr_assert_eq(f->received, 1000000);
	cr_assert_eq(f->epsn, 245);
	json_decref(j);
	sim_fini(&sim);
}

/*
 * ACK coalescing: 1 MB in 4096 B packets is 245 packets; the responder
 * ACKs every ack_every-th and the last, ceil(245 / ack_every) ACKs (the
 * 245th ACK is the last's when ack_every divides 245). The run ends when
 * the last byte lands; the events still queued then (the last ACKs on
 * their way) are run out so the requester has seen them all.
 */
Test(nic, the_responder_acks_every_ack_every_packets_and_the_last)
{
	static const char yaml[] =
	    "topology: {kind: star, hosts: 2}\n"
	    "workload: {kind: flows, flows: [{src: h0, dst: h1, size: 1MB}]}\n";
	static const struct {
		const char *set;
		uint64_t acks;
	} cases[] = {
	    {"nic.transport.ack_every=1", 245},	 {"nic.transport.ack_every=5", 49},
	    {"nic.transport.ack_every=7", 35},	 {"nic.transport.ack_every=8", 31},
	    {"nic.transport.ack_every=100", 3},	 {"nic.transport.ack_every=245", 1},
	    {"nic.transport.ack_every=1000", 1},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *sets[] = {cases[i].set};
		const struct nic_counters *req;
		struct sim sim;
		json_t *j;

		ts_load(yaml, sets, 1, &sim);
		j = ts_finish(&sim);
		while (evq_step(sim.q))
			;
		req = nic_counters(sim.net->nics[0]);
		cr_assert_neq(sim.net->flows[0].acked, 0, "%s: the last ACK arrived", cases[i].set);
		cr_assert_eq(ts_metric(j, "cnp_sent") + ts_metric(j, "retransmitted_packets"), 0);
		cr_assert_eq(req->packet_seq_err, 0, "%s: no NAK", cases[i].set);
		cr_assert_eq(req->rx_packets_phy, cases[i].acks, "%s: %llu ACKs, want %llu",
			     cases[i].set, (unsigned long long)req->rx_packets_phy,
			     (unsigned long long)cases[i].acks);
		json_decref(j);
		sim_fini(&sim);
	}
}

/*
 * Two 20 MB flows into one 100G port with DCQCN. Marking is sparse here
 * (pmax 1%), and DCQCN then converges slowly: a flow whose first cuts came
 * early can stay behind for the whole transfer (seeds 1 of 6 here). Each
 * run is checked for its invariants, and most runs for fairness.
 */
Test(nic, two_flows_share_a_port_fairly_without_pause)
{
	static const char body[] =
	    "stop: 100ms\n"
	    "topology: {kind: star, hosts: 3, link: {rate: 100Gbps, cable: 2m}}\n"
	    "switch:\n"
	    "  buffer: {size: 32MB}\n"
	    "  pfc: {xoff: 1MB}\n"
	    "  ecn: {kmin: 5KB, kmax: 200KB, pmax: 1%}\n"
	    "nic: {cc: dcqcn, dcqcn: {cnp_scope: qp}}\n"
	    "workload:\n"
	    "  kind: flows\n"
	    "  flows:\n"
	    "    - {src: h0, dst: h2, size: 20MB}\n"
	    "    - {src: h1, dst: h2, size: 20MB}\n";
	/* 2 x (20 MB + 4883 packets x 82 B) through one 100G port */
	const double wire_us = 2.0 * (20000000 + 4883 * 82) * 8 / 100e9 * 1e6;
	int fair = 0;

	for (int seed = 1; seed <= 6; seed++) {
		char yaml[1024];
		struct sim sim;
		json_t *j;
		double a, b;

		snprintf(yaml, sizeof(yaml), "seed: %d\n%s", seed, body);
		j = ts_run(yaml, &sim);
		a = simtime_to_us(sim.net->flows[0].finish);
		b = simtime_to_us(sim.net->flows[1].finish);
		cr_assert_eq(ts_metric(j, "pfc_pause_frames"), 0);
		cr_assert_gt(ts_metric(j, "cnp_sent"), 0);
		cr_assert_eq(ts_metric(j, "cnp_handled"), ts_metric(j, "cnp_sent"),
			     "every CNP reaches its QP");
		cr_assert(a > 0 && b > 0);
		if (fabs(a - b) / fmax(a, b) <= 0.15) {
			fair++;
			cr_assert_leq(fmax(a, b), wire_us * 1.25,
				      "seed %d: done at %.1f us, wire time %.1f us", seed,
				      fmax(a, b), wire_us);
		}
		json_decref(j);
		sim_fini(&sim);
	}
	cr_assert_geq(fair, 4, "%d of 6 seeds share the port within 15%%", fair);
}

static const char incast16[] =
    "stop: 100ms\n"
    "topology: {kind: star, hosts: 17, link: {rate: 100Gbps, cable: 2m}}\n"
    "switch:\n"
    "  buffer: {size: 32MB}\n"
    "  pfc: {xoff: 400KB}\n"
    "  ecn: {kmin: 150KB, kmax: 1.2MB, pmax: 20%%}\n"
    "nic: {cc: %s}\n"
    "workload: {kind: incast, senders: 16, size: 4MB}\n";

/*
 * With CNPs spaced per QP and the byte counter in 64-byte units, DCQCN at
 * least halves an incast's PAUSE frames (138 against 1497 at line rate).
 * In bytes the counter raises the rate every 32 KB sent and the incast
 * pauses more (809). Spaced per port (the default), the port's one CNP
 * per 4 us is shared by 16 QPs, each hears one per 64 us at best: far
 * fewer CNPs, and about as many PAUSE frames as at line rate.
 */
Test(nic, dcqcn_halves_the_pause_frames_of_an_incast)
{
	char yaml[1024];
	double none, dcqcn, port_cnps, qp_cnps;

	snprintf(yaml, sizeof(yaml), incast16, "none");
	none = run_metric(yaml, "pfc_pause_frames");
	snprintf(yaml, sizeof(yaml), incast16,
		 "dcqcn, dcqcn: {byte_reset_unit: 64B, cnp_scope: qp}");
	dcqcn = run_metric(yaml, "pfc_pause_frames");
	qp_cnps = run_metric(yaml, "cnp_sent");
	cr_assert_gt(none, 0);
	cr_assert_leq(dcqcn, none / 2, "DCQCN %.0f PAUSE frames, line rate %.0f", dcqcn, none);
	snprintf(yaml, sizeof(yaml), incast16, "dcqcn, dcqcn: {cnp_scope: port}");
	port_cnps = run_metric(yaml, "cnp_sent");
	/* at most one per 4 us while marks last, the run's 5.2 ms: 1300 */
	cr_assert_leq(port_cnps, 1310, "%.0f CNPs per port", port_cnps);
	cr_assert_lt(port_cnps * 3, qp_cnps, "per port %.0f, per QP %.0f", port_cnps, qp_cnps);
}

/*
 * A 4:1 incast of @size per sender, marking early, to watch each DCQCN
 * parameter family: @m summed over seeds 1-3 (RED's draws move a run's
 * marks by about 10%, as much as some parameters do).
 */
static double dcqcn_metric(const char *params, const char *size, const char *m)
{
	char yaml[1024];
	double sum = 0;

	for (int seed = 1; seed <= 3; seed++) {
		snprintf(yaml, sizeof(yaml),
			 "seed: %d\n"
			 "stop: 100ms\n"
			 "topology: {kind: star, hosts: 5, link: {rate: 100Gbps, cable: 2m}}\n"
			 "switch: {buffer: {size: 32MB}, pfc: {xoff: 2MB}, ecn: {kmin: 20KB, kmax: "
			 "400KB, pmax: 5%%}}\n"
			 "nic: {cc: dcqcn, dcqcn: {%s}}\n"
			 "workload: {kind: incast, senders: 4, size: %s}\n",
			 seed, params, size);
		sum += run_metric(yaml, m);
	}
	return sum;
}

Test(nic, cnp_pacing_follows_np_min_time_between_cnps)
{
	double fast = dcqcn_metric("np_min_time_between_cnps: 4", "8MB", "cnp_sent");
	double slow = dcqcn_metric("np_min_time_between_cnps: 50", "8MB", "cnp_sent");

	cr_assert_lt(slow, fast, "50 us spacing sent %.0f CNPs, 4 us %.0f", slow, fast);
}

Test(nic, a_stronger_decrease_keeps_the_queue_shorter)
{
	double strong = dcqcn_metric("rp_gd: 9", "8MB", "max_queue_bytes");
	double weak = dcqcn_metric("rp_gd: 13", "8MB", "max_queue_bytes");

	cr_assert_lt(strong, weak, "rp_gd 9 peak queue %.0f, rp_gd 13 %.0f", strong, weak);
}

/* Long enough (32 MB a sender) for rates to climb back many times after
 * the start-up burst's cuts. */
Test(nic, a_faster_increase_marks_more)
{
	double slow = dcqcn_metric("rp_ai_rate: 1, rp_hai_rate: 5", "32MB", "ecn_marked_packets");
	double fast =
	    dcqcn_metric("rp_ai_rate: 200, rp_hai_rate: 2000", "32MB", "ecn_marked_packets");

	cr_assert_gt(fast, slow, "fast increase %.0f marks, slow %.0f", fast, slow);
}

static const char lossy_fabric[] =
    "stop: 1s\n"
    "topology: {kind: star, hosts: 9, link: {rate: 100Gbps, cable: 2km}}\n"
    "switch: {buffer: {size: 32MB}, pfc: {xoff: 200KB, headroom: %s}}\n"
    "nic: {cc: none, transport: {timeout: 8}}\n"
    "workload: {kind: incast, senders: 8, size: 2MB}\n";

Test(nic, go_back_n_recovers_lossless_drops_at_a_cost)
{
	char yaml[1024];
	struct sim sim;
	json_t *j;
	double ok_fct, lossy_fct;

	snprintf(yaml, sizeof(yaml), lossy_fabric, "1MB");
	j = ts_run(yaml, &sim);
	cr_assert_eq(ts_metric(j, "lossless_drops"), 0);
	ok_fct = ts_metric(j, "fct_us.max");
	json_decref(j);
	sim_fini(&sim);

	snprintf(yaml, sizeof(yaml), lossy_fabric, "50KB");
	j = ts_run(yaml, &sim);
	cr_assert_gt(ts_metric(j, "lossless_drops"), 0);
	cr_assert_gt(ts_metric(j, "retransmitted_packets"), 0);
	cr_assert_eq(ts_metric(j, "flows_done"), 8, "go-back-N delivers every byte");
	lossy_fct = ts_metric(j, "fct_us.max");
	cr_assert_gt(lossy_fct, ok_fct, "drops cost time: %.1f vs %.1f us", lossy_fct, ok_fct);
	json_decref(j);
	sim_fini(&sim);
}

Test(nic, a_lost_tail_waits_for_the_retransmission_timeout)
{
	/*
	 * A 1 MB flow from h0 (leaf0) to h1 (leaf1) takes 81.6 us to send.
	 * At 81 us the uplink it hashes to fails: the last packets are lost
	 * and no later packet reveals the gap, so no NAK comes; only the
	 * retransmission timeout (4.096 us x 2^10 = 4.194 ms) recovers them,
	 * over the other spine once routes converge.
	 */
	static const char base[] =
	    "stop: 1s\n"
	    "topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 1,\n"
	    "           convergence: 10us}\n"
	    "nic: {cc: none, transport: {timeout: 10}}\n"
	    "workload: {kind: flows, flows: [{src: h0, dst: h1, size: 1MB}]}\n"
	    "%s";
	const double rto_us = 4.096 * 1024;
	char text[1024], fault[128];
	struct sim sim;
	json_t *j;
	const struct flow *f;
	int spine;

	snprintf(text, sizeof(text), base, "");
	j = ts_run(text, &sim);
	spine = sim.net->ports[sim.topo->links[topo_find_link(sim.topo, "leaf0-spine0")].port_a]
			    .tx_bytes > 0
		    ? 0
		    : 1;
	cr_assert_lt(ts_metric(j, "fct_us.max"), 100, "no fault: done at wire speed");
	json_decref(j);
	sim_fini(&sim);

	snprintf(fault, sizeof(fault),
		 "faults: [{kind: link_down, link: leaf0-spine%d, at: 81us}]\n", spine);
	snprintf(text, sizeof(text), base, fault);
	j = ts_run(text, &sim);
	f = &sim.net->flows[0];
	cr_assert_gt(ts_metric(j, "drops"), 0);
	cr_assert_neq(f->finish, 0, "the flow completes after the timeout");
	cr_assert_geq(simtime_to_us(f->finish), rto_us, "finished at %.1f us",
		      simtime_to_us(f->finish));
	cr_assert_lt(simtime_to_us(f->finish), rto_us + 200, "finished at %.1f us",
		     simtime_to_us(f->finish));
	cr_assert_geq(nic_counters(sim.net->nics[0])->local_ack_timeout_err, 1);
	cr_assert_eq(nic_counters(sim.net->nics[1])->out_of_sequence, 0, "no gap was ever seen");
	json_decref(j);
	sim_fini(&sim);
}

Test(nic, the_switch_invariants_hold_with_dcqcn_on)
{
	static const char yaml[] =
	    "topology: {kind: star, hosts: 9, link: {rate: 100Gbps, cable: 100m}}\n"
	    "switch: {buffer: {size: 32MB}, pfc: {xoff: 200KB}}\n"
	    "nic: {cc: dcqcn}\n"
	    "workload: {kind: incast, senders: 8, size: 4MB}\n";
	struct sim sim;
	json_t *j = ts_run(yaml, &sim);

	/* computed headroom covers 100 m: PFC may fire, nothing is lost */
	cr_assert_eq(ts_metric(j, "lossless_drops"), 0);
	cr_assert_eq(ts_metric(j, "retransmitted_packets"), 0);
	cr_assert_eq(ts_metric(j, "flows_done"), 8);
	cr_assert_gt(ts_metric(j, "cnp_handled"), 0);
	json_decref(j);
	sim_fini(&sim);
}

Test(nic, the_paper_variant_reacts_too)
{
	double mlx5 = dcqcn_metric("variant: mlx5", "8MB", "max_queue_bytes");
	double paper = dcqcn_metric("variant: paper", "8MB", "max_queue_bytes");

	cr_assert_gt(mlx5, 0);
	cr_assert_gt(paper, 0);
	/* the paper cuts at every CNP, spaced 50 us apart, from alpha = 1 */
	cr_assert_gt(dcqcn_metric("variant: paper", "8MB", "cnp_handled"), 0);
	cr_assert_lt(dcqcn_metric("variant: paper", "8MB", "cnp_sent"),
		     dcqcn_metric("variant: mlx5", "8MB", "cnp_sent"),
		     "50 us CNP spacing sends fewer");
}

Test(nic, a_slow_receiver_pauses_the_fabric_instead_of_dropping)
{
	static const char yaml[] =
	    "topology: {kind: star, hosts: 3, link: {rate: 100Gbps, cable: 2m}}\n"
	    "switch: {pfc: {xoff: 300KB}}\n"
	    "nic: {rx_buffer: 512KB, rx_rate: 50Gbps%s}\n"
	    "workload: {kind: incast, senders: 1, size: 8MB}\n";
	/* the host drains 8 MB of frames at 50 Gb/s */
	const double drain_us = (8000000 + 1954 * 62) * 8 / 50e9 * 1e6;
	char text[512];
	struct sim sim;
	json_t *j;
	const struct port *rx;

	/* line-rate sender: the buffer alone sets the pace */
	snprintf(text, sizeof(text), yaml, ", cc: none");
	j = ts_run(text, &sim);
	rx = &sim.net->ports[sim.topo->nodes[sim.topo->hosts[2]].first_port]; /* h2 receives */
	cr_assert_gt(rx->pfc[3].tx_pause, 0, "the receiving NIC sends PAUSE");
	cr_assert_eq(ts_metric(j, "drops"), 0);
	cr_assert_eq(nic_counters(sim.net->nics[2])->rx_discards_phy, 0);
	cr_assert_float_eq(ts_metric(j, "fct_us.max"), drain_us, drain_us * 0.1, "%.1f vs %.1f us",
			   ts_metric(j, "fct_us.max"), drain_us);
	json_decref(j);
	sim_fini(&sim);

	/* the same NIC with PFC off discards what its buffer cannot hold */
	snprintf(text, sizeof(text), yaml,
		 ", pfc: [0,0,0,0,0,0,0,0], cc: none, transport: {timeout: 10}");
	j = ts_run(text, &sim);
	cr_assert_gt(nic_counters(sim.net->nics[2])->rx_discards_phy, 0);
	cr_assert_gt(ts_metric(j, "retransmitted_packets"), 0);
	json_decref(j);
	sim_fini(&sim);
}

/* ---- the NIC alone, built from its params struct ------------------------------ */

/* What the NICs reported: every message that arrived whole. */
struct msgs_seen {
	uint32_t n;
	uint32_t tag;
	simtime_t at;
};

static void seen_msg(void *up, struct flow *qp, uint32_t tag, simtime_t now)
{
	struct msgs_seen *m = up;

	(void)qp;
	m->n++;
	m->tag = tag;
	m->at = now;
}

static const struct nic_ops seen_ops = {.msg_done = seen_msg};

static struct nic_params line_rate_nic(uint32_t ack_every)
{
	struct nic_params p = {
	    .mtu = 1000,
	    .priority = 3,
	    .dscp = 26,
	    .pfc = 1u << 3,
	    .cc = NIC_CC_NONE,
	    .ack_every = ack_every,
	    .timeout = SIMTIME_S,
	    .retry_cnt = 7,
	};

	dcqcn_params_default(&p.dcqcn, DCQCN_MLX5);
	return p;
}

/*
 * Two NICs back to back at 100G, 1 us apart: a message of 50 packets of
 * 1000 B (1082 B on the wire, 86.56 ns each) arrives whole when its last
 * packet lands, 50 x 86.56 ns + 1 us; the responder ACKs every ack_every
 * packets and the last, and the last ACK (86 B on the wire, 6.88 ns)
 * reaches the requester 1 us after it leaves.
 */
Test(nic, built_from_params_a_message_arrives_after_its_wire_time_and_is_acked)
{
	static const uint32_t every[] = {1, 7, 50, 1000};

	for (size_t i = 0; i < sizeof(every) / sizeof(every[0]); i++) {
		const simtime_t ser = 86560, ack = 6880, prop = 1000000;
		const struct nic_params p = line_rate_nic(every[i]);
		struct flow f = {
		    .id = 0, .src = 0, .dst = 1, .bytes = 50000, .dscp = 26, .prio = 3};
		struct msgs_seen seen = {0};
		uint32_t acks = (50 + every[i] - 1) / every[i];
		struct nic *a, *b;
		struct rig r;

		rig_init(&r, rig_pair(100000000000ULL, prop));
		a = nic_new(&r.ctx, &p, 0, &r.ports[0], &f, &seen_ops, &seen);
		b = nic_new(&r.ctx, &p, 1, &r.ports[1], &f, &seen_ops, &seen);
		cr_assert(a && b);
		nic_start_flow(a, &f);
		rig_run(&r, SIMTIME_NEVER);
		cr_assert_eq(seen.n, 1);
		cr_assert_eq(seen.at, 50 * ser + prop);
		cr_assert_eq(f.finish, 50 * ser + prop);
		cr_assert_eq(f.received, 50000);
		/* the ACKs go out on b's idle port as the packets arrive; the
		 * last leaves with the last packet */
		cr_assert_eq(f.acked, 50 * ser + prop + ack + prop, "ack_every %u", every[i]);
		cr_assert_eq(nic_counters(a)->tx_packets_phy, 50);
		cr_assert_eq(nic_counters(b)->tx_packets_phy, acks, "ack_every %u: %llu ACKs",
			     every[i], (unsigned long long)nic_counters(b)->tx_packets_phy);
		cr_assert_eq(nic_counters(a)->retransmitted_packets, 0);
		nic_free(a);
		nic_free(b);
		free(f.msgs);
		rig_fini(&r);
	}
}

/* ---- the notification point: CNP spacing per port or per QP -------------------------------- */

/* A CE-marked data packet of QP arg arrives at the responder's port (obj). */
struct np_rig {
	struct port *port;
	struct mctx *ctx;
	struct flow *flows;
};

static void np_marked(void *obj, uint64_t qp)
{
	struct np_rig *np = obj;
	struct pkt *p = pkt_alloc(&np->ctx->pool);

	cr_assert(p);
	memset(p, 0, sizeof(*p));
	p->kind = PKT_DATA;
	p->flow = (uint32_t)qp;
	p->psn = np->flows[qp].epsn; /* in order */
	p->src = 0;
	p->dst = 1;
	p->payload = 1000;
	p->frame = 1000 + PKT_HEADER_BYTES;
	p->prio = 3;
	p->dscp = 26;
	p->ecn = PKT_CE;
	np->port->ops->rx(np->port, p);
}

/*
 * The CNPs h1's NIC sends for marks on two QPs (np_min_time_between_cnps
 * 4 us): QP 0 marked at 10, 13 and 15 us, QP 1 at 11 and 14.5 us. Gap,
 * per QP: QP 0 at 10 and 15 (13 is 3 us after 10), QP 1 at 11 (14.5 is
 * 3.5 us after): 3. Gap, per port: 10, then 14.5 (4.5 us after 10; 11,
 * 13 and 15 fall within 4 us of a CNP): 2. Window (4 us windows from 0,
 * [8, 12) and [12, 16)), per QP: QP 0 at 10 and 13, QP 1 at 11 and 14.5:
 * 4; per port: 10 and 13: 2. Two QPs marked 1 us apart: one CNP per port,
 * two per QP.
 */
Test(nic, np_min_time_between_cnps_spaces_cnps_per_port_or_per_qp)
{
	static const struct {
		uint64_t qp;
		simtime_t at;
	} marks[] = {{0, 10000000}, {1, 11000000}, {0, 13000000}, {1, 14500000}, {0, 15000000}};
	static const struct {
		uint32_t per_port, window;
		uint64_t cnps;
	} cases[] = {{0, 0, 3}, {1, 0, 2}, {0, 1, 4}, {1, 1, 2}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nic_params pa = line_rate_nic(1000), pb = line_rate_nic(1000);
		struct flow f[2] = {
		    {.id = 0, .src = 0, .dst = 1, .dscp = 26, .prio = 3},
		    {.id = 1, .src = 0, .dst = 1, .dscp = 26, .prio = 3},
		};
		struct msgs_seen seen = {0};
		struct np_rig np;
		struct nic *a, *b;
		struct rig r;

		pb.cc = NIC_CC_DCQCN;
		pb.dcqcn.cnp_per_port = cases[i].per_port;
		pb.dcqcn.np_cnp_window = cases[i].window;
		cr_assert_eq(pb.dcqcn.np_min_time_between_cnps, 4);
		rig_init(&r, rig_pair(100000000000ULL, 1000000));
		a = nic_new(&r.ctx, &pa, 0, &r.ports[0], f, &seen_ops, &seen);
		b = nic_new(&r.ctx, &pb, 1, &r.ports[1], f, &seen_ops, &seen);
		cr_assert(a && b);
		np = (struct np_rig){.port = &r.ports[1], .ctx = &r.ctx, .flows = f};
		for (size_t m = 0; m < sizeof(marks) / sizeof(marks[0]); m++)
			cr_assert(evq_post(r.q, marks[m].at, np_marked, &np, marks[m].qp,
					   evq_key(MCTX_KEY_RUN, 0, (unsigned)m)));
		rig_run(&r, SIMTIME_NEVER);
		cr_assert_eq(nic_counters(b)->np_ecn_marked_roce_packets, 5);
		cr_assert_eq(nic_counters(b)->np_cnp_sent, cases[i].cnps, "case %zu: %llu CNPs", i,
			     (unsigned long long)nic_counters(b)->np_cnp_sent);
		/* h0 runs no DCQCN: it counts the CNPs that reach it as ignored */
		cr_assert_eq(nic_counters(a)->rp_cnp_ignored, cases[i].cnps);
		cr_assert_eq(f[0].received + f[1].received, 5000);
		nic_free(a);
		nic_free(b);
		rig_fini(&r);
	}
}
