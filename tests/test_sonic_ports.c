/*
 * SONiC configures a switch port by port: each port its PFC priorities
 * (PORT_QOS_MAP pfc_enable), the buffer profile of its lossless PGs
 * (BUFFER_PG), its DSCP map and its schedulers (QUEUE). The samples in
 * tests/sonic/ are config_db.json files in SONiC's own layout where ports
 * differ: read to exact values per port, carried into the switch model
 * per port (sw_params.port_params, port i of the switch = the i-th port by
 * the number in its name), reported by `check` by port name, and printed
 * by `import` as valid YAML with the ports that differ.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "proc.h"
#include "sim/config/scenario.h"
#include "sim/readers/sonic.h"

static void setup(void)
{
	ts_proc_setup("sonic-ports");
}

TestSuite(sonic_ports, .init = setup, .fini = ts_proc_teardown, .timeout = 120);

static int has(const char *out, const char *text)
{
	return strstr(out, text) != NULL;
}

/* How many times @text is in @out. */
static int count(const char *out, const char *text)
{
	int n = 0;

	for (const char *p = strstr(out, text); p; p = strstr(p + 1, text))
		n++;
	return n;
}

/*
 * A scenario in the temporary folder: @topology, switch.sonic @db (under
 * the source root) and @sw (more switch keys, "" or ", key: value"), then @extra.
 */
static const char *scenario_sw(const char *name, const char *topology, const char *db,
			       const char *sw, const char *extra)
{
	const char *path = ts_tmp(name);
	char cwd[1024];
	FILE *f = fopen(path, "w");

	cr_assert(f && getcwd(cwd, sizeof(cwd)));
	fprintf(f,
		"topology: %s\n"
		"switch: {sonic: %s/%s%s}\n"
		"workload: {kind: allreduce, size: 4MB}\n%s",
		topology, cwd, db, sw, extra);
	fclose(f);
	return path;
}

static const char *scenario(const char *name, const char *topology, const char *db,
			    const char *extra)
{
	return scenario_sw(name, topology, db, "", extra);
}

#define STAR8 "{kind: star, hosts: 8, link: {rate: 100Gbps, cable: 5m}}"

static void read_ok(const char *rel, struct sonic_cfg *c)
{
	struct diag d = {0};
	char buf[1024];
	int err = sonic_read(rel, c, &d);

	cr_assert_eq(err, 0, "%s: %d %s", rel, err, diag_str(&d, buf, sizeof(buf)));
}

/* Every port, in the order of the number in its name, with what it has of its own. */
Test(sonic_ports, each_port_is_read_with_its_own_values)
{
	static const char *const names[] = {"Ethernet0",  "Ethernet4",	"Ethernet8",  "Ethernet12",
					    "Ethernet16", "Ethernet20", "Ethernet24", "Ethernet28"};
	struct sonic_cfg *c = malloc(sizeof(*c));
	const struct sonic_port *p;

	cr_assert(c);
	read_ok("tests/sonic/ports-differ.json", c);
	cr_assert_eq(c->n_ports, 8);
	for (int i = 0; i < 8; i++)
		cr_assert_str_eq(c->ports[i].name, names[i]);
	/* the switch as most of its ports have it */
	cr_assert_eq(c->pfc_enable, 0x18);
	cr_assert_str_eq(c->profile, "pg_lossless_100000_5m_profile");
	cr_assert_eq(c->xoff, 43008);
	/* Ethernet8: PFC on none */
	p = &c->ports[2];
	cr_assert(p->has_pfc_enable);
	cr_assert_eq(p->pfc_enable, 0);
	cr_assert_gt(p->pfc_line, 0);
	cr_assert_eq(p->profile, -1, "no lossless PG, no lossless profile");
	/* Ethernet16: 400G with 20 KB of headroom */
	p = &c->ports[4];
	cr_assert_eq(p->speed_bps, 400000000000ULL);
	cr_assert_eq(p->cable_mm, 5000);
	cr_assert_eq(p->pfc_enable, 0x18);
	cr_assert_geq(p->profile, 0);
	cr_assert_str_eq(c->profiles[p->profile].name, "pg_lossless_400000_5m_profile");
	cr_assert_eq(c->profiles[p->profile].xoff, 20480);
	cr_assert_eq(c->profiles[p->profile].dynamic_th, 0);
	cr_assert_str_eq(p->pg_row, "Ethernet16|3-4");
	/* the others: the switch's */
	p = &c->ports[0];
	cr_assert_str_eq(c->profiles[p->profile].name, "pg_lossless_100000_5m_profile");
	cr_assert_eq(p->speed_bps, 100000000000ULL);
	cr_assert_str_eq(c->maps[p->dscp_map].name, "AZURE");
	cr_assert_eq(c->maps[p->dscp_map].to_tc[26], 3);
	/* schedulers: queues 3-4 DWRR 15, the others 14, queue 7 unset (SONiC's default) */
	cr_assert(p->dwrr);
	cr_assert_eq(p->weight[3], 15);
	cr_assert_eq(p->weight[0], 14);
	free(c);
}

