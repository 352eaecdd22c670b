/*
 * Server tests: servers with several NICs and GPUs on the generated kinds
 * (names, port counts, the server, NIC and GPU tables, lookups), the
 * rail-optimized kind (which leaf each NIC is on, groups of servers per
 * leaf, routes), multi-link hosts of topology files (dual-tor.yaml), the
 * scenario keys, and runs of `rocesim run` and `check` on such fabrics.
 */
#include <criterion/criterion.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/scenario.h"
#include "topologies/topo.h"
#include "proc.h"
#include "support.h"
#include "sim/readers/topo_read.h"

static void setup(void)
{
	ts_proc_setup("servers");
}

TestSuite(servers, .init = setup, .fini = ts_proc_teardown);

/* 400G everywhere, 30 m between switches */
static struct topo_spec spec_of(enum topo_kind kind)
{
	return ts_topo_spec(kind, 400000000000ULL, 400000000000ULL, 30000);
}

/* The server, NIC and GPU tables agree with each other and with the nodes. */
static void check_servers(const struct topo *t)
{
	uint32_t s, i, nics = 0, gpus = 0;

	for (s = 0; s < t->n_servers; s++) {
		const struct topo_server *sv = &t->servers[s];

		cr_assert_eq(sv->first_nic, nics, "%s", sv->name);
		cr_assert_eq(sv->first_gpu, gpus, "%s", sv->name);
		cr_assert_geq(sv->n_nics, 1);
		cr_assert_geq(sv->n_gpus, 1);
		for (i = 0; i < sv->n_nics; i++) {
			const struct topo_node *n = &t->nodes[t->hosts[t->server_nics[nics + i]]];
			char name[TOPO_NAME_MAX + 16];

			cr_assert_eq(n->kind, TOPO_HOST);
			cr_assert_eq(n->server, s);
			cr_assert_eq(n->nic, i);
			cr_assert_eq(n->n_ports, 1, "%s", n->name);
			if (sv->n_nics == 1)
				snprintf(name, sizeof(name), "%s", sv->name);
			else
				snprintf(name, sizeof(name), "%s/nic%u", sv->name, i);
			cr_assert_str_eq(n->name, name);
		}
		for (i = 0; i < sv->n_gpus; i++)
			cr_assert_eq(t->gpu_server[gpus + i], s);
		cr_assert_eq(topo_find_server(t, sv->name), (int32_t)s);
		nics += sv->n_nics;
		gpus += sv->n_gpus;
	}
	cr_assert_eq(nics, t->n_hosts);
	cr_assert_eq(gpus, t->n_gpus);
	for (i = 0; i < t->n_nodes; i++)
		if (t->nodes[i].kind == TOPO_SWITCH)
			cr_assert(t->nodes[i].server == UINT32_MAX &&
				  t->nodes[i].nic == UINT32_MAX);
}

static struct topo *build(const struct topo_spec *s)
{
	struct topo *t = ts_topo_read(s);

	check_servers(t);
	return t;
}

static void build_fails(const struct topo_spec *s, const char *path, const char *msg)
{
	struct topo *t = NULL;
	struct diag d = {.line = 0};
	char buf[1024];

	cr_assert_lt(topo_build(s, &t, &d), 0);
	cr_assert_null(t);
	diag_str(&d, buf, sizeof(buf));
	cr_assert_str_eq(d.path, path, "%s", buf);
	cr_assert(strstr(d.msg, msg), "%s", buf);
}

static int32_t node_of(const struct topo *t, const char *name)
{
	int32_t n = topo_find_node(t, name);

	cr_assert_geq(n, 0, "no node %s", name);
	return n;
}

/* The switch NIC @name is cabled to. */
static const char *switch_of(const struct topo *t, const char *name)
{
	const struct topo_node *n = &t->nodes[node_of(t, name)];

	cr_assert_eq(n->n_ports, 1);
	return t->nodes[t->ports[n->first_port].peer].name;
}

