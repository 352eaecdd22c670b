/*
 * Collectives end to end: ring AllReduce, AllGather and ReduceScatter near
 * the wire limit, All-to-All against its wire time and against an
 * oversubscribed fabric, data dependencies (a late rank delays the ring),
 * and a collective beside other traffic. Every run checks the byte
 * conservation invariant. Then a collective alone, built from its spec on
 * two NICs, and the flows the workload patterns expand into.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/coll_layout.h"
#include "models/collective.h"
#include "models/net.h"
#include "models/nic.h"
#include "models/workload.h"
#include "sim/config/scenario.h"
#include "support.h"
#include "sim/readers/topo_read.h"

/* 100 Gb/s of frames carrying 4096 of every 4178 bytes on the wire */
#define GOODPUT_GBPS (100e9 / 8 * 4096 / (4096 + 82) / 1e9)

static double coll_metric(const char *yaml, const char *m, double *completion_us)
{
	struct sim sim;
	json_t *j = ts_run(yaml, &sim);
	double v = ts_metric(j, m);

	if (completion_us)
		*completion_us = ts_metric(j, "collective.completion_time_us");
	cr_assert_eq(ts_metric(j, "collective.iterations_done"),
		     ts_metric(j, "collective.iterations"));
	json_decref(j);
	sim_fini(&sim);
	return v;
}

static const char single_switch[] =
    "topology: {kind: star, hosts: 8, link: {rate: 100Gbps, cable: 2m}}\n"
    "nic: {cc: dcqcn}\n"
    "workload: {kind: %s, size: 64MB, channels: 4}\n";

Test(collective, ring_allreduce_reaches_the_wire_limit)
{
	char yaml[512];
	double busbw;

	snprintf(yaml, sizeof(yaml), single_switch, "allreduce");
	busbw = coll_metric(yaml, "collective.busbw_GBps", NULL);
	cr_assert_float_eq(GOODPUT_GBPS, 12.25, 0.01);
	cr_assert_geq(busbw, 0.87 * GOODPUT_GBPS, "busbw %.2f GB/s", busbw);
	cr_assert_leq(busbw, GOODPUT_GBPS, "busbw %.2f GB/s", busbw);
}

Test(collective, allgather_and_reducescatter_reach_the_wire_limit)
{
	char yaml[512];
	double busbw;

	snprintf(yaml, sizeof(yaml), single_switch, "allgather");
	busbw = coll_metric(yaml, "collective.busbw_GBps", NULL);
	cr_assert(busbw >= 0.87 * GOODPUT_GBPS && busbw <= GOODPUT_GBPS, "allgather %.2f", busbw);
	snprintf(yaml, sizeof(yaml), single_switch, "reducescatter");
	busbw = coll_metric(yaml, "collective.busbw_GBps", NULL);
	cr_assert(busbw >= 0.87 * GOODPUT_GBPS && busbw <= GOODPUT_GBPS, "reducescatter %.2f",
		  busbw);
}

Test(collective, alltoall_within_20_percent_of_its_wire_time)
{
	char yaml[512];
	double t;
	/* each rank sends 7/8 of 64 MB through its own 100G link */
	const double wire_us = 64e6 * 7 / 8 / (GOODPUT_GBPS * 1e9) * 1e6;

	snprintf(yaml, sizeof(yaml), single_switch, "alltoall");
	coll_metric(yaml, "collective.busbw_GBps", &t);
	cr_assert_geq(t, wire_us * 0.999, "%.1f us vs wire %.1f us", t, wire_us);
	cr_assert_leq(t, wire_us * 1.2, "%.1f us vs wire %.1f us", t, wire_us);
}

Test(collective, alltoall_over_4_to_1_uplinks_takes_about_twice_as_long)
{
	/* line-rate senders on both fabrics: the capacity is what is compared
	 * (with DCQCN the shared uplinks also lose some of it to rate cuts) */
	static const char two_leaves[] =
	    "topology: {kind: leaf_spine, leaves: 2, spines: 1, hosts_per_leaf: 4,\n"
	    "           link: {rate: 100Gbps}, uplink: {rate: 100Gbps}}\n"
	    "nic: {cc: none}\n"
	    "workload: {kind: alltoall, size: 64MB}\n";
	static const char one_switch[] = "topology: {kind: star, hosts: 8}\n"
					 "nic: {cc: none}\n"
					 "workload: {kind: alltoall, size: 64MB}\n";
	double flat, oversub;

	coll_metric(one_switch, "collective.busbw_GBps", &flat);
	coll_metric(two_leaves, "collective.busbw_GBps", &oversub);
	/* 4 x 4 x 8 MB cross each 100G uplink (16/7 of a rank's own share) */
	cr_assert(oversub / flat >= 1.8 && oversub / flat <= 2.6, "ratio %.2f (%.0f / %.0f us)",
		  oversub / flat, oversub, flat);
}