/* The switch-wide value is the one most ports have, not the union. */
Test(sonic_ports, one_port_with_pfc_on_4_keeps_the_switch_and_the_profile)
{
	struct sonic_cfg *c = malloc(sizeof(*c));
	const struct sonic_port *p;

	cr_assert(c);
	read_ok("tests/sonic/pfc-enable-4.json", c);
	cr_assert_eq(c->pfc_enable, 1u << 3, "three ports of four: PFC on 3");
	cr_assert(c->has_profile);
	cr_assert_str_eq(c->profile, "pg_lossless_100000_300m_profile");
	cr_assert_eq(c->xoff, 165888);
	p = &c->ports[2];
	cr_assert_str_eq(p->name, "Ethernet8");
	cr_assert_eq(p->pfc_enable, 1u << 4);
	cr_assert_str_eq(c->profiles[p->profile].name, "ingress_lossy_profile");
	cr_assert_not(c->profiles[p->profile].has_xoff, "its lossless PG has no headroom");
	free(c);
}

/* Whether @text parses as YAML. */
static int valid_yaml(const char *text)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	int ok = 1, done = 0;

	cr_assert(yaml_parser_initialize(&parser));
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
	while (ok && !done) {
		ok = yaml_parser_parse(&parser, &ev);
		if (ok) {
			done = ev.type == YAML_STREAM_END_EVENT;
			yaml_event_delete(&ev);
		}
	}
	yaml_parser_delete(&parser);
	return ok;
}