static void check_all_reachable(const struct topo *t)
{
	struct topo_routes *r = NULL;

	cr_assert_eq(topo_routes_build(t, &r), 0);
	for (uint32_t a = 0; a < t->n_hosts; a++)
		for (uint32_t b = 0; b < t->n_hosts; b++)
			cr_assert_neq(topo_distance(r, t->hosts[a], b), UINT32_MAX, "%s -> %s",
				      t->nodes[t->hosts[a]].name, t->nodes[t->hosts[b]].name);
	topo_routes_free(r);
}

Test(servers, one_nic_per_server_keeps_the_host_names)
{
	struct topo_spec s = spec_of(TOPO_STAR);
	struct topo *t;

	s.hosts = 3;
	t = build(&s);
	cr_assert_eq(t->n_servers, 3);
	cr_assert_eq(t->n_gpus, 3);
	cr_assert_str_eq(t->nodes[0].name, "h0");
	cr_assert_str_eq(t->servers[2].name, "h2");
	cr_assert_eq(topo_find_node(t, "h2"), 2);
	cr_assert_eq(topo_find_node(t, "h2/nic0"), 2);
	cr_assert_eq(topo_find_node(t, "h2/nic1"), -1);
	cr_assert_eq(topo_find_gpu(t, "h1/gpu0"), 1);
	cr_assert_eq(topo_find_gpu(t, "h1/gpu1"), -1);
	cr_assert_str_eq(t->links[0].name, "h0-sw0");
	topo_free(t);
}

Test(servers, leaf_spine_with_two_nics_and_eight_gpus_per_server)
{
	struct topo_spec s = spec_of(TOPO_LEAF_SPINE);
	struct topo *t;

	s.leaves = 2;
	s.spines = 2;
	s.hosts_per_leaf = 3;
	s.nics_per_host = 2;
	s.gpus_per_host = 8;
	t = build(&s);
	cr_assert_eq(t->n_servers, 6);
	cr_assert_eq(t->n_hosts, 12);
	cr_assert_eq(t->n_nodes, 16);
	cr_assert_eq(t->n_links, 12 + 4);
	cr_assert_eq(t->n_gpus, 48);
	cr_assert_str_eq(t->nodes[0].name, "h0/nic0");
	cr_assert_str_eq(t->nodes[3].name, "h1/nic1");
	cr_assert_str_eq(t->nodes[12].name, "leaf0");
	cr_assert_str_eq(t->nodes[14].name, "spine0");
	cr_assert_str_eq(t->links[7].name, "h3/nic1-leaf1");
	cr_assert_str_eq(t->ports[t->links[7].port_a].name, "h3/nic1:leaf1");
	cr_assert_str_eq(t->ports[t->links[7].port_b].name, "leaf1:h3/nic1");
	/* a leaf: hosts_per_leaf x 2 host ports, then its uplinks */
	cr_assert_eq(t->nodes[node_of(t, "leaf0")].n_ports, 3 * 2 + 2);
	cr_assert_eq(t->nodes[node_of(t, "spine1")].n_ports, 2);
	cr_assert_str_eq(switch_of(t, "h2/nic1"), "leaf0");
	cr_assert_str_eq(switch_of(t, "h3/nic0"), "leaf1");
	/* the server's name is its nic0 */
	cr_assert_eq(node_of(t, "h1"), node_of(t, "h1/nic0"));
	cr_assert_eq(topo_find_host(t, "h1"), 2);
	cr_assert_eq(topo_find_host(t, "h1/nic1"), 3);
	cr_assert_eq(topo_find_host(t, "h1/nic2"), -1);
	cr_assert_eq(topo_find_server(t, "h5"), 5);
	cr_assert_eq(topo_find_server(t, "h6"), -1);
	cr_assert_eq(topo_find_server(t, "h01"), -1);
	cr_assert_eq(topo_find_gpu(t, "h1/gpu7"), 15);
	cr_assert_eq(topo_find_gpu(t, "h1/gpu8"), -1);
	cr_assert_eq(topo_find_gpu(t, "h1/gpu07"), -1);
	cr_assert_eq(topo_find_gpu(t, "leaf0/gpu0"), -1);
	cr_assert_eq(t->gpu_server[15], 1);
	check_all_reachable(t);
	topo_free(t);
}

