/*
 * The NIC's egress per traffic class: strict / ETS between classes and a
 * rate limit per class, from nic.tc or from what `mlnx_qos -i IF -a`
 * prints. tests/mlnx/ets-ratelimit.txt is written exactly in the layout
 * of mlnx-tools' mlnx_qos (python/mlnx_qos, pretty_print: tabs before
 * "prio:", "priority" and " priority:", "tc: %d ratelimit: %s, tsa: "
 * then "ets, bw: %s%%" or "strict", the rate as "%.1f Gbps" of the
 * kernel's maxrate, every class with -a), as after
 *   mlnx_qos -i IF --prio_tc 0,0,0,3,0,0,6,0
 *     --tsa ets,strict,strict,ets,strict,strict,strict,strict
 *     --tcbw 40,0,0,60,0,0,0,0 --ratelimit 0,0,0,150,0,0,0,0
 * Rates: a flow of 4096 B packets carries 4096 payload bytes in 4178 on
 * the wire (62 B of headers, 20 B of preamble and gap), so a port or a
 * class limited to R gives a flow R x 4096 / 4178 of payload.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "proc.h"
#include "sim/readers/mlnx.h"
#include "sim/config/scenario.h"
#include "sim/run/results.h"
#include "sim/run/sim.h"
#include "support.h"

#define SAMPLE "tests/mlnx/ets-ratelimit.txt"
/* payload over wire bytes of a full packet */
#define GOODPUT (4096.0 / 4178.0)

static void setup(void)
{
	ts_proc_setup("nictc");
}

TestSuite(nictc, .init = setup, .fini = ts_proc_teardown, .timeout = 120);

/* Run @yaml (with @sets) and return its results. */
static json_t *run(const char *yaml, const char *const *sets, size_t n_sets)
{
	struct sim sim;
	json_t *j;

	ts_load(yaml, sets, n_sets, &sim);
	j = ts_finish(&sim);
	sim_fini(&sim);
	return j;
}

/* The effective.nic.tc that results.json keeps for @yaml with @sets (a new reference). */
static json_t *nic_tc_of(const char *yaml, const char *const *sets, size_t n_sets)
{
	struct sim sim;
	json_t *j, *eff, *tc;

	ts_load(yaml, sets, n_sets, &sim);
	j = ts_finish(&sim);
	eff = res_effective(sim.scn, sim.topo);
	cr_assert_not_null(eff);
	tc = json_incref(json_object_get(json_object_get(eff, "nic"), "tc"));
	json_decref(eff);
	json_decref(j);
	sim_fini(&sim);
	return tc;
}

/* Flow @i's payload rate, Gb/s: its bytes over its completion time. */
static double flow_gbps(const json_t *j, size_t i, double *fct_us)
{
	const json_t *f = json_array_get(json_object_get(j, "flows"), i);
	double bytes = json_number_value(json_object_get(f, "bytes"));

	*fct_us = json_number_value(json_object_get(f, "fct_us"));
	cr_assert_gt(*fct_us, 0);
	return bytes * 8 / (*fct_us * 1e3);
}

/* A star of @hosts at @gbps with the sample as every NIC's mlnx_qos, and @flows. */
static const char *yaml_of(char *buf, size_t size, int hosts, int gbps, const char *flows)
{
	snprintf(buf, size,
		 "topology: {kind: star, hosts: %d, link: {rate: %dGbps, cable: 2m}}\n"
		 "nic: {mlnx_qos: %s}\n"
		 "workload: {kind: flows, flows: [%s]}\n",
		 hosts, gbps, ts_src(SAMPLE), flows);
	return buf;
}