Test(collective, a_late_rank_delays_the_whole_ring_by_about_that_much)
{
	static const char yaml[] = "topology: {kind: star, hosts: 8}\n"
				   "nic: {cc: none}\n"
				   "workload: {kind: allreduce, size: 16MB, channels: 2%s}\n";
	char text[512];
	double on_time, late;

	snprintf(text, sizeof(text), yaml, "");
	coll_metric(text, "collective.busbw_GBps", &on_time);
	snprintf(text, sizeof(text), yaml, ", late: {host: h3, by: 300us}");
	coll_metric(text, "collective.busbw_GBps", &late);
	cr_assert_float_eq(late - on_time, 300.0, 60.0, "late by 300 us: %.1f -> %.1f us", on_time,
			   late);
}

/*
 * NCCL's flow control: h2 starts 1 ms late; by then its predecessor h1 has
 * sent it exactly `steps` pieces (of 64 KiB) and waits for h2 to consume
 * one, where without flow control (steps: 0) it sends all it has. The
 * ring's completion moves by the lateness, not more.
 */
static uint64_t bytes_into_late_rank(const char *steps, double *completion_us)
{
	static const char yaml[] =
	    "topology: {kind: star, hosts: 4}\n"
	    "nic: {cc: none}\n"
	    "workload: {kind: allreduce, size: 4MB, channels: 1, chunk: 64KiB, steps: %s,\n"
	    "           late: {host: h2, by: 1ms}}\n";
	char text[512];
	struct sim sim;
	uint64_t got;
	json_t *j;

	snprintf(text, sizeof(text), yaml, steps);
	ts_load(text, NULL, 0, &sim);
	while (evq_peek(sim.q) < SIMTIME_MS)
		evq_step(sim.q);
	/* the ring's QPs follow the workload flows: rank r's goes to r + 1 */
	got = sim.net->flows[sim.net->n_wl_flows + 1].received;
	j = ts_finish(&sim);
	*completion_us = ts_metric(j, "collective.completion_time_us");
	json_decref(j);
	sim_fini(&sim);
	return got;
}

Test(collective, a_sender_runs_at_most_steps_pieces_ahead_of_a_late_receiver)
{
	double on_time, late8, late2, late0;
	struct sim sim;
	json_t *j;

	ts_load("topology: {kind: star, hosts: 4}\nnic: {cc: none}\n"
		"workload: {kind: allreduce, size: 4MB, channels: 1, chunk: 64KiB}\n",
		NULL, 0, &sim);
	j = ts_finish(&sim);
	on_time = ts_metric(j, "collective.completion_time_us");
	json_decref(j);
	sim_fini(&sim);

	cr_assert_eq(bytes_into_late_rank("8", &late8), 8 * 65536);
	cr_assert_eq(bytes_into_late_rank("2", &late2), 2 * 65536);
	/* without flow control h1 sends its own share of step 0 and more */
	cr_assert_gt(bytes_into_late_rank("0", &late0), 16 * 65536);
	cr_assert_float_eq(late8 - on_time, 1000.0, 50.0, "%.1f -> %.1f us", on_time, late8);
	cr_assert_float_eq(late2 - on_time, 1000.0, 50.0, "%.1f -> %.1f us", on_time, late2);
}

Test(collective, runs_beside_other_traffic)
{
	static const char yaml[] = "topology: {kind: star, hosts: 8}\n"
				   "workload:\n"
				   "  - {kind: allreduce, size: 16MB, ranks: [h0, h1, h2, h3]}\n"
				   "  - {kind: flows, flows: [{src: h4, dst: h0, size: 4MB}]}\n";
	struct sim sim;
	json_t *j = ts_run(yaml, &sim);

	cr_assert_eq(ts_metric(j, "collective.ranks"), 4);
	cr_assert_eq(ts_metric(j, "collective.iterations_done"), 1);
	cr_assert_eq(ts_metric(j, "flows_done"), 1);
	cr_assert_eq(sim.end, SIM_END_DONE);
	json_decref(j);
	sim_fini(&sim);
}

