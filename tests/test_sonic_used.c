/*
 * What a SONiC config_db.json gives is what the switches use, report and
 * say: WRED thresholds per switch (a file per switch) reach results.json's
 * "effective" and "config" as each switch has them; a port whose lossless
 * queue has a WRED profile of its own marks with it; a CNP queue that
 * QUEUE gives a DWRR scheduler takes its DWRR turn (and check says
 * CNP_WEIGHTED), a STRICT one goes first; BUFFER_PROFILE xon is the PG's
 * XON floor, and an xon no XOFF limit can exceed is refused at its line;
 * a port whose admin_status is down is said (SONIC_ADMIN_DOWN); import
 * sonic says a port's own WRED profile and the xon.
 *
 * The samples in tests/sonic/ are in the layout `config save` writes
 * (sonic-cfggen --print-data: one JSON object of tables, keys sorted,
 * 4-space indent; the tables and fields as SONiC's doc/Configuration.md
 * describes them): wred-per-switch/ (a leaf with WRED 1 MB/2 MB, a spine
 * with 400 KB/1.6 MB), port-wred.json (Ethernet8's lossless queues on
 * their own WRED profile), cnp-strict.json (queue 6 on a STRICT
 * scheduler), xon-above-xoff.json (xon 99999999) and admin-down.json
 * (Ethernet12 down), each an edit of azure.json or per-switch/.
 */
#include <criterion/criterion.h>

#include <errno.h>
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
#include "topologies/topo.h"
#include "sim/readers/topo_read.h"

static void setup(void)
{
	ts_proc_setup("sonic-used");
}

TestSuite(sonic_used, .init = setup, .fini = ts_proc_teardown, .timeout = 120);

#define STAR4 "{kind: star, hosts: 4, link: {rate: 100Gbps, cable: 5m}}"
#define LEAF_SPINE                                                                                 \
	"{kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4, link: {rate: 100Gbps, "       \
	"cable: 5m}, uplink: {rate: 400Gbps, cable: 30m}}"

/* A scenario in the temporary folder: @topology, switch.sonic @sonic ("%s" the source root). */
static const char *scenario(const char *name, const char *topology, const char *sonic)
{
	const char *path = ts_tmp(name);
	char cwd[1024], son[4096];
	FILE *f = fopen(path, "w");

	cr_assert(f && getcwd(cwd, sizeof(cwd)));
	snprintf(son, sizeof(son), sonic, cwd, cwd, cwd, cwd);
	fprintf(f,
		"topology: %s\n"
		"switch: {sonic: %s}\n"
		"workload: {kind: incast, senders: 2, size: 200KB}\n",
		topology, son);
	fclose(f);
	return path;
}

static void build(const char *path, struct sim *sim)
{
	struct scenario *s;
	struct diag d = {0};

	cr_assert_eq(scn_load(path, NULL, 0, &s, &d), 0, "%s:%d: %s: %s", d.file, d.line, d.path,
		     d.msg);
	cr_assert_eq(sim_init(sim, s, &d), 0, "%s:%d: %s: %s", d.file, d.line, d.path, d.msg);
}

/* Run @path into "out-@tag" and load its results.json. */
static json_t *run_results(const char *path, const char *tag)
{
	char out[64];
	struct ts_proc p;
	json_error_t je;
	json_t *j;

	snprintf(out, sizeof(out), "out-%s", tag);
	ts_exec(&p, (const char *const[]){"run", path, "-o", ts_tmp(out), "-q", NULL});
	cr_assert_eq(p.code, 0, "run: %s", p.err);
	ts_proc_free(&p);
	snprintf(out, sizeof(out), "out-%s/results.json", tag);
	j = json_load_file(ts_tmp(out), 0, &je);
	cr_assert(j, "results.json: %s", je.text);
	return j;
}

static json_int_t num(const json_t *o, const char *path)
{
	char buf[256], *save = NULL;
	const json_t *v = o;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k && v; k = strtok_r(NULL, ".", &save))
		v = json_object_get(v, k);
	cr_assert(json_is_integer(v), "%s is no integer", path);
	return json_integer_value(v);
}

