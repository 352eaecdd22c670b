/*
 * Deadlocks during a run: a ring whose routes close a cyclic buffer
 * dependency deadlocks, and the detector names the same ports as the
 * static analysis; a leaf-spine does not; the watchdog breaks a deadlock.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/deadlock.h"
#include "models/net.h"
#include "sim/config/scenario.h"
#include "topologies/cbd.h"
#include "topologies/topo.h"
#include "support.h"
#include "sim/readers/topo_read.h"

/* Five switches in a ring, one host each; each host sends to the host two
 * switches ahead, so every route crosses two ring links the same way. */
static const char ring[] = "stop: 50ms\n"
			   "topology: {kind: ring, switches: 5, hosts_per_switch: 1}\n"
			   "switch: {buffer: {size: 4MB}, pfc: {xoff: 200KB, xon_offset: 50KB}%s}\n"
			   "nic: {cc: none, transport: {timeout: 10}}\n"
			   "workload:\n"
			   "  kind: flows\n"
			   "  flows:\n"
			   "    - {src: h0, dst: h2, size: 20MB}\n"
			   "    - {src: h1, dst: h3, size: 20MB}\n"
			   "    - {src: h2, dst: h4, size: 20MB}\n"
			   "    - {src: h3, dst: h0, size: 20MB}\n"
			   "    - {src: h4, dst: h1, size: 20MB}\n"
			   "deadlock: {window: 1ms%s}\n";

static const json_t *cycle_ports(const json_t *j, const char *which)
{
	const json_t *c =
	    json_object_get(json_object_get(json_object_get(j, "summary"), "deadlock"), which);

	cr_assert_eq(json_array_size(c), 1, "%s: %zu cycles", which, json_array_size(c));
	return json_object_get(json_array_get(c, 0), "ports");
}

Test(deadlock, a_ring_deadlocks_on_the_cycle_the_static_analysis_names)
{
	char yaml[2048];
	struct sim sim;
	json_t *j;
	const json_t *stat, *dyn;
	char *text;

	snprintf(yaml, sizeof(yaml), ring, "", ", stop_on_detect: true");
	ts_load(yaml, NULL, 0, &sim);
	j = ts_finish(&sim);
	cr_assert_eq(sim.end, SIM_END_DEADLOCK);
	cr_assert_eq(ts_metric(j, "deadlock.static_cycles"), 1);
	cr_assert(ts_metric(j, "deadlock.detected"));
	stat = cycle_ports(j, "cycles");
	dyn = cycle_ports(j, "detected_cycles");
	cr_assert_eq(json_array_size(dyn), 5);
	cr_assert(json_equal(stat, dyn), "static and detected cycles differ");
	text = json_dumps(dyn, 0);
	cr_assert_not_null(text);
	for (size_t i = 0; i < 5; i++) {
		char want[32];

		/* sw<i+1>'s buffer for what comes from sw<i> */
		snprintf(want, sizeof(want), "sw%zu:sw%zu", (i + 1) % 5, i);
		cr_assert(strstr(text, want) != NULL, "%s missing from %s", want, text);
	}
	free(text);
	/* it formed within the first traffic, and was seen one window later */
	cr_assert_lt(ts_metric(j, "deadlock.formed_at_us"), 1000);
	cr_assert_geq(ts_metric(j, "deadlock.detected_at_us"),
		      ts_metric(j, "deadlock.formed_at_us") + 1000);
	cr_assert_eq(ts_metric(j, "flows_done"), 0);
	json_decref(j);
	sim_fini(&sim);
}

Test(deadlock, a_leaf_spine_under_all_to_all_does_not_deadlock)
{
	static const char yaml[] =
	    "topology: {kind: leaf_spine, leaves: 4, spines: 2, hosts_per_leaf: 2}\n"
	    "switch: {buffer: {size: 4MB}, pfc: {xoff: 200KB}}\n"
	    "nic: {cc: none}\n"
	    "workload: {kind: alltoall, size: 8MB}\n"
	    "deadlock: {window: 500us}\n";
	struct sim sim;
	json_t *j = ts_run(yaml, &sim);

	cr_assert_eq(ts_metric(j, "deadlock.static_cycles"), 0);
	cr_assert(!ts_metric(j, "deadlock.detected"));
	cr_assert_eq(ts_metric(j, "collective.iterations_done"), 1);
	json_decref(j);
	sim_fini(&sim);
}

