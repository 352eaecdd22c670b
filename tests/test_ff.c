/*
 * Fast-forward (engine.fast_forward, models/ff.h): each scenario run both
 * ways, the skipped run held against the packet-by-packet one: completion
 * times within 1%, bytes conserved (ts_finish), and runs that never
 * settle (DCQCN still moving, a deadlock) exactly as without.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc.h"
#include "support.h"

static const char *const on[] = {"engine.fast_forward.enabled=true"};
static const char *const off[] = {"engine.fast_forward.enabled=false"};
static const char *const *const off_set = off;

struct both {
	json_t *off, *on;
	uint64_t events_off, events_on;
};

/* @yaml run without and with fast-forward (with @set beside, if any). */
static void run_both(const char *yaml, const char *set, struct both *b)
{
	const char *sets[2] = {on[0], set}, *unset[2] = {off[0], set};
	struct sim sim;

	ts_load(yaml, unset, set ? 2 : 1, &sim);
	b->off = ts_finish(&sim);
	b->events_off = sim.events;
	sim_fini(&sim);
	ts_load(yaml, sets, set ? 2 : 1, &sim);
	b->on = ts_finish(&sim);
	b->events_on = sim.events;
	sim_fini(&sim);
}

static void both_free(struct both *b)
{
	json_decref(b->off);
	json_decref(b->on);
}

static double rel(double a, double b)
{
	return fabs(b - a) / a;
}

/* One 100 MB flow on a 100G link: a steady state from the first window. */
static const char long_flow[] =
    "topology: {kind: star, hosts: 2, link: {rate: 100Gbps, cable: 2m}}\n"
    "nic: {mtu: 4096}\n"
    "workload:\n"
    "  kind: flows\n"
    "  flows: [{src: h0, dst: h1, size: 100MB}]\n";

Test(ff, a_long_flow_is_skipped_and_ends_at_its_packet_by_packet_time)
{
	struct both b;

	run_both(long_flow, NULL, &b);
	cr_assert(ts_metric(b.on, "fast_forward.spans") >= 1);
	cr_assert(ts_metric(b.on, "fast_forward.skipped_share") > 0.8);
	cr_assert(rel(ts_metric(b.off, "fct_us.max"), ts_metric(b.on, "fct_us.max")) < 0.01,
		  "fct %.3f us against %.3f us", ts_metric(b.on, "fct_us.max"),
		  ts_metric(b.off, "fct_us.max"));
	/* the skipped packets' counters move at their rate */
	cr_assert(rel(ts_metric(b.off, "bytes.received"), ts_metric(b.on, "bytes.received")) == 0);
	cr_assert(b.events_on * 5 < b.events_off, "%llu events against %llu",
		  (unsigned long long)b.events_on, (unsigned long long)b.events_off);
	/* the estimate it reports covers the difference it made */
	cr_assert(fabs(ts_metric(b.on, "fct_us.max") - ts_metric(b.off, "fct_us.max")) <=
		      ts_metric(b.on, "fast_forward.error_estimate_us") + 0.001,
		  "moved by %.3f us, estimate %.3f us",
		  ts_metric(b.on, "fct_us.max") - ts_metric(b.off, "fct_us.max"),
		  ts_metric(b.on, "fast_forward.error_estimate_us"));
	both_free(&b);
}

/*
 * A 10 MB flow over a 2 km cable (10 us each way): the network drains
 * for a path delay and its ACKs' way back before a span, and is empty
 * after it. Neither may cost the flow: its deliveries go on from its last
 * one, and at the end the packets a path's latency holds count as on
 * their way. Without that, the span cost the flow 19 us (+2.3%).
 */
static const char far_flow[] =
    "topology: {kind: star, hosts: 2, link: {rate: 100Gbps, cable: 2m},\n"
    "           links: {h1-sw0: {cable: 2002m}}}\n"
    "nic: {mtu: 4096, cc: none}\n"
    "workload: {kind: flows, flows: [{src: h0, dst: h1, size: 10MB}]}\n";