#define PER_SWITCH                                                                                 \
	"{leaf0: %s/tests/sonic/wred-per-switch/leaf.json, leaf1: "                                \
	"%s/tests/sonic/wred-per-switch/leaf.json, spine0: "                                       \
	"%s/tests/sonic/wred-per-switch/spine.json, spine1: "                                      \
	"%s/tests/sonic/wred-per-switch/spine.json}"

/* Each switch marks with its own file's WRED profile, in the model and in results.json. */
Test(sonic_used, per_switch_wred_is_used_and_reported)
{
	const char *path = scenario("per-switch.yaml", LEAF_SPINE, PER_SWITCH);
	const json_t *eff, *cfg;
	struct sim sim;
	struct sw_ecn e;
	json_t *j;

	build(path, &sim);
	sw_port_ecn(sim.scn->sw_node[topo_find_node(sim.topo, "leaf0")], 0, 100000000000ULL, &e);
	cr_assert_eq(e.kmin, 1000000);
	cr_assert_eq(e.kmax, 2000000);
	sw_port_ecn(sim.scn->sw_node[topo_find_node(sim.topo, "spine1")], 0, 400000000000ULL, &e);
	cr_assert_eq(e.kmin, 400000);
	cr_assert_eq(e.kmax, 1600000);
	sim_fini(&sim);

	j = run_results(path, "per-switch");
	eff = json_object_get(j, "effective");
	/* a tie of 2 and 2: the first switch in topology order's (leaf0) is the common one */
	cr_assert_eq(num(eff, "switch.ecn.kmin"), 1000000);
	cr_assert_eq(num(eff, "switch.ecn.kmax"), 2000000);
	cr_assert_null(json_object_get(json_object_get(eff, "switches"), "leaf1"));
	cr_assert_eq(num(eff, "switches.spine0.ecn.kmin"), 400000);
	cr_assert_eq(num(eff, "switches.spine1.ecn.kmax"), 1600000);
	cr_assert_eq(num(eff, "switches.spine1.pfc.headroom"), 20480);
	cfg = json_object_get(j, "config");
	cr_assert_eq(num(cfg, "ecn_kmin"), 1000000, "not the scenario's default 150 KB");
	cr_assert_eq(num(cfg, "ecn_kmax"), 2000000);
	cr_assert_eq(num(cfg, "switches.spine0.ecn_kmin"), 400000);
	cr_assert_eq(num(cfg, "switches.spine1.ecn_kmax"), 1600000);
	cr_assert_null(json_object_get(json_object_get(cfg, "switches"), "leaf1"));
	json_decref(j);
}

/* One file for every switch: effective.switch is the file's, and no per-switch blocks. */
Test(sonic_used, one_file_keeps_one_block)
{
	json_t *j = run_results(
	    scenario("one.yaml", LEAF_SPINE, "%s/tests/sonic/wred-per-switch/leaf.json"), "one");

	cr_assert_eq(num(json_object_get(j, "effective"), "switch.ecn.kmin"), 1000000);
	cr_assert_null(json_object_get(json_object_get(j, "effective"), "switches"));
	cr_assert_null(json_object_get(json_object_get(j, "config"), "switches"));
	cr_assert_eq(num(json_object_get(j, "config"), "ecn_kmax"), 2000000);
	json_decref(j);
}

/* Ethernet8 (sw0:h2) marks with its queue's own WRED profile; the others with the switch's. */
Test(sonic_used, a_ports_own_wred_profile_marks_its_queue)
{
	const char *path = scenario("port-wred.yaml", STAR4, "%s/tests/sonic/port-wred.json");
	const struct scenario *s;
	const json_t *port = NULL, *v;
	struct sim sim;
	struct sw_ecn e;
	size_t i;
	json_t *j;

	build(path, &sim);
	s = sim.scn;
	cr_assert_eq(s->sw.ecn.kmin, 1048576, "the switch: the profile of most ports");
	cr_assert_eq(s->sw.n_port_params, 4);
	cr_assert(s->sw.port_params[2].has_ecn);
	cr_assert_not(s->sw.port_params[1].has_ecn);
	sw_port_ecn(&s->sw, 2, 100000000000ULL, &e);
	cr_assert_eq(e.kmin, 200000);
	cr_assert_eq(e.kmax, 800000);
	cr_assert_float_eq(e.pmax, 0.10, 1e-9);
	sw_port_ecn(&s->sw, 3, 100000000000ULL, &e);
	cr_assert_eq(e.kmin, 1048576);
	sim_fini(&sim);

	j = run_results(path, "port-wred");
	json_array_foreach(json_object_get(json_object_get(j, "effective"), "ports"), i, v) {
		if (!strcmp(json_string_value(json_object_get(v, "port")), "sw0:h2"))
			port = v;
		else if (!strncmp(json_string_value(json_object_get(v, "port")), "sw0:", 4))
			cr_assert_null(json_object_get(v, "ecn"), "only sw0:h2 has its own");
	}
	cr_assert(port);
	cr_assert_eq(num(port, "ecn.kmin"), 200000);
	cr_assert_eq(num(port, "ecn.kmax"), 800000);
	cr_assert_eq(num(json_object_get(j, "config"), "ports.sw0:h2.ecn_kmin"), 200000);
	cr_assert_eq(num(json_object_get(j, "config"), "ecn_kmin"), 1048576);
	json_decref(j);
}