static double sent_bytes(const char *watchdog, double *triggers, double *wd_drops)
{
	char yaml[2048];
	struct sim sim;
	json_t *j;
	double v;

	snprintf(yaml, sizeof(yaml), ring, watchdog, "");
	ts_load(yaml, NULL, 0, &sim);
	j = ts_finish(&sim);
	cr_assert(ts_metric(j, "deadlock.detected"), "the deadlock forms first");
	v = ts_metric(j, "bytes.sent");
	*triggers = ts_metric(j, "watchdog_triggers");
	*wd_drops = ts_metric(j, "watchdog_drops");
	json_decref(j);
	sim_fini(&sim);
	return v;
}

Test(deadlock, the_watchdog_breaks_a_deadlock_that_the_traffic_forms_again)
{
	double trig, drops, frozen, moving;

	frozen = sent_bytes("", &trig, &drops);
	cr_assert_eq(trig, 0);
	moving = sent_bytes(", watchdog: {detection: 5ms, restoration: 5ms, action: drop}", &trig,
			    &drops);
	cr_assert_gt(trig, 0);
	cr_assert_gt(drops, 0);
	/* frozen, the senders stop after a few MB; each watchdog break lets
	 * them send again (into drops: the same routes deadlock again) */
	cr_assert_gt(moving, 10 * frozen, "%.0f bytes sent with the watchdog, %.0f without", moving,
		     frozen);
}

/* ---- the detector alone, built from its params struct ----------------------------- */

static void nothing(void *obj, uint64_t arg)
{
	(void)obj;
	(void)arg;
}

/*
 * Three switches in a ring, s0-s1-s2-s0, their queues set by hand: the
 * egress queue of priority 3 of s0:s1, s1:s2 and s2:s0 is paused and holds
 * a packet that came in from the switch behind (through s0:s2, s1:s0 and
 * s2:s1). Each waits for the next one's ingress buffer: a cycle, found
 * at the first look after the last queue has been stuck for the window
 * (it stopped at 3 us; window 10 us; a look every 2.5 us: at 15 us),
 * named by its ingress buffers s0:s2, s1:s0, s2:s1 (ports 1, 2, 4).
 * With the packet at s2:s0 from elsewhere, there is no cycle.
 */
