/*
 * topology: {kind: sonic, dir: FOLDER}: the fabric built from its
 * switches' config_db.json files (DEVICE_NEIGHBOR, PORT speed,
 * CABLE_LENGTH), which configure those switches too. The shipped example
 * (experiments/configs/sonic-fabric: 2 leaves, 2 spines, 8 servers) gives
 * the fabric written by hand in topologies/sonic-fabric.yaml, node for
 * node, link for link, and the same results; each switch port takes its own
 * config port's settings whatever the order the topology gives its ports;
 * and a link whose two ends disagree is refused naming both files.
 */
#include <criterion/criterion.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/net.h"
#include "models/switch.h"
#include "proc.h"
#include "sim/config/scenario.h"
#include "sim/run/sim.h"
#include "sim/readers/topo_read.h"

static void setup(void)
{
	ts_proc_setup("sonic-topology");
}

TestSuite(sonic_topology, .init = setup, .fini = ts_proc_teardown, .timeout = 120);

/* Load @path and build its topology; asserts success. */
static struct topo *topology_of(const char *path, struct scenario **sp)
{
	struct scenario *s;
	struct topo *t;
	struct diag d = {0};

	cr_assert_eq(scn_load(path, NULL, 0, &s, &d), 0, "%s:%d: %s: %s", d.file, d.line, d.path,
		     d.msg);
	cr_assert_eq(topo_build(&s->topo, &t, &d), 0, "%s:%d: %s: %s", d.file, d.line, d.path,
		     d.msg);
	*sp = s;
	return t;
}

Test(sonic_topology, the_example_is_the_fabric_written_by_hand)
{
	struct scenario *a, *b;
	struct topo *ta = topology_of("experiments/sonic-fabric.yaml", &a);
	struct topo *tb = topology_of("experiments/sonic-fabric-by-hand.yaml", &b);

	cr_assert_eq(ta->n_nodes, 12);
	cr_assert_eq(ta->n_hosts, 8);
	cr_assert_eq(ta->n_switches, 4);
	cr_assert_eq(ta->n_links, 12);
	cr_assert_eq(ta->n_ports, 24);
	cr_assert_eq(ta->n_nodes, tb->n_nodes);
	cr_assert_eq(ta->n_hosts, tb->n_hosts);
	cr_assert_eq(ta->n_links, tb->n_links);
	cr_assert_eq(ta->n_ports, tb->n_ports);
	for (uint32_t i = 0; i < ta->n_nodes; i++) {
		cr_assert_str_eq(ta->nodes[i].name, tb->nodes[i].name);
		cr_assert_eq(ta->nodes[i].kind, tb->nodes[i].kind);
		cr_assert_eq(ta->nodes[i].n_ports, tb->nodes[i].n_ports, "%s", ta->nodes[i].name);
	}
	for (uint32_t i = 0; i < ta->n_links; i++) {
		cr_assert_str_eq(ta->links[i].name, tb->links[i].name);
		cr_assert_eq(ta->links[i].rate_bps, tb->links[i].rate_bps, "%s", ta->links[i].name);
		cr_assert_eq(ta->links[i].delay, tb->links[i].delay, "%s", ta->links[i].name);
	}
	for (uint32_t i = 0; i < ta->n_ports; i++)
		cr_assert_str_eq(ta->ports[i].name, tb->ports[i].name);
	/* servers at 100G over 5 m (25 ns), uplinks at 400G over 30 m (150 ns) */
	cr_assert_str_eq(ta->links[0].name, "server0-leaf0");
	cr_assert_eq(ta->links[0].rate_bps, 100000000000ULL);
	cr_assert_eq(ta->links[0].delay, 25000);
	cr_assert_str_eq(ta->links[8].name, "leaf0-spine0");
	cr_assert_eq(ta->links[8].rate_bps, 400000000000ULL);
	cr_assert_eq(ta->links[8].delay, 150000);
	cr_assert_geq(topo_find_host(ta, "server3"), 0, "hosts keep DEVICE_NEIGHBOR's names");
	cr_assert_not_null(ta->port_cfg);
	cr_assert_null(tb->port_cfg);
	/* the folder configures the switches, as switch.sonic does the hand-written one */
	cr_assert_eq(a->n_switches, 4);
	cr_assert_eq(b->n_switches, 4);
	topo_free(ta);
	topo_free(tb);
	scn_free(a);
	scn_free(b);
}