/* import sonic says the port's own WRED profile and the xon it takes. */
Test(sonic_used, import_says_the_ports_wred_and_the_xon)
{
	struct ts_proc p;

	ts_exec(&p, (const char *const[]){"import", "sonic", "tests/sonic/port-wred.json", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_assert(strstr(p.out, "# Ethernet8 (port 2): ecn kmin 200000, kmax 800000 (WRED_PROFILE "
				"AZURE_LOSSLESS_SHALLOW on QUEUE|Ethernet8|3)"),
		  "%s", p.out);
	cr_assert(strstr(p.out, "  # xon 18432: XON no lower than this beside xon_offset"), "%s",
		  p.out);
	ts_proc_free(&p);
}

/* azure.json gives queue 6 (the CNPs') DWRR: weighted, and said; cnp-strict.json: STRICT. */
Test(sonic_used, a_dwrr_cnp_queue_is_weighted_and_said)
{
	struct sim a, b;
	struct ts_proc p;

	build(scenario("dwrr.yaml", STAR4, "%s/tests/sonic/azure.json"), &a);
	cr_assert_eq(a.scn->sw.sched, SW_SCHED_DWRR);
	cr_assert_eq(a.scn->sw.cnp_weighted, 1);
	sim_fini(&a);
	build(scenario("strict.yaml", STAR4, "%s/tests/sonic/cnp-strict.json"), &b);
	cr_assert_eq(b.scn->sw.sched, SW_SCHED_DWRR, "the other queues stay DWRR");
	cr_assert_eq(b.scn->sw.cnp_weighted, 0);
	sim_fini(&b);

	ts_exec(&p, (const char *const[]){"check", ts_tmp("dwrr.yaml"), NULL});
	cr_assert(strstr(p.out, "warning CNP_WEIGHTED Ethernet0 (sw0:h0), Ethernet4 (sw0:h1), "
				"Ethernet8 (sw0:h2), Ethernet12 (sw0:h3); "),
		  "%s", p.out);
	cr_assert(strstr(p.out, "tests/sonic/azure.json:"), "%s", p.out);
	cr_assert(strstr(p.out, " QUEUE|Ethernet0|6|scheduler DWRR, weight 14: CNPs (TC 6"), "%s",
		  p.out);
	ts_proc_free(&p);
	ts_exec(&p, (const char *const[]){"check", ts_tmp("strict.yaml"), NULL});
	cr_assert_null(strstr(p.out, "CNP_WEIGHTED"), "%s", p.out);
	ts_proc_free(&p);
}

/*
 * The switch model: two flows of 1 MB into h2, on class 6 (DSCP 48) and
 * class 1 (DSCP 8), DWRR with equal weights. Class 6 served first: it is
 * done after its own 1 MB, about half the time of the other; weighted,
 * the two share the port and end together.
 */
static void two_classes(uint8_t cnp_weighted, simtime_t *f6, simtime_t *f1)
{
	struct wl_flow flows[2] = {
	    {.src = 0, .dst = 2, .bytes = 1000000, .dscp = 48, .priority = 6},
	    {.src = 1, .dst = 2, .bytes = 1000000, .dscp = 8, .priority = 1},
	};
	struct net_params p = {
	    .seed = 1,
	    .sw = {.buffer = 32000000,
		   .lossless = 1u << 3,
		   .cnp_priority = 6,
		   .pfc = {.enabled = 1, .xoff = 1000000, .headroom = 100000, .quanta = 0xffff},
		   .sched = SW_SCHED_DWRR,
		   .cnp_weighted = cnp_weighted},
	    .nic = {.mtu = 1000,
		    .priority = 3,
		    .dscp = 26,
		    .pfc = 1u << 3,
		    .cc = NIC_CC_NONE,
		    .ack_every = 1000,
		    .timeout = SIMTIME_S},
	    .wl = {.flows = flows, .n_flows = 2},
	};
	const struct topo_spec spec = {
	    .kind = TOPO_STAR, .hosts = 3, .link = {.rate_bps = 100000000000ULL, .delay = 10000}};
	struct diag d = {0};
	struct topo *t;
	struct evq *q = evq_new();
	struct net *n;

	cr_assert(q);
	for (int i = 0; i < 64; i++)
		p.sw.dscp_to_tc[i] = (uint8_t)(i >> 3);
	for (int i = 0; i < 8; i++)
		p.sw.weights[i] = 1;
	dcqcn_params_default(&p.nic.dcqcn, DCQCN_MLX5);
	cr_assert_eq(topo_build(&spec, &t, &d), 0);
	cr_assert_eq(net_build(&p, t, q, &n, &d), 0, "%s", d.msg);
	while (!net_done(n) && evq_step(q))
		cr_assert_eq(n->ctx.error, 0);
	cr_assert(net_done(n));
	*f6 = n->flows[0].finish;
	*f1 = n->flows[1].finish;
	net_free(n);
	topo_free(t);
	evq_free(q);
}

Test(sonic_used, a_weighted_cnp_queue_shares_the_port)
{
	simtime_t s6, s1, w6, w1;

	two_classes(0, &s6, &s1);
	two_classes(1, &w6, &w1);
	cr_assert_lt(s6 * 10, s1 * 6, "strict: class 6 first (%llu ps, class 1 %llu ps)",
		     (unsigned long long)s6, (unsigned long long)s1);
	cr_assert_gt(w6 * 10, w1 * 9, "weighted: together (%llu ps, class 1 %llu ps)",
		     (unsigned long long)w6, (unsigned long long)w1);
	cr_assert_lt(w6 * 10, w1 * 11);
}

/* xon is the PG's XON floor; one no XOFF limit can reach is refused at its line. */
Test(sonic_used, xon_is_the_xon_floor_and_checked)
{
	struct scenario *s;
	struct diag d = {0};
	struct sim sim;

	build(scenario("xon.yaml", STAR4, "%s/tests/sonic/azure.json"), &sim);
	cr_assert_eq(sim.scn->sw.pfc.xon_floor, 18432);
	cr_assert_eq(sim.scn->sw.pfc.xon_offset, 2496);
	cr_assert_not(sim.scn->sw.pfc.has_xon);
	sim_fini(&sim);
	cr_assert_eq(scn_load(scenario("xon-bad.yaml", STAR4, "%s/tests/sonic/xon-above-xoff.json"),
			      NULL, 0, &s, &d),
		     -EINVAL);
	cr_assert(strstr(d.file, "tests/sonic/xon-above-xoff.json"), "%s", d.file);
	cr_assert_eq(d.line, 67);
	cr_assert_str_eq(d.path, "BUFFER_PROFILE|pg_lossless_100000_300m_profile|xon");
	cr_assert(strstr(d.msg, "xon (99999999 B) must be below the largest XOFF limit"), "%s",
		  d.msg);
}

/* A port PORT gives admin_status down is said, with the link to fail. */
Test(sonic_used, an_admin_down_port_is_said)
{
	struct ts_proc p;

	ts_exec(&p,
		(const char *const[]){
		    "check", scenario("down.yaml", STAR4, "%s/tests/sonic/admin-down.json"), NULL});
	cr_assert(strstr(p.out, "warning SONIC_ADMIN_DOWN Ethernet12 (sw0:h3); "), "%s", p.out);
	cr_assert(strstr(p.out, "PORT|Ethernet12|admin_status down"), "%s", p.out);
	cr_assert(strstr(p.out, "faults: [{kind: link_down, link: "), "%s", p.out);
	ts_proc_free(&p);
}
