/*
 * Partitions for a parallel run: fat-trees by pod, leaf-spines by groups
 * of leaves, rails by rail group with every server whole, rings grown
 * around the ring; the cut, the lookahead, and the fabrics that cannot be
 * split.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <unistd.h>

#include "sim/run/partition.h"
#include "tests/proc.h"
#include "tests/support.h"
#include "sim/readers/topo_read.h"

static void setup(void)
{
	ts_proc_setup("partition");
}

TestSuite(partition, .init = setup, .fini = ts_proc_teardown);

static uint32_t part_of(const struct partition *p, const struct topo *t, const char *name)
{
	int32_t u = topo_find_node(t, name);

	cr_assert_geq(u, 0, "no node %s", name);
	return p->node_part[u];
}

/* Every host is in the part of the switch its link goes to (one-NIC hosts). */
static void hosts_with_their_switch(const struct partition *p, const struct topo *t)
{
	for (uint32_t h = 0; h < t->n_hosts; h++) {
		const struct topo_node *n = &t->nodes[t->hosts[h]];
		uint32_t sw = t->ports[n->first_port].peer;

		cr_assert_eq(p->node_part[t->hosts[h]], p->node_part[sw], "%s", n->name);
	}
}

static void build_parts(const struct topo *t, uint32_t n, struct partition *p)
{
	struct diag d = {0};
	char buf[1024];

	cr_assert_eq(part_build(t, n, p, &d), 0, "%s", diag_str(&d, buf, sizeof(buf)));
}

Test(partition, a_fat_tree_splits_by_pod_with_the_cores_spread)
{
	struct topo_spec s = ts_topo_spec(TOPO_FAT_TREE, 100000000000ULL, 100000000000ULL, 30000);
	struct partition p;
	struct topo *t;
	struct part_load l0, l1;
	char name[32];

	s.k = 4;
	t = ts_topo_build(&s);
	build_parts(t, 2, &p);
	cr_assert_eq(p.method, PART_GROUPS);
	cr_assert_eq(p.n_groups, 4, "four pods");
	for (uint32_t pod = 0; pod < 4; pod++)
		for (uint32_t i = 0; i < 2; i++) {
			snprintf(name, sizeof(name), "edge%u_%u", pod, i);
			cr_assert_eq(part_of(&p, t, name), pod / 2, "%s", name);
			snprintf(name, sizeof(name), "agg%u_%u", pod, i);
			cr_assert_eq(part_of(&p, t, name), pod / 2, "%s", name);
		}
	cr_assert_eq(part_of(&p, t, "core0"), 0);
	cr_assert_eq(part_of(&p, t, "core1"), 0);
	cr_assert_eq(part_of(&p, t, "core2"), 1);
	cr_assert_eq(part_of(&p, t, "core3"), 1);
	hosts_with_their_switch(&p, t);
	/* each core has one link into each of the other half's two pods */
	cr_assert_eq(p.n_cut, 8);
	cr_assert_eq(p.lookahead, 30000 * SIMTIME_PS_PER_MM, "30 m uplinks: 150 ns");
	part_load(&p, t, 0, &l0);
	part_load(&p, t, 1, &l1);
	cr_assert_eq(l0.switches, 10);
	cr_assert_eq(l1.switches, 10);
	cr_assert_eq(l0.hosts, 8);
	cr_assert_eq(l0.cut, 8);
	cr_assert_eq(l0.ports + l1.ports, 2 * t->n_links);
	part_free(&p);
	topo_free(t);
}

Test(partition, a_leaf_spine_splits_by_groups_of_leaves)
{
	struct topo_spec s = ts_topo_spec(TOPO_LEAF_SPINE, 100000000000ULL, 400000000000ULL, 10000);
	struct partition p;
	struct topo *t;

	s.leaves = 4;
	s.spines = 2;
	s.hosts_per_leaf = 4;
	t = ts_topo_build(&s);
	build_parts(t, 2, &p);
	cr_assert_eq(p.method, PART_GROUPS);
	cr_assert_eq(part_of(&p, t, "leaf0"), 0);
	cr_assert_eq(part_of(&p, t, "leaf1"), 0);
	cr_assert_eq(part_of(&p, t, "leaf2"), 1);
	cr_assert_eq(part_of(&p, t, "leaf3"), 1);
	cr_assert_eq(part_of(&p, t, "spine0"), 0);
	cr_assert_eq(part_of(&p, t, "spine1"), 1);
	hosts_with_their_switch(&p, t);
	cr_assert_eq(p.n_cut, 4);
	cr_assert_eq(p.lookahead, 10000 * SIMTIME_PS_PER_MM);
	part_free(&p);
	topo_free(t);
}

