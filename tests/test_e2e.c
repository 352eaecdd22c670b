/*
 * End-to-end: scenarios run through the library as `rocesim run` does,
 * checked against hand-computed results and invariants (bytes sent =
 * received + dropped + in flight; same seed, same results); and the
 * fabric built from its params struct alone.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "models/net.h"
#include "sim/run/results.h"
#include "sim/config/scenario.h"
#include "sim/run/sim.h"
#include "support.h"
#include "sim/readers/topo_read.h"

static const char one_flow[] =
    "topology: {kind: star, hosts: 2, link: {rate: 100Gbps, cable: 2m}}\n"
    "nic: {mtu: 4096}\n"
    "workload:\n"
    "  kind: flows\n"
    "  flows: [{src: h0, dst: h1, size: 1MB}]\n";

Test(e2e, one_flow_matches_wire_arithmetic)
{
	struct sim sim;
	json_t *j = ts_run(one_flow, &sim);
	const struct port *h0 = &sim.net->ports[sim.topo->nodes[sim.topo->hosts[0]].first_port];
	/* 245 packets: 244 x 4096 + 576; wire adds 62 B headers + 20 B preamble/IFG */
	const double wire_us = 1020090 * 8 / 100e9 * 1e6; /* 81.6072 */
	/* + 2 x 10 ns propagation; the 576 B tail waits at the switch for the
	 * last full packet: + its serialization (4178 B = 334.24 ns) */
	const double expect_us = wire_us + 0.020 + 4178 * 8 / 100e9 * 1e6 - 658 * 8 / 100e9 * 1e6 +
				 658 * 8 / 100e9 * 1e6;
	double fct = ts_metric(j, "fct_us.max");

	cr_assert_eq(h0->tx_packets, 245);
	cr_assert_eq(h0->tx_bytes + 245 * 20, 1020090);
	cr_assert_float_eq(wire_us, 81.6072, 1e-9);
	cr_assert(fabs(fct - wire_us) / wire_us < 0.01, "fct %.4f us vs wire %.4f us", fct,
		  wire_us);
	cr_assert_float_eq(fct, expect_us, 0.0015, "fct %.4f us, hand-computed %.4f us", fct,
			   expect_us);
	cr_assert_eq(sim.end, SIM_END_DONE);
	json_decref(j);
	sim_fini(&sim);
}

static const char incast[] = "seed: 5\n"
			     "topology: {kind: star, hosts: 9, link: {rate: 100Gbps, cable: 2m}}\n"
			     "switch: {buffer: {size: 32MB}}\n"
			     "nic: {cc: none}\n"
			     "workload: {kind: incast, senders: 8, size: 4MB}\n";

Test(e2e, incast_finishes_at_the_bottleneck_wire_time)
{
	struct sim sim;
	json_t *j = ts_run(incast, &sim);
	/* 8 x (4 MB + 977 packets x 82 B) through one 100G port */
	const double wire_us = 8.0 * (4000000 + 977 * 82) * 8 / 100e9 * 1e6;
	double fct = ts_metric(j, "fct_us.max");

	cr_assert_eq(ts_metric(j, "drops"), 0);
	cr_assert(fct >= wire_us && fct < wire_us * 1.002, "fct %.3f vs %.3f", fct, wire_us);
	cr_assert_gt(ts_metric(j, "max_queue_bytes"), 20e6,
		     "the receiver's egress queue builds up");
	json_decref(j);
	sim_fini(&sim);
}

/*
 * A switch with more lists of ports than its forwarding table can name (a
 * star of 300 hosts, topologies/fib.h) asks the routes instead, and
 * forwards the same incast in the same time.
 */
