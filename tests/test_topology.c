/*
 * Topology tests: node, link and port counts and names of every generated
 * kind and of topology files, host order, routes (ECMP spread, correctness
 * against a plain breadth-first search, link failures), and the errors of
 * impossible specs and of bad topology files with their line and key path.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "topologies/fib.h"
#include "topologies/topo.h"
#include "rig.h"
#include "sim/readers/topo_read.h"

/* 100G hosts, 400G and 30 m between switches */
static struct topo_spec spec_of(enum topo_kind kind)
{
	return ts_topo_spec(kind, 100000000000ULL, 400000000000ULL, 30000);
}

/* Every structural promise of topo.h, checked on any topology. */
static void check_invariants(const struct topo *t)
{
	uint32_t i, p, hosts = 0, switches = 0, next = 0;

	cr_assert_eq(t->n_ports, 2 * t->n_links);
	for (i = 0; i < t->n_nodes; i++) {
		const struct topo_node *n = &t->nodes[i];

		cr_assert_eq(n->first_port, next, "%s: ports not contiguous", n->name);
		next += n->n_ports;
		for (p = n->first_port; p < n->first_port + n->n_ports; p++) {
			const struct topo_port *pt = &t->ports[p];
			const struct topo_port *far = &t->ports[pt->peer_port];
			const struct topo_link *l = &t->links[pt->link];

			cr_assert_eq(pt->node, i);
			cr_assert_eq(far->peer_port, p);
			cr_assert_eq(far->node, pt->peer);
			cr_assert_eq(far->peer, i);
			cr_assert_eq(far->link, pt->link);
			cr_assert(l->port_a == p || l->port_b == p);
			cr_assert(strncmp(pt->name, n->name, strlen(n->name)) == 0 &&
				      pt->name[strlen(n->name)] == ':',
				  "port %s of %s", pt->name, n->name);
		}
		if (n->kind == TOPO_HOST) {
			cr_assert_eq(n->host_index, hosts);
			cr_assert_eq(t->hosts[hosts], i);
			hosts++;
		} else {
			switches++;
		}
		cr_assert_eq(topo_find_node(t, n->name), (int32_t)i, "find %s", n->name);
	}
	cr_assert_eq(next, t->n_ports);
	cr_assert_eq(hosts, t->n_hosts);
	cr_assert_eq(switches, t->n_switches);
	for (i = 0; i < t->n_links; i++) {
		const struct topo_link *l = &t->links[i];

		cr_assert_eq(t->ports[l->port_a].node, l->a);
		cr_assert_eq(t->ports[l->port_b].node, l->b);
		cr_assert(l->up);
		cr_assert_gt(l->rate_bps, 0);
		if (t->n_links <= 5000)
			cr_assert_eq(topo_find_link(t, l->name), (int32_t)i, "find %s", l->name);
	}
}

static struct topo *build(const struct topo_spec *s)
{
	struct topo *t = ts_topo_read(s);

	check_invariants(t);
	return t;
}

static struct topo *build_file(const char *rel)
{
	struct topo_spec s = spec_of(TOPO_FILE);
	char path[1024];

	snprintf(path, sizeof(path), "%s", ts_src(rel));
	s.file = path;
	return build(&s);
}

static const char *peer_name(const struct topo *t, uint32_t node, uint32_t local)
{
	return t->nodes[t->ports[t->nodes[node].first_port + local].peer].name;
}

static uint32_t node_of(const struct topo *t, const char *name)
{
	int32_t n = topo_find_node(t, name);

	cr_assert_geq(n, 0, "no node %s", name);
	return (uint32_t)n;
}

/*
 * Every switch's forwarding table gives, for every host, the ports
 * topo_next_hops gives, in the same order (the ECMP choice indexes them).
 */
static void check_fib_against_routes(const struct topo *t, const struct topo_routes *r)
{
	for (uint32_t u = 0; u < t->n_nodes; u++) {
		struct topo_fib f;

		if (t->nodes[u].kind != TOPO_SWITCH)
			continue;
		cr_assert_eq(topo_fib_build(r, u, t->n_hosts, &f), 0);
		for (uint32_t h = 0; h < t->n_hosts; h++) {
			uint32_t want, got;
			const uint16_t *a = topo_next_hops(r, u, h, &want);
			const uint16_t *b = topo_fib_hops(&f, h, &got);

			cr_assert_eq(got, want, "%s -> h%u: %u ports, want %u", t->nodes[u].name, h,
				     got, want);
			for (uint32_t i = 0; i < want; i++)
				cr_assert_eq(b[i], a[i], "%s -> h%u: port %u", t->nodes[u].name, h,
					     i);
		}
		topo_fib_free(&f);
		cr_assert_null(f.entry);
	}
}

/*
 * The routes as topo.h defines them, one plain search per destination
 * host: compare every (node, host) pair with what topo_routes_build made.
 */