Test(collective, iterations_run_back_to_back)
{
	static const char yaml[] = "topology: {kind: star, hosts: 4}\n"
				   "workload: {kind: allreduce, size: 8MB, iterations: 3}\n";
	struct sim sim;
	json_t *j = ts_run(yaml, &sim);
	const json_t *it = json_object_get(
	    json_object_get(json_object_get(j, "summary"), "collective"), "iteration_times_us");
	double sum = 0;

	cr_assert_eq(json_array_size(it), 3);
	for (size_t i = 0; i < 3; i++)
		sum += json_real_value(json_array_get(it, i));
	cr_assert_float_eq(simtime_to_us(sim.end_time), sum, 0.01 * sum);
	json_decref(j);
	sim_fini(&sim);
}

/* @yaml loads and resolves (sim_init) or, with @path, is refused there. */
static void sized(const char *yaml, const char *path, const char *msg)
{
	struct scenario *s;
	struct diag d = {0};
	struct sim sim;
	int err;

	cr_assert_eq(scn_load_text("w.yaml", yaml, strlen(yaml), NULL, 0, &s, &d), 0, "%s", d.msg);
	err = sim_init(&sim, s, &d);
	if (!path) {
		cr_assert_eq(err, 0, "%s: %s: %s", yaml, d.path, d.msg);
	} else {
		cr_assert_eq(err, -EINVAL, "%s", yaml);
		cr_assert_str_eq(d.path, path, "%s", yaml);
		cr_assert(strstr(d.msg, msg), "%s: %s", yaml, d.msg);
	}
	sim_fini(&sim);
}

/*
 * A message numbers its packets in 32 bits and a ring's messages are
 * tagged (step + 1) x pieces + piece in 32 bits: sizes beyond that are
 * refused at their key. 2^40 B at MTU 256 is 2^32 packets (it wrapped to
 * 0 and the flow stalled after one packet); 1 TB in 1-byte chunks is
 * 1.25e11 pieces a step (it wrapped to 445,948,416).
 */
Test(collective, sizes_beyond_32_bit_packet_and_piece_counts_are_refused)
{
	sized("topology: {kind: star, hosts: 2}\n"
	      "nic: {mtu: 256}\n"
	      "workload: {kind: flows, flows: [{src: h0, dst: h1, size: 1099511627776}]}\n",
	      "workload.flows[0].size",
	      "1099511627776 B is 4294967296 packets of nic.mtu 256 B, more than 4294967295");
	sized("topology: {kind: star, hosts: 2}\n"
	      "nic: {mtu: 256}\n"
	      "workload: {kind: flows, flows: [{src: h0, dst: h1, size: 1099511627520}]}\n",
	      NULL, NULL);
	sized("topology: {kind: star, hosts: 3}\n"
	      "workload: {kind: incast, senders: 2, size: 17592186044417}\n",
	      "workload.size", "4294967297 packets of nic.mtu 4096 B");
	sized("topology: {kind: star, hosts: 3}\n"
	      "workload: {kind: permutation, size: 17592186040320}\n",
	      NULL, NULL);
	sized("topology: {kind: star, hosts: 2}\n"
	      "workload: {kind: allreduce, size: 1TB, chunk: 1B, channels: 4}\n",
	      "workload.chunk",
	      "125000000000 B a rank and channel in chunks of 1 B cuts each of the 2 ring "
	      "steps into 125000000000 pieces, more than 1431655765");
	sized("topology: {kind: star, hosts: 2}\n"
	      "workload: {kind: allreduce, size: 1TB, chunk: 64KB, channels: 4}\n",
	      NULL, NULL);
	sized("topology: {kind: star, hosts: 2}\n"
	      "workload: {kind: alltoall, size: 17592186044417}\n",
	      "workload.size", "packets of nic.mtu 4096 B");
}

/*
 * Flows and queue pairs are numbered in 32 bits: an All-to-All over 69,632
 * ranks takes 69632 x 69631 = 4,848,545,792 QPs, which wrapped to
 * 553,578,496 (and the collective then indexed QPs beyond them).
 */