Test(ff, a_span_costs_a_flow_on_a_long_cable_nothing_at_its_ends)
{
	struct both b;
	double off, got;

	run_both(far_flow, NULL, &b);
	off = ts_metric(b.off, "fct_us.max");
	got = ts_metric(b.on, "fct_us.max");
	cr_assert(ts_metric(b.on, "fast_forward.spans") >= 1);
	cr_assert(ts_metric(b.on, "fast_forward.skipped_share") > 0.5);
	/* within a microsecond, three packets at 100G */
	cr_assert(fabs(got - off) < 1.0, "fct %.3f us against %.3f us", got, off);
	cr_assert(fabs(got - off) <= ts_metric(b.on, "fast_forward.error_estimate_us"),
		  "moved by %.3f us, estimate %.3f us", got - off,
		  ts_metric(b.on, "fast_forward.error_estimate_us"));
	both_free(&b);
}

/*
 * nccl-tests' AllReduce from 1 to 64 MiB on 8 hosts: between chunks a
 * ring's QP waits for its neighbour's data. Its rate in a span is its
 * rate while it had something to send, since in the span it waits for
 * its messages itself; with the waits in the rate too it came out 1.1%
 * late (busbw 1.4% low).
 */
static const char nccl_ring[] =
    "topology: {kind: star, hosts: 8, link: {rate: 100Gbps, cable: 2m}}\n"
    "nic: {mtu: 4096}\n"
    "workload: {kind: nccl_tests, command: \"all_reduce_perf -b 1M -e 64M -f 4 -n 2 -w 1 "
    "-g 1\"}\n";

Test(ff, a_ring_waiting_for_its_data_is_not_slowed_twice)
{
	struct both b;
	double off, got;

	run_both(nccl_ring, NULL, &b);
	off = ts_metric(b.off, "done_us");
	got = ts_metric(b.on, "done_us");
	cr_assert(ts_metric(b.on, "fast_forward.skipped_share") > 0.9);
	cr_assert(rel(off, got) < 0.008, "done at %.3f us against %.3f us", got, off);
	cr_assert(fabs(got - off) <= ts_metric(b.on, "fast_forward.error_estimate_us"));
	both_free(&b);
}

/*
 * An 8:1 incast under the paper's DCQCN: CNPs cut the senders to a few
 * packets a window, from where the rate increase climbs back over
 * milliseconds. Two packets a window looked level within a packet: a
 * span at that rate delivered a sixth of the packet run's bytes. A QP
 * with fewer packets a window than the tolerance can tell must hold its
 * DCQCN rate over the sequence.
 */
static const char slow_climb[] =
    "stop: 20ms\n"
    "topology: {kind: star, hosts: 9, link: {rate: 40Gbps, cable: 2m}}\n"
    "switch: {buffer: {size: 256MB}, pfc: {xoff: 64MB, headroom: 8MB},\n"
    "  ecn: {kmin: 5KB, kmax: 200KB, pmax: 1%}}\n"
    "nic: {mtu: 1024, cc: dcqcn, dcqcn: {variant: paper, np_cnp_mode: window}}\n"
    "workload: {kind: incast, senders: 8, size: 10GB}\n";

Test(ff, a_slow_climb_is_not_taken_for_a_level)
{
	struct both b;

	run_both(slow_climb, NULL, &b);
	cr_assert(rel(ts_metric(b.off, "bytes.received"), ts_metric(b.on, "bytes.received")) < 0.01,
		  "%.0f bytes against %.0f", ts_metric(b.on, "bytes.received"),
		  ts_metric(b.off, "bytes.received"));
	both_free(&b);
}

/* A ring AllReduce over a leaf-spine: messages complete at their rates in
 * a span, and the collective runs on over them. */
static const char ring[] =
    "topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4,\n"
    "  link: {rate: 100Gbps, cable: 2m}, uplink: {rate: 100Gbps, cable: 10m}}\n"
    "workload: {kind: allreduce, size: 64MB, ranks: all, channels: 2}\n";

