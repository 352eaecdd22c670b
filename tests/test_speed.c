/*
 * Thresholds per link speed (switch.ecn.by_speed, switch.pfc.by_speed): on
 * a leaf-spine with 100G host links and 400G uplinks, HPCC's configuration
 * (ECN 400 KB / 1600 KB at 100G, 1600 KB / 6400 KB at 400G; the dynamic
 * PFC threshold free/8 at 100G, free/2 at 400G) reaches each port by its
 * link's speed; a speed without an entry keeps the switch's values; ECN
 * marks by the egress port's speed; check --json shows each port's.
 */
#include <criterion/criterion.h>

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "models/switch.h"
#include "proc.h"
#include "sim/config/scenario.h"
#include "support.h"

static void setup(void)
{
	ts_proc_setup("speed");
}

TestSuite(speed, .init = setup, .fini = ts_proc_teardown, .timeout = 120);

#define LEAF_SPINE                                                                                 \
	"name: by-speed\n"                                                                         \
	"stop: 1ms\n"                                                                              \
	"topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2,\n"                  \
	"           link: {rate: 100Gbps, delay: 1us}, uplink: {rate: 400Gbps, delay: 1us}}\n"

#define HPCC_SWITCH                                                                                \
	"switch:\n"                                                                                \
	"  ecn: {kmin: 150KB, kmax: 1.2MB, pmax: 1%,\n"                                            \
	"        by_speed: {100Gbps: {kmin: 400KB, kmax: 1600KB, pmax: 20%},\n"                    \
	"                   400Gbps: {kmin: 1600KB, kmax: 6400KB}}}\n"                             \
	"  pfc: {by_speed: {100Gbps: {dynamic_th: -3}, 400Gbps: {dynamic_th: -1, headroom: "       \
	"300KB}}}\n"

#define ONE_FLOW                                                                                   \
	"workload: {kind: flows, flows: [{src: h0, dst: h3, size: 100KB}]}\n"                      \
	"output: {sample: 0}\n"

/* The thresholds each switch port of the leaf-spine gets, by its link's speed. */
Test(speed, each_port_takes_its_link_speeds_entry)
{
	struct sim sim;
	uint32_t host_ports = 0, up_ports = 0;

	ts_load(LEAF_SPINE HPCC_SWITCH ONE_FLOW, NULL, 0, &sim);
	cr_assert_eq(sim.scn->sw.n_by_speed, 2);
	for (uint32_t i = 0; i < sim.topo->n_ports; i++) {
		const struct topo_port *tp = &sim.topo->ports[i];
		const struct topo_link *l = &sim.topo->links[tp->link];
		uint32_t local = i - sim.topo->nodes[tp->node].first_port;
		struct sw_pfc p;
		struct sw_ecn e;

		if (sim.topo->nodes[tp->node].kind != TOPO_SWITCH)
			continue;
		sw_local_pfc(&sim.scn->sw, local, l->rate_bps, &p);
		sw_local_ecn(&sim.scn->sw, l->rate_bps, &e);
		cr_assert(p.dynamic, "%s", tp->name);
		if (l->rate_bps == 100000000000ULL) {
			host_ports++;
			cr_assert_eq(e.kmin, 400000, "%s", tp->name);
			cr_assert_eq(e.kmax, 1600000, "%s", tp->name);
			cr_assert_float_eq(e.pmax, 0.2, 1e-12, "%s", tp->name);
			cr_assert_eq(p.dynamic_th, -3, "%s", tp->name);
			cr_assert_eq(p.headroom, 0, "%s: computed for the link", tp->name);
		} else {
			up_ports++;
			cr_assert_eq(l->rate_bps, 400000000000ULL, "%s", tp->name);
			cr_assert_eq(e.kmin, 1600000, "%s", tp->name);
			cr_assert_eq(e.kmax, 6400000, "%s", tp->name);
			cr_assert_float_eq(e.pmax, 0.01, 1e-12, "%s: the switch's pmax", tp->name);
			cr_assert_eq(p.dynamic_th, -1, "%s", tp->name);
			cr_assert_eq(p.headroom, 300000, "%s", tp->name);
			cr_assert_eq(sw_local_headroom(&sim.scn->sw, local, sim.scn->nic.mtu, l),
				     300000, "%s", tp->name);
		}
	}
	cr_assert_eq(host_ports, 4, "two leaves of two hosts");
	cr_assert_eq(up_ports, 8, "2 leaves x 2 spines, both ends");
	sim_fini(&sim);
}