Test(collective, more_queue_pairs_than_32_bits_number_are_refused)
{
	sized("topology: {kind: leaf_spine, leaves: 17, spines: 1, hosts_per_leaf: 4096}\n"
	      "workload: {kind: alltoall, size: 1MB}\n",
	      "workload", "4848545792 flows and queue pairs in all, more than 4294967295");
}

/* ---- a collective alone, built from its spec ------------------------------------- */

static void coll_done(void *up, struct flow *qp, uint32_t tag, simtime_t now)
{
	(void)up;
	coll_msg_done(qp->coll, qp, tag, now);
}

static void coll_finished(void *up)
{
	++*(int *)up;
}

static const struct nic_ops coll_ops = {.msg_done = coll_done};

/*
 * Ring AllReduce of 100000 B per rank on two ranks back to back at 100G,
 * 1 us apart, one channel: two steps each moving 50000 B (50 packets of
 * 1000 B, 86.56 ns each on the wire). A step ends when its last packet
 * lands, 50 x 86.56 ns + 1 us; the second starts then, behind the ACK of
 * the first (86 B, 6.88 ns), which goes out ahead of data.
 */
Test(collective, built_from_spec_a_ring_allreduce_of_two_ranks_takes_two_steps)
{
	const simtime_t ser = 86560, ack = 6880, prop = 1000000;
	const simtime_t step = 50 * ser + prop;
	uint32_t ranks[] = {0, 1};
	const struct coll_spec spec = {
	    .op = COLL_ALLREDUCE,
	    .bytes = 100000,
	    .ranks = ranks,
	    .n_ranks = 2,
	    .channels = 1,
	    .chunk = 1 << 20,
	    .iterations = 1,
	    .late_rank = UINT32_MAX,
	    .dscp = 26,
	    .priority = 3,
	};
	struct nic_params p = {.mtu = 1000,
			       .pfc = 1u << 3,
			       .cc = NIC_CC_NONE,
			       .ack_every = 1000,
			       .timeout = SIMTIME_S,
			       .retry_cnt = 7};
	struct flow qps[2] = {{0}};
	struct nic *nics[2];
	struct coll_stats st;
	struct coll *c;
	int finished = 0;
	struct rig r;

	dcqcn_params_default(&p.dcqcn, DCQCN_MLX5);
	cr_assert_eq(coll_qp_count(&spec), 2);
	cr_assert_eq(coll_ring_steps(&spec), 2);
	rig_init(&r, rig_pair(100000000000ULL, prop));
	for (uint32_t h = 0; h < 2; h++)
		cr_assert_not_null(
		    nics[h] = nic_new(&r.ctx, &p, h, &r.ports[h], qps, &coll_ops, &finished));
	const struct coll_env env = {.nics = nics, .finished = coll_finished, .up = &finished};

	cr_assert_eq(coll_new(&r.ctx, &spec, qps, 0, &env, &c), 0);
	rig_run(&r, SIMTIME_NEVER);
	coll_stats(c, &st);
	cr_assert_eq(finished, 1);
	cr_assert_eq(st.done, 1);
	cr_assert_eq(st.times[0], step + ack + step, "took %llu ps",
		     (unsigned long long)st.times[0]);
	cr_assert_eq(st.rank_done[0], st.times[0]);
	cr_assert_eq(st.rank_done[1], st.times[0]);
	for (uint32_t i = 0; i < 2; i++) {
		cr_assert_eq(qps[i].received, 100000);
		cr_assert_eq(qps[i].n_msgs, 2);
		nic_free(nics[i]);
		free(qps[i].msgs);
	}
	coll_free(c);
	rig_fini(&r);
}

/* ---- workloads: the flows a pattern expands into --------------------------------- */

Test(workload, an_incast_sends_from_every_host_but_the_receiver_in_order)
{
	struct wl_flow *f;
	uint32_t n;

	cr_assert_eq(wl_incast(5, 3, 1, 4096, 7, &f, &n), 0);
	cr_assert_eq(n, 3);
	for (uint32_t i = 0; i < n; i++) {
		cr_assert_eq(f[i].src, i == 0 ? 0 : i + 1);
		cr_assert_eq(f[i].dst, 1);
		cr_assert_eq(f[i].bytes, 4096);
		cr_assert_eq(f[i].start, 7);
	}
	free(f);
	cr_assert_eq(wl_incast(5, 5, 1, 4096, 0, &f, &n), -EINVAL, "more senders than other hosts");
}