Test(e2e, a_switch_without_a_forwarding_table_forwards_the_same)
{
	struct sim a, b;
	json_t *ja = ts_run(incast, &a);
	json_t *jb = ts_run("seed: 5\n"
			    "topology: {kind: star, hosts: 300, link: {rate: 100Gbps, cable: 2m}}\n"
			    "switch: {buffer: {size: 32MB}}\n"
			    "nic: {cc: none}\n"
			    "workload: {kind: incast, senders: 8, size: 4MB}\n",
			    &b);

	cr_assert_eq(ts_metric(jb, "drops"), 0);
	cr_assert_eq(ts_metric(jb, "fct_us.max"), ts_metric(ja, "fct_us.max"));
	cr_assert_eq(b.end, SIM_END_DONE);
	json_decref(ja);
	json_decref(jb);
	sim_fini(&a);
	sim_fini(&b);
}

Test(e2e, small_buffer_tail_drops_lossy_traffic_and_conserves_bytes)
{
	static const char yaml[] = "topology: {kind: star, hosts: 9}\n"
				   "switch: {buffer: {size: 1MB}, pfc: {enabled: false}}\n"
				   "nic: {cc: none, transport: {timeout: 10}}\n"
				   "workload: {kind: incast, senders: 8, size: 1MB}\n";
	struct sim sim;
	json_t *j = ts_run(yaml, &sim);

	cr_assert_gt(ts_metric(j, "drops"), 0);
	cr_assert_gt(ts_metric(j, "retransmitted_packets"), 0);
	/* NAKs recover most losses; a lost NAK or a lost tail waits for the
	 * 4.2 ms timeout */
	cr_assert_eq(ts_metric(j, "flows_done"), 8, "go-back-N resends what was lost");
	cr_assert_eq(sim.end, SIM_END_DONE);
	cr_assert_leq(ts_metric(j, "max_queue_bytes"), 1000000);
	json_decref(j);
	sim_fini(&sim);
}

Test(e2e, stop_bound_leaves_bytes_in_flight)
{
	static const char yaml[] = "stop: 30us\n"
				   "topology: {kind: star, hosts: 9}\n"
				   "workload: {kind: incast, senders: 8, size: 1MB}\n";
	struct sim sim;
	json_t *j = ts_run(yaml, &sim);

	cr_assert_eq(sim.end, SIM_END_STOP);
	cr_assert_float_eq(ts_metric(j, "sim_time_us"), 30.0, 1e-9);
	cr_assert_gt(ts_metric(j, "bytes.in_flight"), 0);
	json_decref(j);
	sim_fini(&sim);
}

Test(e2e, event_cap_ends_the_run)
{
	static const char yaml[] = "max_events: 1000\n"
				   "topology: {kind: star, hosts: 9}\n"
				   "workload: {kind: incast, senders: 8, size: 1MB}\n";
	struct sim sim;
	json_t *j = ts_run(yaml, &sim);

	cr_assert_eq(sim.end, SIM_END_EVENTS);
	cr_assert_eq(sim.events, 1000);
	json_decref(j);
	sim_fini(&sim);
}

/*
 * A tensor-parallel job cut by its event cap: its NVLink AllReduces are
 * run, not replayed (a replay fires far fewer events, and the cap would
 * fall later in simulated time than the run without replay says).
 */
Test(e2e, an_event_cap_turns_replay_off)
{
	static const char yaml[] =
	    "max_events: 2000\n"
	    "topology: {kind: star, hosts: 1, gpus_per_host: 4, nvlink: 450GB/s}\n"
	    "workload:\n"
	    "  kind: training\n"
	    "  layout: {tp: 4, ga: 4}\n"
	    "  iterations: 3\n"
	    "  layers:\n"
	    "    - {repeat: 2, forward: 10us, input_grad: 10us, weight_grad: 5us,\n"
	    "       forward_coll: {op: allreduce, group: tp, size: 1MiB}}\n";
	struct sim sim;
	json_t *j = ts_run(yaml, &sim);

	cr_assert_eq(sim.end, SIM_END_EVENTS);
	cr_assert_eq(sim.net->ctx.replay_until, 0);
	cr_assert_eq(sim.net->ctx.replayed.ops, 0);
	json_decref(j);
	sim_fini(&sim);
}

