/*
 * What a run tells its user beyond the numbers: the summary's first line
 * names the overlays and overrides it ran with; a what-if run given no -o
 * writes to a folder named for its changes, never over the results of the
 * scenario as it is; when retransmission timeouts fired, the summary and
 * results.json say which QP waited for them and how long; and the numbers
 * for people (units_show_time, units_show_size).
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "proc.h"
#include "sim/engine/units.h"
#include "sim/run/outdir.h"

static void setup(void)
{
	ts_proc_setup("summary");
}

TestSuite(summary, .init = setup, .fini = ts_proc_teardown, .timeout = 60);

/* A one-switch scenario named "w" with one 64 KB flow, written in the
 * temporary folder. */
static const char *tiny(void)
{
	const char *path = ts_tmp("w.yaml");
	FILE *f = fopen(path, "w");

	cr_assert(f);
	fputs("name: w\n"
	      "topology: {kind: star, hosts: 2}\n"
	      "workload: {kind: flows, flows: [{src: h0, dst: h1, size: 64KB}]}\n"
	      "output: {sample: 0}\n",
	      f);
	fclose(f);
	return path;
}

/* rocesim run @args... from the temporary folder (so that out/ lands there). */
static int run_in_tmp(const char *args, char **out)
{
	char cmd[2000];
	char *err = NULL;
	int code;

	snprintf(cmd, sizeof(cmd), "cd %s && %s run %s", ts_tmp(""), getenv("ROCESIM_BIN"), args);
	code = ts_sh(cmd, out, &err);
	cr_assert(err);
	free(err);
	return code;
}

static int exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

Test(summary, a_what_if_without_o_writes_beside_the_baseline_not_over_it)
{
	char args[600], *out = NULL;
	const char *scn = tiny();

	snprintf(args, sizeof(args), "%s -q", scn);
	cr_assert_eq(run_in_tmp(args, &out), 0);
	free(out);
	cr_assert(exists(ts_tmp("out/w/results.json")));

	snprintf(args, sizeof(args), "%s -q --set switch.ecn.kmin=100KB --seed 3", scn);
	cr_assert_eq(run_in_tmp(args, &out), 0);
	free(out);
	cr_expect(exists(ts_tmp("out/w+switch.ecn.kmin=100KB+seed=3/results.json")));

	/* the baseline's folder holds the baseline still: no overrides */
	{
		json_error_t e;
		json_t *j = json_load_file(ts_tmp("out/w/results.json"), 0, &e);

		cr_assert(j, "%s", e.text);
		cr_expect_eq(
		    json_array_size(json_object_get(json_object_get(j, "provenance"), "overrides")),
		    0);
		json_decref(j);
	}
}

Test(summary, the_default_folder_names_overlays_and_overrides_and_stays_short)
{
	char dir[OUTDIR_PATH], longv[200];
	const char *withs[] = {"exp/tight.yaml", "plain"};
	const char *sets[] = {"nic.dcqcn.rp_gd=7", "topology.links.a b=1/2"};
	const char *one[] = {longv};

	cr_assert_eq(outdir_default(dir, "s", NULL, 0, NULL, 0), 0);
	cr_expect_str_eq(dir, "out/s");
	cr_assert_eq(outdir_default(dir, "s", withs, 2, sets, 2), 0);
	cr_expect_str_eq(dir, "out/s+tight+plain+nic.dcqcn.rp_gd=7+topology.links.a_b=1_2");

	/* a long tag: its first 64 characters and 8 hex digits of its digest */
	memset(longv, 'k', sizeof(longv) - 1);
	longv[sizeof(longv) - 1] = '\0';
	cr_assert_eq(outdir_default(dir, "s", NULL, 0, one, 1), 0);
	cr_expect_eq(strlen(dir), strlen("out/s") + 64 + 9, "%s", dir);
	cr_expect_eq(dir[strlen("out/s") + 64], '+', "%s", dir);
}

Test(summary, the_first_line_names_the_overlays_and_overrides)
{
	char args[600], *out = NULL;
	const char *scn = tiny(), *ov = ts_tmp("ov.yaml");
	FILE *f = fopen(ov, "w");

	cr_assert(f);
	fputs("switch: {ecn: {kmin: 100KB}}\n", f);
	fclose(f);
	snprintf(args, sizeof(args), "%s -o o1 --with %s --set stop=1ms", scn, ov);
	cr_assert_eq(run_in_tmp(args, &out), 0);
	cr_expect(strstr(out, "scenario w (seed 1; with ") == out, "%s", out);
	cr_expect(strstr(out, "ov.yaml, --set stop=1ms): ") &&
		      strstr(out, "\n") > strstr(out, "stop=1ms"),
		  "%s", out);
	free(out);

	snprintf(args, sizeof(args), "%s -o o2", scn);
	cr_assert_eq(run_in_tmp(args, &out), 0);
	cr_expect(strstr(out, "scenario w (seed 1): ") == out, "%s", out);
	free(out);
}