Test(ff, a_ring_allreduce_completes_within_a_percent)
{
	struct both b;

	run_both(ring, NULL, &b);
	cr_assert(ts_metric(b.on, "fast_forward.skipped_share") > 0.5);
	cr_assert(ts_metric(b.on, "fast_forward.messages_completed") > 0);
	cr_assert(fabs(ts_metric(b.on, "collective.completion_time_us") -
		       ts_metric(b.off, "collective.completion_time_us")) <=
		  ts_metric(b.on, "fast_forward.error_estimate_us"));
	cr_assert(rel(ts_metric(b.off, "collective.completion_time_us"),
		      ts_metric(b.on, "collective.completion_time_us")) < 0.01,
		  "%.3f us against %.3f us", ts_metric(b.on, "collective.completion_time_us"),
		  ts_metric(b.off, "collective.completion_time_us"));
	cr_assert(b.events_on * 3 < b.events_off);
	both_free(&b);
}

/* @field of @x and @y: the same. */
static void same_field(json_t *x, json_t *y, const char *field, const char *what)
{
	json_t *a = json_object_get(x, field), *b = json_object_get(y, field);

	cr_assert(a && json_equal(a, b), "%s %s: %lld against %lld", what, field,
		  (long long)json_integer_value(b), (long long)json_integer_value(a));
}

/* The packets of @key's rows (switches' ports, or hosts) in @a and @b,
 * and of each port's queues: the same counts, field by field; how many
 * rows were held. */
static size_t same_rows(json_t *a, json_t *b, const char *key, const char *const *fields)
{
	json_t *ra = json_object_get(a, key), *rb = json_object_get(b, key);

	cr_assert_eq(json_array_size(ra), json_array_size(rb));
	for (size_t i = 0; i < json_array_size(ra); i++) {
		json_t *x = json_array_get(ra, i), *y = json_array_get(rb, i);
		json_t *qa = json_object_get(x, "queues"), *qb = json_object_get(y, "queues");
		const char *name = json_string_value(json_object_get(x, "name"));

		for (size_t f = 0; fields[f]; f++)
			same_field(x, y, fields[f], name);
		cr_assert_eq(json_array_size(qa), json_array_size(qb));
		for (size_t q = 0; q < json_array_size(qa); q++) {
			same_field(json_array_get(qa, q), json_array_get(qb, q), "tx_packets",
				   name);
			same_field(json_array_get(qa, q), json_array_get(qb, q), "tx_bytes", name);
		}
	}
	return json_array_size(ra);
}

/*
 * A span counts the packets it delivered on the ports and NICs they
 * cross, and their ACKs (one every ack_every packets and at each
 * message's end) on the way back: once the AllReduce is done, every
 * port's and NIC's packets and bytes, and its queues', are what the
 * packet-by-packet run counted.
 */
Test(ff, a_span_counts_every_packet_on_the_ports_it_crosses)
{
	static const char *const port_fields[] = {"tx_packets", "tx_bytes", "rx_packets",
						  "rx_bytes", NULL};
	static const char *const host_fields[] = {"tx_packets_phy", "tx_bytes_phy",
						  "rx_packets_phy", "rx_bytes_phy", NULL};
	struct both b;
	json_t *sa, *sb;
	size_t ports = 0;

	run_both(ring, "nic.transport.ack_every=3", &b);
	cr_assert(ts_metric(b.on, "fast_forward.skipped_share") > 0.5);
	sa = json_object_get(b.off, "switches");
	sb = json_object_get(b.on, "switches");
	for (size_t i = 0; i < json_array_size(sa); i++)
		ports +=
		    same_rows(json_array_get(sa, i), json_array_get(sb, i), "ports", port_fields);
	cr_assert_eq(ports, 16, "each leaf: 4 hosts and 2 spines; each spine: 2 leaves");
	cr_assert_eq(same_rows(b.off, b.on, "hosts", host_fields), 8);
	cr_assert(json_equal(json_object_get(json_object_get(b.off, "run"), "packet_hops"),
			     json_object_get(json_object_get(b.on, "run"), "packet_hops")));
	both_free(&b);
}

/* A long ring AllReduce: its spans run their whole length, the next
 * sequence finds the same rates, and each span after may last twice as
 * long; the collective's QPs wait for one another's data within a span. */
static const char long_ring[] =
    "topology: {kind: star, hosts: 8, link: {rate: 100Gbps, cable: 2m}}\n"
    "nic: {cc: none}\n"
    "workload: {kind: allreduce, size: 512MB, ranks: all, channels: 1}\n";