Test(servers, gpus_default_to_the_nic_count_on_every_generated_kind)
{
	struct topo_spec s = spec_of(TOPO_FAT_TREE);
	struct topo *t;

	s.k = 4;
	s.nics_per_host = 2;
	t = build(&s);
	cr_assert_eq(t->n_servers, 16);
	cr_assert_eq(t->n_hosts, 32);
	cr_assert_eq(t->n_gpus, 32);
	cr_assert_eq(t->nodes[node_of(t, "edge0_0")].n_ports, 2 * 2 + 2);
	cr_assert_str_eq(switch_of(t, "h1/nic1"), "edge0_0");
	cr_assert_str_eq(switch_of(t, "h2/nic0"), "edge0_1");
	topo_free(t);

	s = spec_of(TOPO_RING);
	s.switches = 3;
	s.hosts_per_switch = 2;
	s.nics_per_host = 3;
	t = build(&s);
	cr_assert_eq(t->n_hosts, 18);
	cr_assert_eq(t->nodes[node_of(t, "sw1")].n_ports, 2 * 3 + 2);
	cr_assert_str_eq(switch_of(t, "h2/nic2"), "sw1");
	topo_free(t);
}

Test(servers, rail_puts_nic_i_of_every_server_on_rail_i)
{
	struct topo_spec s = spec_of(TOPO_RAIL);
	struct topo_routes *r = NULL;
	struct topo *t;
	char name[32];

	s.servers = 4;
	s.gpus_per_host = 8;
	s.nics_per_host = 4;
	s.spines = 2;
	t = build(&s);
	cr_assert_eq(t->n_servers, 4);
	cr_assert_eq(t->n_gpus, 32);
	cr_assert_eq(t->n_hosts, 16);
	cr_assert_eq(t->n_switches, 4 + 2);
	cr_assert_eq(t->n_links, 16 + 4 * 2);
	cr_assert_str_eq(t->nodes[16].name, "leaf0");
	cr_assert_str_eq(t->nodes[20].name, "spine0");
	for (uint32_t sv = 0; sv < 4; sv++) {
		for (uint32_t nic = 0; nic < 4; nic++) {
			char leaf[16];

			snprintf(name, sizeof(name), "h%u/nic%u", sv, nic);
			snprintf(leaf, sizeof(leaf), "leaf%u", nic);
			cr_assert_str_eq(switch_of(t, name), leaf);
		}
	}
	for (uint32_t l = 0; l < 4; l++) {
		snprintf(name, sizeof(name), "leaf%u", l);
		cr_assert_eq(t->nodes[node_of(t, name)].n_ports, 4 + 2);
	}
	cr_assert_eq(t->nodes[node_of(t, "spine1")].n_ports, 4);
	cr_assert_geq(topo_find_link(t, "leaf3-spine1"), 0);
	check_all_reachable(t);
	cr_assert_eq(topo_routes_build(t, &r), 0);
	/* same rail: through its leaf; across rails: up to a spine */
	cr_assert_eq(topo_distance(r, (uint32_t)node_of(t, "h0/nic2"),
				   (uint32_t)topo_find_host(t, "h3/nic2")),
		     2);
	cr_assert_eq(topo_distance(r, (uint32_t)node_of(t, "h0/nic0"),
				   (uint32_t)topo_find_host(t, "h3/nic1")),
		     4);
	topo_routes_free(r);
	topo_free(t);
}