Test(workload, a_permutation_is_a_derangement_drawn_from_the_seed)
{
	struct wl_flow *a, *b;
	uint32_t na, nb, hit[64] = {0};
	int same = 1;

	cr_assert_eq(wl_permutation(64, 1000, 0, 42, &a, &na), 0);
	cr_assert_eq(wl_permutation(64, 1000, 0, 42, &b, &nb), 0);
	cr_assert_eq(na, 64);
	for (uint32_t i = 0; i < na; i++) {
		cr_assert_eq(a[i].src, i);
		cr_assert_neq(a[i].dst, i, "host %u sends to itself", i);
		hit[a[i].dst]++;
		cr_assert_eq(a[i].dst, b[i].dst, "same seed, same traffic");
	}
	for (uint32_t i = 0; i < na; i++)
		cr_assert_eq(hit[i], 1, "host %u receives %u flows", i, hit[i]);
	free(b);
	cr_assert_eq(wl_permutation(64, 1000, 0, 43, &b, &nb), 0);
	for (uint32_t i = 0; i < na; i++)
		same &= a[i].dst == b[i].dst;
	cr_assert(!same, "another seed, another permutation");
	free(a);
	free(b);
	cr_assert_eq(wl_permutation(1, 1000, 0, 42, &a, &na), -EINVAL);
}

/* ---- GPUs as ranks: NVLink inside a server, NICs between ----------------------------- */

/* Two servers of 4 GPUs and 2 NICs (100G) on one switch, NVLink 450 GB/s. */
static const char two_servers[] =
    "topology: {kind: star, hosts: 2, nics_per_host: 2, gpus_per_host: 4, nvlink: 450GB/s}\n"
    "nic: {cc: none}\n"
    "workload: {kind: %s, size: 64MB, channels: %s%s}\n";

static json_t *run_two_servers(const char *op, const char *channels, const char *more)
{
	char yaml[512];
	struct sim sim;
	json_t *j;

	snprintf(yaml, sizeof(yaml), two_servers, op, channels, more);
	j = ts_run(yaml, &sim);
	sim_fini(&sim);
	return j;
}

/*
 * Channel c rides NIC c mod 2 on both servers: its ring goes through a
 * server's GPUs over NVLink starting at the GPU next to that NIC (GPUs 0, 1
 * sit by NIC 0; 2, 3 by NIC 1), and leaves it through the same NIC.
 */
Test(collective, a_channels_ring_crosses_servers_on_its_nic_and_stays_on_nvlink_inside)
{
	struct topo_spec ts = {.kind = TOPO_STAR,
			       .hosts = 2,
			       .nics_per_host = 2,
			       .gpus_per_host = 4,
			       .link = {100000000000ULL, SIMTIME_US}};
	static const uint32_t ch1[] = {2, 3, 0, 1, 6, 7, 4, 5};
	uint32_t ranks[8] = {0, 1, 2, 3, 4, 5, 6, 7};
	struct coll_layout lay;
	struct topo *t = ts_topo_build(&ts);

	const struct coll_place pl = {
	    .ranks = ranks, .n_ranks = 8, .channels = 2, .ring = 1, .topo = t};

	cr_assert_eq(coll_layout_build(&pl, &lay), 0);
	for (uint32_t i = 0; i < 8; i++) {
		cr_assert_eq(lay.ring[i], i, "channel 0 keeps the order");
		cr_assert_eq(lay.ring[8 + i], ch1[i], "channel 1, position %u", i);
	}
	/* two hops a channel leave a server: h0 -> h1 and back */
	cr_assert_eq(lay.n_qps, 4);
	for (uint32_t e = 0; e < lay.n_edges; e++) {
		uint32_t from, to, src, dst;

		coll_layout_ends(&pl, &lay, e, &from, &to);
		if (t->gpu_server[from] == t->gpu_server[to]) {
			cr_assert_eq(lay.edge_qp[e], COLL_NVLINK);
			continue;
		}
		coll_layout_nics(&pl, &lay, e, &src, &dst);
		/* NIC c of h0 is host c, of h1 host 2 + c */
		cr_assert_eq(src % 2, e % 2, "edge %u leaves on NIC %u", e, src);
		cr_assert_eq(dst % 2, e % 2, "edge %u lands on NIC %u", e, dst);
	}
	cr_assert_eq(
	    coll_qp_count(&(struct coll_spec){
		.op = COLL_ALLREDUCE, .ranks = ranks, .n_ranks = 8, .channels = 2, .topo = t}),
	    4);
	coll_layout_free(&lay);
	topo_free(t);
}