Test(ff, a_steady_state_found_again_lets_the_next_span_run_longer)
{
	double spans, limit, ends = 0;
	const char *why[] = {"dry", "post", "change", "limit", "run_end"};
	char key[64];
	struct both b;

	run_both(long_ring, NULL, &b);
	spans = ts_metric(b.on, "fast_forward.spans");
	limit = ts_metric(b.on, "fast_forward.ended_by.limit");
	for (size_t i = 0; i < sizeof(why) / sizeof(why[0]); i++) {
		snprintf(key, sizeof(key), "fast_forward.ended_by.%s", why[i]);
		ends += ts_metric(b.on, key);
	}
	cr_assert_eq(ends, spans, "%g ends for %g spans", ends, spans);
	/* spans of 64, 128, 256, 512 sequences of 60 us: five cover its
	 * 73 ms, where spans of 64 would take twenty */
	cr_assert(limit >= 1 && spans <= 5, "%g spans, %g at their limit", spans, limit);
	cr_assert(ts_metric(b.on, "fast_forward.skipped_share") > 0.9);
	cr_assert(rel(ts_metric(b.off, "collective.completion_time_us"),
		      ts_metric(b.on, "collective.completion_time_us")) < 0.01,
		  "%.3f us against %.3f us", ts_metric(b.on, "collective.completion_time_us"),
		  ts_metric(b.off, "collective.completion_time_us"));
	cr_assert(fabs(ts_metric(b.on, "collective.completion_time_us") -
		       ts_metric(b.off, "collective.completion_time_us")) <=
		  ts_metric(b.on, "fast_forward.error_estimate_us"));
	both_free(&b);
}

/* A flow that starts in the middle of another's steady state ends the
 * span: the two then share the link as without. */
static const char late_flow[] =
    "topology: {kind: star, hosts: 3, link: {rate: 100Gbps, cable: 2m}}\n"
    "nic: {cc: none}\n"
    "workload:\n"
    "  kind: flows\n"
    "  flows: [{src: h0, dst: h2, size: 50MB},\n"
    "          {src: h1, dst: h2, size: 10MB, start: 2ms}]\n";

Test(ff, new_traffic_ends_a_span)
{
	struct both b;

	run_both(late_flow, NULL, &b);
	cr_assert(ts_metric(b.on, "fast_forward.spans") >= 1);
	cr_assert(rel(ts_metric(b.off, "fct_us.max"), ts_metric(b.on, "fct_us.max")) < 0.01);
	cr_assert(rel(ts_metric(b.off, "fct_us.p50"), ts_metric(b.on, "fct_us.p50")) < 0.01);
	both_free(&b);
}

/* A link that slows in the middle of a span ends it at its time. */
static const char slowed[] =
    "topology: {kind: leaf_spine, leaves: 2, spines: 1, hosts_per_leaf: 1,\n"
    "  link: {rate: 100Gbps, cable: 2m}}\n"
    "nic: {cc: none}\n"
    "workload: {kind: flows, flows: [{src: h0, dst: h1, size: 50MB}]}\n"
    "faults: [{kind: link_rate, link: leaf0-spine0, at: 2ms, rate: 50Gbps}]\n";

Test(ff, a_fault_ends_a_span_at_its_time)
{
	struct both b;

	run_both(slowed, NULL, &b);
	cr_assert(ts_metric(b.on, "fast_forward.spans") >= 1);
	/* half the flow's time at 50G: far from the 4 ms of 100G alone */
	cr_assert(ts_metric(b.off, "fct_us.max") > 5000);
	cr_assert(rel(ts_metric(b.off, "fct_us.max"), ts_metric(b.on, "fct_us.max")) < 0.01);
	both_free(&b);
}

/*
 * A link or node going down drops what its QPs have posted and not sent
 * then: a span before it would move that phase by up to its error (the
 * seed cluster losing spine0 at 10 ms dropped 10,986 lossless packets
 * after two spans, 11,738 packet by packet). Nothing is skipped before
 * it, and the drops come out exactly.
 */
static const char ring_loses_a_spine[] =
    "topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4,\n"
    "  link: {rate: 100Gbps, cable: 2m}, uplink: {rate: 100Gbps, cable: 10m}}\n"
    "workload: {kind: allreduce, size: 64MB, ranks: all, channels: 2}\n"
    "faults: [{kind: node_down, node: spine0, at: 4ms}]\n"
    "stop: 20ms\n";