static const char permutation[] =
    "seed: 11\n"
    "topology: {kind: leaf_spine, leaves: 4, spines: 4, hosts_per_leaf: 4,\n"
    "           link: {rate: 100Gbps}, uplink: {rate: 100Gbps, cable: 10m}}\n"
    "workload: {kind: permutation, size: 512KB}\n";

/* results.json without its "run" part, as text */
static char *stable_text(json_t *j)
{
	json_object_del(j, "run");
	return json_dumps(j, JSON_SORT_KEYS | JSON_REAL_PRECISION(12));
}

Test(e2e, same_seed_gives_identical_results)
{
	struct sim a, b;
	json_t *ja = ts_run(permutation, &a), *jb = ts_run(permutation, &b);
	char *ta = stable_text(ja), *tb = stable_text(jb);

	cr_assert_str_eq(ta, tb);
	free(ta);
	free(tb);
	json_decref(ja);
	json_decref(jb);
	sim_fini(&a);
	sim_fini(&b);
}

Test(e2e, the_seed_changes_the_permutation)
{
	char other[sizeof(permutation) + 8];
	struct sim a, b;
	json_t *ja, *jb;
	char *ta, *tb;

	snprintf(other, sizeof(other), "%s", permutation);
	memcpy(strstr(other, "seed: 11"), "seed: 12", 8);
	ja = ts_run(permutation, &a);
	jb = ts_run(other, &b);
	ta = stable_text(json_object_get(ja, "flows"));
	tb = stable_text(json_object_get(jb, "flows"));
	cr_assert_str_neq(ta, tb);
	free(ta);
	free(tb);
	json_decref(ja);
	json_decref(jb);
	sim_fini(&a);
	sim_fini(&b);
}

Test(e2e, ecmp_spreads_a_permutation_over_every_spine)
{
	struct sim sim;
	json_t *j = ts_run(permutation, &sim);
	const struct topo *t = sim.topo;
	uint64_t per_spine[4] = {0};

	for (uint32_t i = 0; i < t->n_links; i++) {
		const struct topo_link *l = &t->links[i];
		const char *spine = t->nodes[l->b].name;

		if (strncmp(spine, "spine", 5))
			continue;
		per_spine[spine[5] - '0'] += sim.net->ports[l->port_a].tx_bytes;
	}
	for (int s = 0; s < 4; s++)
		cr_assert_gt(per_spine[s], 0, "spine%d carried nothing", s);
	cr_assert_eq(ts_metric(j, "flows_done"), 16);
	json_decref(j);
	sim_fini(&sim);
}

Test(e2e, link_failure_drops_then_reroutes)
{
	static const char yaml[] =
	    "topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4,\n"
	    "           convergence: 20us, uplink: {rate: 400Gbps}}\n"
	    "workload:\n"
	    "  kind: flows\n"
	    "  flows:\n"
	    "    - {src: h0, dst: h4, size: 2MB}\n"
	    "    - {src: h1, dst: h5, size: 2MB}\n"
	    "    - {src: h2, dst: h6, size: 2MB}\n"
	    "    - {src: h3, dst: h7, size: 2MB}\n"
	    "    - {src: h0, dst: h5, size: 1MB, start: 100us}\n"
	    "    - {src: h1, dst: h6, size: 1MB, start: 100us}\n"
	    "    - {src: h2, dst: h7, size: 1MB, start: 100us}\n"
	    "    - {src: h3, dst: h4, size: 1MB, start: 100us}\n"
	    "faults: [{kind: link_down, link: leaf0-spine1, at: 50us}]\n";
	struct sim sim;
	json_t *j = ts_run(yaml, &sim);
	int32_t link = topo_find_link(sim.topo, "leaf0-spine1");
	const struct port *up = &sim.net->ports[sim.topo->links[link].port_a];

	cr_assert_geq(link, 0);
	cr_assert_eq(sim.topo->links[link].up, 0, "routing saw the failure");
	/* flows that start after convergence never touch the dead link */
	for (uint32_t f = 4; f < 8; f++)
		cr_assert_neq(sim.net->flows[f].finish, 0, "flow %u unfinished", f);
	cr_assert_eq(up->up, 0);
	json_decref(j);
	sim_fini(&sim);
}