Test(nictc, the_sample_reads_as_mlnx_qos_prints_it)
{
	struct mlnx_qos q;
	struct diag d = {0};
	static const uint8_t prio_tc[8] = {0, 0, 0, 3, 0, 0, 6, 0};

	cr_assert_eq(mlnx_qos_read(SAMPLE, &q, &d), 0, "%s", d.msg);
	cr_assert(q.has_tc);
	for (int tc = 0; tc < 8; tc++) {
		cr_assert_str_eq(q.tsa[tc], tc == 0 || tc == 3 ? "ets" : "strict", "tc %d", tc);
		cr_assert_eq(q.ratelimit[tc], tc == 3 ? 150000000000ULL : 0, "tc %d", tc);
	}
	cr_assert_eq(q.bw[0], 40);
	cr_assert_eq(q.bw[3], 60);
	cr_assert_eq(q.tc_line[3], 28);
	for (int p = 0; p < 8; p++)
		cr_assert_eq(q.prio_tc[p], prio_tc[p], "priority %d", p);
	cr_assert_eq(q.prio_tc_line[3], 29);
	cr_assert_eq(q.rx_line, 13);
	cr_assert_eq(q.cable_line, 14);
	cr_assert_eq(q.prio_buffer_line, 18);
}

Test(nictc, a_ratelimit_that_is_not_a_rate_in_gbps_is_refused_at_its_line)
{
	static const char text[] = "tc: 3 ratelimit: 150.0 Mbps, tsa: ets, bw: 60%\n";
	static const char half[] = "tc: 3 ratelimit: 12.5 Gbps, tsa: strict\n";
	struct mlnx_qos q;
	struct diag d = {0};

	cr_assert_eq(mlnx_qos_parse(text, sizeof(text) - 1, "q.txt", &q, &d), -EINVAL);
	cr_assert_eq(d.line, 1);
	cr_assert(strstr(d.msg, "150.0 Mbps") || strstr(d.msg, "150.0"), "%s", d.msg);
	cr_assert_eq(mlnx_qos_parse(half, sizeof(half) - 1, "q.txt", &q, &d), 0, "%s", d.msg);
	cr_assert_eq(q.ratelimit[3], 12500000000ULL);
}

/*
 * A 200G flow on tc 3, limited to 150.0 Gbps: it sends 150 Gb/s on the
 * wire (within 1 %), 150 x 4096 / 4178 = 147.06 Gb/s of payload, as it
 * would on a 150G link; without the limit, 196.07.
 */
Test(nictc, a_200g_flow_on_a_class_limited_to_150g_runs_at_150g)
{
	char y[1024];
	const char *unlimited[] = {"nic.tc.3.ratelimit=unlimited"};
	double fct, g;
	json_t *j;

	yaml_of(y, sizeof(y), 2, 200, "{src: h0, dst: h1, size: 20MB, dscp: 26}");
	j = run(y, NULL, 0);
	g = flow_gbps(j, 0, &fct);
	cr_assert(fabs(g / GOODPUT - 150.0) < 1.5, "wire rate %.2f Gb/s, not 150", g / GOODPUT);
	cr_assert(fabs(g - 150.0 * GOODPUT) < 0.5, "payload %.2f Gb/s, not 147.06", g);
	json_decref(j);
	/* the scenario's key wins over the file's */
	j = run(y, unlimited, 1);
	g = flow_gbps(j, 0, &fct);
	cr_assert(fabs(g - 200.0 * GOODPUT) < 1.0, "payload %.2f Gb/s, not 196.07", g);
	json_decref(j);
}

/*
 * Two equal flows from one NIC, tc 0 (DSCP 8, priority 1) at ETS 40 % and
 * tc 3 (DSCP 26) at 60 %, to two receivers: the NIC's port is the only
 * bottleneck. While both send, tc 3's flow gets 60 % of the port's payload
 * rate R and finishes at S / 0.6R; tc 0's gets 40 % meanwhile, then all of
 * it, finishing at 2S / R (the port never idles). At 100G and at 200G,
 * within 2 % (tc 3's 150 Gb/s limit is above 60 % of either).
 */
Test(nictc, two_classes_at_ets_40_60_share_a_saturated_port_40_60)
{
	static const int rates[] = {100, 200};
	const double s = 20e6 * 8; /* bits of each flow */

	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		double r = rates[i] * GOODPUT * 1e3; /* the port's payload rate, bit/us */
		double fct0, fct3, share0, share3;
		char y[1024];
		json_t *j;

		yaml_of(y, sizeof(y), 3, rates[i],
			"{src: h0, dst: h1, size: 20MB, dscp: 8}, "
			"{src: h0, dst: h2, size: 20MB, dscp: 26}");
		j = run(y, NULL, 0);
		flow_gbps(j, 0, &fct0);
		flow_gbps(j, 1, &fct3);
		share3 = s / fct3 / r;
		/* what tc 0 sent while tc 3 did, over that time */
		share0 = (s - (fct0 - fct3) * r) / fct3 / r;
		cr_assert(fabs(share3 - 0.60) < 0.012, "%dG: tc 3's share %.4f", rates[i], share3);
		cr_assert(fabs(share0 - 0.40) < 0.008, "%dG: tc 0's share %.4f", rates[i], share0);
		cr_assert(fabs(fct0 - 2 * s / r) / (2 * s / r) < 0.01, "%dG: %.1f us", rates[i],
			  fct0);
		json_decref(j);
	}
}