Test(ff, nothing_is_skipped_before_a_loss_to_come)
{
	struct both b;

	run_both(ring_loses_a_spine, NULL, &b);
	cr_assert_eq(ts_metric(b.on, "fast_forward.spans"), 0);
	cr_assert_gt(ts_metric(b.off, "lossless_drops"), 1000);
	cr_assert_eq(ts_metric(b.on, "lossless_drops"), ts_metric(b.off, "lossless_drops"));
	cr_assert_eq(ts_metric(b.on, "bytes.received"), ts_metric(b.off, "bytes.received"));
	both_free(&b);
}

/* A failure after the run's stop never strikes: it holds nothing back. */
Test(ff, a_loss_after_the_stop_holds_nothing_back)
{
	struct both b;

	run_both(ring_loses_a_spine, "faults[0].at=30ms", &b);
	cr_assert_gt(ts_metric(b.on, "fast_forward.spans"), 0);
	cr_assert_eq(ts_metric(b.off, "lossless_drops"), 0);
	cr_assert(rel(ts_metric(b.off, "bytes.received"), ts_metric(b.on, "bytes.received")) <
		  0.01);
	both_free(&b);
}

/* The metrics a run that never settles must give exactly as without. */
static void assert_same(const struct both *b, const char *const *metrics, size_t n)
{
	cr_assert_eq(ts_metric(b->on, "fast_forward.spans"), 0);
	cr_assert_eq(ts_metric(b->on, "fast_forward.skipped_us"), 0);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(ts_metric(b->off, metrics[i]), ts_metric(b->on, metrics[i]), "%s",
			     metrics[i]);
}

/* DCQCN still converging: one QP cut to a trickle climbs back at each
 * timer period, slower than any window; nothing is steady. */
static const char two_dcqcn[] =
    "topology: {kind: star, hosts: 3, link: {rate: 100Gbps, cable: 2m}}\n"
    "switch: {buffer: {size: 32MB}, pfc: {xoff: 1MB},\n"
    "  ecn: {kmin: 5KB, kmax: 200KB, pmax: 1%}}\n"
    "nic: {cc: dcqcn}\n"
    "workload:\n"
    "  kind: flows\n"
    "  flows: [{src: h0, dst: h2, size: 20MB}, {src: h1, dst: h2, size: 20MB}]\n";

Test(ff, dcqcn_still_moving_is_not_skipped)
{
	static const char *const m[] = {"fct_us.max", "fct_us.p50", "ecn_marked_packets",
					"cnp_handled"};
	struct both b;

	run_both(two_dcqcn, NULL, &b);
	assert_same(&b, m, sizeof(m) / sizeof(m[0]));
	both_free(&b);
}

/*
 * A 2:1 incast under the paper's DCQCN at 40G: the senders sit below
 * their line rate, cut by CNPs and climbing back by R_AI a period, a
 * climb that looks level within a sequence. Spans kept them where they
 * were, and by 100 ms the run had delivered 8.9% less than the packet
 * run, with 13 ECN marks against 371: a QP below its line rate is not
 * steady.
 */
static const char below_line[] =
    "stop: 100ms\n"
    "topology: {kind: star, hosts: 3, link: {rate: 40Gbps, cable: 2m}}\n"
    "switch: {buffer: {size: 256MB}, pfc: {xoff: 64MB, headroom: 8MB},\n"
    "  ecn: {kmin: 5KB, kmax: 200KB, pmax: 1%}}\n"
    "nic: {mtu: 1024, cc: dcqcn, dcqcn: {variant: paper, np_cnp_mode: window}}\n"
    "workload: {kind: incast, senders: 2, size: 10GB}\n";

Test(ff, a_qp_below_its_line_rate_is_not_skipped)
{
	static const char *const m[] = {"bytes.received", "ecn_marked_packets", "cnp_handled",
					"max_queue_bytes"};
	struct both b;

	run_both(below_line, NULL, &b);
	assert_same(&b, m, sizeof(m) / sizeof(m[0]));
	both_free(&b);
}