/* The leaf-spine of link_failure_drops_then_reroutes with @spines spines and @faults. */
static json_t *spine_run(int spines, const char *faults, struct sim *sim)
{
	char yaml[1200];

	snprintf(yaml, sizeof(yaml),
		 "topology: {kind: leaf_spine, leaves: 2, spines: %d, hosts_per_leaf: 4,\n"
		 "           convergence: 20us, uplink: {rate: 400Gbps}}\n"
		 "nic: {transport: {timeout: 8}}\n"
		 "stop: 20ms\n"
		 "workload:\n"
		 "  kind: flows\n"
		 "  flows:\n"
		 "    - {src: h0, dst: h4, size: 2MB}\n"
		 "    - {src: h1, dst: h5, size: 2MB}\n"
		 "    - {src: h2, dst: h6, size: 2MB}\n"
		 "    - {src: h3, dst: h7, size: 2MB}\n"
		 "    - {src: h0, dst: h5, size: 1MB, start: 100us}\n"
		 "    - {src: h1, dst: h6, size: 1MB, start: 100us}\n"
		 "faults: %s\n",
		 spines, faults);
	return ts_run(yaml, sim);
}

Test(e2e, node_down_of_a_spine_takes_its_links_down_and_the_flows_finish)
{
	struct sim sim, links;
	json_t *j = spine_run(2, "[{kind: node_down, node: spine1, at: 50us}]", &sim);
	json_t *k = spine_run(2,
			      "[{kind: link_down, link: leaf0-spine1, at: 50us},"
			      " {kind: link_down, link: leaf1-spine1, at: 50us}]",
			      &links);
	char *a, *b;

	for (uint32_t i = 0; i < sim.topo->n_links; i++)
		cr_expect_eq(sim.topo->links[i].up, !strstr(sim.topo->links[i].name, "spine1"),
			     "%s", sim.topo->links[i].name);
	cr_expect_gt(ts_metric(j, "drops"), 0, "what was on spine1 is lost");
	cr_expect_eq(ts_metric(j, "flows_done"), 6, "rerouted over spine0, all finish");
	cr_expect_eq(ts_metric(j, "unroutable_packets"), 0);
	/* the same as each of its links going down at that time */
	json_object_del(j, "run");
	json_object_del(k, "run");
	a = json_dumps(j, JSON_SORT_KEYS);
	b = json_dumps(k, JSON_SORT_KEYS);
	cr_expect_str_eq(a, b);
	free(a);
	free(b);
	json_decref(j);
	json_decref(k);
	sim_fini(&sim);
	sim_fini(&links);
}

Test(e2e, node_down_of_the_only_spine_partitions_and_the_run_counts_it)
{
	struct sim sim;
	json_t *j = spine_run(1, "[{kind: node_down, node: spine0, at: 50us}]", &sim);

	cr_expect_lt(ts_metric(j, "flows_done"), 6);
	cr_expect_gt(ts_metric(j, "unroutable_flows"), 0);
	cr_expect_gt(ts_metric(j, "unroutable_packets"), 0);
	json_decref(j);
	sim_fini(&sim);
}

/*
 * CNPs carry nic.dcqcn.np_cnp_dscp; the switch's default map sends that DSCP
 * to switch.cnp_priority, whatever it is: every CNP leaves the switch on
 * that class, none on TC 0.
 */
