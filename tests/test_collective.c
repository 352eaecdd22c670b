/*
 * Collectives end to end: ring AllReduce, AllGather and ReduceScatter near
 * the wire limit, All-to-All against its wire time and against an
 * oversubscribed fabric, data dependencies (a late rank delays the ring),
 * and a collective beside other traffic. Every run checks the byte
 * conservation invariant.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "models/collective.h"
#include "models/net.h"
#include "sim/config/scenario.h"
#include "support.h"

/* 100 Gb/s of frames carrying 4096 of every 4178 bytes on the wire */
#define GOODPUT_GBPS (100e9 / 8 * 4096 / (4096 + 82) / 1e9)

static double coll_metric(const char *yaml, const char *m, double *completion_us)
{
	struct sim sim;
	json_t *j = ts_run(yaml, &sim);
	double v = ts_metric(j, m);

	if (completion_us)
		*completion_us = ts_metric(j, "collective.completion_time_us");
	cr_assert_eq(ts_metric(j, "collective.iterations_done"), ts_metric(j, "collective.iterations"));
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
	static const char one_switch[] =
		"topology: {kind: star, hosts: 8}\n"
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
	static const char yaml[] =
		"topology: {kind: star, hosts: 8}\n"
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

Test(collective, runs_beside_other_traffic)
{
	static const char yaml[] =
		"topology: {kind: star, hosts: 8}\n"
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
	static const char yaml[] =
		"topology: {kind: star, hosts: 4}\n"
		"workload: {kind: allreduce, size: 8MB, iterations: 3}\n";
	struct sim sim;
	json_t *j = ts_run(yaml, &sim);
	const json_t *it = json_object_get(json_object_get(json_object_get(j, "summary"),
							   "collective"),
					   "iteration_times_us");
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
