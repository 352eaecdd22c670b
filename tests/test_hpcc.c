/*
 * HPCC ns-3's input files read directly: its topology file (topology kind
 * hpcc), its flow file (workload kind hpcc), good and malformed, to exact
 * values; and `rocesim import hpcc-topology|hpcc-flows`. The samples in
 * tests/hpcc/ are written as HPCC's simulation/mix/ files are. The shipped
 * experiment experiments/traffic/hpcc-websearch.yaml: its fabric is the HPCC
 * paper's 320-host fat-tree link by link, its file what its script writes,
 * `rocesim check` accepts it, and the load its seed offers.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/readers/hpcc_flows.h"
#include "sim/config/scenario.h"
#include "topologies/topo.h"
#include "proc.h"
#include "support.h"
#include "sim/readers/topo_read.h"

#define GBPS 1000000000ULL

static void setup(void)
{
	ts_proc_setup("hpcc");
}

TestSuite(hpcc, .init = setup, .fini = ts_proc_teardown);

/* ---- topology files -------------------------------------------------------------- */

Test(hpcc, topology_file_of_one_switch_and_four_hosts)
{
	struct topo_hpcc h;
	struct diag d = {0};
	char buf[1024];

	cr_assert_eq(topo_hpcc_read(ts_src("tests/hpcc/star.txt"), &h, &d), 0, "%s",
		     diag_str(&d, buf, sizeof(buf)));
	cr_assert_eq(h.n_nodes, 5);
	cr_assert_eq(h.n_switches, 1);
	cr_assert_eq(h.n_links, 4);
	for (uint32_t i = 0; i < 5; i++)
		cr_expect_eq(h.is_switch[i], i == 4, "node %u", i);
	for (uint32_t i = 0; i < 4; i++) {
		cr_expect_eq(h.links[i].a, i);
		cr_expect_eq(h.links[i].b, 4);
		cr_expect_eq(h.links[i].rate_bps, 100 * GBPS);
		cr_expect_eq(h.links[i].delay, 1000000, "0.001ms is 10^6 ps");
		cr_expect_eq(h.links[i].line, (int)i + 3);
	}
	topo_hpcc_free(&h);
}

Test(hpcc, two_tier_topology_builds_with_hpcc_names_and_rates)
{
	struct topo_spec spec = {.kind = TOPO_HPCC, .file = ts_src("tests/hpcc/two-tier.txt")};
	struct topo_routes *r;
	struct topo *t;
	struct diag d = {0};
	char buf[1024];
	int32_t l;

	cr_assert_eq(topo_build(&spec, &t, &d), 0, "%s", diag_str(&d, buf, sizeof(buf)));
	cr_assert_eq(t->n_nodes, 12);
	cr_assert_eq(t->n_hosts, 8);
	cr_assert_eq(t->n_switches, 4);
	cr_assert_eq(t->n_links, 12);
	cr_expect_str_eq(t->nodes[0].name, "h0");
	cr_expect_str_eq(t->nodes[7].name, "h7");
	cr_expect_str_eq(t->nodes[8].name, "s8");
	cr_expect_str_eq(t->nodes[11].name, "s11");
	cr_expect_eq(topo_find_host(t, "h5"), 5);
	l = topo_find_link(t, "s9-s11");
	cr_assert_geq(l, 0);
	cr_expect_eq(t->links[l].rate_bps, 400 * GBPS);
	cr_expect_eq(t->links[l].delay, 2000000);
	l = topo_find_link(t, "h4-s9");
	cr_assert_geq(l, 0);
	cr_expect_eq(t->links[l].rate_bps, 100 * GBPS);
	cr_expect_eq(t->links[l].delay, 1000000);
	cr_assert_eq(topo_routes_build(t, &r), 0);
	cr_expect_eq(topo_distance(r, 0, 7), 4, "h0 -> s8 -> spine -> s9 -> h7");
	cr_expect_eq(topo_distance(r, 0, 3), 2, "h0 -> s8 -> h3");
	topo_routes_free(r);
	topo_free(t);
}