/*
 * A 2:1 incast over 2 km under PFC: it looked steady 27 packets from its
 * end. The span ended where it began, and the hold and the restart made
 * the FCTs 8.5% late. A flow's QP that runs dry within two drains is not
 * held.
 */
static const char near_end[] =
    "topology: {kind: star, hosts: 3, link: {rate: 100Gbps, cable: 2km}}\n"
    "switch: {buffer: {size: 32MB}, pfc: {xoff: 200KB, xon_offset: 50KB, headroom: 165888},\n"
    "  ecn: {enabled: false}}\n"
    "workload: {kind: incast, senders: 2, size: 2MB}\n";

Test(ff, a_flow_near_its_end_is_not_held)
{
	static const char *const m[] = {"fct_us.max", "fct_us.p50", "pfc_pause_frames"};
	struct both b;

	run_both(near_end, NULL, &b);
	assert_same(&b, m, sizeof(m) / sizeof(m[0]));
	both_free(&b);
}

/* The ring deadlock of experiments/deadlock-ring.yaml: queues stuck with
 * packets to send are never steady. */
Test(ff, a_deadlock_is_never_skipped)
{
	static const char *const m[] = {"pfc_pause_frames", "pfc_paused_time_us",
					"deadlock.detected", "bytes.in_flight"};
	const char *src = getenv("ROCESIM_SRC");
	char *yaml = NULL, path[4096];
	size_t len = 0;
	FILE *f;
	struct both b;

	snprintf(path, sizeof(path), "%s/experiments/deadlock-ring.yaml", src ? src : ".");
	f = fopen(path, "r");
	cr_assert_not_null(f);
	cr_assert_eq(getdelim(&yaml, &len, '\0', f) > 0, 1);
	fclose(f);
	run_both(yaml, NULL, &b);
	assert_same(&b, m, sizeof(m) / sizeof(m[0]));
	both_free(&b);
	free(yaml);
}

/* The keys: a tolerance out of its range is refused with its name. */
Test(ff_keys, a_tolerance_out_of_range_is_refused_by_name)
{
	struct ts_proc p;
	const char *yaml;
	FILE *f;

	ts_proc_setup("ff");
	yaml = ts_tmp("tol.yaml");
	f = fopen(yaml, "w");
	cr_assert_not_null(f);
	fputs(long_flow, f);
	fputs("engine: {fast_forward: {enabled: true, tolerance: 80%}}\n", f);
	fclose(f);
	ts_exec(&p, (const char *const[]){"run", yaml, "-o", ts_tmp("out"), "-q", NULL});
	cr_assert_eq(p.code, 2, "%s", p.err);
	cr_assert(strstr(p.err, "engine.fast_forward.tolerance"), "%s", p.err);
	cr_assert(strstr(p.err, ":6"), "the line: %s", p.err);
	ts_proc_free(&p);
	ts_proc_teardown();
}

/* A fast_forward block that leaves `enabled` out tunes fast-forward; it
 * stays on, as by default. */
Test(ff_keys, a_block_without_enabled_keeps_it_on)
{
	char yaml[sizeof(long_flow) + 64];
	struct sim sim;
	json_t *r;

	snprintf(yaml, sizeof(yaml), "%sengine: {fast_forward: {tolerance: 2%%}}\n", long_flow);
	ts_load(yaml, NULL, 0, &sim);
	r = ts_finish(&sim);
	sim_fini(&sim);
	cr_assert(ts_metric(r, "fast_forward.spans") >= 1, "fast-forward is off");
	cr_assert_float_eq(ts_metric(r, "fast_forward.tolerance"), 0.02, 1e-9);
	json_decref(r);
}

/*
 * Groups (engine.fast_forward.groups): a 100 MB flow h0 -> h1 on one leaf
 * beside a tenant h2 -> h3 on the other, whose 20 KB flows start every
 * 50 us for 8 ms: no link or switch in common. As one fabric, the tenant never holds still
 * and nothing is skipped while it sends; as two groups, the long flow's is skipped while the
 * tenant's packets run: its flows end exactly as packet by packet, the
 * long one within 1%.
 */
