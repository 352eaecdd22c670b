/*
 * Cyclic buffer dependency tests: the cycle finder on hand-drawn graphs
 * (self-loop, two cycles sharing a node, the complete graph on four nodes
 * and its truncation), then the buffer graph of real routes: none in a
 * star, leaf-spines and a k=4 fat-tree; exactly the five-buffer cycle of a
 * ring whose hosts send two switches ahead; two cycles in two rings sharing
 * a switch; the valley routes of a leaf-spine with two failed links; the
 * workload mode agreeing with all pairs; and the k=16 fat-tree in time.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "topologies/cbd.h"
#include "rig.h"

/* 100G everywhere, 10 m between switches */
static struct topo_spec spec_of(enum topo_kind kind)
{
	return ts_topo_spec(kind, 100000000000ULL, 100000000000ULL, 10000);
}

static struct topo *build(const struct topo_spec *s)
{
	return ts_topo_build(s);
}

static struct topo_routes *routes(const struct topo *t)
{
	struct topo_routes *r = NULL;

	cr_assert_eq(topo_routes_build(t, &r), 0);
	return r;
}

/* "a -> b -> c" for a cycle of ports (or of bare node ids without @t). */
static const char *cycle_str(const struct topo *t, const struct cbd_cycle *c)
{
	static char buf[4096];
	size_t len = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < c->n && len < sizeof(buf) - 200; i++) {
		if (t)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s",
						i ? " -> " : "", t->ports[c->ports[i]].name);
		else
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%u", i ? " " : "",
						c->ports[i]);
	}
	return buf;
}

static void all_pairs(const struct topo *t, const struct topo_routes *r, uint8_t lossless,
		      uint32_t max, struct cbd_result *res)
{
	cr_assert_eq(cbd_analyze(t, r, lossless, NULL, 0, max, res), 0);
}

/* Graphs drawn by hand: cbd_cycles on an edge list. */

Test(cbd, self_loop)
{
	/*
	 * The buffer graph never has one: an edge u:v -> w:u joins ports of two
	 * different switches (w is a neighbour of u, and a link never joins a
	 * node to itself). The finder still handles one.
	 */
	static const uint32_t e[][2] = {{0, 1}, {1, 2}, {2, 2}};
	struct cbd_result res;

	cr_assert_eq(cbd_cycles(3, e, 3, 3, 10, &res), 0);
	cr_assert_eq(res.n_sccs, 1);
	cr_assert_eq(res.n_cycles, 1);
	cr_assert_eq(res.cycles[0].n, 1);
	cr_assert_eq(res.cycles[0].ports[0], 2);
	cr_assert_eq(res.cycles[0].prio, 3);
	cr_assert_not(res.truncated);
	cbd_result_free(&res);
}

Test(cbd, no_cycle_in_a_dag)
{
	static const uint32_t e[][2] = {{0, 1}, {1, 2}, {0, 2}, {2, 3}, {1, 3}, {0, 1}};
	struct cbd_result res;

	cr_assert_eq(cbd_cycles(4, e, 6, 0, 10, &res), 0);
	cr_assert_eq(res.n_edges, 5, "duplicate edges count once");
	cr_assert_eq(res.n_sccs, 0);
	cr_assert_eq(res.n_cycles, 0);
	cr_assert_not(res.truncated);
	cbd_result_free(&res);
	cr_assert_eq(cbd_cycles(4, (const uint32_t[][2]){{0, 4}}, 1, 0, 10, &res), -EINVAL);
}

Test(cbd, two_cycles_sharing_a_node)
{
	/* 0 -> 1 -> 0 and 0 -> 2 -> 3 -> 0, with a tail 3 -> 4 that is no cycle */
	static const uint32_t e[][2] = {{3, 0}, {0, 2}, {2, 3}, {1, 0}, {0, 1}, {3, 4}};
	struct cbd_result res;

	cr_assert_eq(cbd_cycles(5, e, 6, 3, 10, &res), 0);
	cr_assert_eq(res.n_sccs, 1);
	cr_assert_eq(res.n_cycles, 2);
	cr_assert_str_eq(cycle_str(NULL, &res.cycles[0]), "0 1", "shortest first");
	cr_assert_str_eq(cycle_str(NULL, &res.cycles[1]), "0 2 3");
	cr_assert_not(res.truncated);
	cbd_result_free(&res);
}

