/*
 * One config_db.json per switch (switch.sonic a folder, each file naming
 * its switch by DEVICE_METADATA|localhost|hostname, or a mapping of switch
 * names to files): leaves and spines take their own settings into the
 * switch model, switches no file names keep the scenario's, --set can name
 * one switch's file, and `check` reports per switch. tests/sonic/per-switch
 * holds a leaf-spine's four files in SONiC's layout, where leaf1's
 * Ethernet4 has no PFC and the spines 20 KB of headroom at 400G.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/net.h"
#include "models/switch.h"
#include "proc.h"
#include "sim/config/scenario.h"
#include "sim/run/sim.h"

static void setup(void)
{
	ts_proc_setup("sonic-switches");
}

TestSuite(sonic_switches, .init = setup, .fini = ts_proc_teardown, .timeout = 120);

#define LEAF_SPINE                                                                                 \
	"{kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4, link: {rate: 100Gbps, "       \
	"cable: 5m}, uplink: {rate: 400Gbps, cable: 30m}}"

/* A leaf-spine scenario in the temporary folder with switch.sonic @sonic (paths under the source
 * root). */
static const char *scenario(const char *name, const char *sonic)
{
	const char *path = ts_tmp(name);
	FILE *f = fopen(path, "w");

	cr_assert(f);
	fprintf(f,
		"topology: " LEAF_SPINE "\n"
		"switch: {sonic: %s}\n"
		"workload: {kind: allreduce, size: 4MB}\n",
		sonic);
	fclose(f);
	return path;
}

static int has(const char *out, const char *text)
{
	return strstr(out, text) != NULL;
}

/* Load @path and build its fabric; asserts success. */
static void build(const char *path, const char *const *sets, size_t n_sets, struct sim *sim)
{
	struct scenario *s;
	struct diag d = {0};

	cr_assert_eq(scn_load(path, sets, n_sets, &s, &d), 0, "%s: %s", d.file, d.msg);
	cr_assert_eq(sim_init(sim, s, &d), 0, "%s:%d: %s: %s", d.file, d.line, d.path, d.msg);
}

static const struct sw *sw_named(const struct sim *sim, const char *name)
{
	int32_t u = topo_find_node(sim->topo, name);

	cr_assert_geq(u, 0, "no node %s", name);
	return sim->net->switches[u];
}

Test(sonic_switches, a_folder_gives_each_switch_its_own_settings)
{
	char cwd[1024], sonic[1200];
	struct sim sim;
	const struct scenario *s;
	const struct sw_params *leaf1, *spine0;

	cr_assert(getcwd(cwd, sizeof(cwd)));
	snprintf(sonic, sizeof(sonic), "%s/tests/sonic/per-switch", cwd);
	build(scenario("folder.yaml", sonic), NULL, 0, &sim);
	s = sim.scn;
	cr_assert_eq(s->n_switches, 4);
	cr_assert_not(s->sw_main_used, "every switch has its file");
	leaf1 = s->sw_node[topo_find_node(sim.topo, "leaf1")];
	spine0 = s->sw_node[topo_find_node(sim.topo, "spine0")];
	cr_assert(leaf1 && spine0 && leaf1 != spine0);
	/* the leaf: 100G profile on its hosts, 400G on its uplinks, no PFC on Ethernet4 */
	cr_assert_eq(leaf1->pfc.headroom, 43008);
	cr_assert_eq(leaf1->n_port_params, 6);
	cr_assert_eq(leaf1->port_params[1].lossless, 0);
	cr_assert_eq(leaf1->port_params[4].pfc.headroom, 96256);
	/* the spine: its own profile for every port */
	cr_assert_eq(spine0->pfc.headroom, 20480);
	cr_assert_null(spine0->port_params);
	/* in the switch model */
	cr_assert_eq(sw_headroom(sw_named(&sim, "leaf0"), 0), 43008);
	cr_assert_eq(sw_headroom(sw_named(&sim, "leaf0"), 4), 96256);
	cr_assert_eq(sw_headroom(sw_named(&sim, "spine1"), 0), 20480);
	cr_assert_eq(
	    sim.net->ports[sim.topo->nodes[topo_find_node(sim.topo, "leaf1")].first_port + 1]
		.pfc_obey,
	    0, "leaf1's Ethernet4 obeys no PAUSE");
	sim_fini(&sim);
}