Test(servers, rail_groups_of_servers_per_leaf)
{
	struct topo_spec s = spec_of(TOPO_RAIL);
	struct topo *t;

	s.servers = 4;
	s.nics_per_host = 4;
	s.spines = 2;
	s.servers_per_leaf = 2;
	s.parallel = 2;
	t = build(&s);
	cr_assert_eq(t->n_switches, 8 + 2);
	cr_assert_eq(t->n_links, 16 + 8 * 2 * 2);
	cr_assert_str_eq(switch_of(t, "h0/nic3"), "leaf3");
	cr_assert_str_eq(switch_of(t, "h1/nic0"), "leaf0");
	cr_assert_str_eq(switch_of(t, "h2/nic1"), "leaf5");
	cr_assert_str_eq(switch_of(t, "h3/nic3"), "leaf7");
	cr_assert_eq(t->nodes[node_of(t, "leaf5")].n_ports, 2 + 2 * 2);
	cr_assert_eq(t->nodes[node_of(t, "spine0")].n_ports, 8 * 2);
	cr_assert_geq(topo_find_link(t, "leaf7-spine1#1"), 0);
	check_all_reachable(t);
	topo_free(t);

	/* one NIC per server: a leaf-spine */
	s = spec_of(TOPO_RAIL);
	s.servers = 4;
	s.spines = 1;
	s.servers_per_leaf = 2;
	t = build(&s);
	cr_assert_str_eq(t->nodes[0].name, "h0");
	cr_assert_str_eq(switch_of(t, "h2"), "leaf1");
	check_all_reachable(t);
	topo_free(t);
}

Test(servers, impossible_specs_name_the_key)
{
	struct topo_spec s = spec_of(TOPO_RAIL);

	s.servers = 64;
	s.spines = 2;
	s.servers_per_leaf = 48;
	build_fails(&s, "topology.servers_per_leaf", "must divide topology.servers (64)");
	s.servers_per_leaf = 0;
	s.spines = 0;
	build_fails(&s, "topology.spines", "must be at least 1");
	s.spines = 2;
	s.nics_per_host = 65;
	build_fails(&s, "topology.nics_per_host", "65 is out of range (1 to 64)");

	s = spec_of(TOPO_STAR);
	s.hosts = 2000;
	s.nics_per_host = 64;
	build_fails(&s, "topology.nics_per_host", "sw0 would have 128000 ports");
	s = spec_of(TOPO_LEAF_SPINE);
	s.leaves = 1;
	s.spines = 1;
	s.hosts_per_leaf = 1100;
	s.nics_per_host = 60;
	build_fails(&s, "topology.nics_per_host", "hosts_per_leaf x nics_per_host");
	s = spec_of(TOPO_STAR);
	s.hosts = 2;
	s.gpus_per_host = 65;
	build_fails(&s, "topology.gpus_per_host", "65 is out of range (1 to 64)");
}

Test(servers, a_host_with_several_links_in_a_file_is_a_server)
{
	struct topo_spec s = spec_of(TOPO_FILE);
	struct topo *t;

	s.file = ts_src("topologies/dual-tor.yaml");
	t = build(&s);
	cr_assert_eq(t->n_servers, 4);
	cr_assert_eq(t->n_hosts, 8);
	cr_assert_eq(t->n_gpus, 8);
	cr_assert_eq(t->n_nodes, 12);
	cr_assert_str_eq(t->nodes[0].name, "h0/nic0");
	cr_assert_str_eq(t->nodes[7].name, "h3/nic1");
	cr_assert_str_eq(t->nodes[8].name, "tor0");
	cr_assert_str_eq(t->links[1].name, "h0/nic1-tor1");
	cr_assert_str_eq(t->ports[t->links[1].port_b].name, "tor1:h0/nic1");
	cr_assert_str_eq(switch_of(t, "h2/nic0"), "tor0");
	cr_assert_str_eq(switch_of(t, "h2/nic1"), "tor1");
	cr_assert_eq(t->nodes[node_of(t, "tor0")].n_ports, 4 + 2);
	cr_assert_eq(node_of(t, "h3"), node_of(t, "h3/nic0"));
	cr_assert_eq(topo_find_gpu(t, "h3/gpu1"), 7);
	check_all_reachable(t);
	topo_free(t);
}