Test(cbd, complete_graph_and_truncation)
{
	uint32_t e[12][2], n = 0, i, j, by_len[5] = {0};
	struct cbd_result res;

	for (i = 0; i < 4; i++)
		for (j = 0; j < 4; j++)
			if (i != j) {
				e[n][0] = i;
				e[n++][1] = j;
			}
	/* K4 has 6 cycles of 2, 8 of 3 and 6 of 4 nodes */
	cr_assert_eq(cbd_cycles(4, (const uint32_t(*)[2])e, n, 3, 100, &res), 0);
	cr_assert_eq(res.n_cycles, 20);
	cr_assert_not(res.truncated);
	for (i = 0; i < res.n_cycles; i++) {
		cr_assert(i == 0 || res.cycles[i].n >= res.cycles[i - 1].n, "shortest first");
		by_len[res.cycles[i].n]++;
		for (j = 1; j < res.cycles[i].n; j++)
			cr_assert_gt(res.cycles[i].ports[j], res.cycles[i].ports[0],
				     "rotated to start at the smallest node");
	}
	cr_assert_eq(by_len[2], 6);
	cr_assert_eq(by_len[3], 8);
	cr_assert_eq(by_len[4], 6);
	cbd_result_free(&res);

	cr_assert_eq(cbd_cycles(4, (const uint32_t(*)[2])e, n, 3, 7, &res), 0);
	cr_assert_eq(res.n_cycles, 7);
	cr_assert(res.truncated);
	for (i = 0; i < 6; i++)
		cr_assert_eq(res.cycles[i].n, 2);
	cr_assert_eq(res.cycles[6].n, 3);
	cbd_result_free(&res);

	/* exactly as many as exist: not truncated */
	cr_assert_eq(cbd_cycles(4, (const uint32_t(*)[2])e, n, 3, 20, &res), 0);
	cr_assert_eq(res.n_cycles, 20);
	cr_assert_not(res.truncated);
	cbd_result_free(&res);

	cr_assert_eq(cbd_cycles(4, (const uint32_t(*)[2])e, n, 3, 0, &res), 0);
	cr_assert_eq(res.n_cycles, 0);
	cr_assert_eq(res.n_sccs, 1);
	cr_assert(res.truncated);
	cbd_result_free(&res);
}

/* Every elementary cycle whose smallest node is @s, by plain search: the reference. */
static void naive_from(uint32_t n, const uint8_t adj[8][8], uint32_t s, uint32_t *path,
		       uint32_t depth, uint8_t *used, uint32_t *by_len, char set[][16],
		       uint32_t *n_set)
{
	uint32_t v = path[depth - 1];

	for (uint32_t w = 0; w < n; w++) {
		if (!adj[v][w])
			continue;
		if (w == s) {
			uint32_t k = 0;

			by_len[depth]++;
			for (uint32_t i = 0; i < depth; i++)
				set[*n_set][k++] = (char)('0' + path[i]);
			set[(*n_set)++][k] = '\0';
		} else if (w > s && !used[w] && depth < 8) {
			used[w] = 1;
			path[depth] = w;
			naive_from(n, adj, s, path, depth + 1, used, by_len, set, n_set);
			used[w] = 0;
		}
	}
}