/*
 * Every ring hop moves 2(n-1) x S/(n x channels) bytes: 2(n-1) x S in all,
 * of which the 2 x channels hops between the servers carry the network's
 * share, and the NIC bound (2 x 100G a server, 24.5 GB/s of payload) is
 * what busbw reaches: NVLink is 18 times faster.
 */
Test(collective, gpu_ranks_split_the_bytes_between_nvlink_and_the_nics)
{
	json_t *j = run_two_servers("allreduce", "4", "");
	const double S = 64e6, n = 8, per_edge = 2 * (n - 1) * S / (n * 4);
	double busbw = ts_metric(j, "collective.busbw_GBps");

	cr_assert_eq(ts_metric(j, "collective.ranks"), 8);
	cr_assert_float_eq(ts_metric(j, "collective.network_bytes"), 2 * 4 * per_edge, 1);
	cr_assert_float_eq(ts_metric(j, "collective.nvlink_bytes"), 6 * 4 * per_edge, 1);
	cr_assert_float_eq(ts_metric(j, "collective.nic_bytes.h0/nic0"), 2 * per_edge, 1);
	cr_assert_float_eq(ts_metric(j, "collective.nic_bytes.h1/nic1"), 2 * per_edge, 1);
	cr_assert_geq(busbw, 0.9 * 2 * GOODPUT_GBPS, "busbw %.2f GB/s", busbw);
	cr_assert_leq(busbw, 2 * GOODPUT_GBPS, "busbw %.2f GB/s", busbw);
	json_decref(j);
}

/* All-to-All: a GPU's share for each peer of its server goes over NVLink
 * ((G-1) x S in all), for each other GPU over the network ((n-G) x S). */
Test(collective, alltoall_between_gpus_of_a_server_goes_over_nvlink)
{
	json_t *j = run_two_servers("alltoall", "1", "");

	cr_assert_float_eq(ts_metric(j, "collective.nvlink_bytes"), 3 * 64e6, 1);
	cr_assert_float_eq(ts_metric(j, "collective.network_bytes"), 4 * 64e6, 1);
	json_decref(j);
}

/* workload.hca as NCCL_IB_HCA: only mlx5_1, NIC 1 of each server, sends. */
Test(collective, nccl_ib_hca_keeps_the_collective_off_the_other_nics)
{
	json_t *j = run_two_servers("allreduce", "4", ", hca: \"=mlx5_1\"");
	const json_t *nics = json_object_get(
	    json_object_get(json_object_get(j, "summary"), "collective"), "nic_bytes");

	cr_assert_not_null(json_object_get(nics, "h0/nic1"));
	cr_assert_not_null(json_object_get(nics, "h1/nic1"));
	cr_assert_null(json_object_get(nics, "h0/nic0"));
	cr_assert_null(json_object_get(nics, "h1/nic0"));
	json_decref(j);
}

/* ---- NCCL's tree, and the choice between tree and ring ---------------------------------- */

/* 64 one-GPU servers on a leaf-spine at 400G, a rank acting on a message
 * @lat after it lands (NCCL's per-step overhead). */
static const char sixty_four[] =
    "topology: {kind: leaf_spine, leaves: 8, spines: 4, hosts_per_leaf: 8,\n"
    "           link: {rate: 400Gbps, cable: 3m}, uplink: {rate: 400Gbps, cable: 30m}}\n"
    "nic: {cc: none}\n"
    "workload: {kind: allreduce, size: %s, channels: 4, algorithm: %s, step_latency: %s}\n";

static double time_of(const char *size, const char *algo, const char *lat, char *picked)
{
	char yaml[512];
	struct sim sim;
	double us;
	json_t *j;

	snprintf(yaml, sizeof(yaml), sixty_four, size, algo, lat);
	j = ts_run(yaml, &sim);
	us = ts_metric(j, "collective.completion_time_us");
	if (picked)
		snprintf(picked, 8, "%s",
			 json_string_value(json_object_get(
			     json_object_get(json_object_get(j, "summary"), "collective"),
			     "algorithm")));
	json_decref(j);
	sim_fini(&sim);
	return us;
}