/* A strict class goes before an ETS one: its flow first, at the port's rate. */
Test(nictc, a_strict_class_is_served_before_the_ets_ones)
{
	static const char y[] =
	    "topology: {kind: star, hosts: 3, link: {rate: 100Gbps, cable: 2m}}\n"
	    "nic: {tc: {1: {tsa: strict}, 3: {tsa: ets, bw: 100%}}}\n"
	    "workload: {kind: flows, flows: [{src: h0, dst: h2, size: 10MB, dscp: 26},\n"
	    "  {src: h0, dst: h1, size: 10MB, dscp: 8}]}\n";
	double fct3, fct1, r = 100 * GOODPUT * 1e3;
	json_t *j = run(y, NULL, 0);

	flow_gbps(j, 0, &fct3);
	flow_gbps(j, 1, &fct1);
	cr_assert(fabs(fct1 - 80e6 / r) / (80e6 / r) < 0.01, "strict flow %.1f us", fct1);
	cr_assert(fabs(fct3 - 160e6 / r) / (160e6 / r) < 0.01, "ETS flow %.1f us", fct3);
	json_decref(j);
}

/* effective.nic.tc says what was used: the file's classes, a key over them. */
Test(nictc, effective_nic_tc_reports_the_classes_used)
{
	char y[1024];
	const char *sets[] = {"nic.tc.3.ratelimit=100Gbps"};
	json_t *tc, *c3, *c0;

	yaml_of(y, sizeof(y), 2, 200, "{src: h0, dst: h1, size: 1MB}");
	tc = nic_tc_of(y, sets, 1);
	cr_assert_eq(json_array_size(tc), 3, "classes 0, 3 and 6 hold priorities");
	c0 = json_array_get(tc, 0);
	c3 = json_array_get(tc, 1);
	cr_assert_eq(json_integer_value(json_object_get(c0, "tc")), 0);
	cr_assert_eq(json_array_size(json_object_get(c0, "priorities")), 6);
	cr_assert_str_eq(json_string_value(json_object_get(c0, "tsa")), "ets");
	cr_assert_eq(json_integer_value(json_object_get(c0, "bw")), 40);
	cr_assert(json_is_null(json_object_get(c0, "ratelimit_bps")));
	cr_assert_eq(json_integer_value(json_object_get(c3, "tc")), 3);
	cr_assert_eq(json_integer_value(json_object_get(c3, "bw")), 60);
	cr_assert_eq(json_integer_value(json_object_get(c3, "ratelimit_bps")), 100000000000LL);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(tc, 2), "tsa")),
			 "strict");
	json_decref(tc);
	/* no classes given: none reported, the NIC as before */
	cr_assert_null(
	    nic_tc_of("topology: {kind: star, hosts: 2}\n"
		      "workload: {kind: flows, flows: [{src: h0, dst: h1, size: 1MB}]}\n",
		      NULL, 0));
}