Test(e2e, cnps_ride_the_cnp_class_whatever_their_dscp)
{
	static const char yaml[] = "topology: {kind: star, hosts: 5}\n"
				   "switch: {ecn: {kmin: 20KB, kmax: 200KB}}\n"
				   "nic: {dcqcn: {np_cnp_dscp: 46}}\n"
				   "workload: {kind: incast, senders: 4, size: 1MB}\n";
	struct sim sim;
	json_t *j = ts_run(yaml, &sim);
	const struct topo *t = sim.topo;
	uint64_t on_cnp = 0, on_zero = 0;

	cr_assert_eq(sim.scn->sw.dscp_to_tc[46], 6);
	for (uint32_t i = 0; i < t->n_ports; i++) {
		if (t->nodes[t->ports[i].node].kind != TOPO_SWITCH)
			continue;
		on_cnp += sim.net->ports[i].queue[6].tx_packets;
		on_zero += sim.net->ports[i].queue[0].tx_packets;
	}
	cr_assert_gt(ts_metric(j, "cnp_sent"), 0, "the incast marks and the receiver sends CNPs");
	cr_assert_eq(on_cnp, (uint64_t)ts_metric(j, "cnp_sent"), "%llu CNPs on TC 6 of %.0f sent",
		     (unsigned long long)on_cnp, ts_metric(j, "cnp_sent"));
	cr_assert_eq(on_zero, 0, "%llu packets on TC 0", (unsigned long long)on_zero);
	json_decref(j);
	sim_fini(&sim);
}

/* Summary metric @m of workload flow @i of results @j. */
static double flow_metric(const json_t *j, size_t i, const char *m)
{
	const json_t *v = json_object_get(json_array_get(json_object_get(j, "flows"), i), m);

	cr_assert(json_is_integer(v), "flows[%zu].%s missing", i, m);
	return (double)json_integer_value(v);
}

/*
 * Every uplink of leaf0 down from the start (routes converged at once):
 * h0's flow to h2 has no route. Its packets are unroutable drops, counted
 * per flow and in the summary, and never lossless drops: no buffer
 * overflowed. h0's flow to h1 stays on leaf0 and finishes.
 */
Test(e2e, packets_without_a_route_are_unroutable_not_lossless_drops)
{
	static const char yaml[] =
	    "stop: 3ms\n"
	    "topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2,\n"
	    "           convergence: 0us}\n"
	    "nic: {transport: {timeout: 8}}\n"
	    "workload:\n"
	    "  kind: flows\n"
	    "  flows: [{src: h0, dst: h2, size: 64KB}, {src: h0, dst: h1, size: 64KB}]\n"
	    "faults:\n"
	    "  - {kind: link_down, link: leaf0-spine0, at: 0us}\n"
	    "  - {kind: link_down, link: leaf0-spine1, at: 0us}\n";
	struct sim sim;
	json_t *j = ts_run(yaml, &sim);

	cr_assert_gt(ts_metric(j, "unroutable_packets"), 0);
	cr_assert_eq(ts_metric(j, "unroutable_flows"), 1);
	cr_assert_eq(ts_metric(j, "lossless_drops"), 0, "no buffer overflowed");
	cr_assert_eq(ts_metric(j, "drops"), ts_metric(j, "unroutable_packets"));
	cr_assert_eq(ts_metric(j, "flows_done"), 1);
	cr_assert_gt(flow_metric(j, 0, "unroutable_packets"), 0);
	cr_assert_eq(flow_metric(j, 1, "unroutable_packets"), 0);
	json_decref(j);
	sim_fini(&sim);
}

/* A topology file in two pieces: the pairs across are unroutable. */
Test(e2e, a_disconnected_topology_file_leaves_flows_unroutable)
{
	char yaml[1024];
	struct sim sim;
	json_t *j;
	FILE *f;
	char *text;
	size_t len;

	snprintf(yaml, sizeof(yaml),
		 "stop: 2ms\n"
		 "topology: {kind: file, file: %s}\n"
		 "nic: {transport: {timeout: 8}}\n"
		 "workload:\n"
		 "  kind: flows\n"
		 "  flows: [{src: h0, dst: h1, size: 64KB}, {src: h0, dst: h3, size: 64KB},\n"
		 "          {src: h2, dst: h1, size: 64KB}]\n"
		 "expect: {unroutable_flows: 0}\n",
		 ts_src("tests/topo_partition.yaml"));
	j = ts_run(yaml, &sim);
	cr_assert_eq(ts_metric(j, "unroutable_flows"), 2);
	cr_assert_eq(ts_metric(j, "lossless_drops"), 0);
	cr_assert_eq(ts_metric(j, "flows_done"), 1);
	/* the summary says so in words */
	f = open_memstream(&text, &len);
	cr_assert(f);
	res_print_summary(j, f);
	fclose(f);
	cr_assert(strstr(text, "unroutable 2 flows"), "%s", text);
	free(text);
	/* and a CI gate can fail on it */
	f = open_memstream(&text, &len);
	cr_assert(f);
	cr_assert_eq(res_check_expects(j, sim.scn, f), 1);
	fclose(f);
	cr_assert(strstr(text, "expect unroutable_flows == 0: FAILED, got 2"), "%s", text);
	free(text);
	json_decref(j);
	sim_fini(&sim);
}