/* A speed without an entry keeps the switch's values. */
Test(speed, a_speed_without_entry_keeps_the_switchs_values)
{
	struct sim sim;
	struct sw_pfc p;
	struct sw_ecn e;

	ts_load(LEAF_SPINE
		"switch:\n"
		"  pfc: {xoff: 500KB}\n"
		"  ecn: {kmin: 100KB, kmax: 900KB, by_speed: {400Gbps: {kmin: 1600KB, kmax: "
		"6400KB}}}\n" ONE_FLOW,
		NULL, 0, &sim);
	sw_local_ecn(&sim.scn->sw, 100000000000ULL, &e);
	cr_assert_eq(e.kmin, 100000);
	cr_assert_eq(e.kmax, 900000);
	sw_local_ecn(&sim.scn->sw, 400000000000ULL, &e);
	cr_assert_eq(e.kmin, 1600000);
	sw_local_pfc(&sim.scn->sw, 0, 400000000000ULL, &p);
	cr_assert_not(p.dynamic);
	cr_assert_eq(p.xoff, 500000);
	sim_fini(&sim);
}

/* --set reaches an entry as it reaches any key (sweeps vary them). */
Test(speed, set_overrides_an_entry)
{
	static const char *const sets[] = {"switch.ecn.by_speed.100Gbps.kmin=300KB",
					   "switch.pfc.by_speed.25Gbps.dynamic_th=2"};
	struct sim sim;
	struct sw_ecn e;
	struct sw_pfc p;

	ts_load(LEAF_SPINE HPCC_SWITCH ONE_FLOW, sets, 2, &sim);
	sw_local_ecn(&sim.scn->sw, 100000000000ULL, &e);
	cr_assert_eq(e.kmin, 300000);
	cr_assert_eq(e.kmax, 1600000);
	sw_local_pfc(&sim.scn->sw, 0, 25000000000ULL, &p);
	cr_assert_eq(p.dynamic_th, 2);
	sim_fini(&sim);
}

/*
 * RED marks at egress, by the egress port's speed: a 3-to-1 incast across
 * leaves on 100G host links with 400G uplinks; marking above 100 KB for
 * 400G alone marks nothing (300G into a 400G uplink builds no queue), the
 * same for 100G marks (the receiver's 100G host port is the bottleneck).
 */
Test(speed, ecn_marks_by_the_egress_ports_speed)
{
	static const char *const base =
	    "name: incast\n"
	    "stop: 2ms\n"
	    "topology: {kind: leaf_spine, leaves: 2, spines: 1, hosts_per_leaf: 4,\n"
	    "           link: {rate: 100Gbps, delay: 1us}, uplink: {rate: 400Gbps, delay: 1us}}\n"
	    "switch: {ecn: {kmin: 10MB, kmax: 10MB, by_speed: {%s: {kmin: 100KB, kmax: 100KB}}}}\n"
	    "workload: {kind: incast, senders: 3, receiver: h7, size: 500KB}\n"
	    "output: {sample: 0}\n";
	char yaml[1024];
	struct sim sim;
	json_t *j;

	snprintf(yaml, sizeof(yaml), base, "400Gbps");
	j = ts_run(yaml, &sim);
	cr_assert_eq(ts_metric(j, "ecn_marked_packets"), 0);
	json_decref(j);
	sim_fini(&sim);
	snprintf(yaml, sizeof(yaml), base, "100Gbps");
	j = ts_run(yaml, &sim);
	cr_assert_gt(ts_metric(j, "ecn_marked_packets"), 0);
	json_decref(j);
	sim_fini(&sim);
}

/* check --json: each switch port with the thresholds it works with. */
Test(speed, check_json_shows_each_ports_thresholds)
{
	const char *file = ts_tmp("by-speed.yaml");
	FILE *f = fopen(file, "w");
	struct ts_proc p;
	json_t *j, *ports, *port;
	size_t i;
	int seen = 0;

	cr_assert(f);
	fputs(LEAF_SPINE HPCC_SWITCH ONE_FLOW, f);
	fclose(f);
	ts_exec(&p, (const char *[]){"check", file, "--json", NULL});
	j = json_loads(p.out, 0, NULL);
	cr_assert(j, "%s%s", p.out, p.err);
	ports = json_object_get(json_object_get(j, "effective"), "ports");
	json_array_foreach(ports, i, port) {
		const char *name = json_string_value(json_object_get(port, "port"));
		json_t *ecn = json_object_get(port, "ecn"), *pfc = json_object_get(port, "pfc");

		if (!strcmp(name, "leaf0:h0")) {
			seen++;
			cr_assert_eq(json_integer_value(json_object_get(ecn, "kmin")), 400000);
			cr_assert_eq(json_integer_value(json_object_get(pfc, "dynamic_th")), -3);
		} else if (!strcmp(name, "leaf0:spine1")) {
			seen++;
			cr_assert_eq(json_integer_value(json_object_get(ecn, "kmax")), 6400000);
			cr_assert_eq(json_integer_value(json_object_get(pfc, "dynamic_th")), -1);
		}
	}
	cr_assert_eq(seen, 2, "%s", p.out);
	json_decref(j);
	ts_proc_free(&p);
}
