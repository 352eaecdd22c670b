/*
 * rocesim plot of the DCQCN fluid model: fluid.png from the folder of
 * `rocesim fluid -o DIR` alone (only that picture), and from a folder into
 * which both a packet run and the fluid model wrote (the run's pictures
 * and fluid.png, the run's results.json kept by the fluid model, in either
 * order); a malformed fluid.json is one line and exit 2.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc.h"

static const char tiny_yaml[] = "name: tiny\n"
				"topology: {kind: star, hosts: 3}\n"
				"switch:\n"
				"  ecn: {kmin: 20KB, kmax: 200KB}\n"
				"nic: {cc: dcqcn}\n"
				"workload: {kind: incast, senders: 2, size: 1MB}\n"
				"output: {sample: 5us}\n";

static void setup(void)
{
	ts_proc_setup("plot_fluid");
}

TestSuite(plot_fluid, .init = setup, .fini = ts_proc_teardown, .timeout = 600);

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert(f, "cannot write %s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

static int exists(const char *path)
{
	return !access(path, F_OK);
}

/* Run rocesim @verb (run or fluid) on the tiny scenario into ts_tmp(@dir). */
static void tiny(const char *verb, const char *dir)
{
	char scn[300], out[300];
	struct ts_proc p;

	snprintf(scn, sizeof(scn), "%s", ts_tmp("tiny.yaml"));
	snprintf(out, sizeof(out), "%s", ts_tmp(dir));
	write_file(scn, tiny_yaml);
	if (!strcmp(verb, "fluid"))
		ts_exec(&p, (const char *const[]){"fluid", scn, "-o", out, "--quiet", "--duration",
						  "5ms", NULL});
	else
		ts_exec(&p, (const char *const[]){"run", scn, "-o", out, "--quiet", NULL});
	cr_assert_eq(p.code, 0, "rocesim %s failed (%d): %s", verb, p.code, p.err);
	ts_proc_free(&p);
}

/* plot ts_tmp(@dir) [@opt]: exit 0; returns what it printed (to free). */
static char *plot_ok(const char *dir, const char *opt)
{
	char out[300];
	struct ts_proc p;
	char *printed;

	snprintf(out, sizeof(out), "%s", ts_tmp(dir));
	ts_exec(&p, (const char *const[]){"plot", out, opt, NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	printed = p.out;
	p.out = NULL;
	ts_proc_free(&p);
	return printed;
}

Test(plot_fluid, a_fluid_models_folder_gets_fluid_png_alone)
{
	char *printed;

	tiny("fluid", "f");
	printed = plot_ok("f", NULL);
	ts_assert_png(ts_tmp("f/fluid.png"));
	cr_expect(strstr(printed, "fluid.png\n"), "fluid.png not listed: %s", printed);
	cr_expect(!strstr(printed, "queues.png"), "a fluid-only folder drew queues.png");
	cr_expect(!exists(ts_tmp("f/queues.png")));
	cr_expect(!exists(ts_tmp("f/flows.png")));
	free(printed);
}

Test(plot_fluid, fluid_json_without_results_json_gets_fluid_png)
{
	tiny("fluid", "f");
	cr_assert_eq(unlink(ts_tmp("f/results.json")), 0);
	free(plot_ok("f", NULL));
	ts_assert_png(ts_tmp("f/fluid.png"));
}

/* A run then the fluid model into one folder: the run's results.json stays. */
Test(plot_fluid, a_run_and_the_fluid_model_in_one_folder_draw_both)
{
	char *res, *printed;

	tiny("run", "both");
	tiny("fluid", "both");
	res = ts_slurp(ts_tmp("both/results.json"));
	cr_assert(res);
	cr_expect(strstr(res, "\"switches\""), "the fluid model replaced the run's results.json");
	cr_expect(!strstr(res, "\"model\": \"fluid\""));
	free(res);
	printed = plot_ok("both", "--svg");
	ts_assert_png(ts_tmp("both/queues.png"));
	ts_assert_png(ts_tmp("both/flows.png"));
	ts_assert_png(ts_tmp("both/fluid.png"));
	cr_expect(exists(ts_tmp("both/fluid.svg")));
	cr_expect(strstr(printed, "fluid.png\n") && strstr(printed, "queues.png\n"), "%s", printed);
	free(printed);
}

/* The fluid model then a run: the run's results.json, fluid.json beside it. */
Test(plot_fluid, the_fluid_model_then_a_run_draw_both)
{
	tiny("fluid", "both");
	tiny("run", "both");
	free(plot_ok("both", NULL));
	ts_assert_png(ts_tmp("both/queues.png"));
	ts_assert_png(ts_tmp("both/fluid.png"));
}

/* A run's folder without fluid.json: no fluid.png, a stale one removed. */
Test(plot_fluid, a_run_without_fluid_json_has_no_fluid_png)
{
	char *printed;

	tiny("run", "r");
	write_file(ts_tmp("r/fluid.png"), "stale");
	printed = plot_ok("r", NULL);
	cr_expect(!strstr(printed, "fluid.png"));
	cr_expect(!exists(ts_tmp("r/fluid.png")), "a stale fluid.png was left");
	free(printed);
}

static void bad_fluid_json(const char *text, const char *want)
{
	struct ts_proc p;
	char out[300], path[320];
	int lines = 0;

	tiny("fluid", "bad");
	snprintf(out, sizeof(out), "%s", ts_tmp("bad"));
	snprintf(path, sizeof(path), "%s/fluid.json", out);
	write_file(path, text);
	ts_exec(&p, (const char *const[]){"plot", out, NULL});
	cr_expect_eq(p.code, 2, "exit %d for %s", p.code, text);
	for (const char *c = p.err; *c; c++)
		lines += *c == '\n';
	cr_expect_eq(lines, 1, "not one line: %s", p.err);
	cr_expect(strstr(p.err, "fluid.json"), "the file is not named: %s", p.err);
	cr_expect(strstr(p.err, want), "\"%s\" not said: %s", want, p.err);
	cr_expect(!exists(ts_tmp("bad/fluid.png")));
	ts_proc_free(&p);
}

Test(plot_fluid, a_malformed_fluid_json_exits_2_on_one_line)
{
	bad_fluid_json("{\"bottlenecks\": [", "fluid.json:1");
}

Test(plot_fluid, a_bottleneck_without_a_port_exits_2_on_one_line)
{
	bad_fluid_json("{\"bottlenecks\": [{\"flows\": 2}]}", "bottlenecks[0].port");
}

Test(plot_fluid, bottlenecks_not_a_list_exits_2_on_one_line)
{
	bad_fluid_json("{\"bottlenecks\": 3}", "bottlenecks: expected a list");
}