/* Random graphs of up to 8 nodes against the plain search, whole and truncated. */
Test(cbd, matches_plain_search)
{
	static char set[20000][16];
	uint8_t adj[8][8];
	uint32_t e[64][2], path[16], by_len[16], got_len[16];
	uint64_t x = 12345;

	for (int round = 0; round < 400; round++) {
		uint32_t n = 2 + round % 7, m = 0, n_set = 0, max, i;
		uint8_t used[8] = {0};
		struct cbd_result res;

		memset(adj, 0, sizeof(adj));
		for (uint32_t a = 0; a < n; a++)
			for (uint32_t b = 0; b < n; b++) {
				x = x * 6364136223846793005ULL + 1442695040888963407ULL;
				if ((x >> 33) % 100 < 15 + (uint64_t)round % 40) {
					adj[a][b] = 1;
					e[m][0] = a;
					e[m++][1] = b;
				}
			}
		memset(by_len, 0, sizeof(by_len));
		for (uint32_t s = 0; s < n; s++) {
			path[0] = s;
			naive_from(n, (const uint8_t(*)[8])adj, s, path, 1, used, by_len, set,
				   &n_set);
		}
		max = round % 3 == 0 ? n_set / 2 : 100000;
		cr_assert_eq(cbd_cycles(n, (const uint32_t(*)[2])e, m, 1, max, &res), 0);
		cr_assert_eq(res.n_cycles, n_set < max ? n_set : max, "round %d", round);
		cr_assert_eq(res.truncated, n_set > max, "round %d", round);
		memset(got_len, 0, sizeof(got_len));
		for (i = 0; i < res.n_cycles; i++) {
			char str[16];
			uint32_t k, found = 0;

			got_len[res.cycles[i].n]++;
			for (k = 0; k < res.cycles[i].n; k++)
				str[k] = (char)('0' + res.cycles[i].ports[k]);
			str[k] = '\0';
			for (k = 0; k < n_set && !found; k++)
				found = !strcmp(set[k], str);
			cr_assert(found, "round %d: %s is no cycle", round, str);
			for (k = 0; k < i; k++)
				cr_assert(res.cycles[k].n != res.cycles[i].n ||
					      memcmp(res.cycles[k].ports, res.cycles[i].ports,
						     res.cycles[i].n * sizeof(uint32_t)),
					  "round %d: %s twice", round, str);
		}
		/* the shortest: all lengths below the longest listed are complete */
		for (i = 1; i <= 8 && res.n_cycles; i++) {
			if (i < res.cycles[res.n_cycles - 1].n)
				cr_assert_eq(got_len[i], by_len[i], "round %d length %u", round, i);
		}
		cbd_result_free(&res);
	}
}

/* A long simple cycle: found whole, not cut by any depth limit. */
Test(cbd, long_cycle)
{
	enum { N = 5000 };
	static uint32_t e[N][2];
	struct cbd_result res;

	for (uint32_t i = 0; i < N; i++) {
		e[i][0] = (i * 7) % N;
		e[i][1] = ((i + 1) * 7) % N;
	}
	cr_assert_eq(cbd_cycles(N, (const uint32_t(*)[2])e, N, 3, 10, &res), 0);
	cr_assert_eq(res.n_cycles, 1);
	cr_assert_eq(res.cycles[0].n, N);
	cr_assert_eq(res.cycles[0].ports[0], 0);
	cr_assert_eq(res.cycles[0].ports[1], 7);
	cr_assert_not(res.truncated);
	cbd_result_free(&res);
}

/* The buffer graph of routes. */

Test(cbd, no_cycle_in_up_down_fabrics)
{
	struct topo_spec s = spec_of(TOPO_STAR);
	static const uint32_t ls[][3] = {{2, 1, 1}, {2, 2, 2}, {4, 2, 2}, {8, 4, 3}, {3, 5, 1}};
	struct topo *t;
	struct topo_routes *r;
	struct cbd_result res;

	s.hosts = 6;
	t = build(&s);
	r = routes(t);
	all_pairs(t, r, 1u << 3, 10, &res);
	cr_assert_eq(res.n_edges, 0, "one switch: no switch-to-switch dependency");
	cr_assert_eq(res.n_nodes, 6);
	cr_assert_eq(res.n_cycles, 0);
	cbd_result_free(&res);
	topo_routes_free(r);
	topo_free(t);

	for (size_t i = 0; i < sizeof(ls) / sizeof(ls[0]); i++) {
		s = spec_of(TOPO_LEAF_SPINE);
		s.leaves = ls[i][0];
		s.spines = ls[i][1];
		s.hosts_per_leaf = ls[i][2];
		s.parallel = 1;
		t = build(&s);
		r = routes(t);
		all_pairs(t, r, 1u << 3 | 1u << 4, 10, &res);
		cr_assert_gt(res.n_edges, 0);
		cr_assert_eq(res.n_sccs, 0, "%u leaves %u spines", s.leaves, s.spines);
		cr_assert_eq(res.n_cycles, 0);
		cr_assert_not(res.truncated);
		cbd_result_free(&res);
		topo_routes_free(r);
		topo_free(t);
	}

	s = spec_of(TOPO_FAT_TREE);
	s.k = 4;
	t = build(&s);
	r = routes(t);
	all_pairs(t, r, 1u << 3, 10, &res);
	/* every switch port takes traffic in: 16 host ports, 32 links x 2 */
	cr_assert_eq(res.n_nodes, 16 + 64);
	cr_assert_gt(res.n_edges, 0);
	cr_assert_eq(res.n_sccs, 0);
	cr_assert_eq(res.n_cycles, 0);
	cbd_result_free(&res);
	topo_routes_free(r);
	topo_free(t);
}

