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
#include "support.h"

/* Five switches in a ring, one host each; each host sends to the host two
 * switches ahead, so every route crosses two ring links the same way. */
static const char ring[] =
	"stop: 50ms\n"
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
	const json_t *c = json_object_get(json_object_get(json_object_get(j, "summary"), "deadlock"),
					  which);

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