/* Write @text to a temporary topology file, load it; the error or 0. */
static int load_text(const char *text, struct topo **t, struct diag *d)
{
	const char *file = ts_tmp("topo.yaml");
	struct topo_spec s = spec_of(TOPO_FILE);
	FILE *f = fopen(file, "w");

	cr_assert(f);
	fputs(text, f);
	fclose(f);
	s.file = file;
	memset(d, 0, sizeof(*d));
	return topo_build(&s, t, d);
}

Test(servers, file_gpus_key_and_refusals)
{
	struct topo *t = NULL;
	struct diag d;

	cr_assert_eq(load_text("nodes:\n"
			       "  - {name: a, kind: host, gpus: 8}\n"
			       "  - {name: b, kind: host}\n"
			       "  - {name: sw, kind: switch}\n"
			       "links:\n"
			       "  - {a: a, b: sw}\n"
			       "  - {a: sw, b: a}\n"
			       "  - {a: b, b: sw}\n",
			       &t, &d),
		     0, "%s", d.msg);
	check_servers(t);
	cr_assert_eq(t->n_gpus, 9);
	cr_assert_eq(t->servers[0].n_nics, 2);
	cr_assert_str_eq(t->links[1].name, "sw-a/nic1");
	cr_assert_eq(topo_find_gpu(t, "b/gpu0"), 8);
	topo_free(t);
	t = NULL;

	cr_assert_lt(load_text("nodes:\n"
			       "  - {name: a, kind: host}\n"
			       "  - {name: sw/1, kind: switch}\n"
			       "links:\n"
			       "  - {a: a, b: sw/1}\n",
			       &t, &d),
		     0);
	cr_assert_eq(d.line, 3);
	cr_assert_str_eq(d.path, "nodes[1].name");
	cr_assert_str_eq(d.msg,
			 "node name \"sw/1\" may not contain '/' (NIC and GPU names use it)");

	/* a name the CSV outputs would have to quote, or a terminal escape */
	cr_assert_lt(load_text("nodes:\n"
			       "  - {name: a, kind: host}\n"
			       "  - {name: \"sw,1\", kind: switch}\n"
			       "links:\n"
			       "  - {a: a, b: \"sw,1\"}\n",
			       &t, &d),
		     0);
	cr_assert_eq(d.line, 3);
	cr_assert_str_eq(d.msg, "node name \"sw,1\" may not contain control characters, ',' or "
				"'\"' (the CSV outputs name nodes in their rows)");
	cr_assert_lt(load_text("nodes:\n"
			       "  - {name: a, kind: host}\n"
			       "  - {name: \"sw\\e[31m\", kind: switch}\n"
			       "links:\n"
			       "  - {a: a, b: \"sw\\e[31m\"}\n",
			       &t, &d),
		     0);
	cr_assert(strstr(d.msg, "node name \"sw\\x1b[31m\" may not contain"), "%s", d.msg);

	cr_assert_lt(load_text("nodes:\n"
			       "  - {name: a, kind: host}\n"
			       "  - {name: sw, kind: switch, gpus: 2}\n"
			       "links:\n"
			       "  - {a: a, b: sw}\n",
			       &t, &d),
		     0);
	cr_assert_eq(d.line, 3);
	cr_assert_str_eq(d.path, "nodes[1].gpus");

	cr_assert_lt(load_text("nodes:\n"
			       "  - {name: a, kind: host, gpus: 0}\n"
			       "  - {name: sw, kind: switch}\n"
			       "links:\n"
			       "  - {a: a, b: sw}\n",
			       &t, &d),
		     0);
	cr_assert_str_eq(d.path, "nodes[0].gpus");
	cr_assert_str_eq(d.msg, "\"0\" is not a GPU count (1 to 64)");
	cr_assert_null(t);
}

/* A scenario from @text: its topology spec, or the load error in @d. */
static int load_scenario(const char *text, struct scenario **s, struct diag *d)
{
	memset(d, 0, sizeof(*d));
	return scn_load_text("s.yaml", text, strlen(text), NULL, 0, s, d);
}