/* @rel is refused at line @line with a message holding @want. */
static void topology_refused(const char *rel, int line, const char *want)
{
	struct topo_hpcc h;
	struct diag d = {0};

	cr_assert_eq(topo_hpcc_read(ts_src(rel), &h, &d), -EINVAL, "%s read", rel);
	cr_expect_eq(d.line, line, "%s: line %d, expected %d (%s)", rel, d.line, line, d.msg);
	cr_expect(strstr(d.file, rel), "%s: file %s", rel, d.file);
	cr_expect(strstr(d.msg, want), "%s: \"%s\" lacks \"%s\"", rel, d.msg, want);
}

Test(hpcc, malformed_topology_files_name_their_line)
{
	topology_refused("tests/hpcc/bad-count.txt", 6, "line 1 announces 5 links, the file has 4");
	topology_refused("tests/hpcc/bad-id.txt", 5, "dst 5 is out of range (node ids 0..4)");
	topology_refused("tests/hpcc/bad-rate.txt", 4, "rate \"100Gbsp\" is not a rate");
	topology_refused("tests/hpcc/bad-delay.txt", 5, "delay \"1\" is not a time");
	topology_refused("tests/hpcc/bad-dup-switch.txt", 2, "switch id 4 is listed twice");
}

Test(hpcc, topology_text_errors)
{
	static const struct {
		const char *text, *want;
		int line;
	} cases[] = {
	    {"5 1\n4\n", "expected \"node_num switch_num link_num\"", 1},
	    {"3 1 1\n2 1\n0 2 100Gbps 1us 0\n", "announces 1 switches, this line lists 2", 2},

	    {"3 1 1\n2\n0 2 100Gbps 1us 0.01\n", "only 0 is taken", 3},
	    {"3 1 1\n2\n0 0 100Gbps 1us 0\n", "to itself", 3},
	    {"3 1 1\n2\n0 x 100Gbps 1us 0\n", "dst \"x\" is not a node id", 3},
	    {"3 3 0\n0 1 2\n", "leave no host", 1},
	    {"3 1 1\n7\n0 2 100Gbps 1us 0\n", "switch id 7 is out of range", 2},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct topo_hpcc h;
		struct diag d = {0};

		cr_expect_eq(topo_hpcc_parse("t.txt", cases[i].text, strlen(cases[i].text), &h, &d),
			     -EINVAL, "case %zu", i);
		cr_expect_eq(d.line, cases[i].line, "case %zu: line %d (%s)", i, d.line, d.msg);
		cr_expect(strstr(d.msg, cases[i].want), "case %zu: %s", i, d.msg);
	}
}

/*
 * One set of rules for import, check and run: a host with two links and a
 * host with none are refused by all three at the same line (import and
 * check once passed both; run refused them, and a file imported by hand
 * ran as a server of two NICs).
 */
Test(hpcc, import_check_and_run_refuse_the_same_hosts)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"3 1 3\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n0 1 100Gbps 1us 0\n",
	     "t.txt:5: host 0 has a second link (its first on line 3)"},
	    {"4 1 3\n3\n0 3 100Gbps 1us 0\n1 3 100Gbps 1us 0\n0 1 100Gbps 1us 0\n",
	     "t.txt:5: host 0 has a second link (its first on line 3)"},
	    {"4 1 2\n3\n0 3 100Gbps 1us 0\n1 3 100Gbps 1us 0\n", "t.txt:1: host 2 has no link"},
	};
	const char *topo = ts_tmp("t.txt"), *scn = ts_tmp("t.yaml");
	FILE *f = fopen(scn, "w");

	cr_assert(f);
	fputs("topology: {kind: hpcc, file: t.txt}\n"
	      "workload: {kind: flows, flows: [{src: h0, dst: h1, size: 1MB}]}\n",
	      f);
	fclose(f);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *const verbs[][6] = {
		    {"import", "hpcc-topology", topo, NULL},
		    {"check", scn, NULL},
		    {"run", scn, "-o", ts_tmp("t-out"), "--quiet", NULL},
		};

		f = fopen(topo, "w");
		cr_assert(f);
		fputs(cases[i].text, f);
		fclose(f);
		for (size_t v = 0; v < 3; v++) {
			struct ts_proc p;

			ts_exec(&p, verbs[v]);
			cr_expect_eq(p.code, 2, "case %zu, %s: (%d) %s", i, verbs[v][0], p.code,
				     p.err);
			cr_expect(strstr(p.err, cases[i].want), "case %zu, %s: %s", i, verbs[v][0],
				  p.err);
			ts_proc_free(&p);
		}
	}
}