Test(partition, a_rail_fabric_keeps_each_server_whole)
{
	struct topo_spec s = ts_topo_spec(TOPO_RAIL, 400000000000ULL, 400000000000ULL, 30000);
	struct partition p;
	struct topo *t;

	s.servers = 8;
	s.servers_per_leaf = 2;
	s.nics_per_host = 4;
	s.gpus_per_host = 8;
	s.spines = 2;
	t = ts_topo_build(&s);
	build_parts(t, 2, &p);
	cr_assert_eq(p.method, PART_GROUPS);
	cr_assert_eq(p.n_groups, 4, "a group's four rail leaves share its servers");
	for (uint32_t sv = 0; sv < t->n_servers; sv++) {
		const struct topo_server *x = &t->servers[sv];

		for (uint32_t i = 0; i < x->n_nics; i++) {
			uint32_t node = t->hosts[t->server_nics[x->first_nic + i]];
			uint32_t sw = t->ports[t->nodes[node].first_port].peer;

			cr_assert_eq(p.node_part[node], sv / 4, "%s", t->nodes[node].name);
			cr_assert_eq(p.node_part[sw], sv / 4, "%s", t->nodes[sw].name);
		}
	}
	part_free(&p);
	topo_free(t);
}

Test(partition, a_ring_is_cut_into_arcs)
{
	struct topo_spec s = ts_topo_spec(TOPO_RING, 100000000000ULL, 100000000000ULL, 2000);
	struct partition p;
	struct topo *t;
	char name[16];

	s.switches = 8;
	s.hosts_per_switch = 2;
	t = ts_topo_build(&s);
	build_parts(t, 4, &p);
	cr_assert_eq(p.method, PART_GRAPH);
	for (uint32_t k = 0; k < 4; k++) {
		struct part_load l;

		part_load(&p, t, k, &l);
		cr_assert_eq(l.switches, 2, "part %u", k);
		cr_assert_eq(l.hosts, 4, "part %u", k);
	}
	cr_assert_eq(p.n_cut, 4, "four arcs of two switches: four ring links cut");
	for (uint32_t i = 0; i < 8; i++) {
		uint32_t a, b;

		snprintf(name, sizeof(name), "sw%u", i);
		a = part_of(&p, t, name);
		snprintf(name, sizeof(name), "sw%u", (i + 1) % 8);
		b = part_of(&p, t, name);
		cr_assert(a == b || (a + 1) % 4 == b || (b + 1) % 4 == a, "arcs in ring order");
	}
	hosts_with_their_switch(&p, t);
	part_free(&p);
	topo_free(t);
}

Test(partition, one_part_cuts_nothing)
{
	struct topo_spec s = ts_topo_spec(TOPO_STAR, 100000000000ULL, 100000000000ULL, 2000);
	struct partition p;
	struct topo *t;

	s.hosts = 4;
	t = ts_topo_build(&s);
	build_parts(t, 1, &p);
	cr_assert_eq(p.method, PART_SINGLE);
	cr_assert_eq(p.n_cut, 0);
	cr_assert_eq(p.lookahead, SIMTIME_NEVER);
	for (uint32_t u = 0; u < t->n_nodes; u++)
		cr_assert_eq(p.node_part[u], 0);
	part_free(&p);
	topo_free(t);
}

Test(partition, more_parts_than_switches_are_refused)
{
	struct topo_spec s = ts_topo_spec(TOPO_STAR, 100000000000ULL, 100000000000ULL, 2000);
	struct partition p;
	struct diag d = {0};
	struct topo *t;

	s.hosts = 4;
	t = ts_topo_build(&s);
	cr_assert_eq(part_build(t, 2, &p, &d), -EINVAL);
	cr_assert_str_eq(d.path, "topology");
	cr_assert(strstr(d.msg, "2 parts for 1 switch: a switch is never split"), "%s", d.msg);
	cr_assert_null(p.node_part);
	topo_free(t);
}

Test(partition, a_cut_link_without_delay_is_refused)
{
	struct topo_spec s = ts_topo_spec(TOPO_LEAF_SPINE, 100000000000ULL, 100000000000ULL, 0);
	struct partition p;
	struct diag d = {0};
	struct topo *t;

	s.leaves = 2;
	s.spines = 1;
	s.hosts_per_leaf = 1;
	t = ts_topo_build(&s);
	cr_assert_eq(part_build(t, 2, &p, &d), -EINVAL);
	cr_assert(strstr(d.msg, "has no propagation delay and joins two parts"), "%s", d.msg);
	topo_free(t);
}

/* rocesim run --partition N: the split on stdout, nothing run or written. */
Test(partition, run_shows_the_partition_and_writes_nothing)
{
	char scn[512], out[300];
	struct ts_proc p;

	snprintf(scn, sizeof(scn), "%s/experiments/seed-cluster.yaml", getenv("ROCESIM_SRC"));
	snprintf(out, sizeof(out), "%s", ts_tmp("part-out"));
	ts_exec(&p, (const char *[]){"run", scn, "--partition", "2", "-o", out, NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_assert(strstr(p.out, "partition of seed-cluster into 2 parts (groups below the top "
				"tier: 8 groups)"),
		  "%s", p.out);
	cr_assert(strstr(p.out, "16 of 96 links; lookahead 150.000 ns"), "%s", p.out);
	cr_assert_eq(access(out, F_OK), -1, "nothing written");
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"run", scn, "--partition", "13", NULL});
	cr_assert_eq(p.code, 2);
	cr_assert(strstr(p.err, "topology: 13 parts for 12 switches"), "%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"run", scn, "--partition", "0", NULL});
	cr_assert_eq(p.code, 2);
	ts_proc_free(&p);
}