static void check_routes_against_bfs(const struct topo *t, const struct topo_routes *r)
{
	uint32_t *dist = malloc(t->n_nodes * sizeof(*dist));
	uint32_t *queue = malloc(t->n_nodes * sizeof(*queue));
	uint32_t h, u, p;

	cr_assert(dist && queue);
	for (h = 0; h < t->n_hosts; h++) {
		uint32_t root = t->hosts[h], head = 0, tail = 0;

		for (u = 0; u < t->n_nodes; u++)
			dist[u] = UINT32_MAX;
		dist[root] = 0;
		queue[tail++] = root;
		while (head < tail) {
			u = queue[head++];
			if (u != root && t->nodes[u].kind == TOPO_HOST)
				continue;
			for (p = 0; p < t->nodes[u].n_ports; p++) {
				const struct topo_port *pt = &t->ports[t->nodes[u].first_port + p];

				if (t->links[pt->link].up && dist[pt->peer] == UINT32_MAX) {
					dist[pt->peer] = dist[u] + 1;
					queue[tail++] = pt->peer;
				}
			}
		}
		for (u = 0; u < t->n_nodes; u++) {
			uint32_t count, want = 0, i;
			const uint16_t *hops = topo_next_hops(r, u, h, &count);

			cr_assert_eq(topo_distance(r, u, h), dist[u], "distance %s -> h%u",
				     t->nodes[u].name, h);
			for (p = 0; p < t->nodes[u].n_ports; p++) {
				const struct topo_port *pt = &t->ports[t->nodes[u].first_port + p];
				int in = 0;

				if (dist[u] != UINT32_MAX && dist[u] > 0 && t->links[pt->link].up &&
				    dist[pt->peer] + 1 == dist[u] &&
				    (t->nodes[pt->peer].kind == TOPO_SWITCH || pt->peer == root)) {
					want++;
					in = 1;
				}
				for (i = 0; i < count; i++)
					if (hops[i] == p)
						in ^= 2;
				cr_assert(in == 0 || in == 3, "%s -> %s: port %u (%s) %s",
					  t->nodes[u].name, t->nodes[root].name, p, pt->name,
					  in == 1 ? "missing" : "should not be there");
			}
			cr_assert_eq(count, want, "%s -> %s: %u next hops, want %u",
				     t->nodes[u].name, t->nodes[root].name, count, want);
		}
	}
	free(dist);
	free(queue);
	check_fib_against_routes(t, r);
}

static struct topo_routes *routes(const struct topo *t)
{
	struct topo_routes *r = NULL;

	cr_assert_eq(topo_routes_build(t, &r), 0);
	cr_assert(r);
	return r;
}

Test(topology, star_counts_and_names)
{
	struct topo_spec s = spec_of(TOPO_STAR);
	struct topo *t;

	s.hosts = 9;
	t = build(&s);
	cr_assert_eq(t->n_nodes, 10);
	cr_assert_eq(t->n_links, 9);
	cr_assert_eq(t->n_ports, 18);
	cr_assert_eq(t->n_hosts, 9);
	cr_assert_eq(t->n_switches, 1);
	cr_assert_eq(t->nodes[node_of(t, "sw0")].n_ports, 9);
	cr_assert_geq(topo_find_link(t, "h3-sw0"), 0);
	cr_assert_str_eq(t->ports[t->links[topo_find_link(t, "h3-sw0")].port_b].name, "sw0:h3");
	cr_assert_str_eq(t->ports[t->links[topo_find_link(t, "h3-sw0")].port_a].name, "h3:sw0");
	cr_assert_eq(t->links[0].rate_bps, 100000000000ULL);
	cr_assert_eq(t->links[0].delay, 10 * SIMTIME_NS);
	topo_free(t);
}

Test(topology, leaf_spine_counts_and_parallel_names)
{
	struct topo_spec s = spec_of(TOPO_LEAF_SPINE);
	struct topo *t;
	int32_t l;

	s.leaves = 4;
	s.spines = 2;
	s.hosts_per_leaf = 4;
	s.parallel = 2;
	t = build(&s);
	cr_assert_eq(t->n_nodes, 22);
	cr_assert_eq(t->n_links, 32);
	cr_assert_eq(t->n_hosts, 16);
	cr_assert_eq(t->n_switches, 6);
	cr_assert_eq(t->nodes[node_of(t, "leaf0")].n_ports, 8);
	cr_assert_eq(t->nodes[node_of(t, "spine1")].n_ports, 8);
	cr_assert_geq(topo_find_link(t, "leaf0-spine1"), 0);
	l = topo_find_link(t, "leaf0-spine1#1");
	cr_assert_geq(l, 0);
	cr_assert_eq(topo_find_link(t, "leaf0-spine1#2"), -1);
	cr_assert_str_eq(t->ports[t->links[l].port_a].name, "leaf0:spine1#1");
	cr_assert_str_eq(t->ports[t->links[l].port_b].name, "spine1:leaf0#1");
	cr_assert_eq(t->links[l].rate_bps, 400000000000ULL);
	cr_assert_eq(t->links[l].delay, 150 * SIMTIME_NS);
	cr_assert_geq(topo_find_link(t, "leaf3-spine0#1"), 0);
	/* leaf ports: hosts first, then uplinks spine by spine */
	cr_assert_str_eq(peer_name(t, node_of(t, "leaf1"), 0), "h4");
	cr_assert_str_eq(peer_name(t, node_of(t, "leaf1"), 4), "spine0");
	cr_assert_str_eq(peer_name(t, node_of(t, "leaf1"), 5), "spine0");
	cr_assert_str_eq(peer_name(t, node_of(t, "leaf1"), 6), "spine1");
	topo_free(t);

	s.parallel = 0; /* means 1 */
	t = build(&s);
	cr_assert_eq(t->n_links, 24);
	cr_assert_eq(topo_find_link(t, "leaf0-spine1#1"), -1);
	topo_free(t);
}