/* ---- flow files ------------------------------------------------------------------ */

Test(hpcc, flow_file_starts_exact_and_relative_to_the_earliest)
{
	struct hpcc_flows f;
	struct diag d = {0};
	char buf[1024];

	cr_assert_eq(hpcc_flows_read(ts_src("tests/hpcc/flow.txt"), "", &f, &d), 0, "%s",
		     diag_str(&d, buf, sizeof(buf)));
	cr_assert_eq(f.n, 3);
	cr_expect_eq(f.flows[0].src, 0);
	cr_expect_eq(f.flows[0].dst, 3);
	cr_expect_eq(f.flows[0].pg, 3);
	cr_expect_eq(f.flows[0].bytes, 1000000);
	cr_expect_eq(f.flows[0].start, 0);
	cr_expect_eq(f.flows[1].bytes, 500000);
	cr_expect_eq(f.flows[1].start, 1000000, "2.000001 s - 2 s = 1 us");
	cr_expect_eq(f.flows[2].pg, 1);
	cr_expect_eq(f.flows[2].bytes, 4096);
	cr_expect_eq(f.flows[2].start, 500, "2.0000000005 s - 2 s = 500 ps");
	cr_expect_eq(f.flows[2].line, 4);
	hpcc_flows_free(&f);
}

static void flows_refused(const char *text, int line, const char *want)
{
	struct hpcc_flows f;
	struct diag d = {0};

	cr_expect_eq(hpcc_flows_parse("f.txt", text, strlen(text), "workload.file", &f, &d),
		     -EINVAL, "%s", text);
	cr_expect_eq(d.line, line, "%s: line %d (%s)", text, d.line, d.msg);
	cr_expect_str_eq(d.path, "workload.file");
	cr_expect(strstr(d.msg, want), "%s: %s", text, d.msg);
}

Test(hpcc, malformed_flow_files_name_their_line)
{
	flows_refused("4\n0 3 3 100 1000 2\n1 3 3 100 1000 2\n", 3,
		      "the first line announces 4 flows, the file has 2");

	flows_refused("1\n0 3 3 100 -5 2\n", 2, "size \"-5\" is not a size");
	flows_refused("1\n0 3 3 100 1e6 2\n", 2, "size \"1e6\" is not a size");
	flows_refused("1\n0 3 3 100 1000 soon\n", 2, "start_time \"soon\" is not a time");
	flows_refused("1\n0 3 9 100 1000 2\n", 2, "pg \"9\" is not a priority group");
	flows_refused("1\n3 3 3 100 1000 2\n", 2, "to itself");
	flows_refused("1\n0 3 3 100 1000\n", 2, "expected \"src dst pg dport size start_time\"");
	flows_refused("x\n", 1, "expected the flow count");
}

/* ---- the workload on a topology ---------------------------------------------------- */

static struct scenario *resolve(const char *kind, const char *topo_key, const char *flows,
				const char *extra, struct topo **t)
{
	char yaml[2048], buf[1024];
	struct scenario *s;
	struct diag d = {0};

	snprintf(
	    yaml, sizeof(yaml),
	    "name: t\nstop: 1ms\ntopology: {kind: %s, %s}\nworkload: {kind: hpcc, file: %s%s}\n",
	    kind, topo_key, ts_src(flows), extra);
	cr_assert_eq(scn_load_text("test.yaml", yaml, strlen(yaml), NULL, 0, &s, &d), 0, "%s",
		     diag_str(&d, buf, sizeof(buf)));
	cr_assert_eq(topo_build(&s->topo, t, &d), 0, "%s", diag_str(&d, buf, sizeof(buf)));
	cr_assert_eq(scn_resolve(s, *t, &d), 0, "%s", diag_str(&d, buf, sizeof(buf)));
	return s;
}