/* A run stopped before any flow finished says so, not "FCT p50 0.000 us"
 * (results.json's FCTs are null then). */
Test(summary, no_flow_finished_is_said_not_printed_as_zero)
{
	char args[600], *out = NULL;

	snprintf(args, sizeof(args), "%s -o o3 --set stop=1us", tiny());
	cr_assert_eq(run_in_tmp(args, &out), 0);
	cr_expect(strstr(out, "  flows      0 of 1 done; FCT none finished\n"), "%s", out);
	cr_expect(!strstr(out, "FCT p50"), "%s", out);
	free(out);
}

/*
 * Eight senders into one at line rate through a 1 MB switch without PFC:
 * tail drops, and the tails of some flows lost with nothing behind them to
 * draw a NAK, so retransmission timeouts (16.8 ms each at timeout 12) end
 * the run. The QP named is the one with the most timeouts, its wait that
 * many timeouts, the count all the NICs' local_ack_timeout_err.
 */
Test(summary, retransmission_timeouts_say_which_qp_waited_and_how_long)
{
	char args[900], *out = NULL;
	json_error_t e;
	json_t *j, *rto, *hosts, *h;
	uint64_t sum = 0;
	size_t i;

	snprintf(args, sizeof(args),
		 "%s/experiments/incast-8to1.yaml -o rto --set switch.pfc.enabled=false "
		 "--set switch.buffer.size=1MB --set nic.cc=none --set nic.transport.timeout=12 "
		 "--set output.sample=0 --set expect.drops=-1 --set stop=1s",
		 getenv("ROCESIM_SRC"));
	run_in_tmp(args, &out);
	j = json_load_file(ts_tmp("rto/results.json"), 0, &e);
	cr_assert(j, "%s (%s)", e.text, out);
	rto = json_object_get(json_object_get(j, "summary"), "rc_timeouts");
	cr_assert(json_is_object(rto), "no rc_timeouts: %s", out);
	hosts = json_object_get(j, "hosts");
	json_array_foreach(hosts, i, h)
		sum += (uint64_t)json_integer_value(json_object_get(h, "local_ack_timeout_err"));
	cr_expect_eq((uint64_t)json_integer_value(json_object_get(rto, "timeouts")), sum);
	/* 4.096 us x 2^12 */
	cr_expect_float_eq(json_number_value(json_object_get(rto, "timeout_us")), 16777.216, 1e-6);
	cr_expect_float_eq(
	    json_number_value(json_object_get(rto, "qp_waited_us")),
	    16777.216 * (double)json_integer_value(json_object_get(rto, "qp_timeouts")), 1e-3);
	cr_expect_geq(json_integer_value(json_object_get(rto, "qp_timeouts")), 1);
	cr_expect_str_eq(json_string_value(json_object_get(rto, "qp_dst")), "h8");
	cr_expect(strstr(out, "  timeouts   ") && strstr(out, " RC timeout") &&
		      strstr(out, "(16.8 ms each)"),
		  "%s", out);
	json_decref(j);
	free(out);
}

Test(summary, a_run_without_timeouts_has_no_timeout_block)
{
	char args[600], *out = NULL;
	json_error_t e;
	json_t *j;

	snprintf(args, sizeof(args), "%s -o plain", tiny());
	cr_assert_eq(run_in_tmp(args, &out), 0);
	cr_expect(!strstr(out, "timeouts"), "%s", out);
	j = json_load_file(ts_tmp("plain/results.json"), 0, &e);
	cr_assert(j, "%s", e.text);
	cr_expect(!json_object_get(json_object_get(j, "summary"), "rc_timeouts"));
	json_decref(j);
	free(out);
}

Test(summary, numbers_for_people_take_the_unit_that_fits)
{
	char b[32];

	cr_expect_str_eq(units_show_time(4294967.296, b, sizeof(b)), "4.29 s");
	cr_expect_str_eq(units_show_time(4370, b, sizeof(b)), "4.37 ms");
	cr_expect_str_eq(units_show_time(812, b, sizeof(b)), "812 us");
	cr_expect_str_eq(units_show_time(12.5, b, sizeof(b)), "12.5 us");
	cr_expect_str_eq(units_show_time(0.25, b, sizeof(b)), "250 ns");
	cr_expect_str_eq(units_show_time(0, b, sizeof(b)), "0 us");
	cr_expect_str_eq(units_show_size(1152230, b, sizeof(b)), "1.15 MB");
	cr_expect_str_eq(units_show_size(900, b, sizeof(b)), "900 B");
	cr_expect_str_eq(units_show_size(1891483, b, sizeof(b)), "1.89 MB");
	cr_expect_str_eq(units_show_size(150000, b, sizeof(b)), "150 KB");
	cr_expect_str_eq(units_show_size(-2500, b, sizeof(b)), "-2.50 KB");
}