/* The same files as a mapping: the same settings; a switch left out keeps the scenario's. */
Test(sonic_switches, a_mapping_names_the_switches)
{
	char cwd[1024], sonic[4000];
	struct sim a, b;
	const struct scenario *s;

	cr_assert(getcwd(cwd, sizeof(cwd)));
	snprintf(sonic, sizeof(sonic), "%s/tests/sonic/per-switch", cwd);
	build(scenario("folder.yaml", sonic), NULL, 0, &a);
	snprintf(sonic, sizeof(sonic),
		 "{leaf0: %s/tests/sonic/per-switch/leaf0.json, spine0: "
		 "%s/tests/sonic/per-switch/spine0.json, spine1: "
		 "%s/tests/sonic/per-switch/spine0.json}",
		 cwd, cwd, cwd);
	build(scenario("map.yaml", sonic), NULL, 0, &b);
	s = b.scn;
	cr_assert_eq(s->n_switches, 3);
	cr_assert(s->sw_main_used, "leaf1 has no file");
	cr_assert_null(s->sw_node[topo_find_node(b.topo, "leaf1")]);
	cr_assert_str_eq(s->switches[1].name, "spine0");
	cr_assert_str_eq(s->switches[2].name, "spine1");
	cr_assert_eq(s->switches[1].cfg, s->switches[2].cfg, "one file, one load");
	cr_assert_eq(sw_headroom(sw_named(&b, "leaf0"), 4), sw_headroom(sw_named(&a, "leaf0"), 4));
	cr_assert_eq(sw_headroom(sw_named(&b, "spine1"), 0), 20480);
	/* leaf1: the scenario's defaults, headroom computed for its links */
	cr_assert_eq(s->sw.pfc.headroom, 0);
	cr_assert_neq(sw_headroom(sw_named(&b, "leaf1"), 0), 43008);
	sim_fini(&a);
	sim_fini(&b);
}

/* --set names one switch's file, relative to where rocesim runs. */
Test(sonic_switches, set_names_one_switch)
{
	struct sim sim;
	const char *sets[] = {"switch.sonic.leaf1=tests/sonic/per-switch/leaf1.json"};

	build(scenario("none.yaml", "{}"), sets, 1, &sim);
	cr_assert_eq(sim.scn->n_switches, 1);
	cr_assert_eq(sw_headroom(sw_named(&sim, "leaf1"), 4), 96256);
	sim_fini(&sim);
}

Test(sonic_switches, check_reports_per_switch)
{
	char cwd[1024], sonic[1200];
	struct ts_proc p;
	const char *l;

	cr_assert(getcwd(cwd, sizeof(cwd)));
	snprintf(sonic, sizeof(sonic), "%s/tests/sonic/per-switch", cwd);
	ts_exec(&p, (const char *[]){"check", scenario("check.yaml", sonic), NULL});
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	l = ts_line_with(p.out, "error DSCP_NOT_LOSSLESS leaf1: Ethernet4 (leaf1:h5); ",
			 "leaf1.json:");
	cr_assert(l, "%s", p.out);
	cr_assert(ts_line_with(p.out,
			       "error HEADROOM_SHORT spine0: Ethernet0 (spine0:leaf0), "
			       "Ethernet8 (spine0:leaf1); ",
			       "spine0.json:"),
		  "%s", p.out);
	cr_assert(ts_line_with(p.out, "error HEADROOM_SHORT spine1: ", "spine1.json:"), "%s",
		  p.out);
	cr_assert_not(ts_line_with(p.out, "error", " leaf0: "), "leaf0 is right: %s", p.out);
	/* what every switch has is said once, without a prefix */
	cr_assert(has(p.out, "warning PFC_EXTRA_PRIORITY switch.lossless 3,4: "), "%s", p.out);
	ts_proc_free(&p);
}