/* Write @text to @name in the temporary folder; its path. */
static const char *write_tmp(const char *name, const char *text)
{
	const char *path = ts_tmp(name);
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* check names each value of the sample it does not model, at its line. */
Test(nictc, check_says_what_mlnx_qos_gives_that_is_not_modelled)
{
	char y[1024];
	const char *path;
	struct ts_proc p;

	snprintf(y, sizeof(y),
		 "topology: {kind: star, hosts: 2, link: {rate: 200Gbps}}\n"
		 "nic: {mlnx_qos: %s, tc: {6: {tsa: vendor}}}\n"
		 "workload: {kind: flows, flows: [{src: h0, dst: h1, size: 1MB}]}\n",
		 ts_src(SAMPLE));
	path = write_tmp("said.yaml", y);
	ts_exec(&p, (const char *[]){"check", path, "--set", "nic.tc.3.bw=70%", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_assert(
	    ts_line_with(p.out, "MLNX_QOS_NOT_MODELLED", "ets-ratelimit.txt:13 Receive buffer"),
	    "%s", p.out);
	cr_assert(ts_line_with(p.out, "MLNX_QOS_NOT_MODELLED", "ets-ratelimit.txt:14 Cable len 7"),
		  "%s", p.out);
	cr_assert(ts_line_with(p.out, "MLNX_QOS_NOT_MODELLED", "ets-ratelimit.txt:18 PFC"), "%s",
		  p.out);
	cr_assert(ts_line_with(p.out, "NIC_TC_VENDOR", "nic.tc.6.tsa vendor"), "%s", p.out);
	cr_assert(ts_line_with(p.out, "warning NIC_TC_ETS_SUM", "sum to 110%"), "%s", p.out);
	ts_proc_free(&p);
}

/* nic.tc refuses what is not a class, a tsa, a share or a rate, naming the key. */
Test(nictc, bad_nic_tc_keys_are_refused_with_their_key)
{
	static const struct {
		const char *set, *says;
	} cases[] = {
	    {"nic.tc.8.tsa=ets", "nic.tc.8.tsa"},
	    {"nic.tc.3.tsa=wfq", "not one of: strict, ets, vendor"},
	    {"nic.tc.3.bw=101%", "not a whole percentage"},
	    {"nic.tc.3.ratelimit=fast", "neither a rate above 0"},
	    {"nic.tc.3.weight=5", "unknown key (expected one of: tsa, bw, ratelimit)"},
	    {"nic.tc.2.bw=10%", "a share applies to tsa: ets only"},
	};
	const char *path = write_tmp("bad.yaml", "topology: {kind: star, hosts: 2}\n"
						 "workload: {kind: flows, flows: [{src: h0, dst: "
						 "h1, size: 1MB}]}\n");

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ts_proc p;

		ts_exec(&p, (const char *[]){"run", path, "-o", ts_tmp("out"), "--quiet", "--set",
					     cases[i].set, NULL});
		cr_assert_eq(p.code, 2, "%s: exit %d", cases[i].set, p.code);
		cr_assert(strstr(p.err, cases[i].says), "%s: %s", cases[i].set, p.err);
		ts_proc_free(&p);
	}
}

/* import mlnx-qos prints the classes as nic.tc, each with its line and priorities. */
Test(nictc, import_prints_the_classes_as_nic_tc)
{
	struct ts_proc p;

	ts_exec(&p, (const char *[]){"import", "mlnx-qos", SAMPLE, NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	cr_assert(ts_line_with(p.out, "3: {tsa: ets, bw: 60%, ratelimit: 150Gbps}", "line 28"),
		  "%s", p.out);
	cr_assert(ts_line_with(p.out, "0: {tsa: ets, bw: 40%, ratelimit: unlimited}",
			       "priorities 0,1,2,4,5,7"),
		  "%s", p.out);
	cr_assert(ts_line_with(p.out, "6: {tsa: strict", "priorities 6"), "%s", p.out);
	ts_proc_free(&p);
}

/* A class's limit is for all its QPs together: two flows on tc 3 (150 Gb/s) share it. */
Test(nictc, the_limit_of_a_class_holds_the_sum_of_its_qps)
{
	char y[1024];
	double fct0, fct1, g0, g1;
	json_t *j;

	yaml_of(
	    y, sizeof(y), 3, 200,
	    "{src: h0, dst: h1, size: 10MB, dscp: 26}, {src: h0, dst: h2, size: 10MB, dscp: 26}");
	j = run(y, NULL, 0);
	g0 = flow_gbps(j, 0, &fct0);
	g1 = flow_gbps(j, 1, &fct1);
	/* round robin in the class: each half of 150 Gb/s on the wire */
	cr_assert(fabs(g0 + g1 - 150.0 * GOODPUT) < 1.5, "%.2f + %.2f Gb/s", g0, g1);
	cr_assert(fabs(g0 - g1) < 1.0, "%.2f and %.2f Gb/s", g0, g1);
	json_decref(j);
}