static char *tenant_yaml(void)
{
	size_t cap = 64 * 1024, len;
	char *y = malloc(cap);

	cr_assert_not_null(y);
	len = (size_t)snprintf(
	    y, cap,
	    "topology: {kind: leaf_spine, leaves: 2, spines: 1, hosts_per_leaf: 2,\n"
	    "           link: {rate: 100Gbps, cable: 2m}}\n"
	    "nic: {mtu: 4096}\n"
	    "workload:\n"
	    "  kind: flows\n"
	    "  flows:\n"
	    "    - {src: h0, dst: h1, size: 100MB}\n");
	for (int i = 0; i < 160; i++)
		len +=
		    (size_t)snprintf(y + len, cap - len,
				     "    - {src: h2, dst: h3, size: 20KB, start: %dus}\n", 50 * i);
	return y;
}

static json_t *run_set(const char *yaml, const char *const *sets, size_t n, uint64_t *events)
{
	struct sim sim;
	json_t *r;

	ts_load(yaml, sets, n, &sim);
	r = ts_finish(&sim);
	*events = sim.events;
	sim_fini(&sim);
	return r;
}

static double flow_fct(const json_t *r, size_t i)
{
	return json_number_value(
	    json_object_get(json_array_get(json_object_get(r, "flows"), i), "fct_us"));
}

Test(ff_groups, a_busy_tenant_no_longer_stops_a_steady_one)
{
	static const char *const whole[] = {"engine.fast_forward.enabled=true"};
	static const char *const groups[] = {"engine.fast_forward.enabled=true",
					     "engine.fast_forward.groups=true"};
	char *yaml = tenant_yaml();
	uint64_t ev_off, ev_whole, ev_groups;
	json_t *off = run_set(yaml, off_set, 1, &ev_off);
	json_t *one = run_set(yaml, whole, 1, &ev_whole);
	json_t *two = run_set(yaml, groups, 2, &ev_groups);
	size_t n = json_array_size(json_object_get(off, "flows"));

	cr_assert_eq(n, 161);
	cr_assert_eq(ts_metric(one, "fast_forward.groups"), 1);
	/* as one fabric, nothing settles until the tenant's last flow */
	cr_assert(ts_metric(one, "fast_forward.skipped_us") < 500, "%.3f us skipped",
		  ts_metric(one, "fast_forward.skipped_us"));
	cr_assert_eq(ts_metric(two, "fast_forward.groups"), 2);
	cr_assert(ts_metric(two, "fast_forward.skipped_us") > 4000, "%.3f us skipped",
		  ts_metric(two, "fast_forward.skipped_us"));
	cr_assert(ev_groups * 3 < ev_whole, "%llu events against %llu",
		  (unsigned long long)ev_groups, (unsigned long long)ev_whole);
	cr_assert(rel(flow_fct(off, 0), flow_fct(two, 0)) < 0.01, "%.3f us against %.3f us",
		  flow_fct(two, 0), flow_fct(off, 0));
	for (size_t i = 1; i < n; i++)
		cr_assert_eq(flow_fct(two, i), flow_fct(off, i),
			     "flow %zu: %.3f us against %.3f us", i, flow_fct(two, i),
			     flow_fct(off, i));
	cr_assert_eq(ts_metric(two, "bytes.received"), ts_metric(off, "bytes.received"));
	json_decref(off);
	json_decref(one);
	json_decref(two);
	free(yaml);
}

/* QPs sharing a switch are one group (its buffer and ECN marking draws
 * are shared): on one star the fabric is one, and the run is the one
 * without groups. */
Test(ff_groups, qps_sharing_a_switch_are_one_group)
{
	static const char *const whole[] = {"engine.fast_forward.enabled=true"};
	static const char *const groups[] = {"engine.fast_forward.enabled=true",
					     "engine.fast_forward.groups=true"};
	static const char yaml[] =
	    "topology: {kind: star, hosts: 4, link: {rate: 100Gbps, cable: 2m}}\n"
	    "nic: {mtu: 4096}\n"
	    "workload:\n"
	    "  kind: flows\n"
	    "  flows:\n"
	    "    - {src: h0, dst: h1, size: 50MB}\n"
	    "    - {src: h2, dst: h3, size: 50MB}\n";
	uint64_t e1, e2;
	json_t *one = run_set(yaml, whole, 1, &e1);
	json_t *two = run_set(yaml, groups, 2, &e2);
	json_t *a = json_object_get(one, "summary"), *b = json_object_get(two, "summary");

	cr_assert_eq(ts_metric(two, "fast_forward.groups"), 1);
	cr_assert_eq(e1, e2);
	json_object_del(json_object_get(a, "fast_forward"), "groups");
	json_object_del(json_object_get(b, "fast_forward"), "groups");
	cr_assert(json_equal(a, b), "the summaries differ");
	json_decref(one);
	json_decref(two);
}