/*
 * The fabric alone, built from its params struct (no scenario): one flow
 * of 50 packets of 1000 B (86.56 ns each on the wire at 100G) from h0 to
 * h1 through sw0, 10 ns per link. Its last packet leaves h0 at 50 x 86.56
 * ns, and sw0, 86.56 ns and 10 ns later: it lands at 51 x 86.56 ns + 20 ns.
 */
Test(net, built_from_params_a_flow_crosses_a_switch_in_its_wire_time)
{
	struct wl_flow flow = {.src = 0, .dst = 1, .bytes = 50000, .dscp = 26, .priority = 3};
	struct net_params p = {
	    .seed = 1,
	    .sw = {.buffer = 1000000,
		   .lossless = 1u << 3,
		   .cnp_priority = 6,
		   .pfc = {.enabled = 1, .xoff = 100000, .headroom = 100000, .quanta = 0xffff},
		   .sched = SW_SCHED_STRICT},
	    .nic = {.mtu = 1000,
		    .priority = 3,
		    .dscp = 26,
		    .pfc = 1u << 3,
		    .cc = NIC_CC_NONE,
		    .ack_every = 1000,
		    .timeout = SIMTIME_S,
		    .retry_cnt = 7},
	    .wl = {.flows = &flow, .n_flows = 1},
	};
	const struct topo_spec spec = {
	    .kind = TOPO_STAR,
	    .hosts = 2,
	    .link = {.rate_bps = 100000000000ULL, .delay = 10000},
	};
	struct evq *q = evq_new();
	struct diag d = {0};
	struct topo *t;
	struct net *n;

	cr_assert(q);
	for (int i = 0; i < 64; i++)
		p.sw.dscp_to_tc[i] = (uint8_t)(i >> 3);
	dcqcn_params_default(&p.nic.dcqcn, DCQCN_MLX5);
	cr_assert_eq(topo_build(&spec, &t, &d), 0);
	cr_assert_eq(net_build(&p, t, q, &n, &d), 0, "%s", d.msg);
	while (!net_done(n) && evq_step(q))
		cr_assert_eq(n->ctx.error, 0);
	cr_assert(net_done(n));
	/* the last packet's end at h0 is counted once the run looks (lazy ends) */
	net_settle(n, evq_now(q), evq_key_now(q));
	cr_assert_eq(n->flows[0].finish, 51 * 86560 + 2 * 10000);
	cr_assert_eq(n->ctx.tot.sent_bytes, 50000);
	cr_assert_eq(n->ctx.tot.received_bytes, 50000);
	cr_assert_eq(n->ctx.tot.packet_hops, 100);
	net_free(n);
	topo_free(t);
	evq_free(q);
}

/*
 * --progress counts the workload: the payload delivered in order against
 * what the flows and collectives have to deliver. One 1 MB flow at 100G
 * (334.24 ns per 4096-byte packet on the wire) stopped at 40 us has about
 * 119 of its 245 packets in: just under half. A ring AllReduce of S = 8 MB
 * on 8 ranks moves 2(n-1) S = 112 MB per iteration; an All-to-All (n-1) S.
 */