Test(hpcc, flows_reach_the_hosts_named_by_id_on_their_pg)
{
	char key[300];
	struct topo *t;
	struct scenario *s;

	snprintf(key, sizeof(key), "file: %s", ts_src("tests/hpcc/star.txt"));
	s = resolve("hpcc", key, "tests/hpcc/flow.txt", "", &t);
	cr_assert_eq(s->wl.n_flows, 3);
	cr_expect_eq(s->wl.flows[0].src, 0);
	cr_expect_eq(s->wl.flows[0].dst, 3);
	cr_expect_eq(s->wl.flows[0].bytes, 1000000);
	cr_expect_eq(s->wl.flows[1].start, 1000000);
	cr_expect_eq(s->wl.flows[2].start, 500);
	cr_expect_eq(s->wl.flows[0].priority, 3);
	cr_expect_eq(s->wl.flows[0].dscp, 26, "pg 3 is nic.dscp's priority: its DSCP");
	cr_expect_eq(s->wl.flows[2].priority, 1);
	cr_expect_eq(s->wl.flows[2].dscp, 8, "the lowest DSCP the NIC maps to priority 1");
	scn_free(s);
	topo_free(t);
}

Test(hpcc, two_tier_flows_map_ids_to_hosts)
{
	char key[300];
	struct topo *t;
	struct scenario *s;

	snprintf(key, sizeof(key), "file: %s", ts_src("tests/hpcc/two-tier.txt"));
	s = resolve("hpcc", key, "tests/hpcc/two-tier-flow.txt", "", &t);
	cr_assert_eq(s->wl.n_flows, 2);
	cr_expect_eq(s->wl.flows[0].src, 0);
	cr_expect_eq(s->wl.flows[0].dst, 7);
	cr_expect_eq(s->wl.flows[1].src, 4);
	cr_expect_eq(s->wl.flows[1].dst, 1);
	cr_expect_eq(s->wl.flows[1].bytes, 10000);
	cr_expect_eq(s->wl.flows[0].start, 0);
	cr_expect_eq(s->wl.flows[1].start, 0);
	scn_free(s);
	topo_free(t);
}

Test(hpcc, on_another_topology_kind_ids_are_host_indices_after_start)
{
	struct topo *t;
	struct scenario *s =
	    resolve("star", "hosts: 4", "tests/hpcc/flow.txt", ", start: 10us", &t);

	cr_assert_eq(s->wl.n_flows, 3);
	cr_expect_eq(s->wl.flows[2].src, 2);
	cr_expect_eq(s->wl.flows[2].dst, 3);
	cr_expect_eq(s->wl.flows[2].start, 10000500, "after the workload's start");
	scn_free(s);
	topo_free(t);
}

Test(hpcc, a_run_on_hpcc_files_completes_every_flow)
{
	struct ts_proc p;
	const char *yaml = ts_tmp("run.yaml"), *out = ts_tmp("out");
	FILE *f = fopen(yaml, "w");
	json_t *j, *flows;
	json_error_t e;
	char res[400];

	cr_assert(f);
	fprintf(f,
		"name: hpcc-star\nstop: 10ms\ntopology: {kind: hpcc, file: %s}\n"
		"workload: {kind: hpcc, file: %s}\n",
		ts_src("tests/hpcc/star.txt"), ts_src("tests/hpcc/flow.txt"));
	fclose(f);
	ts_exec(&p, (const char *[]){"run", yaml, "-o", out, "--quiet", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	snprintf(res, sizeof(res), "%s/results.json", out);
	j = json_load_file(res, 0, &e);
	cr_assert(j, "%s", e.text);
	flows = json_object_get(j, "flows");
	cr_assert_eq(json_array_size(flows), 3);
	for (size_t i = 0; i < 3; i++) {
		json_t *fl = json_array_get(flows, i);

		cr_expect_eq(json_integer_value(json_object_get(fl, "received")),
			     json_integer_value(json_object_get(fl, "bytes")), "flow %zu", i);
	}
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(flows, 1), "src")), "h1");
	json_decref(j);
	ts_proc_free(&p);
}