/*
 * WebSearch flows among 8 hosts at 20% over DCQCN: flows keep arriving
 * into a fabric whose QPs react to congestion, where a span's error of
 * nanoseconds grows into another order of who gets the bandwidth (12
 * spans of 3.3% of the run moved the FCTs' p99 by -9.5%). Nothing is
 * skipped while flows are still to start: the run is the packet run's.
 */
Test(ff, arriving_flows_under_dcqcn_are_not_skipped)
{
	char yaml[1024];
	struct both b;

	snprintf(yaml, sizeof(yaml),
		 "topology: {kind: star, hosts: 8, link: {rate: 200Gbps, cable: 3m}}\n"
		 "switch: {buffer: {size: 48MB, per_port: 4MB}, lossless: [3],\n"
		 "         pfc: {xoff: 2.4MB, xon_offset: 100KB, headroom: 1.6MB},\n"
		 "         ecn: {kmin: 150KB, kmax: 1.2MB, pmax: 20%%}}\n"
		 "nic: {mtu: 4096, dscp: 26, cc: dcqcn}\n"
		 "workload: {kind: poisson, cdf: %s, load: 20%%, duration: 20ms}\n",
		 ts_src("experiments/traffic/websearch.cdf"));
	run_both(yaml, NULL, &b);
	cr_assert(ts_metric(b.off, "cnp_handled") > 0, "no congestion: nothing to show");
	cr_assert_eq(ts_metric(b.on, "fast_forward.spans"), 0);
	cr_assert_eq(ts_metric(b.on, "fct_us.p99"), ts_metric(b.off, "fct_us.p99"));
	cr_assert_eq(ts_metric(b.on, "fct_us.max"), ts_metric(b.off, "fct_us.max"));
	both_free(&b);
}

/* A link going down changes the routes, and groups found on the first
 * ones would not hold: such a run is one group. */
Test(ff_groups, a_link_going_down_makes_the_fabric_one_group)
{
	static const char *const groups[] = {"engine.fast_forward.groups=true"};
	char yaml[64 * 1024];
	char *ten = tenant_yaml();
	uint64_t e;
	json_t *r;

	snprintf(yaml, sizeof(yaml), "%sfaults: [{kind: link_down, link: leaf1-h2, at: 9ms}]\n",
		 ten);
	r = run_set(yaml, groups, 1, &e);
	cr_assert_eq(ts_metric(r, "fast_forward.groups"), 1);
	json_decref(r);
	r = run_set(ten, groups, 1, &e);
	cr_assert_eq(ts_metric(r, "fast_forward.groups"), 2);
	json_decref(r);
	free(ten);
}

/* The same before any CNP: one span of 30 us, while WebSearch flows kept
 * arriving beside a 60 MB flow, moved its end by -4.1%. */
Test(ff, a_long_flow_beside_arriving_flows_is_not_skipped)
{
	char yaml[1024];
	struct both b;

	snprintf(
	    yaml, sizeof(yaml),
	    "topology: {kind: star, hosts: 8}\n"
	    "workload:\n"
	    "  - {kind: poisson, cdf: %s, load: 30%%, duration: 3ms, hosts: [h0, h1, h2, h3]}\n"
	    "  - {kind: flows, flows: [{src: h0, dst: h1, size: 60MB}]}\n",
	    ts_src("experiments/traffic/websearch.cdf"));
	run_both(yaml, NULL, &b);
	cr_assert_eq(ts_metric(b.on, "fast_forward.spans"), 0);
	cr_assert_eq(ts_metric(b.on, "done_us"), ts_metric(b.off, "done_us"));
	both_free(&b);
}