Test(sonic_ports, import_prints_valid_yaml_and_the_ports_that_differ)
{
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"import", "sonic", "tests/sonic/pfc-enable-4.json", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_assert(valid_yaml(p.out), "%s", p.out);
	cr_assert(has(p.out, "  lossless: [3]"), "%s", p.out);
	cr_assert(has(p.out, "  pfc: {headroom: 165888,"), "%s", p.out);
	cr_assert(ts_line_with(p.out, "# Ethernet8", "lossless [4]"), "%s", p.out);
	cr_assert(ts_line_with(p.out, "# Ethernet8", "ingress_lossy_profile"), "%s", p.out);
	ts_proc_free(&p);

	ts_exec(&p, (const char *[]){"import", "sonic", "tests/sonic/ports-differ.json", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_assert(valid_yaml(p.out), "%s", p.out);
	cr_assert(ts_line_with(p.out, "# Ethernet8", "lossless []"), "%s", p.out);
	cr_assert(ts_line_with(p.out, "# Ethernet16", "headroom 20480"), "%s", p.out);
	cr_assert_not(has(p.out, "# Ethernet0 "), "%s", p.out);
	ts_proc_free(&p);
}

/* The acceptance case: Ethernet8 without PFC, Ethernet16 with 20 KB of headroom at 400G. */
Test(sonic_ports, check_names_each_port_that_breaks_the_lossless_path)
{
	struct ts_proc p;
	const char *s = scenario("differ.yaml", STAR8, "tests/sonic/ports-differ.json", "");
	const char *l;

	ts_exec(&p, (const char *[]){"check", s, NULL});
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	l = ts_line_with(p.out, "error DSCP_NOT_LOSSLESS Ethernet8 ", "pfc_enable");
	cr_assert(l, "%s", p.out);
	cr_assert(has(l, "sw0:h2"), "%s", l);
	l = ts_line_with(p.out, "error HEADROOM_SHORT Ethernet16 ", "20480");
	cr_assert(l, "%s", p.out);
	cr_assert(has(l, "sw0:h4"), "%s", l);
	cr_assert(has(l, "400 Gb/s"), "%s", l);
	cr_assert_not(ts_line_with(p.out, "Ethernet0 ", "error"), "%s", p.out);
	cr_assert_not(ts_line_with(p.out, "error DSCP_NOT_LOSSLESS switch", ""), "%s", p.out);
	ts_proc_free(&p);
}

Test(sonic_ports, check_names_every_port_short_of_headroom)
{
	struct ts_proc p;
	const char *s = scenario("half.yaml", STAR8, "tests/sonic/half-400g.json", "");
	const char *l;

	ts_exec(&p, (const char *[]){"check", s, NULL});
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	l = ts_line_with(p.out, "error HEADROOM_SHORT", "Ethernet16");
	cr_assert(l, "%s", p.out);
	cr_assert(has(l, "Ethernet20") && has(l, "Ethernet24") && has(l, "Ethernet28"), "%s", l);
	cr_assert_not(has(l, "Ethernet12"), "%s", l);
	ts_proc_free(&p);
}

Test(sonic_ports, check_names_a_port_with_another_dscp_map)
{
	struct ts_proc p;
	const char *s = scenario("map.yaml", STAR8, "tests/sonic/other-dscp-map.json", "");
	const char *l;

	ts_exec(&p, (const char *[]){"check", s, NULL});
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	l = ts_line_with(p.out, "error DSCP_NOT_LOSSLESS Ethernet4 ", "DSCP_TO_TC_MAP|AZURE|26");
	cr_assert(l, "%s", p.out);
	cr_assert(has(l, "sw0:h1"), "%s", l);
	cr_assert_eq(count(p.out, "DSCP_NOT_LOSSLESS"), 1,
		     "the other ports map DSCP 26 to TC 3: %s", p.out);
	cr_assert_not(ts_line_with(p.out, "DSCP_NOT_LOSSLESS", "Ethernet0 "), "%s", p.out);
	ts_proc_free(&p);
}

Test(sonic_ports, check_names_a_port_whose_lossless_pg_has_no_headroom)
{
	struct ts_proc p;
	const char *s =
	    scenario("pfc4.yaml", "{kind: star, hosts: 4, link: {rate: 100Gbps, cable: 5m}}",
		     "tests/sonic/pfc-enable-4.json", "nic: {dscp: 3, priority: 3}\n");
	const char *l;

	ts_exec(&p, (const char *[]){"check", s, NULL});
	cr_assert_eq(p.code, 1, "%s%s", p.out, p.err);
	l = ts_line_with(p.out, "Ethernet8 ", "ingress_lossy_profile");
	cr_assert(l, "%s", p.out);
	cr_assert(has(l, "error HEADROOM_SHORT"), "%s", l);
	ts_proc_free(&p);
}

/* buffer_model dynamic: the headroom SONiC would compute is said to be rocesim's. */
Test(sonic_ports, the_dynamic_buffer_model_is_said)
{
	struct ts_proc p;
	const char *s =
	    scenario("dyn.yaml", "{kind: star, hosts: 3, link: {rate: 100Gbps, cable: 40m}}",
		     "tests/sonic/dynamic.json", "");

	ts_exec(&p, (const char *[]){"import", "sonic", "tests/sonic/dynamic.json", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_assert(valid_yaml(p.out), "%s", p.out);
	cr_assert(ts_line_with(p.out, "# ", "buffer_model dynamic"), "%s", p.out);
	cr_assert_not(has(p.out, "size: 0"), "a pool without a size gives none: %s", p.out);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"check", s, NULL});
	cr_assert(ts_line_with(p.out, "SONIC_DYNAMIC_BUFFER", "BUFFER_PG|Ethernet0|3-4"), "%s%s",
		  p.out, p.err);
	ts_proc_free(&p);
}

/* The ports that differ reach the switch model: port i is the i-th port by number. */
Test(sonic_ports, the_ports_that_differ_reach_the_switch)
{
	struct scenario *s;
	struct diag d = {0};
	const char *path = scenario("model.yaml", STAR8, "tests/sonic/ports-differ.json", "");

	cr_assert_eq(scn_load(path, NULL, 0, &s, &d), 0, "%s", d.msg);
	cr_assert_eq(s->sw.lossless, 0x18);
	cr_assert_eq(s->sw.pfc.headroom, 43008);
	cr_assert_eq(s->sw.n_port_params, 8);
	cr_assert_eq(s->sw.port_params[2].lossless, 0, "Ethernet8");
	cr_assert_eq(s->sw.port_params[2].pfc.headroom, 43008);
	cr_assert_eq(s->sw.port_params[4].lossless, 0x18, "Ethernet16");
	cr_assert_eq(s->sw.port_params[4].pfc.headroom, 20480);
	cr_assert_eq(s->sw.port_params[4].pfc.dynamic_th, 0);
	cr_assert_eq(s->sw.port_params[0].pfc.headroom, 43008);
	cr_assert_eq(memcmp(s->sw.port_params[0].dscp_to_tc, s->sw.dscp_to_tc, 64), 0);
	scn_free(s);

	/* a key the scenario gives wins on every port */
	path = scenario_sw("model2.yaml", STAR8, "tests/sonic/ports-differ.json",
			   ", lossless: [3], pfc: {headroom: 100KB}", "");
	cr_assert_eq(scn_load(path, NULL, 0, &s, &d), 0, "%s", d.msg);
	cr_assert_eq(s->sw.lossless, 0x08);
	cr_assert_null(s->sw.port_params, "nothing left that differs");
	scn_free(s);
}

/* A config whose ports are all alike gives no table: every result as before. */
Test(sonic_ports, alike_ports_give_no_table)
{
	struct scenario *s;
	struct diag d = {0};
	const char *path = scenario("alike.yaml", STAR8, "experiments/configs/config_db.json", "");

	cr_assert_eq(scn_load(path, NULL, 0, &s, &d), 0, "%s", d.msg);
	cr_assert_null(s->sw.port_params);
	scn_free(s);
}