Test(servers, scenario_keys_and_their_defaults)
{
	struct scenario *s = NULL;
	struct diag d;

	cr_assert_eq(load_scenario("topology: {kind: rail, servers: 8, nics_per_host: 2, "
				   "gpus_per_host: 8, spines: 2, servers_per_leaf: 4}\n"
				   "workload: {kind: permutation, size: 1MB}\n",
				   &s, &d),
		     0, "%s", d.msg);
	cr_assert_eq(s->topo.kind, TOPO_RAIL);
	cr_assert_eq(s->topo.servers, 8);
	cr_assert_eq(s->topo.servers_per_leaf, 4);
	cr_assert_eq(s->topo.nics_per_host, 2);
	cr_assert_eq(s->topo.gpus_per_host, 8);
	cr_assert_eq(s->topo.nvlink_bps, 3600000000000ULL);
	cr_assert_eq(s->topo.nvlink_latency, SIMTIME_US);
	scn_free(s);
	s = NULL;

	cr_assert_eq(load_scenario("topology: {kind: star, hosts: 2, nics_per_host: 4, "
				   "nvlink: 1800Gbps, nvlink_latency: 500ns}\n"
				   "workload: {kind: permutation, size: 1MB}\n",
				   &s, &d),
		     0, "%s", d.msg);
	cr_assert_eq(s->topo.gpus_per_host, 4);
	cr_assert_eq(s->topo.nvlink_bps, 1800000000000ULL);
	cr_assert_eq(s->topo.nvlink_latency, 500 * SIMTIME_NS);
	scn_free(s);
	s = NULL;

	cr_assert_lt(
	    load_scenario("topology: {kind: rail, servers: 8, spines: 2, hosts: 3}\n", &s, &d), 0);
	cr_assert_str_eq(d.path, "topology.hosts");
	cr_assert_str_eq(d.msg, "does not apply to rail");
	cr_assert_lt(load_scenario("topology: {kind: star, hosts: 3, servers: 3}\n", &s, &d), 0);
	cr_assert_str_eq(d.path, "topology.servers");
	cr_assert_lt(load_scenario("topology: {kind: rail, spines: 2}\n", &s, &d), 0);
	cr_assert_str_eq(d.path, "topology.servers");
	cr_assert_str_eq(d.msg, "missing for a rail (it needs servers and spines)");
	cr_assert_lt(load_scenario("topology: {kind: star, hosts: 3, nvlink: fast}\n", &s, &d), 0);
	cr_assert_str_eq(d.path, "topology.nvlink");
	cr_assert_lt(load_scenario("topology: {kind: star, hosts: 3, gpus_per_host: 65}\n", &s, &d),
		     0);
	cr_assert_str_eq(d.path, "topology.gpus_per_host");
	cr_assert_null(s);
}

static json_t *results(const char *dir)
{
	char path[400];
	json_error_t e;
	json_t *j;

	snprintf(path, sizeof(path), "%s/results.json", dir);
	j = json_load_file(path, 0, &e);
	cr_assert(j, "%s: %s", path, e.text);
	return j;
}

Test(servers, an_incast_runs_on_dual_tor_hosts)
{
	const char *yaml = ts_tmp("dual-tor.yaml"), *out = ts_tmp("out");
	struct ts_proc p;
	FILE *f = fopen(yaml, "w");
	json_t *j, *hosts;

	cr_assert(f);
	fprintf(f,
		"name: dual-tor-incast\nstop: 10ms\n"
		"topology: {kind: file, file: %s}\n"
		"workload: {kind: incast, senders: 2, receiver: h3, size: 100KB}\n",
		ts_src("topologies/dual-tor.yaml"));
	fclose(f);
	ts_exec(&p, (const char *[]){"run", yaml, "-o", out, "--quiet", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	j = results(out);
	cr_expect_eq(ts_metric(j, "flows_done"), 2);
	cr_expect_eq(ts_metric(j, "bytes.received"), 200000);
	hosts = json_object_get(j, "hosts");
	cr_assert_eq(json_array_size(hosts), 8);
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(hosts, 1), "name")),
			 "h0/nic1");
	json_decref(j);
	ts_proc_free(&p);
}