/* Five switches in a ring, one host each, each host sending two switches ahead. */
Test(cbd, ring_of_five)
{
	struct topo_spec s = spec_of(TOPO_RING);
	struct cbd_pair pairs[6];
	struct topo *t;
	struct topo_routes *r;
	struct cbd_result res;

	s.switches = 5;
	s.hosts_per_switch = 1;
	t = build(&s);
	r = routes(t);
	for (uint32_t i = 0; i < 5; i++)
		pairs[i] = (struct cbd_pair){i, (i + 2) % 5, 3};
	cr_assert_eq(cbd_analyze(t, r, 1u << 3, pairs, 5, 10, &res), 0);
	cr_assert_eq(res.n_sccs, 1);
	cr_assert_eq(res.n_cycles, 1);
	cr_assert_eq(res.cycles[0].prio, 3);
	cr_assert_str_eq(cycle_str(t, &res.cycles[0]),
			 "sw0:sw4 -> sw1:sw0 -> sw2:sw1 -> sw3:sw2 -> sw4:sw3");
	cr_assert_not(res.truncated);
	/* sw0:h0 -> sw1:sw0 and the like, and the five of the cycle */
	cr_assert_eq(res.n_edges, 10);
	cr_assert_eq(res.n_nodes, 10, "5 host ports and 5 ring ports");
	cbd_result_free(&res);

	/* the same flows on a lossy priority, or with one flow less: no cycle */
	for (uint32_t i = 0; i < 5; i++)
		pairs[i].prio = 0;
	cr_assert_eq(cbd_analyze(t, r, 1u << 3, pairs, 5, 10, &res), 0);
	cr_assert_eq(res.n_cycles + res.n_edges + res.n_nodes, 0);
	cbd_result_free(&res);
	for (uint32_t i = 0; i < 5; i++)
		pairs[i].prio = 3;
	cr_assert_eq(cbd_analyze(t, r, 1u << 3, pairs + 1, 4, 10, &res), 0);
	cr_assert_eq(res.n_cycles, 0);
	cbd_result_free(&res);

	/* all pairs: both directions of the ring; per lossless priority */
	all_pairs(t, r, 1u << 3 | 1u << 4, 10, &res);
	cr_assert_eq(res.n_sccs, 4);
	cr_assert_eq(res.n_cycles, 4);
	cr_assert_str_eq(cycle_str(t, &res.cycles[0]),
			 "sw0:sw1 -> sw4:sw0 -> sw3:sw4 -> sw2:sw3 -> sw1:sw2");
	cr_assert_str_eq(cycle_str(t, &res.cycles[1]),
			 "sw0:sw4 -> sw1:sw0 -> sw2:sw1 -> sw3:sw2 -> sw4:sw3");
	cr_assert_eq(res.cycles[1].prio, 3);
	cr_assert_eq(res.cycles[2].prio, 4);
	cr_assert_str_eq(cycle_str(t, &res.cycles[3]),
			 "sw0:sw4 -> sw1:sw0 -> sw2:sw1 -> sw3:sw2 -> sw4:sw3");
	cbd_result_free(&res);

	/* max_cycles 1: the first, and the flag */
	all_pairs(t, r, 1u << 3, 1, &res);
	cr_assert_eq(res.n_cycles, 1);
	cr_assert_eq(res.n_sccs, 2);
	cr_assert(res.truncated);
	cbd_result_free(&res);
	topo_routes_free(r);
	topo_free(t);
}

/*
 * Two rings of five switches sharing switch x (hand-made), a host on each
 * switch sending two switches ahead in its ring (x's host in both).
 */