/* ---- import ---------------------------------------------------------------------- */

Test(hpcc, import_prints_the_yaml_of_both_files)
{
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"import", "hpcc-topology", "tests/hpcc/star.txt", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_expect(strstr(p.out, "nodes:\n  - {name: h0, kind: host}\n"), "%s", p.out);
	cr_expect(strstr(p.out, "  - {name: s4, kind: switch}\nlinks:\n"), "%s", p.out);
	cr_expect(strstr(p.out, "  - {a: h3, b: s4, rate: 100Gbps, delay: 1us}\n"), "%s", p.out);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"import", "hpcc-flows", "tests/hpcc/flow.txt", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_expect(strstr(p.out, "workload:\n  kind: flows\n  flows:\n"), "%s", p.out);
	cr_expect(strstr(p.out, "    - {src: h1, dst: h3, size: 500000, start: 1us}    # pg 3\n"),
		  "%s", p.out);
	cr_expect(strstr(p.out, "    - {src: h2, dst: h3, size: 4096, start: 500ps}    # pg 1\n"),
		  "%s", p.out);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"import", "hpcc-flows", "tests/hpcc/bad-flow-size.txt", NULL});
	cr_expect_eq(p.code, 2);
	cr_expect_str_eq(p.err, "rocesim: tests/hpcc/bad-flow-size.txt:2: size \"-5\" is not a "
				"size in bytes above 0\n");
	ts_proc_free(&p);
}

/* HPCC's own flow.txt ends in notes after the announced flows; its
 * third.cc reads the count and that many flows, and so do we */
Test(hpcc, what_follows_the_announced_flows_and_links_is_not_read)
{
	/* read, the second link line would give host 0 a second link */
	static const char topo[] = "2 1 1\n1\n0 1 100Gbps 1us 0\n0 1 100Gbps 1us 0\nnotes\n";
	struct hpcc_flows f;
	struct diag d = {0};
	char buf[1024];

	cr_assert_eq(hpcc_flows_read(ts_src("tests/hpcc/flow-with-notes.txt"), "", &f, &d), 0, "%s",
		     diag_str(&d, buf, sizeof(buf)));
	cr_expect_eq(f.n, 3);
	cr_expect_eq(f.flows[2].start, 1000000, "2.000001 s - 2 s = 1 us");
	hpcc_flows_free(&f);
	/* a link line past the announced count is not read either */
	{
		struct topo_hpcc h;

		cr_assert_eq(topo_hpcc_parse("t.txt", topo, strlen(topo), &h, &d), 0, "%s",
			     diag_str(&d, buf, sizeof(buf)));
		cr_expect_eq(h.n_links, 1);
		topo_hpcc_free(&h);
	}
}

/* the switch ids' line is as long as the switches are many (56 in HPCC's fat.txt) */
Test(hpcc, a_switch_line_of_any_length_is_read)
{
	char text[4096];
	size_t n = (size_t)snprintf(text, sizeof(text), "301 300 1\n"), end;
	struct topo_hpcc h;
	struct diag d = {0};

	for (uint32_t id = 1; id <= 300; id++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, " %u", id);
	end = n;
	/* host 0's one link */
	snprintf(text + n, sizeof(text) - n, "\n0 1 100Gbps 1us 0\n");
	cr_assert_gt(strlen(text), 1000);
	cr_assert_eq(topo_hpcc_parse("t.txt", text, strlen(text), &h, &d), 0, "%s", d.msg);
	cr_expect_eq(h.n_switches, 300);
	cr_expect(!h.is_switch[0] && h.is_switch[1] && h.is_switch[300]);
	topo_hpcc_free(&h);
	/* the 300th id twice: named with its place on the line */
	memcpy(text + end - 3, "299", 3);
	cr_assert_eq(topo_hpcc_parse("t.txt", text, strlen(text), &h, &d), -EINVAL);
	cr_expect_eq(d.line, 2);
	cr_expect(strstr(d.msg, "switch id 299 is listed twice (ids 299 and 300 of the line)"),
		  "%s", d.msg);
}