Test(deadlock, built_from_params_finds_the_cycle_of_stuck_queues)
{
	const struct topo_linkspec l = {.rate_bps = 100000000000ULL, .delay = 10000};
	const struct deadlock_params p = {.enabled = 1, .window = 10000000, .stop_on_detect = 1};

	for (int cycle = 1; cycle >= 0; cycle--) {
		/* egress port, the local ingress port of its packet, its last dequeue */
		const struct {
			const char *port;
			uint16_t in;
			simtime_t last;
		} stuck[] = {{"s0:s1", 1, 1000000},
			     {"s1:s2", 0, 2000000},
			     {"s2:s0", cycle ? 0 : 1, 3000000}};
		const struct deadlock_report *rep;
		struct topo *t = topo_new();
		struct deadlock *dl;
		struct diag d = {0};
		struct rig r;

		cr_assert_not_null(t);
		for (int i = 0; i < 3; i++) {
			char name[8];

			snprintf(name, sizeof(name), "s%d", i);
			cr_assert_eq(topo_add_node(t, name, TOPO_SWITCH), i);
		}
		for (uint32_t i = 0; i < 3; i++)
			cr_assert_geq(topo_add_link(t, i, (i + 1) % 3, &l), 0);
		cr_assert_eq(topo_finish(t, &d), 0, "%s", d.msg);
		rig_init(&r, t);
		for (size_t i = 0; i < 3; i++) {
			struct port *x = &r.ports[rig_port(&r, stuck[i].port)];
			struct pkt *k = pkt_alloc(&r.ctx.pool);

			cr_assert_not_null(k);
			*k = (struct pkt){
			    .kind = PKT_DATA, .frame = 1062, .prio = 3, .in_port = stuck[i].in};
			pktq_push(&x->queue[3].q, k);
			x->paused = 1u << 3;
			x->queue[3].last_dequeue = stuck[i].last;
		}
		cr_assert_eq(rig_port(&r, "s0:s2"), 1);
		cr_assert_eq(rig_port(&r, "s1:s0"), 2);
		cr_assert_eq(rig_port(&r, "s2:s1"), 4);
		/* something still to happen keeps the detector looking */
		cr_assert_not_null(evq_post(r.q, 100000000, nothing, NULL, 0, 0));
		cr_assert_eq(deadlock_start(&r.ctx, r.topo, r.ports, &p, &dl), 0);
		rig_run(&r, 50000000);
		rep = deadlock_report(dl);
		cr_assert_eq(rep->detected, cycle);
		cr_assert_eq(r.ctx.stop, cycle);
		if (cycle) {
			cr_assert_eq(rep->detected_at, 15000000);
			cr_assert_eq(rep->formed_at, 3000000);
			cr_assert_eq(rep->prio, 3);
			cr_assert_eq(rep->n, 3);
			cr_assert_eq(rep->ports[0], 1);
			cr_assert_eq(rep->ports[1], 2);
			cr_assert_eq(rep->ports[2], 4);
		}
		deadlock_free(dl);
		rig_fini(&r);
	}
}

/*
 * The pairs the deadlock analysis takes: a collective repeated (the same
 * ranks and class, as YAML aliases make it easy to write) adds its pairs
 * once; an All-to-All's pairs depend on its rank set, a ring's on its
 * order. Found by fuzzing: a thousand aliased All-to-Alls on 2,000 hosts
 * asked for 33 GB of pairs.
 */
Test(deadlock, a_repeated_collective_adds_its_pairs_once)
{
	const char *path = "/tmp/rocesim-deadlock-pairs.yaml";
	FILE *f = fopen(path, "w");
	struct scenario *s = NULL;
	struct topo *t = NULL;
	struct cbd_pair *pairs = NULL;
	struct diag d = {0};
	size_t n = 0;

	cr_assert(f);
	fputs("topology: {kind: star, hosts: 10}\n"
	      "workload: [&a {kind: alltoall, size: 4KB}, *a, *a, *a, *a, *a, *a, *a,\n"
	      "  {kind: alltoall, size: 4KB, ranks: [h9, h8, h7, h6, h5, h4, h3, h2, h1, h0]},\n"
	      "  &r {kind: allreduce, size: 1MB}, *r, *r,\n"
	      "  {kind: allreduce, size: 1MB, ranks: [h1, h0, h2, h3, h4, h5, h6, h7, h8, h9]},\n"
	      "  {kind: allreduce, size: 1MB, dscp: 10}]\n",
	      f);
	fclose(f);
	cr_assert_eq(scn_load(path, NULL, 0, &s, &d), 0, "%s: %s", d.path, d.msg);
	cr_assert_eq(topo_build(&s->topo, &t, &d), 0);
	cr_assert_eq(scn_resolve(s, t, &d), 0, "%s: %s", d.path, d.msg);
	cr_assert_eq(scn_pairs(s, &pairs, &n), 0);
	/* one All-to-All (the reversed rank list is the same set): 90 pairs; the
	 * default ring, the ring in another order, and the ring on DSCP 10 (TC 1
	 * with the default map): 10 neighbours each */
	cr_expect_eq(n, 90 + 10 + 10 + 10, "%zu pairs", n);
	free(pairs);
	topo_free(t);
	scn_free(s);
	remove(path);
}