Test(cbd, two_rings_sharing_a_switch)
{
	static const char *const sw[] = {"x", "a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"};
	static const uint32_t ring[2][5] = {{0, 1, 2, 3, 4}, {0, 5, 6, 7, 8}};
	struct topo_linkspec ls = {100000000000ULL, 1000000};
	struct cbd_pair pairs[10];
	struct topo *t = topo_new();
	struct topo_routes *r;
	struct cbd_result res;
	struct diag d = {0};
	char name[8];
	uint32_t i, k, n = 0;

	for (i = 0; i < 9; i++) {
		snprintf(name, sizeof(name), "h%u", i);
		cr_assert_eq(topo_add_node(t, name, TOPO_HOST), (int32_t)i);
	}
	for (i = 0; i < 9; i++)
		cr_assert_eq(topo_add_node(t, sw[i], TOPO_SWITCH), (int32_t)(9 + i));
	for (i = 0; i < 9; i++)
		cr_assert_geq(topo_add_link(t, i, 9 + i, &ls), 0);
	for (k = 0; k < 2; k++)
		for (i = 0; i < 5; i++)
			cr_assert_geq(
			    topo_add_link(t, 9 + ring[k][i], 9 + ring[k][(i + 1) % 5], &ls), 0);
	cr_assert_eq(topo_finish(t, &d), 0);
	r = routes(t);
	for (k = 0; k < 2; k++)
		for (i = 0; i < 5; i++)
			pairs[n++] = (struct cbd_pair){ring[k][i], ring[k][(i + 2) % 5], 3};
	cr_assert_eq(cbd_analyze(t, r, 1u << 3, pairs, n, 10, &res), 0);
	cr_assert_eq(res.n_sccs, 2);
	cr_assert_eq(res.n_cycles, 2);
	cr_assert_str_eq(cycle_str(t, &res.cycles[0]), "x:a4 -> a1:x -> a2:a1 -> a3:a2 -> a4:a3");
	cr_assert_str_eq(cycle_str(t, &res.cycles[1]), "x:b4 -> b1:x -> b2:b1 -> b3:b2 -> b4:b3");
	cbd_result_free(&res);
	topo_routes_free(r);
	topo_free(t);
}

static void fail_link(struct topo *t, const char *name)
{
	int32_t l = topo_find_link(t, name);

	cr_assert_geq(l, 0, "no link %s", name);
	t->links[l].up = 0;
}

/*
 * Four leaves, two spines; leaf0-spine1 and leaf1-spine0 fail. leaf0 and
 * leaf1 then reach each other only through a valley: leaf0 -> spine0 ->
 * leaf2 or leaf3 -> spine1 -> leaf1, and back the other way. Traffic
 * bouncing at leaf2 (towards leaf1) waits on spine1:leaf2, which leaf2's
 * own traffic to leaf3 shares; traffic bouncing at leaf3 towards leaf0
 * waits on spine0:leaf3, which leaf3's traffic to leaf2 shares: two
 * four-buffer cycles, one each way round.
 */