/* results.json without what names the scenario or the run. */
static json_t *results(const char *scenario, const char *out)
{
	struct ts_proc p;
	json_error_t je;
	char path[600];
	json_t *j;

	ts_exec(&p, (const char *[]){"run", scenario, "-o", out, "--quiet", NULL});
	cr_assert_eq(p.code, 0, "%s: %s", scenario, p.err);
	ts_proc_free(&p);
	snprintf(path, sizeof(path), "%s/results.json", out);
	j = json_load_file(path, 0, &je);
	cr_assert(j, "%s: %s", path, je.text);
	json_object_del(j, "run");
	json_object_del(j, "scenario");
	json_object_del(j, "provenance");
	return j;
}

Test(sonic_topology, the_example_gives_the_results_of_the_fabric_written_by_hand)
{
	json_t *a = results("experiments/sonic-fabric.yaml", ts_tmp("a"));
	json_t *b = results("experiments/sonic-fabric-by-hand.yaml", ts_tmp("b"));
	char *da, *db;

	cr_assert_gt(json_integer_value(json_object_get(
			 json_object_get(json_object_get(a, "summary"), "bytes"), "received")),
		     0);
	da = json_dumps(a, JSON_SORT_KEYS);
	db = json_dumps(b, JSON_SORT_KEYS);
	cr_assert(da && db);
	cr_assert_str_eq(da, db);
	free(da);
	free(db);
	json_decref(a);
	json_decref(b);
}

/*
 * leaf0's uplink is its Ethernet0 and its servers Ethernet4 and Ethernet8:
 * the topology puts the servers' links first, and each port still takes
 * its own config port's profile (400G: 96256 B; 100G: 43008 B).
 */
Test(sonic_topology, each_port_takes_its_own_config_port)
{
	const char *path = ts_tmp("order.yaml");
	FILE *f = fopen(path, "w");
	struct scenario *s;
	struct diag d = {0};
	struct sim sim;
	char cwd[1024];
	int32_t leaf;

	cr_assert(f && getcwd(cwd, sizeof(cwd)));
	fprintf(f,
		"topology: {kind: sonic, dir: %s/tests/sonic/fabric-order}\n"
		"workload: {kind: permutation, size: 1MB}\n",
		cwd);
	fclose(f);
	cr_assert_eq(scn_load(path, NULL, 0, &s, &d), 0, "%s", d.msg);
	cr_assert_eq(sim_init(&sim, s, &d), 0, "%s:%d: %s", d.file, d.line, d.msg);
	leaf = topo_find_node(sim.topo, "leaf0");
	cr_assert_geq(leaf, 0);
	cr_assert_str_eq(sim.topo->ports[sim.topo->nodes[leaf].first_port].name, "leaf0:server0");
	cr_assert_str_eq(sim.topo->ports[sim.topo->nodes[leaf].first_port + 2].name,
			 "leaf0:spine0");
	cr_assert_eq(sw_headroom(sim.net->switches[leaf], 0), 43008);
	cr_assert_eq(sw_headroom(sim.net->switches[leaf], 2), 96256);
	cr_assert_eq(
	    sim.topo->links[sim.topo->ports[sim.topo->nodes[leaf].first_port + 2].link].rate_bps,
	    400000000000ULL);
	sim_fini(&sim);
}

/* check says what it found on the example, port by port, and run runs it. */
Test(sonic_topology, check_and_run_on_the_example)
{
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"check", "experiments/sonic-fabric.yaml", NULL});
	cr_assert_eq(p.code, 0, "%s%s", p.out, p.err);
	cr_assert(strstr(p.out, "check sonic-fabric: 0 errors"), "%s", p.out);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"check", "experiments/sonic-fabric.yaml", "--json", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_assert(strstr(p.out, "\"port\": \"leaf0:spine0\""), "%s", p.out);
	ts_proc_free(&p);
}