/*
 * With 4 us a step, a 64 KB AllReduce is all latency: the ring's 2(n-1) =
 * 126 steps take 504 us, the tree's 2 log2(64) = 12 take 48 us; the wire
 * adds little (16 KB a channel, 3 m and 30 m of cable a hop).
 */
Test(collective, small_allreduces_take_the_ring_2n_minus_2_and_the_tree_2_log2_n_steps)
{
	double ring = time_of("64KB", "ring", "4us", NULL),
	       tree = time_of("64KB", "tree", "4us", NULL);

	cr_assert(ring >= 126 * 4 && ring <= 126 * 4 + 20, "ring %.1f us", ring);
	cr_assert(tree >= 12 * 4 && tree <= 12 * 4 + 20, "tree %.1f us", tree);
}

/* auto takes whichever is faster, size by size (1 us a step: the tree for
 * small sizes, the ring once the tree's half bandwidth costs more than the
 * ring's steps). */
Test(collective, auto_picks_the_faster_algorithm_on_each_size)
{
	static const char *const sizes[] = {"64KB", "256KB", "1MB", "4MB", "16MB"};
	int trees = 0, rings = 0;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		double ring = time_of(sizes[i], "ring", "1us", NULL);
		double tree = time_of(sizes[i], "tree", "1us", NULL);
		char picked[8];

		time_of(sizes[i], "auto", "1us", picked);
		cr_assert_str_eq(picked, ring < tree ? "ring" : "tree",
				 "%s: ring %.1f us, tree %.1f us, auto took %s", sizes[i], ring,
				 tree, picked);
		trees += ring >= tree;
		rings += ring < tree;
	}
	cr_assert(trees && rings, "a sweep over both sides of the crossover");
}

/* Each rank but a channel's root sends every piece up and gets it down:
 * 2(n-1) x S over the edges, the chain over NVLink inside a server. */
Test(collective, a_tree_moves_2_n_minus_1_times_the_size)
{
	json_t *j = run_two_servers("allreduce", "2", ", algorithm: tree");
	double net = ts_metric(j, "collective.network_bytes");
	double nvl = ts_metric(j, "collective.nvlink_bytes");

	cr_assert_float_eq(net + nvl, 2 * 7 * 64e6, 1);
	/* per channel the two heads share one edge up and one down */
	cr_assert_float_eq(net, 2 * 64e6, 1);
	json_decref(j);
}

/* NCCL's double binary tree over 4 servers: tree 0 is 0 <- 2 <- {1, 3};
 * its mirror 3 <- 1 <- {2, 0}; inside a server a chain from the head. */
Test(collective, the_double_binary_tree_is_nccls)
{
	struct topo_spec ts = {.kind = TOPO_STAR,
			       .hosts = 4,
			       .gpus_per_host = 2,
			       .link = {100000000000ULL, SIMTIME_US}};
	uint32_t ranks[8] = {0, 1, 2, 3, 4, 5, 6, 7};
	struct coll_layout lay;
	struct topo *t = ts_topo_build(&ts);

	const struct coll_place pl = {
	    .ranks = ranks, .n_ranks = 8, .channels = 2, .tree = 1, .topo = t};
	/* server i's head is rank 2i, its second GPU 2i + 1 */
	static const uint32_t up0[8] = {COLL_ROOT, 0, 4, 2, 0, 4, 4, 6};
	static const uint32_t up1[8] = {2, 0, 6, 2, 2, 4, COLL_ROOT, 6};

	cr_assert_eq(coll_layout_build(&pl, &lay), 0);
	for (uint32_t r = 0; r < 8; r++) {
		cr_assert_eq(lay.parent[r], up0[r], "tree 0, rank %u: %u", r, lay.parent[r]);
		cr_assert_eq(lay.parent[8 + r], up1[r], "tree 1, rank %u: %u", r,
			     lay.parent[8 + r]);
	}
	/* 2 (servers - 1) edges between servers a channel, one GPU's chain */
	cr_assert_eq(lay.n_qps, 2 * 2 * 3);
	cr_assert_eq(lay.n_nvlink, 2 * 2 * 4);
	coll_layout_free(&lay);
	topo_free(t);
}