Test(e2e, progress_counts_the_workload_bytes_to_deliver_and_delivered)
{
	static const char *const stop40[] = {"stop=40us"};
	static const char coll[] = "topology: {kind: star, hosts: 8}\n"
				   "workload: {kind: %s, size: 8MB, channels: 2, iterations: 2}\n";
	char yaml[300];
	struct sim_progress p;
	struct sim sim;
	json_t *j;

	ts_load(one_flow, stop40, 1, &sim);
	sim_progress(&sim, &p);
	cr_expect_eq(p.bytes_total, 1000000);
	cr_expect_eq(p.bytes_done, 0, "nothing delivered before the run");
	j = ts_finish(&sim);
	sim_progress(&sim, &p);
	cr_expect_eq(p.bytes_total, 1000000);
	cr_expect(p.bytes_done > 400000 && p.bytes_done < 500000, "%llu of 1 MB at 40 us",
		  (unsigned long long)p.bytes_done);
	cr_expect_eq(p.flows, 1);
	cr_expect_eq(p.flows_done, 0);
	json_decref(j);
	sim_fini(&sim);

	j = ts_run(one_flow, &sim);
	sim_progress(&sim, &p);
	cr_expect_eq(p.bytes_done, p.bytes_total, "all delivered at the end");
	cr_expect_eq(p.flows_done, 1);
	json_decref(j);
	sim_fini(&sim);

	snprintf(yaml, sizeof(yaml), coll, "allreduce");
	j = ts_run(yaml, &sim);
	sim_progress(&sim, &p);
	cr_expect_eq(p.bytes_total, 2ull * 2 * 7 * 8000000, "2 iterations of 2(n-1) S");
	cr_expect_eq(p.bytes_done, p.bytes_total);
	cr_expect_eq(p.colls, 1);
	cr_expect_eq(p.colls_done, 1);
	json_decref(j);
	sim_fini(&sim);

	snprintf(yaml, sizeof(yaml), coll, "alltoall");
	j = ts_run(yaml, &sim);
	sim_progress(&sim, &p);
	cr_expect_eq(p.bytes_total, 2ull * 7 * 8000000, "2 iterations of (n-1) S");
	cr_expect_eq(p.bytes_done, p.bytes_total);
	json_decref(j);
	sim_fini(&sim);
}

/*
 * The run ends once the last ACKs have crossed the fabric back: on a
 * three-tier fat-tree a flow's last byte and its ACK each cross six links
 * (1 us each with 200 m uplinks), so a run that stopped one link's delay
 * after the last byte would leave the last flows without an ACK.
 */
Test(e2e, the_run_ends_after_the_last_acks_land_on_a_fat_tree)
{
	static const char fat[] =
	    "seed: 3\n"
	    "topology: {kind: fat_tree, k: 4, link: {rate: 100Gbps, cable: 2m},\n"
	    "           uplink: {rate: 100Gbps, cable: 200m}}\n"
	    "workload: {kind: permutation, size: 256KB}\n";
	struct sim sim;
	json_t *j = ts_run(fat, &sim);
	const json_t *flows = json_object_get(j, "flows"), *f;
	double end = ts_metric(j, "sim_time_us"), last_ack = 0;
	size_t i;

	cr_assert_eq(sim.end, SIM_END_DONE);
	cr_assert_gt(json_array_size(flows), 0);
	json_array_foreach(flows, i, f) {
		const json_t *acked = json_object_get(f, "acked_us");

		cr_assert(json_is_number(acked), "flow %zu has no acked_us", i);
		if (json_number_value(json_object_get(f, "start_us")) + json_number_value(acked) >
		    last_ack)
			last_ack = json_number_value(json_object_get(f, "start_us")) +
				   json_number_value(acked);
	}
	cr_assert_geq(end + 1e-3, last_ack, "run ended at %.3f us, last ACK at %.3f us", end,
		      last_ack);
	/* at most six hops of 1 us and a frame's serialisation past the done time */
	cr_assert_leq(end - simtime_to_us(sim.done_at), 6 * (1.0 + 0.1) + 1e-3);
	json_decref(j);
	sim_fini(&sim);
}