/* ---- the shipped experiment: the HPCC paper's fat-tree ---------------------------- */

/* The neighbours of node @id (HPCC ids) into @nbr, sorted, their link rates into @rate. */
static uint32_t neighbours(const struct topo *t, uint32_t id, uint32_t *nbr, uint64_t *rate)
{
	const struct topo_node *n = &t->nodes[id];

	for (uint32_t i = 0; i < n->n_ports; i++) {
		const struct topo_port *p = &t->ports[n->first_port + i];

		nbr[i] = p->peer;
		rate[i] = t->links[p->link].rate_bps;
		cr_expect_eq(t->links[p->link].delay, 1000000, "%s: every link is 1 us", p->name);
	}
	for (uint32_t i = 1; i < n->n_ports; i++)
		for (uint32_t k = i; k > 0 && nbr[k - 1] > nbr[k]; k--) {
			uint32_t x = nbr[k];
			uint64_t r = rate[k];

			nbr[k] = nbr[k - 1];
			rate[k] = rate[k - 1];
			nbr[k - 1] = x;
			rate[k - 1] = r;
		}
	return n->n_ports;
}

/*
 * experiments/traffic/hpcc-websearch.yaml runs on hpcc-fat.txt, HPCC's
 * fat.txt: hosts 0..319, 16 a ToR (s320..s339) at 100G; pod p holds ToRs
 * 320+4p..323+4p and aggs 340+4p..343+4p, fully meshed at 400G; agg j of
 * every pod reaches cores 360+4j..363+4j; every link 1 us.
 */
Test(hpcc, the_websearch_experiment_is_the_papers_320_host_fat_tree)
{
	struct scenario *s;
	struct topo *t;
	struct diag d = {0};
	char buf[1024];
	uint32_t nbr[32];
	uint64_t rate[32];

	cr_assert_eq(scn_load(ts_src("experiments/traffic/hpcc-websearch.yaml"), NULL, 0, &s, &d),
		     0, "%s", diag_str(&d, buf, sizeof(buf)));
	cr_assert_eq(topo_build(&s->topo, &t, &d), 0, "%s", diag_str(&d, buf, sizeof(buf)));
	cr_assert_eq(t->n_nodes, 376);
	cr_assert_eq(t->n_hosts, 320);
	cr_assert_eq(t->n_switches, 56);
	cr_assert_eq(t->n_links, 480);
	for (uint32_t h = 0; h < 320; h++) {
		cr_assert_eq(t->nodes[h].kind, TOPO_HOST, "node %u", h);
		cr_assert_eq(neighbours(t, h, nbr, rate), 1, "h%u", h);
		cr_expect_eq(nbr[0], 320 + h / 16, "h%u's ToR", h);
		cr_expect_eq(rate[0], 100 * GBPS, "h%u", h);
	}
	for (uint32_t tor = 0; tor < 20; tor++) {
		uint32_t id = 320 + tor;

		cr_assert_eq(neighbours(t, id, nbr, rate), 20, "s%u: 16 hosts and 4 aggs", id);
		for (uint32_t i = 0; i < 16; i++)
			cr_expect(nbr[i] == 16 * tor + i && rate[i] == 100 * GBPS, "s%u port %u",
				  id, i);
		for (uint32_t a = 0; a < 4; a++)
			cr_expect(nbr[16 + a] == 340 + tor / 4 * 4 + a &&
				      rate[16 + a] == 400 * GBPS,
				  "s%u: the aggs of pod %u", id, tor / 4);
	}
	for (uint32_t agg = 0; agg < 20; agg++) {
		uint32_t id = 340 + agg;

		cr_assert_eq(neighbours(t, id, nbr, rate), 8, "s%u: 4 ToRs and 4 cores", id);
		for (uint32_t i = 0; i < 4; i++) {
			cr_expect_eq(nbr[i], 320 + agg / 4 * 4 + i, "s%u: the ToRs of its pod", id);
			cr_expect_eq(nbr[4 + i], 360 + agg % 4 * 4 + i, "s%u: its cores", id);
			cr_expect(rate[i] == 400 * GBPS && rate[4 + i] == 400 * GBPS, "s%u", id);
		}
	}
	for (uint32_t core = 0; core < 16; core++) {
		uint32_t id = 360 + core;

		cr_assert_eq(neighbours(t, id, nbr, rate), 5, "s%u: one agg a pod", id);
		for (uint32_t p = 0; p < 5; p++)
			cr_expect_eq(nbr[p], 340 + 4 * p + core / 4, "s%u", id);
	}
	topo_free(t);
	scn_free(s);
}