Test(topology, hosts_numbered_leaf_by_leaf)
{
	struct topo_spec s = spec_of(TOPO_LEAF_SPINE);
	struct topo *t;
	char leaf[16];
	uint32_t h;

	s.leaves = 3;
	s.spines = 2;
	s.hosts_per_leaf = 5;
	t = build(&s);
	for (h = 0; h < t->n_hosts; h++) {
		char name[16];

		snprintf(name, sizeof(name), "h%u", h);
		snprintf(leaf, sizeof(leaf), "leaf%u", h / 5);
		cr_assert_str_eq(t->nodes[t->hosts[h]].name, name);
		cr_assert_eq(topo_find_host(t, name), (int32_t)h);
		cr_assert_eq(t->nodes[t->hosts[h]].n_ports, 1);
		cr_assert_str_eq(peer_name(t, t->hosts[h], 0), leaf);
	}
	cr_assert_eq(topo_find_host(t, "leaf0"), -1);
	cr_assert_eq(topo_find_host(t, "h15"), -1);
	cr_assert_eq(topo_find_host(t, "h01"), -1);
	cr_assert_eq(topo_find_node(t, "nope"), -1);
	cr_assert_eq(topo_find_link(t, "nope"), -1);
	topo_free(t);
}

Test(topology, fat_tree_k4_wiring)
{
	struct topo_spec s = spec_of(TOPO_FAT_TREE);
	struct topo *t;
	uint32_t pod, j, c, h;

	s.k = 4;
	t = build(&s);
	cr_assert_eq(t->n_hosts, 16);
	cr_assert_eq(t->n_switches, 20);
	cr_assert_eq(t->n_links, 48);
	cr_assert_eq(t->n_nodes, 36);
	for (h = 0; h < 16; h++) {
		char edge[16];

		snprintf(edge, sizeof(edge), "edge%u_%u", h / 4, (h / 2) % 2);
		cr_assert_str_eq(peer_name(t, t->hosts[h], 0), edge, "h%u", h);
	}
	for (pod = 0; pod < 4; pod++) {
		for (j = 0; j < 2; j++) {
			for (c = 0; c < 2; c++) {
				char name[48];

				snprintf(name, sizeof(name), "agg%u_%u-core%u", pod, j, j * 2 + c);
				cr_assert_geq(topo_find_link(t, name), 0, "%s", name);
				snprintf(name, sizeof(name), "edge%u_%u-agg%u_%u", pod, c, pod, j);
				cr_assert_geq(topo_find_link(t, name), 0, "%s", name);
			}
		}
	}
	for (c = 0; c < 4; c++) {
		char name[16];

		snprintf(name, sizeof(name), "core%u", c);
		cr_assert_eq(t->nodes[node_of(t, name)].n_ports, 4);
	}
	cr_assert_eq(topo_find_link(t, "agg0_0-core2"), -1);
	topo_free(t);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

Test(topology, fat_tree_k16_at_scale)
{
	struct topo_spec s = spec_of(TOPO_FAT_TREE);
	struct topo_routes *r;
	struct topo *t = NULL;
	struct diag d;
	double t0, t1, t2;
	uint32_t count;

	s.k = 16;
	t0 = now_s();
	cr_assert_eq(topo_build(&s, &t, &d), 0);
	t1 = now_s();
	r = routes(t);
	t2 = now_s();
	fprintf(stderr, "fat_tree k=16: topo_build %.1f ms, topo_routes_build %.1f ms\n",
		(t1 - t0) * 1e3, (t2 - t1) * 1e3);
	cr_assert_lt(t2 - t0, 1.0);
	check_invariants(t);
	cr_assert_eq(t->n_hosts, 1024);
	cr_assert_eq(t->n_switches, 320);
	cr_assert_eq(t->n_links, 3072);
	cr_assert_eq(t->n_nodes, 1344);
	/* edge to a host in another pod: all 8 uplinks; core: the one port down */
	topo_next_hops(r, node_of(t, "edge0_0"), 1023, &count);
	cr_assert_eq(count, 8);
	topo_next_hops(r, node_of(t, "agg0_0"), 1023, &count);
	cr_assert_eq(count, 8);
	topo_next_hops(r, node_of(t, "core5"), 1023, &count);
	cr_assert_eq(count, 1);
	cr_assert_eq(topo_distance(r, t->hosts[0], 1023), 6);
	cr_assert_eq(topo_distance(r, t->hosts[0], 7), 2);
	cr_assert_eq(topo_distance(r, t->hosts[0], 8), 4);
	/* every switch's table fits a byte a host: an edge or an aggregation
	 * switch has 9 lists of ports (one port down per host or edge switch,
	 * the 8 uplinks), a core switch 16 (one port down per pod) */
	check_fib_against_routes(t, r);
	topo_routes_free(r);
	topo_free(t);
}

Test(topology, ring_counts)
{
	struct topo_spec s = spec_of(TOPO_RING);
	struct topo_routes *r;
	struct topo *t;

	s.switches = 5;
	s.hosts_per_switch = 1;
	t = build(&s);
	cr_assert_eq(t->n_nodes, 10);
	cr_assert_eq(t->n_links, 10);
	cr_assert_eq(t->n_switches, 5);
	cr_assert_geq(topo_find_link(t, "sw0-sw1"), 0);
	cr_assert_geq(topo_find_link(t, "sw4-sw0"), 0);
	cr_assert_geq(topo_find_link(t, "h4-sw4"), 0);
	r = routes(t);
	check_routes_against_bfs(t, r);
	cr_assert_eq(topo_distance(r, t->hosts[0], 2), 4);
	topo_routes_free(r);
	topo_free(t);

	s.switches = 2;
	s.hosts_per_switch = 3;
	t = build(&s);
	cr_assert_eq(t->n_links, 7);
	topo_free(t);

	s.switches = 1;
	t = build(&s);
	cr_assert_eq(t->n_links, 3);
	topo_free(t);
}

/* Two leaves of 4 hosts under 4 spines. */
static struct topo *leaf_spine_2x4(void)
{
	struct topo_spec s = spec_of(TOPO_LEAF_SPINE);

	s.leaves = 2;
	s.spines = 4;
	s.hosts_per_leaf = 4;
	return build(&s);
}

Test(topology, ecmp_spreads_over_spines)
{
	struct topo_routes *r;
	uint32_t count, i, hits[4] = {0};
	uint32_t leaf0;
	const uint16_t *hops;
	struct topo *t = leaf_spine_2x4();

	r = routes(t);
	leaf0 = node_of(t, "leaf0");
	hops = topo_next_hops(r, leaf0, 5, &count);
	cr_assert_eq(count, 4);
	for (i = 0; i < count; i++)
		cr_assert(strncmp(peer_name(t, leaf0, hops[i]), "spine", 5) == 0);
	for (i = 0; i < 10000; i++)
		hits[topo_ecmp_pick(i, leaf0, count)]++;
	for (i = 0; i < 4; i++)
		cr_assert(hits[i] >= 2250 && hits[i] <= 2750, "port %u: %u of 10000", i, hits[i]);
	/* towards its own host: the one port down */
	hops = topo_next_hops(r, leaf0, 2, &count);
	cr_assert_eq(count, 1);
	cr_assert_str_eq(peer_name(t, leaf0, hops[0]), "h2");
	topo_routes_free(r);
	topo_free(t);
}

/* A flow's path, port by port, is the one its packets take and whose
 * latency topo_path_delay sums: h0 -> leaf0 -> a spine -> leaf1 -> h5. */
Test(topology, a_flows_path_lists_the_ports_it_leaves_by)
{
	struct topo_routes *r;
	uint32_t pt[8], k, frame = 4178;
	simtime_t sum = 0;
	struct topo *t = leaf_spine_2x4();

	r = routes(t);
	for (uint64_t hash = 0; hash < 16; hash++) {
		k = topo_path_ports(t, r, 0, 5, hash, pt, 8);
		cr_assert_eq(k, 4);
		cr_assert_eq(t->ports[pt[0]].node, t->hosts[0]);
		cr_assert_str_eq(t->nodes[t->ports[pt[1]].node].name, "leaf0");
		cr_assert(strncmp(t->nodes[t->ports[pt[2]].node].name, "spine", 5) == 0);
		cr_assert_str_eq(t->nodes[t->ports[pt[3]].node].name, "leaf1");
		cr_assert_eq(t->ports[pt[3]].peer, t->hosts[5]);
		sum = 0;
		for (uint32_t i = 0; i < k; i++) {
			const struct topo_link *l = &t->links[t->ports[pt[i]].link];

			sum += l->delay + simtime_tx(frame, l->rate_bps);
		}
		cr_assert_eq(sum, topo_path_delay(t, r, 0, 5, hash, frame));
	}
	/* fewer slots than hops: the count is whole, the first ones written */
	cr_assert_eq(topo_path_ports(t, r, 0, 5, 3, pt, 2), 4);
	topo_routes_free(r);
	topo_free(t);
}

/* Follow next hops from every host to every other: 2, 4 or 6 hops. */
Test(topology, fat_tree_routes_reach_destination)
{
	struct topo_spec s = spec_of(TOPO_FAT_TREE);
	struct topo_routes *r;
	struct topo *t;
	uint32_t src, dst;

	s.k = 4;
	t = build(&s);
	r = routes(t);
	check_routes_against_bfs(t, r);
	for (src = 0; src < t->n_hosts; src++) {
		for (dst = 0; dst < t->n_hosts; dst++) {
			uint32_t u = t->hosts[src], hops = 0, want, count;
			uint64_t hash = (uint64_t)src * 1000003u + dst;

			want = src == dst ? 0 : src / 2 == dst / 2 ? 2 : src / 4 == dst / 4 ? 4 : 6;
			cr_assert_eq(topo_distance(r, u, dst), want);
			while (u != t->hosts[dst]) {
				const uint16_t *nh = topo_next_hops(r, u, dst, &count);
				uint32_t next;

				cr_assert_gt(count, 0, "stuck at %s", t->nodes[u].name);
				next = t->ports[t->nodes[u].first_port +
						nh[topo_ecmp_pick(hash, u, count)]]
					   .peer;
				cr_assert_eq(topo_distance(r, next, dst),
					     topo_distance(r, u, dst) - 1);
				u = next;
				cr_assert_leq(++hops, 6);
			}
			cr_assert_eq(hops, want, "h%u -> h%u: %u hops", src, dst, hops);
		}
	}
	topo_routes_free(r);
	topo_free(t);
}

static void set_link(struct topo *t, const char *name, int up)
{
	int32_t l = topo_find_link(t, name);

	cr_assert_geq(l, 0, "no link %s", name);
	t->links[l].up = up;
}

Test(topology, link_failure_narrows_ecmp)
{
	struct topo_spec s = spec_of(TOPO_LEAF_SPINE);
	struct topo_routes *r;
	const uint16_t *hops;
	struct topo *t;
	uint32_t count, leaf0, spine1;

	s.leaves = 2;
	s.spines = 2;
	s.hosts_per_leaf = 2;
	t = build(&s);
	leaf0 = node_of(t, "leaf0");
	spine1 = node_of(t, "spine1");
	r = routes(t);
	topo_next_hops(r, leaf0, 2, &count);
	cr_assert_eq(count, 2);
	topo_routes_free(r);

	set_link(t, "leaf0-spine1", 0);
	r = routes(t);
	check_routes_against_bfs(t, r);
	hops = topo_next_hops(r, leaf0, 2, &count);
	cr_assert_eq(count, 1);
	cr_assert_str_eq(peer_name(t, leaf0, hops[0]), "spine0");
	hops = topo_next_hops(r, leaf0, 3, &count);
	cr_assert_eq(count, 1);
	/* spine1 now reaches leaf0's hosts down through leaf1 and back up */
	cr_assert_eq(topo_distance(r, spine1, 0), 4);
	topo_next_hops(r, spine1, 0, &count);
	cr_assert_eq(count, 1);
	topo_routes_free(r);

	/* a host cut off: unreachable, no next hops anywhere towards it */
	set_link(t, "h0-leaf0", 0);
	r = routes(t);
	check_routes_against_bfs(t, r);
	cr_assert_eq(topo_distance(r, leaf0, 0), UINT32_MAX);
	cr_assert_null(topo_next_hops(r, leaf0, 0, &count));
	cr_assert_eq(count, 0);
	cr_assert_eq(topo_distance(r, t->hosts[0], 1), UINT32_MAX);
	topo_routes_free(r);

	set_link(t, "h0-leaf0", 1);
	set_link(t, "leaf0-spine1", 1);
	r = routes(t);
	check_routes_against_bfs(t, r);
	topo_next_hops(r, leaf0, 2, &count);
	cr_assert_eq(count, 2);
	topo_routes_free(r);
	topo_free(t);
}

Test(topology, routes_match_plain_search)
{
	struct topo_spec s = spec_of(TOPO_LEAF_SPINE);
	struct topo_routes *r;
	struct topo *t;

	s.leaves = 3;
	s.spines = 3;
	s.hosts_per_leaf = 3;
	s.parallel = 2;
	t = build(&s);
	set_link(t, "leaf0-spine1#1", 0);
	set_link(t, "leaf2-spine0", 0);
	set_link(t, "leaf2-spine0#1", 0);
	r = routes(t);
	check_routes_against_bfs(t, r);
	topo_routes_free(r);
	topo_free(t);

	t = build_file("tests/topo_ok.yaml");
	r = routes(t);
	check_routes_against_bfs(t, r);
	topo_routes_free(r);
	set_link(t, "gpu3/nic0-tor1", 0);
	r = routes(t);
	check_routes_against_bfs(t, r);
	topo_routes_free(r);
	topo_free(t);

	s = spec_of(TOPO_STAR);
	s.hosts = 1;
	t = build(&s);
	r = routes(t);
	check_routes_against_bfs(t, r);
	topo_routes_free(r);
	topo_free(t);
}

/*
 * A table indexes its port sets with a byte: a switch with more distinct
 * sets (a star of 300 hosts) has none, and forwarding asks the routes.
 */
Test(topology, fib_beyond_a_byte_of_port_sets)
{
	struct topo_spec s = spec_of(TOPO_STAR);
	struct topo_routes *r;
	struct topo_fib f;
	struct topo *t;

	s.hosts = 255;
	t = build(&s);
	r = routes(t);
	cr_assert_eq(topo_fib_build(r, node_of(t, "sw0"), t->n_hosts, &f), 0);
	topo_fib_free(&f);
	topo_routes_free(r);
	topo_free(t);

	s.hosts = 300;
	t = build(&s);
	r = routes(t);
	cr_assert_eq(topo_fib_build(r, node_of(t, "sw0"), t->n_hosts, &f), -E2BIG);
	cr_assert_null(f.entry);
	topo_routes_free(r);
	topo_free(t);
}

/*
 * A host wired to another host reaches it, but never forwards through it.
 * A topology file gives a host a NIC node per link, so the host with two
 * links is built by hand.
 */
Test(topology, hosts_never_forward)
{
	static const struct topo_linkspec ls = {100000000000ULL, 10000};
	struct topo_routes *r;
	struct topo *t = topo_new();
	struct diag d = {.line = 0};
	uint32_t count;

	cr_assert(t);
	cr_assert_eq(topo_add_node(t, "h0", TOPO_HOST), 0);
	cr_assert_eq(topo_add_node(t, "h1", TOPO_HOST), 1);
	cr_assert_eq(topo_add_node(t, "h2", TOPO_HOST), 2);
	cr_assert_eq(topo_add_node(t, "sw0", TOPO_SWITCH), 3);
	cr_assert_geq(topo_add_link(t, 0, 1, &ls), 0);
	cr_assert_geq(topo_add_link(t, 1, 3, &ls), 0);
	cr_assert_geq(topo_add_link(t, 2, 3, &ls), 0);
	cr_assert_eq(topo_finish(t, &d), 0);
	r = routes(t);
	check_routes_against_bfs(t, r);
	cr_assert_eq(topo_distance(r, t->hosts[0], 1), 1);
	topo_next_hops(r, t->hosts[0], 1, &count);
	cr_assert_eq(count, 1);
	cr_assert_eq(topo_distance(r, t->hosts[1], 2), 2);
	cr_assert_eq(topo_distance(r, t->hosts[2], 0), UINT32_MAX);
	cr_assert_eq(topo_distance(r, t->hosts[0], 2), UINT32_MAX);
	cr_assert_eq(topo_distance(r, node_of(t, "sw0"), 0), UINT32_MAX);
	topo_routes_free(r);
	topo_free(t);
}

Test(topology, file_loads_in_order_with_defaults)
{
	struct topo *t = build_file("tests/topo_ok.yaml");
	const struct topo_link *l;

	cr_assert_eq(t->n_nodes, 7);
	cr_assert_eq(t->n_hosts, 5);
	cr_assert_eq(t->n_servers, 4);
	cr_assert_eq(t->n_switches, 2);
	cr_assert_eq(t->n_links, 7);
	cr_assert_str_eq(t->nodes[t->hosts[0]].name, "gpu0");
	cr_assert_str_eq(t->nodes[t->hosts[2]].name, "gpu2");
	cr_assert_eq(topo_find_host(t, "gpu3"), 3);
	l = &t->links[topo_find_link(t, "gpu0-tor0")];
	cr_assert_eq(l->rate_bps, 100000000000ULL);
	cr_assert_eq(l->delay, 10 * SIMTIME_NS);
	l = &t->links[topo_find_link(t, "gpu1-tor0")];
	cr_assert_eq(l->rate_bps, 200000000000ULL);
	cr_assert_eq(l->delay, 15 * SIMTIME_NS);
	cr_assert_eq(t->links[topo_find_link(t, "gpu2-tor1")].delay, SIMTIME_US);
	l = &t->links[topo_find_link(t, "tor0-tor1")];
	cr_assert_eq(l->rate_bps, 400000000000ULL);
	cr_assert_eq(l->delay, 100 * SIMTIME_NS);
	l = &t->links[topo_find_link(t, "tor0-tor1#1")];
	cr_assert_eq(l->delay, 150 * SIMTIME_NS);
	cr_assert_str_eq(t->ports[l->port_b].name, "tor1:tor0#1");
	/* dual-homed gpu3: a server with a NIC per link, in the order of its links */
	cr_assert_str_eq(t->links[3].name, "gpu3/nic0-tor1");
	cr_assert_str_eq(t->links[4].name, "gpu3/nic1-tor0");
	cr_assert_eq(node_of(t, "gpu3"), node_of(t, "gpu3/nic0"));
	cr_assert_eq(topo_find_host(t, "gpu3/nic1"), 4);
	cr_assert_eq(t->nodes[node_of(t, "gpu3/nic1")].n_ports, 1);
	topo_free(t);
}

Test(topology, shipped_files_connect_every_host)
{
	char dir[1024], rel[512];
	struct dirent *e;
	int files = 0;
	DIR *dp;

	snprintf(dir, sizeof(dir), "%s", ts_src("topologies"));
	dp = opendir(dir);
	cr_assert(dp);
	while ((e = readdir(dp))) {
		size_t n = strlen(e->d_name);
		struct topo_routes *r;
		struct topo *t;
		uint32_t a, b;

		if (n < 6 || strcmp(e->d_name + n - 5, ".yaml"))
			continue;
		snprintf(rel, sizeof(rel), "topologies/%s", e->d_name);
		t = build_file(rel);
		r = routes(t);
		check_routes_against_bfs(t, r);
		for (a = 0; a < t->n_hosts; a++)
			for (b = 0; b < t->n_hosts; b++)
				cr_assert_neq(topo_distance(r, t->hosts[a], b), UINT32_MAX, "%s",
					      rel);
		topo_routes_free(r);
		topo_free(t);
		files++;
	}
	closedir(dp);
	cr_assert_geq(files, 2);
}

/* topo_build must fail with -EINVAL and @path in the diag. */
static void expect_spec_error(const struct topo_spec *s, const char *path, const char *words)
{
	struct topo *t = (struct topo *)1;
	struct diag d;
	char buf[1024];

	memset(&d, 0, sizeof(d));
	cr_assert_eq(topo_build(s, &t, &d), -EINVAL);
	cr_assert_null(t);
	cr_assert_str_eq(d.path, path, "%s", diag_str(&d, buf, sizeof(buf)));
	cr_assert(strstr(d.msg, words), "%s", diag_str(&d, buf, sizeof(buf)));
}

Test(topology, impossible_specs)
{
	struct topo_spec s = spec_of(TOPO_FAT_TREE);

	s.k = 3;
	expect_spec_error(&s, "topology.k", "even");
	s.k = 0;
	expect_spec_error(&s, "topology.k", "even");
	s.k = 70000;
	expect_spec_error(&s, "topology.k", "65535");

	s = spec_of(TOPO_STAR);
	expect_spec_error(&s, "topology.hosts", "at least 1");
	s.hosts = 70000;
	expect_spec_error(&s, "topology.hosts", "65535");
	s.hosts = 4;
	s.link.rate_bps = 0;
	expect_spec_error(&s, "topology.link.rate", "positive");

	s = spec_of(TOPO_LEAF_SPINE);
	s.leaves = 2;
	s.hosts_per_leaf = 2;
	expect_spec_error(&s, "topology.spines", "at least 1");
	s.spines = 2;
	s.uplink.rate_bps = 0;
	expect_spec_error(&s, "topology.uplink.rate", "positive");
	s.uplink.rate_bps = 1;
	s.leaves = 40000;
	s.parallel = 2;
	expect_spec_error(&s, "topology.leaves", "65535");
	s.leaves = 60000;
	s.parallel = 1;
	s.hosts_per_leaf = 60000;
	expect_spec_error(&s, "topology.hosts_per_leaf", "too large");

	s = spec_of(TOPO_RING);
	s.hosts_per_switch = 1;
	expect_spec_error(&s, "topology.switches", "at least 1");
	s.switches = 3;
	s.hosts_per_switch = 0;
	expect_spec_error(&s, "topology.hosts_per_switch", "at least 1");

	s = spec_of(TOPO_FILE);
	expect_spec_error(&s, "topology.file", "path");
}

/* Loading @file must fail with @line, @path and @words in the diag. */
static void expect_file_error(const char *file, int line, const char *path, const char *words)
{
	struct topo_spec s = spec_of(TOPO_FILE);
	struct topo *t = NULL;
	struct diag d;
	char buf[1024];

	memset(&d, 0, sizeof(d));
	s.file = file;
	cr_assert_lt(topo_build(&s, &t, &d), 0, "%s loaded", file);
	cr_assert_null(t);
	diag_str(&d, buf, sizeof(buf));
	cr_assert_str_eq(d.file, file, "%s", buf);
	cr_assert_eq(d.line, line, "%s", buf);
	cr_assert_str_eq(d.path, path, "%s", buf);
	cr_assert(strstr(d.msg, words), "%s", buf);
}

static void expect_src_error(const char *rel, int line, const char *path, const char *words)
{
	char file[1024];

	snprintf(file, sizeof(file), "%s", ts_src(rel));
	expect_file_error(file, line, path, words);
}

/* Write @text to a temporary file and expect its error. */
static void expect_text_error(const char *text, int line, const char *path, const char *words)
{
	char file[] = "/tmp/rocesim-topo-XXXXXX";
	int fd = mkstemp(file);
	size_t len = strlen(text);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	expect_file_error(file, line, path, words);
	unlink(file);
}

Test(topology, file_errors_name_line_and_path)
{
	expect_src_error("tests/topo_unknown_node.yaml", 10, "links[2].b", "unknown node \"sw9\"");
	expect_src_error("tests/topo_duplicate.yaml", 10, "nodes[3].name",
			 "duplicate node name \"sw0\" (first at line 6)");
	expect_src_error("tests/topo_bad_unit.yaml", 8, "links[1].rate",
			 "\"100Gbs\" is not a rate");
	expect_src_error("tests/topo_unknown_key.yaml", 6, "nodes[1].speed",
			 "unknown key \"speed\" (expected name, kind, gpus)");
}

/* A file that cannot be read is the scenario's mistake: topology.file. */
Test(topology, missing_file_names_the_scenario_key)
{
	struct topo_spec s = spec_of(TOPO_FILE);
	struct topo *t = NULL;
	struct diag d;

	memset(&d, 0, sizeof(d));
	s.file = "/nonexistent/topo.yaml";
	cr_assert_eq(topo_build(&s, &t, &d), -ENOENT);
	cr_assert_null(t);
	cr_assert_str_eq(d.file, "");
	cr_assert_str_eq(d.path, "topology.file");
	cr_assert_str_eq(d.msg,
			 "cannot read \"/nonexistent/topo.yaml\": No such file or directory");
}

Test(topology, file_errors_inline)
{
	expect_text_error("nodes:\n"
			  "  - {name: h0, kind: host}\n"
			  "  - {name: sw0, kind: switch}\n"
			  "links:\n"
			  "  - {a: h0, b: sw0}\n"
			  "  - {a: sw0, b: sw0}\n",
			  6, "links[1].b", "to itself");
	expect_text_error("nodes:\n"
			  "  - {name: h0, kind: host}\n"
			  "  - {name: h1, kind: host}\n"
			  "  - {name: sw0, kind: switch}\n"
			  "links:\n"
			  "  - {a: h0, b: sw0}\n",
			  3, "nodes[1]", "host \"h1\" has no link");
	expect_text_error("nodes:\n"
			  "  - {name: sw0, kind: switch}\n"
			  "  - {name: sw1, kind: switch}\n"
			  "links:\n"
			  "  - {a: sw1, b: sw0}\n",
			  1, "nodes", "no host");
	expect_text_error(
	    "nodes:\n"
	    "  - {name: h0, kind: host}\n"
	    "  - {name: sw0123456789012345678901234567890123456789012345, kind: switch}\n"
	    "links: []\n",
	    3, "nodes[1].name", "longer than 47");
	expect_text_error("nodes:\n"
			  "  - {name: h0, kind: host}\n"
			  "  - {name: sw0, kind: swich}\n"
			  "links: []\n",
			  3, "nodes[1].kind", "\"swich\" is not one of: host, switch");
	expect_text_error("nodes:\n"
			  "  - {name: h0, kind: host}\n"
			  "  - {name: sw0, kind: switch}\n"
			  "links:\n"
			  "  - {a: h0, b: sw0, cable: 2m, delay: 1us}\n",
			  5, "links[0].delay", "not both");
	expect_text_error("nodes:\n"
			  "  - {name: h0, kind: host}\n"
			  "  - {name: sw0, kind: switch}\n"
			  "links:\n"
			  "  - {a: h0, b: sw0, cable: 2 meters}\n",
			  5, "links[0].cable", "not a length");
	expect_text_error("nodes:\n"
			  "  - {name: h0, kind: host}\n"
			  "  - {name: sw0, kind: switch}\n"
			  "links:\n"
			  "  - {a: h0, b: sw0}\n"
			  "  - {a: h0}\n",
			  6, "links[1]", "missing key \"b\"");
	expect_text_error("nodes:\n"
			  "  - {name: h0, kind: host}\n"
			  "  - {name: sw0, kind: switch}\n"
			  "links:\n"
			  "  - {a: h0, b: sw0, rate: {value: 100}}\n",
			  5, "links[0].rate", "expected a single value, found a mapping");
	expect_text_error("nodes:\n"
			  "  - {name: h0, kind: host\n"
			  "  - {name: sw0, kind: switch}\n",
			  3, "", "malformed YAML");
	expect_text_error("nodes:\n"
			  "  - {name: h0, kind: host}\n"
			  "  - {name: sw0, kind: switch}\n"
			  "link:\n"
			  "  - {a: h0, b: sw0}\n",
			  4, "link", "unknown key \"link\" (expected nodes, links)");
	expect_text_error("", 0, "", "empty");
}