Test(cbd, leaf_spine_valleys)
{
	struct topo_spec s = spec_of(TOPO_LEAF_SPINE);
	struct cbd_pair *pairs;
	struct topo *t;
	struct topo_routes *r;
	struct cbd_result res, wl;
	uint32_t n = 0;

	s.leaves = 4;
	s.spines = 2;
	s.hosts_per_leaf = 2;
	s.parallel = 1;
	t = build(&s);
	fail_link(t, "leaf0-spine1");
	fail_link(t, "leaf1-spine0");
	r = routes(t);
	all_pairs(t, r, 1u << 3, 10, &res);
	cr_assert_eq(res.n_sccs, 2);
	cr_assert_eq(res.n_cycles, 2);
	cr_assert_not(res.truncated);
	cr_assert_str_eq(cycle_str(t, &res.cycles[0]),
			 "leaf2:spine0 -> spine1:leaf2 -> leaf3:spine1 -> spine0:leaf3");
	cr_assert_str_eq(cycle_str(t, &res.cycles[1]),
			 "leaf2:spine1 -> spine0:leaf2 -> leaf3:spine0 -> spine1:leaf3");

	/* every pair given as a workload: the same graph */
	pairs = calloc((size_t)t->n_hosts * t->n_hosts, sizeof(*pairs));
	for (uint32_t a = 0; a < t->n_hosts; a++)
		for (uint32_t b = 0; b < t->n_hosts; b++)
			if (a != b)
				pairs[n++] = (struct cbd_pair){a, b, 3};
	cr_assert_eq(cbd_analyze(t, r, 1u << 3, pairs, n, 10, &wl), 0);
	cr_assert_eq(wl.n_nodes, res.n_nodes);
	cr_assert_eq(wl.n_edges, res.n_edges);
	cr_assert_eq(wl.n_cycles, res.n_cycles);
	for (uint32_t i = 0; i < wl.n_cycles; i++)
		cr_assert_str_eq(cycle_str(t, &wl.cycles[i]), cycle_str(t, &res.cycles[i]));
	cbd_result_free(&wl);
	cbd_result_free(&res);

	/* the valley flows alone cannot close a cycle */
	pairs[0] = (struct cbd_pair){0, 2, 3}; /* h0 on leaf0 -> h2 on leaf1 */
	pairs[1] = (struct cbd_pair){2, 0, 3};
	cr_assert_eq(cbd_analyze(t, r, 1u << 3, pairs, 2, 10, &wl), 0);
	cr_assert_eq(wl.n_cycles, 0);
	cr_assert_gt(wl.n_edges, 0);
	cbd_result_free(&wl);
	free(pairs);
	topo_routes_free(r);

	/* with the links back: none */
	t->links[topo_find_link(t, "leaf0-spine1")].up = 1;
	t->links[topo_find_link(t, "leaf1-spine0")].up = 1;
	r = routes(t);
	all_pairs(t, r, 1u << 3, 10, &res);
	cr_assert_eq(res.n_cycles, 0);
	cbd_result_free(&res);
	topo_routes_free(r);
	topo_free(t);
}

/* The fabric of 1024 hosts, all pairs, with and without valleys. */
Test(cbd, fat_tree_k16_in_time, .timeout = 120)
{
	struct topo_spec s = spec_of(TOPO_FAT_TREE);
	struct timespec a, b;
	struct topo *t;
	struct topo_routes *r;
	struct cbd_result res;
	double secs;

	s.k = 16;
	t = build(&s);
	r = routes(t);
	clock_gettime(CLOCK_MONOTONIC, &a);
	all_pairs(t, r, 1u << 3, 10, &res);
	clock_gettime(CLOCK_MONOTONIC, &b);
	secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
	cr_log_info("k=16 fat-tree, all pairs: %u buffers, %u edges in %.3f s", res.n_nodes,
		    res.n_edges, secs);
	cr_assert_eq(res.n_nodes, 1024 + 2 * 2048);
	cr_assert_eq(res.n_cycles, 0);
	cr_assert_lt(secs, 20.0);
	cbd_result_free(&res);
	topo_routes_free(r);

	/*
	 * edge0_0 keeps only its uplink to agg0_0, edge0_1 only the one to
	 * agg0_1: between them, valleys through the other edges of pod 0
	 */
	for (uint32_t j = 0; j < 8; j++) {
		char name[64];

		snprintf(name, sizeof(name), "edge0_0-agg0_%u", j);
		if (j != 0)
			fail_link(t, name);
		snprintf(name, sizeof(name), "edge0_1-agg0_%u", j);
		if (j != 1)
			fail_link(t, name);
	}
	r = routes(t);
	clock_gettime(CLOCK_MONOTONIC, &a);
	all_pairs(t, r, 1u << 3, 10, &res);
	clock_gettime(CLOCK_MONOTONIC, &b);
	secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
	cr_log_info("with failures: %u edges, %u components, %u cycles listed%s in %.3f s",
		    res.n_edges, res.n_sccs, res.n_cycles, res.truncated ? " (truncated)" : "",
		    secs);
	cr_assert_lt(secs, 20.0);
	cr_assert_gt(res.n_sccs, 0);
	cr_assert_eq(res.n_cycles, 10);
	for (uint32_t i = 1; i < res.n_cycles; i++)
		cr_assert_geq(res.cycles[i].n, res.cycles[i - 1].n);
	cbd_result_free(&res);
	topo_routes_free(r);
	topo_free(t);
}