/* hpcc-fat.txt is what hpcc-fat.sh writes: the script is how the file is made */
Test(hpcc, the_fat_tree_file_is_what_its_script_writes)
{
	char *want = ts_slurp("experiments/traffic/hpcc-fat.txt"), got[1 << 16];
	size_t n = 0, k;
	FILE *f = popen("sh experiments/traffic/hpcc-fat.sh", "r");

	cr_assert(want && f);
	while (n < sizeof(got) - 1 && (k = fread(got + n, 1, sizeof(got) - 1 - n, f)) > 0)
		n += k;
	got[n] = '\0';
	cr_assert_eq(pclose(f), 0, "hpcc-fat.sh failed");
	cr_expect_str_eq(got, want);
	free(want);
}

/* the experiment passes `rocesim check` (its run is too long for the suite) */
Test(hpcc, check_accepts_the_websearch_experiment)
{
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"check", "experiments/traffic/hpcc-websearch.yaml", NULL});
	cr_expect_eq(p.code, 0, "%s%s", p.out, p.err);
	cr_expect(strstr(p.out, "0 errors, 0 warnings"), "%s", p.out);
	cr_expect(strstr(p.out, "0 cyclic components"), "%s", p.out);
	ts_proc_free(&p);
}

/*
 * The load seed 1 offers on the experiment (as docs/validation.md says): 3,539
 * flows of 6,232,705,223 bytes over 320 x 100 Gb/s x 5 ms = 20 GB, 31.16%,
 * 3.9% above the 30% asked. Not a flaw of the generator: 119 flows of
 * 10 MB and over where 3,539 x 3% = 106 are expected.
 */
Test(hpcc, the_websearch_experiment_offers_what_its_seed_draws)
{
	struct scenario *s;
	struct topo *t;
	struct diag d = {0};
	char buf[1024];
	uint32_t big = 0;

	cr_assert_eq(scn_load(ts_src("experiments/traffic/hpcc-websearch.yaml"), NULL, 0, &s, &d),
		     0, "%s", diag_str(&d, buf, sizeof(buf)));
	cr_assert_eq(topo_build(&s->topo, &t, &d), 0, "%s", diag_str(&d, buf, sizeof(buf)));
	cr_assert_eq(scn_resolve(s, t, &d), 0, "%s", diag_str(&d, buf, sizeof(buf)));
	cr_expect_eq(s->wl.n_flows, 3539);
	cr_expect_eq(s->wl.offered_bytes, 6232705223ULL);
	cr_expect_float_eq(s->wl.offered_capacity, 20e9, 1);
	for (uint32_t i = 0; i < s->wl.n_flows; i++)
		big += s->wl.flows[i].bytes >= 10000000;
	cr_expect_eq(big, 119);
	topo_free(t);
	scn_free(s);
}