Test(servers, check_and_run_take_a_rail_fabric)
{
	const char *yaml = ts_tmp("rail.yaml"), *out = ts_tmp("rail-out");
	struct ts_proc p;
	FILE *f = fopen(yaml, "w");
	json_t *j;

	cr_assert(f);
	fputs("name: rail\nstop: 10ms\n"
	      "topology: {kind: rail, servers: 4, nics_per_host: 4, gpus_per_host: 8, spines: 2,\n"
	      "           servers_per_leaf: 2, nvlink: 3600Gbps}\n"
	      "workload:\n  kind: flows\n  flows:\n"
	      "    - {src: h0, dst: h3/nic1, size: 100KB}\n"
	      "    - {src: h1/nic3, dst: h2/nic3, size: 100KB}\n",
	      f);
	fclose(f);
	ts_exec(&p, (const char *[]){"check", yaml, NULL});
	cr_assert_eq(p.code, 0, "%s%s", p.out, p.err);
	cr_expect(strstr(p.out, "check rail: 0 errors"), "%s", p.out);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"run", yaml, "-o", out, "--quiet", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	j = results(out);
	cr_expect_eq(ts_metric(j, "flows_done"), 2);
	cr_expect_str_eq(json_string_value(json_object_get(
			     json_array_get(json_object_get(j, "flows"), 0), "dst")),
			 "h3/nic1");
	json_decref(j);
	ts_proc_free(&p);
}

/* Faults name a server: pfc_storm on its nic0, node_down on all its NICs. */
Test(servers, faults_on_a_server_with_two_nics)
{
	char text[600];
	struct scenario *s = NULL;
	struct topo *t = NULL;
	struct diag d;

	snprintf(text, sizeof(text),
		 "topology: {kind: file, file: %s}\n"
		 "workload: {kind: incast, senders: 2, receiver: h3, size: 100KB}\n"
		 "faults:\n"
		 "  - {kind: node_down, node: h1, at: 1ms}\n"
		 "  - {kind: node_down, node: h2/nic1, at: 1ms}\n"
		 "  - {kind: pfc_storm, host: h3, at: 1ms}\n",
		 ts_src("topologies/dual-tor.yaml"));
	cr_assert_eq(load_scenario(text, &s, &d), 0, "%s", d.msg);
	cr_assert_eq(topo_build(&s->topo, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(scn_resolve(s, t, &d), 0, "%s", d.msg);
	cr_assert_eq(s->n_faults, 2 + 1 + 1);
	cr_assert_str_eq(t->links[s->faults[0].link].name, "h1/nic0-tor0");
	cr_assert_str_eq(t->links[s->faults[1].link].name, "h1/nic1-tor1");
	cr_assert_str_eq(t->links[s->faults[2].link].name, "h2/nic1-tor1");
	cr_assert_eq(s->faults[3].port, t->nodes[topo_find_node(t, "h3/nic0")].first_port);
	topo_free(t);
	scn_free(s);
}

/* An unknown host is named against the servers, not the NIC count. */
Test(servers, an_unknown_host_names_the_servers)
{
	static const char text[] =
	    "topology: {kind: rail, servers: 4, nics_per_host: 4, spines: 1}\n"
	    "workload: {kind: flows, flows: [{src: h0, dst: h4, size: 1MB}]}\n";
	struct scenario *s = NULL;
	struct topo *t = NULL;
	struct diag d;

	cr_assert_eq(load_scenario(text, &s, &d), 0, "%s", d.msg);
	cr_assert_eq(topo_build(&s->topo, &t, &d), 0, "%s", d.msg);
	cr_assert_lt(scn_resolve(s, t, &d), 0);
	cr_assert_str_eq(d.msg, "no host named \"h4\" (hosts are h0..h3)");
	topo_free(t);
	scn_free(s);
}
