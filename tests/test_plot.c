/*
 * rocesim plot as users meet it: the built rocesim (ROCESIM_BIN) runs a
 * tiny scenario in which every picture applies (PFC pauses with
 * output.pfc_events on, DCQCN reacting to ECN marks), then draws it from
 * the source root (ROCESIM_SRC), where it finds plots/. Checked: the PNGs
 * (and SVGs) exist and are pictures, the printed list, the thresholds
 * drawn when results.json gives them, and exit 2 with one clear line for a
 * missing OUTDIR, a missing gnuplot, a failing script and bad usage. A
 * tiny collective run (no flows) gets ranks.png, the incast run does not.
 * slowdown.png: from a results.json written by hand, the data and axes it
 * hands its script (each bucket at the median size of its finished flows,
 * or the middle of its bounds), the picture, and a stale one removed.
 * On a sweep's folder: tiny sweeps of a 2-host scenario (2 x 2 axes over 2
 * seeds, one axis on a log range) give sweep-<metric>.png for the metrics
 * that vary, lines per value of the second axis and per variant, a log x
 * axis, and a folder without summary.csv is one line and exit 2. On a
 * tune's folder: real tunes of the 3-host incast (the smallest headroom
 * without a drop, by bisection; two ECN keys and two objectives, some
 * points refused) give tune.png and tune-front.png, with a dot per point
 * that ran in its style and none for the refused; the tune.json files of
 * tests/bad/tune/ and a folder without tune.json are one line and exit 2.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc.h"

static const char tiny_yaml[] = "name: tiny\n"
				"topology: {kind: star, hosts: 3}\n"
				"switch:\n"
				"  pfc: {xoff: 40KB}\n"
				"  ecn: {kmin: 20KB, kmax: 200KB}\n"
				"nic: {cc: dcqcn}\n"
				"workload: {kind: incast, senders: 2, size: 1MB}\n"
				"output: {sample: 5us, pfc_events: true}\n";

static const char coll_yaml[] = "name: coll\n"
				"topology: {kind: star, hosts: 4}\n"
				"workload: {kind: allreduce, size: 4MB}\n";

/* Two collectives run together: one panel each in ranks.png. */
static const char two_colls_yaml[] = "name: two\n"
				     "topology: {kind: star, hosts: 4}\n"
				     "workload:\n"
				     "  - {kind: allreduce, size: 2MB}\n"
				     "  - {kind: alltoall, size: 1MB, iterations: 2}\n";

static const char *const pictures[] = {"queues", "pfc", "rates", "flows", "slowdown"};

static void setup(void)
{
	ts_proc_setup("plot");
}

TestSuite(plot, .init = setup, .fini = ts_proc_teardown, .timeout = 600);

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert(f, "cannot write %s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* The run's plot scripts copied into ts_tmp("plots") (made if missing),
 * all but @except, which the test writes itself. */
static void copy_plots(const char *except)
{
	static const char *const scripts[] = {"queues.gp", "pfc.gp",	  "rates.gp",
					      "flows.gp",  "slowdown.gp", "ranks.gp"};
	char src[64], *text;

	mkdir(ts_tmp("plots"), 0755);
	for (size_t i = 0; i < sizeof(scripts) / sizeof(*scripts); i++) {
		if (!strcmp(scripts[i], except))
			continue;
		snprintf(src, sizeof(src), "plots/%s", scripts[i]);
		text = ts_slurp(src);
		cr_assert(text, "cannot read %s", src);
		write_file(ts_tmp(src), text);
		free(text);
	}
}

/* Run the tiny scenario into ts_tmp("out"); returns that folder. */
static const char *tiny_run(void)
{
	static char out[512];
	const char *scn = ts_tmp("tiny.yaml");
	struct ts_proc p;
	char *events;

	snprintf(out, sizeof(out), "%s", ts_tmp("out"));
	write_file(scn, tiny_yaml);
	ts_exec(&p, (const char *const[]){"run", scn, "-o", out, "--quiet", NULL});
	cr_assert_eq(p.code, 0, "rocesim run failed (%d): %s", p.code, p.err);
	ts_proc_free(&p);
	/* the scenario must make every picture apply */
	events = ts_slurp(ts_tmp("out/pfc_events.csv"));
	cr_assert(events, "no pfc_events.csv");
	cr_assert(strstr(events, ",paused"), "the tiny scenario paused no port");
	free(events);
	events = ts_slurp(ts_tmp("out/qp_rates.csv"));
	cr_assert(events, "no qp_rates.csv");
	cr_assert_gt(count_lines(events), 1, "no QP reacted in the tiny scenario");
	free(events);
	return out;
}

/* Run the scenario @yaml into ts_tmp(@name); returns that folder. */
static const char *scenario_run(const char *name, const char *yaml)
{
	static char out[512];
	char scn[300];
	struct ts_proc p;

	snprintf(scn, sizeof(scn), "%s.yaml", ts_tmp(name));
	snprintf(out, sizeof(out), "%s", ts_tmp(name));
	write_file(scn, yaml);
	ts_exec(&p, (const char *const[]){"run", scn, "-o", out, "--quiet", NULL});
	cr_assert_eq(p.code, 0, "rocesim run failed (%d): %s", p.code, p.err);
	ts_proc_free(&p);
	return out;
}

/* No temporary .plot-* folder is left in @dir. */
static void assert_no_leftovers(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	cr_assert(d);
	while ((e = readdir(d)))
		cr_expect(strncmp(e->d_name, ".plot", 5), "%s/%s was left behind", dir, e->d_name);
	closedir(d);
}

Test(plot, draws_every_picture_of_a_run_as_png_and_lists_them)
{
	const char *out = tiny_run();
	char path[300];
	struct ts_proc p;

	ts_exec(&p, (const char *const[]){"plot", out, NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	cr_expect_eq(count_lines(p.out), 5, "stdout: %s", p.out);
	for (size_t i = 0; i < sizeof(pictures) / sizeof(*pictures); i++) {
		snprintf(path, sizeof(path), "%s/%s.png", out, pictures[i]);
		ts_assert_png(path);
		cr_expect(strstr(p.out, path), "%s is not in the list: %s", path, p.out);
		snprintf(path, sizeof(path), "%s/%s.svg", out, pictures[i]);
		cr_expect(access(path, F_OK), "%s written without --svg", path);
	}
	/* no collective: ranks.png is skipped, on one line */
	cr_expect(access(ts_tmp("out/ranks.png"), F_OK),
		  "ranks.png drawn for a run without collective");
	cr_expect_eq(count_lines(p.err), 1, "stderr: %s", p.err);
	cr_expect(strstr(p.err, "no collective") && strstr(p.err, "ranks.png skipped"),
		  "stderr: %s", p.err);
	assert_no_leftovers(out);
	ts_proc_free(&p);
}

Test(plot, svg_adds_svg_pictures)
{
	const char *out = tiny_run();
	char path[300], *svg;
	struct ts_proc p;

	ts_exec(&p, (const char *const[]){"plot", out, "--svg", "--top", "2", NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	cr_expect_eq(count_lines(p.out), 10, "stdout: %s", p.out);
	for (size_t i = 0; i < sizeof(pictures) / sizeof(*pictures); i++) {
		snprintf(path, sizeof(path), "%s/%s.svg", out, pictures[i]);
		svg = ts_slurp(path);
		cr_assert(svg, "%s was not written", path);
		cr_expect(strstr(svg, "<svg"), "%s is not an SVG", path);
		free(svg);
	}
	/* the labels of the pictures say what they show */
	svg = ts_slurp(ts_tmp("out/queues.svg"));
	cr_expect(strstr(svg, "sw0:h2 prio 3"), "queues.svg does not name the hot port");
	cr_expect(strstr(svg, "time (us)"));
	free(svg);
	svg = ts_slurp(ts_tmp("out/pfc.svg"));
	cr_expect(strstr(svg, "h0:sw0") || strstr(svg, "h1:sw0"), "pfc.svg names no paused port");
	free(svg);
	svg = ts_slurp(ts_tmp("out/rates.svg"));
	cr_expect(strstr(svg, "flow 0 h0-&gt;h2") || strstr(svg, "flow 0 h0->h2"),
		  "rates.svg does not name flow 0");
	cr_expect(strstr(svg, "rate (Gb/s)"));
	free(svg);
	ts_proc_free(&p);
}

/* Thresholds are drawn when results.json carries them ("config"). */
Test(plot, thresholds_in_results_are_drawn)
{
	const char *out = tiny_run();
	json_error_t je;
	json_t *res;
	struct ts_proc p;
	char *svg;

	res = json_load_file(ts_tmp("out/results.json"), 0, &je);
	cr_assert(res, "results.json: %s", je.text);
	cr_assert_eq(json_object_set_new(json_object_get(res, "summary"), "config",
					 json_pack("{s:i,s:i,s:i}", "ecn_kmin", 20000, "ecn_kmax",
						   200000, "pfc_xoff", 40000)),
		     0);
	cr_assert_eq(json_dump_file(res, ts_tmp("out/results.json"), 0), 0);
	json_decref(res);
	ts_exec(&p, (const char *const[]){"plot", out, "--svg", NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	svg = ts_slurp(ts_tmp("out/queues.svg"));
	cr_assert(svg);
	cr_expect(strstr(svg, "ECN kmin 20 KB"), "no kmin line in queues.svg");
	cr_expect(strstr(svg, "ECN kmax 200 KB"), "no kmax line in queues.svg");
	cr_expect(strstr(svg, "PFC XOFF 40 KB"), "no XOFF line in queues.svg");
	free(svg);
	ts_proc_free(&p);
}

/*
 * Each port shown is drawn with its own thresholds (results.json's
 * config.ports and config.switches, a config per switch or port): the
 * incast's two senders' PGs with their two XOFFs, named by port.
 */
Test(plot, each_port_shown_gets_its_own_thresholds)
{
	const char *out = tiny_run();
	json_error_t je;
	json_t *res, *cfg;
	struct ts_proc p;
	char *svg;

	res = json_load_file(ts_tmp("out/results.json"), 0, &je);
	cr_assert(res, "results.json: %s", je.text);
	cfg = json_object_get(res, "config");
	cr_assert_eq(json_object_set_new(cfg, "ports",
					 json_pack("{s:{s:i,s:i,s:i}}", "sw0:h0", "ecn_kmin", 30000,
						   "ecn_kmax", 300000, "pfc_xoff", 50000)),
		     0);
	cr_assert_eq(json_object_set_new(cfg, "switches",
					 json_pack("{s:{s:i,s:i,s:i}}", "sw0", "ecn_kmin", 25000,
						   "ecn_kmax", 250000, "pfc_xoff", 45000)),
		     0);
	cr_assert_eq(json_dump_file(res, ts_tmp("out/results.json"), 0), 0);
	json_decref(res);
	ts_exec(&p, (const char *const[]){"plot", out, "--svg", NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	svg = ts_slurp(ts_tmp("out/queues.svg"));
	cr_assert(svg);
	/* the receiver's egress queue: its switch's, the one set drawn unnamed */
	cr_expect(strstr(svg, "ECN kmin 25 KB"), "no kmin of sw0 in queues.svg");
	cr_expect(strstr(svg, "ECN kmax 250 KB"), "no kmax of sw0 in queues.svg");
	/* the senders' PGs: sw0:h0 its own, sw0:h1 its switch's */
	cr_expect(strstr(svg, "PFC XOFF 50 KB (sw0:h0)"), "no XOFF of sw0:h0 in queues.svg");
	cr_expect(strstr(svg, "PFC XOFF 45 KB (sw0:h1)"), "no XOFF of sw0:h1 in queues.svg");
	free(svg);
	ts_proc_free(&p);
}

Test(plot, pictures_without_their_csv_are_skipped_with_a_note)
{
	const char *out = tiny_run();
	struct ts_proc p;

	cr_assert_eq(unlink(ts_tmp("out/pfc_events.csv")), 0);
	cr_assert_eq(unlink(ts_tmp("out/qp_rates.csv")), 0);
	ts_exec(&p, (const char *const[]){"plot", out, NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	ts_assert_png(ts_tmp("out/queues.png"));
	ts_assert_png(ts_tmp("out/flows.png"));
	ts_assert_png(ts_tmp("out/slowdown.png"));
	cr_expect(access(ts_tmp("out/pfc.png"), F_OK));
	cr_expect(access(ts_tmp("out/rates.png"), F_OK));
	cr_expect(strstr(p.err, "pfc_events.csv"), "stderr: %s", p.err);
	cr_expect(strstr(p.err, "qp_rates.csv"), "stderr: %s", p.err);
	cr_expect_eq(count_lines(p.out), 3, "stdout: %s", p.out);
	ts_proc_free(&p);
}

Test(plot, a_missing_outdir_exits_2_on_one_line)
{
	struct ts_proc p;

	ts_exec(&p, (const char *const[]){"plot", ts_tmp("nothing-here"), NULL});
	cr_expect_eq(p.code, 2);
	cr_expect_eq(count_lines(p.err), 1, "stderr: %s", p.err);
	cr_expect(strstr(p.err, "nothing-here"), "stderr: %s", p.err);
	ts_proc_free(&p);
}

Test(plot, a_folder_without_results_exits_2_on_one_line)
{
	struct ts_proc p;

	cr_assert_eq(mkdir(ts_tmp("empty"), 0755), 0);
	ts_exec(&p, (const char *const[]){"plot", ts_tmp("empty"), NULL});
	cr_expect_eq(p.code, 2);
	cr_expect_eq(count_lines(p.err), 1, "stderr: %s", p.err);
	cr_expect(strstr(p.err, "results.json"), "stderr: %s", p.err);
	ts_proc_free(&p);
}

Test(plot, without_gnuplot_exits_2_and_says_how_to_install_it)
{
	const char *out = tiny_run();
	struct ts_proc p;

	cr_assert_eq(mkdir(ts_tmp("empty-path"), 0755), 0);
	ts_exec_env(&p, "PATH", ts_tmp("empty-path"), (const char *const[]){"plot", out, NULL});
	cr_expect_eq(p.code, 2);
	cr_expect_eq(count_lines(p.err), 1, "stderr: %s", p.err);
	cr_expect(strstr(p.err, "gnuplot is not installed"), "stderr: %s", p.err);
	cr_expect(strstr(p.err, "gnuplot-nox"), "stderr: %s", p.err);
	cr_expect_str_empty(p.out);
	assert_no_leftovers(out);
	ts_proc_free(&p);
}

/* A script that gnuplot refuses: exit 2 with gnuplot's own message. */
Test(plot, a_failing_script_exits_2_with_gnuplots_message)
{
	const char *out = tiny_run();
	struct ts_proc p;

	copy_plots("rates.gp");
	write_file(ts_tmp("plots/rates.gp"), "plot no_such_function(x)\n");
	ts_exec_env(&p, "ROCESIM_PLOTS", ts_tmp("plots"), (const char *const[]){"plot", out, NULL});
	cr_expect_eq(p.code, 2);
	cr_expect_eq(count_lines(p.err), 1, "stderr: %s", p.err);
	cr_expect(strstr(p.err, "gnuplot failed"), "stderr: %s", p.err);
	cr_expect(strstr(p.err, "no_such_function"), "stderr: %s", p.err);
	cr_expect(access(ts_tmp("out/rates.png"), F_OK), "rates.png written though gnuplot failed");
	assert_no_leftovers(out);
	ts_proc_free(&p);
}

Test(plot, help_exits_0_and_names_the_options_and_the_script_folders)
{
	struct ts_proc p;

	ts_exec(&p, (const char *const[]){"plot", "--help", NULL});
	cr_expect_eq(p.code, 0);
	cr_expect(strstr(p.out, "--svg"));
	cr_expect(strstr(p.out, "--top"));
	cr_expect(strstr(p.out, "ROCESIM_PLOTS"));
	cr_expect(strstr(p.out, "ranks.png"));
	cr_expect(strstr(p.out, "the first 4"), "--help does not say which collectives are drawn");
	cr_expect(strstr(p.out, "tune.png") && strstr(p.out, "tune-front.png"),
		  "--help does not name the pictures of a tune");
	ts_proc_free(&p);
}

Test(plot, usage_errors_exit_2)
{
	const char *const *const cases[] = {
	    (const char *const[]){"plot", NULL},
	    (const char *const[]){"plot", "out/x", "--top", "0", NULL},
	    (const char *const[]){"plot", "out/x", "--top", "many", NULL},
	    (const char *const[]){"plot", "out/x", "--top", NULL},
	    (const char *const[]){"plot", "out/x", "--png", NULL},
	    (const char *const[]){"plot", "out/x", "out/y", NULL},
	};
	struct ts_proc p;

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		ts_exec(&p, cases[i]);
		cr_expect_eq(p.code, 2, "case %zu exited %d", i, p.code);
		cr_expect(strstr(p.err, "usage: rocesim plot"), "case %zu: %s", i, p.err);
		ts_proc_free(&p);
	}
}

/* A collective run: ranks.png (and with --svg ranks.svg) says what ran. */
Test(plot, a_collective_run_gets_ranks_png)
{
	const char *out = scenario_run("coll", coll_yaml);
	char *svg;
	struct ts_proc p;

	ts_exec(&p, (const char *const[]){"plot", out, NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	ts_assert_png(ts_tmp("coll/ranks.png"));
	cr_expect(strstr(p.out, ts_tmp("coll/ranks.png")), "ranks.png is not in the list: %s",
		  p.out);
	/* a collective has no flows[]: flows.png stays skipped */
	cr_expect(access(ts_tmp("coll/flows.png"), F_OK), "flows.png drawn without flows");
	cr_expect(strstr(p.err, "flows.png skipped"), "stderr: %s", p.err);
	cr_expect(strstr(p.err, "slowdown.png skipped"), "stderr: %s", p.err);
	cr_expect(access(ts_tmp("coll/slowdown.png"), F_OK), "slowdown.png drawn without flows");
	cr_expect_null(strstr(p.err, "ranks.png skipped"), "stderr: %s", p.err);
	assert_no_leftovers(out);
	ts_proc_free(&p);

	ts_exec(&p, (const char *const[]){"plot", out, "--svg", NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	svg = ts_slurp(ts_tmp("coll/ranks.svg"));
	cr_assert(svg, "ranks.svg was not written");
	cr_expect(strstr(svg, "collective progress per rank"), "ranks.svg has no title");
	cr_expect(strstr(svg, "allreduce of 4 MB over 4 ranks, busbw "),
		  "ranks.svg does not name the collective");
	cr_expect(strstr(svg, "the collective took "), "ranks.svg has no completion time");
	free(svg);
	ts_proc_free(&p);
}

Test(plot, several_collectives_get_one_panel_each)
{
	const char *out = scenario_run("two", two_colls_yaml);
	char *svg;
	struct ts_proc p;

	ts_exec(&p, (const char *const[]){"plot", out, "--svg", NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	ts_assert_png(ts_tmp("two/ranks.png"));
	svg = ts_slurp(ts_tmp("two/ranks.svg"));
	cr_assert(svg, "ranks.svg was not written");
	cr_expect(strstr(svg, "allreduce of 2 MB over 4 ranks"), "no allreduce panel");
	cr_expect(strstr(svg, "alltoall of 1 MB over 4 ranks"), "no alltoall panel");
	cr_expect(strstr(svg, "the last of 2 iterations"), "the iterations are not said");
	free(svg);
	ts_proc_free(&p);
}

/* A ranks.png left by an earlier plot goes when results.json has no collective. */
Test(plot, a_stale_ranks_png_is_removed)
{
	const char *out = scenario_run("coll", coll_yaml);
	json_error_t je;
	json_t *res;
	struct ts_proc p;

	ts_exec(&p, (const char *const[]){"plot", out, "--svg", NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	ts_assert_png(ts_tmp("coll/ranks.png"));
	ts_proc_free(&p);
	res = json_load_file(ts_tmp("coll/results.json"), 0, &je);
	cr_assert(res, "results.json: %s", je.text);
	cr_assert_eq(json_object_del(json_object_get(res, "summary"), "collective"), 0);
	cr_assert_eq(json_object_del(json_object_get(res, "summary"), "collectives"), 0);
	cr_assert_eq(json_dump_file(res, ts_tmp("coll/results.json"), 0), 0);
	json_decref(res);
	ts_exec(&p, (const char *const[]){"plot", out, NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	cr_expect(access(ts_tmp("coll/ranks.png"), F_OK), "a stale ranks.png was left");
	cr_expect(access(ts_tmp("coll/ranks.svg"), F_OK), "a stale ranks.svg was left");
	cr_expect(strstr(p.err, "ranks.png skipped"), "stderr: %s", p.err);
	ts_proc_free(&p);
}

/* ---- slowdown.png ------------------------------------------------------- */

/*
 * A results.json written by hand: five buckets, one without flows; flows of
 * three of them in flows[] (one not finished), none of 1MB-10MB.
 */
static const char crafted_json[] =
    "{\"scenario\": \"crafted\",\n"
    " \"summary\": {\"sim_time_us\": 3000.0, \"offered_load\": 0.2934, \"fct_slowdown\": [\n"
    "  {\"bucket\": \"<10KB\", \"min_bytes\": 0, \"max_bytes\": 10000, \"n\": 3,"
    " \"p50\": 1.0, \"p95\": 2.5, \"p99\": 3.0},\n"
    "  {\"bucket\": \"10KB-100KB\", \"min_bytes\": 10000, \"max_bytes\": 100000, \"n\": 0,"
    " \"p50\": null, \"p95\": null, \"p99\": null},\n"
    "  {\"bucket\": \"100KB-1MB\", \"min_bytes\": 100000, \"max_bytes\": 1000000, \"n\": 2,"
    " \"p50\": 1.5, \"p95\": 4.0, \"p99\": 70.0},\n"
    "  {\"bucket\": \"1MB-10MB\", \"min_bytes\": 1000000, \"max_bytes\": 10000000, \"n\": 1,"
    " \"p50\": 2.0, \"p95\": 2.0, \"p99\": 2.0},\n"
    "  {\"bucket\": \">=10MB\", \"min_bytes\": 10000000, \"max_bytes\": null, \"n\": 1,"
    " \"p50\": 1.25, \"p95\": 1.25, \"p99\": 1.25}]},\n"
    " \"flows\": [\n"
    "  {\"id\": 0, \"bytes\": 1000, \"fct_us\": 1.0},\n"
    "  {\"id\": 1, \"bytes\": 5000, \"fct_us\": 2.0},\n"
    "  {\"id\": 2, \"bytes\": 2000, \"fct_us\": 1.5},\n"
    "  {\"id\": 3, \"bytes\": 9000, \"fct_us\": null},\n"
    "  {\"id\": 4, \"bytes\": 200000, \"fct_us\": 10.0},\n"
    "  {\"id\": 5, \"bytes\": 400000, \"fct_us\": 20.0},\n"
    "  {\"id\": 6, \"bytes\": 20000000, \"fct_us\": 2000.0}]}\n";

/* Instead of a picture, what plot hands slowdown.gp: its variables and data file. */
static const char slowdown_dump_gp[] =
    "set print out\n"
    "print sprintf('n=%d nflows=%d xlo=%.0f xhi=%.0f logy=%d ylo=%g yhi=%g load=%g', n,"
    " nflows, xlo, xhi, logy, ylo, yhi, load)\n"
    "print 'xticks=' . xticks\n"
    "print 'bounds=' . bounds\n"
    "print system('cat ' . data)\n";

/* plots/ copied into ts_tmp("plots") with slowdown.gp replaced by @gp. */
static const char *plots_with_slowdown(const char *gp)
{
	copy_plots("slowdown.gp");
	write_file(ts_tmp("plots/slowdown.gp"), gp);
	return ts_tmp("plots");
}

/*
 * Each bucket that holds finished flows at the median size of its finished
 * flows (<10KB: 1000, 2000, 5000; 9000 did not finish), or at the geometric
 * middle of its bounds when flows[] has none (1MB-10MB: sqrt(1e6 x 1e7));
 * decades from 1 KB (below 2000 / 1.5) to 100 MB (above 2e7 x 1.5); the
 * bounds between the buckets drawn, each once; a log y axis since p99 70 is
 * more than 20 times the smallest value, 1.
 */
Test(plot, slowdown_data_is_each_buckets_percentiles_at_the_median_size_of_its_flows)
{
	static const char want[] =
	    "n=4 nflows=7 xlo=1000 xhi=100000000 logy=1 ylo=1 yhi=70 load=29.34\n"
	    "xticks=\"1 KB\" 1000, \"10 KB\" 10000, \"100 KB\" 100000, \"1 MB\" 1000000, "
	    "\"10 MB\" 10000000, \"100 MB\" 100000000\n"
	    "bounds=10000 100000 1000000 10000000\n"
	    "2000 1.000 2.500 3.000 3 \"<10KB\"\n"
	    "300000 1.500 4.000 70.000 2 \"100KB-1MB\"\n"
	    "3162277.66 2.000 2.000 2.000 1 \"1MB-10MB\"\n"
	    "20000000 1.250 1.250 1.250 1 \">=10MB\"\n";
	const char *plots = plots_with_slowdown(slowdown_dump_gp);
	struct ts_proc p;
	char *got;

	cr_assert_eq(mkdir(ts_tmp("crafted"), 0755), 0);
	write_file(ts_tmp("crafted/results.json"), crafted_json);
	ts_exec_env(&p, "ROCESIM_PLOTS", plots,
		    (const char *const[]){"plot", ts_tmp("crafted"), NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	cr_expect(strstr(p.out, "crafted/slowdown.png"), "stdout: %s", p.out);
	ts_proc_free(&p);
	got = ts_slurp(ts_tmp("crafted/slowdown.png"));
	cr_assert(got);
	cr_expect_str_eq(got, want);
	free(got);
}

/* The real script on those buckets; a stale slowdown.png goes once no flow finished. */
Test(plot, slowdown_png_is_drawn_and_a_stale_one_removed)
{
	const char *dir = ts_tmp("crafted");
	char *json, *svg;
	struct ts_proc p;

	cr_assert_eq(mkdir(dir, 0755), 0);
	write_file(ts_tmp("crafted/results.json"), crafted_json);
	ts_exec(&p, (const char *const[]){"plot", dir, "--svg", NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	ts_proc_free(&p);
	ts_assert_png(ts_tmp("crafted/slowdown.png"));
	svg = ts_slurp(ts_tmp("crafted/slowdown.svg"));
	cr_assert(svg);
	cr_expect(strstr(svg, "crafted: FCT slowdown by flow size, 7 flows, offered load 29.34%"),
		  "slowdown.svg has no title");
	cr_expect(strstr(svg, "100KB-1MB: 2 flows"), "the buckets are not named");
	cr_expect(strstr(svg, "10 MB") && strstr(svg, "1 KB"), "the size axis has no unit");
	cr_expect(strstr(svg, "p99"));
	free(svg);
	/* the same buckets without a finished flow */
	json = ts_slurp(ts_tmp("crafted/results.json"));
	cr_assert(json);
	for (char *c = json; (c = strstr(c, "\"n\": ")); c++)
		c[5] = '0';
	write_file(ts_tmp("crafted/results.json"), json);
	free(json);
	ts_exec(&p, (const char *const[]){"plot", dir, NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	cr_expect(strstr(p.err, "no finished flow in summary.fct_slowdown") &&
		      strstr(p.err, "slowdown.png skipped"),
		  "stderr: %s", p.err);
	cr_expect(access(ts_tmp("crafted/slowdown.png"), F_OK), "a stale slowdown.png was left");
	cr_expect(access(ts_tmp("crafted/slowdown.svg"), F_OK), "a stale slowdown.svg was left");
	ts_proc_free(&p);
}

/* The acceptance picture: `make run`'s own scenario, plotted. */
Test(plot, the_seed_cluster_plots)
{
	struct ts_proc p;
	const char *out = ts_tmp("seed");

	ts_exec(&p, (const char *[]){"run", "experiments/seed-cluster.yaml", "-o", out, "--quiet",
				     "--set", "output.sample=100us", NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	ts_exec(&p, (const char *[]){"plot", out, NULL});
	cr_assert_eq(p.code, 0, "%s", p.err);
	ts_proc_free(&p);
	ts_assert_png(ts_tmp("seed/queues.png"));
	ts_assert_png(ts_tmp("seed/ranks.png"));
}

/* ---- sweeps ------------------------------------------------------------- */

/* One 64 KB flow between two hosts: the FCT follows the cable, nothing else moves. */
static const char pair_yaml[] = "name: pair\n"
				"topology: {kind: star, hosts: 2}\n"
				"workload: {kind: incast, senders: 1, size: 64KB}\n"
				"output: {sample: 0}\n";

/* `rocesim sweep` of the 2-host scenario into ts_tmp(@name) with the arguments @vary. */
static const char *sweep_run(const char *name, const char *const *vary)
{
	static char out[512];
	const char *args[24];
	char scn[300];
	struct ts_proc p;
	size_t n = 0;

	snprintf(scn, sizeof(scn), "%s", ts_tmp("pair.yaml"));
	snprintf(out, sizeof(out), "%s", ts_tmp(name));
	write_file(scn, pair_yaml);
	args[n++] = "sweep";
	args[n++] = scn;
	for (; *vary; vary++)
		args[n++] = *vary;
	args[n++] = "-o";
	args[n++] = out;
	args[n++] = "-j";
	args[n++] = "2";
	args[n++] = "--quiet";
	args[n] = NULL;
	ts_exec(&p, args);
	cr_assert_eq(p.code, 0, "rocesim sweep failed (%d): %s", p.code, p.err);
	ts_proc_free(&p);
	return out;
}

static const char *grid_sweep(void)
{
	return sweep_run("grid",
			 (const char *const[]){"--vary", "switch.ecn.kmin=20KB,50KB", "--vary",
					       "topology.link.cable=2m,2km", "--seeds", "2", NULL});
}

static int count_str(const char *s, const char *what)
{
	int n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

/* The x of the tick labelled @label in a gnuplot SVG; -1 when there is none. */
static double tick_x(const char *svg, const char *label)
{
	char text[64];
	const char *at, *tr = NULL;

	snprintf(text, sizeof(text), "<text>%s</text>", label);
	at = strstr(svg, text);
	if (!at)
		return -1;
	for (const char *c = svg; (c = strstr(c, "translate(")) && c < at; c++)
		tr = c;
	return tr ? strtod(tr + strlen("translate("), NULL) : -1;
}

Test(plot, a_sweep_gets_one_picture_per_metric_that_varies)
{
	const char *out = grid_sweep();
	char path[600], *svg;
	struct ts_proc p;

	ts_exec(&p, (const char *const[]){"plot", out, NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	/* the cable moves the FCT; queue, marks and pauses are the same everywhere */
	snprintf(path, sizeof(path), "%s/sweep-fct_us.p99.png", out);
	ts_assert_png(path);
	cr_expect(strstr(p.out, path), "%s is not in the list: %s", path, p.out);
	cr_expect_eq(count_lines(p.out), 1, "stdout: %s", p.out);
	snprintf(path, sizeof(path), "%s/sweep-max_queue_bytes.png", out);
	cr_expect(access(path, F_OK), "%s drawn though it is the same at every point", path);
	cr_expect_eq(count_lines(p.err), 1, "stderr: %s", p.err);
	cr_expect(strstr(p.err, "the same at every point") && strstr(p.err, "max_queue_bytes") &&
		      strstr(p.err, "pfc_pause_frames (0)"),
		  "stderr: %s", p.err);
	/* no collective in an incast: its metrics are not mentioned */
	cr_expect_null(strstr(p.err, "collective"), "stderr: %s", p.err);
	assert_no_leftovers(out);
	ts_proc_free(&p);

	ts_exec(&p, (const char *const[]){"plot", out, "--svg", NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	cr_expect_eq(count_lines(p.out), 2, "stdout: %s", p.out);
	snprintf(path, sizeof(path), "%s/sweep-fct_us.p99.svg", out);
	svg = ts_slurp(path);
	cr_assert(svg, "%s was not written", path);
	cr_expect(strstr(svg, "fct_us.p99 against switch.ecn.kmin"), "no title");
	cr_expect(strstr(svg, "<text>pair</text>"), "the scenario is not named");
	/* 2 seeds: the bars are the lowest and highest seed, not a t interval */
	cr_expect(strstr(svg, "mean over 2 seeds, bars: the lowest and highest seed"),
		  "the error bars are not said");
	/* one line per value of the second axis, named in the key */
	cr_expect(strstr(svg, "<text>topology.link.cable</text>"), "no key title");
	cr_expect(tick_x(svg, "20 KB") > 0 && tick_x(svg, "50 KB") > tick_x(svg, "20 KB"),
		  "the first axis's values are not the x ticks, in units");
	cr_expect(strstr(svg, "<text>2m</text>") && strstr(svg, "<text>2km</text>"),
		  "the lines are not named by the second axis");
	free(svg);
	ts_proc_free(&p);
}

/* FCT slowdown in a sweep: the p99 of each bucket that has flows, its
 * picture named without '<' or '>='; a bucket of an earlier plot that has
 * none now loses its picture. */
Test(plot, a_sweep_draws_the_slowdown_of_each_bucket)
{
	const char *out =
	    sweep_run("slowdown", (const char *const[]){"--vary", "topology.hosts=3,5", "--vary",
							"workload.senders=2,4", "--zip", NULL});
	char path[600], stale[600];
	struct ts_proc p;

	snprintf(stale, sizeof(stale), "%s/sweep-fct_slowdown.lt10KB.p99.png", out);
	write_file(stale, "an earlier plot's\n");
	ts_exec(&p, (const char *const[]){"plot", out, NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	snprintf(path, sizeof(path), "%s/sweep-fct_slowdown.10KB-100KB.p99.png", out);
	ts_assert_png(path);
	cr_expect(strstr(p.out, path), "%s is not in the list: %s", path, p.out);
	cr_expect(access(stale, F_OK), "%s is left", stale);
	ts_proc_free(&p);
}

/* One axis over three decades: a log x axis, one unnamed line. */
Test(plot, a_single_axis_sweep_spanning_decades_gets_a_log_x_axis)
{
	const char *out = sweep_run(
	    "cable", (const char *const[]){"--vary", "topology.link.cable=2m..2km:4", NULL});
	char path[600], *svg;
	double x2, x20, x2k;
	struct ts_proc p;

	ts_exec(&p, (const char *const[]){"plot", out, "--svg", NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	snprintf(path, sizeof(path), "%s/sweep-fct_us.p99.png", out);
	ts_assert_png(path);
	snprintf(path, sizeof(path), "%s/sweep-fct_us.p99.svg", out);
	svg = ts_slurp(path);
	cr_assert(svg, "%s was not written", path);
	cr_expect(strstr(svg, "one seed per point"), "the single seed is not said");
	x2 = tick_x(svg, "2 m");
	x20 = tick_x(svg, "20 m");
	x2k = tick_x(svg, "2 km");
	cr_assert(x2 > 0 && x20 > x2 && x2k > x20, "ticks at %g, %g, %g", x2, x20, x2k);
	/* 2m, 20m, 200m, 2km equally spaced: a log axis (linear would put 20m at 1%) */
	cr_expect_float_eq((x20 - x2) * 3, x2k - x2, (x2k - x2) * 0.01, "ticks at %g, %g, %g", x2,
			   x20, x2k);
	/* a single line has no key: the axis is named once, under the x axis */
	cr_expect_eq(count_str(svg, "<text>topology.link.cable</text>"), 1, "a key for one line");
	free(svg);
	ts_proc_free(&p);
}

/* A variant column (what-if overlays) adds lines: one per variant and second-axis value. */
Test(plot, a_variant_column_gives_a_line_per_variant)
{
	const char *out = grid_sweep();
	char path[600], *csv, *svg, *hdr_end, *body;
	struct ts_proc p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/summary.csv", out);
	csv = ts_slurp(path);
	cr_assert(csv);
	/* point,variant,axes...: each row again as the variant "spine-down" */
	hdr_end = strchr(csv, '\n');
	cr_assert(hdr_end && !strncmp(csv, "point,", 6));
	*hdr_end = '\0';
	body = hdr_end + 1;
	f = fopen(path, "w");
	cr_assert(f);
	fprintf(f, "point,variant,%s\n", csv + 6);
	for (int v = 0; v < 2; v++) {
		for (char *row = body, *nl; *row; row = nl + 1) {
			nl = strchr(row, '\n');
			cr_assert(nl);
			fprintf(f, "%.*s,%s,%.*s\n", (int)strcspn(row, ","), row,
				v ? "spine-down" : "base", (int)(nl - row - strcspn(row, ",") - 1),
				row + strcspn(row, ",") + 1);
		}
	}
	cr_assert_eq(fclose(f), 0);
	free(csv);
	ts_exec(&p, (const char *const[]){"plot", out, "--svg", NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	snprintf(path, sizeof(path), "%s/sweep-fct_us.p99.svg", out);
	svg = ts_slurp(path);
	cr_assert(svg, "%s was not written", path);
	cr_expect(strstr(svg, "<text>variant, topology.link.cable</text>"), "no key title");
	cr_expect(strstr(svg, "<text>base, 2m</text>") && strstr(svg, "<text>base, 2km</text>") &&
		      strstr(svg, "<text>spine-down, 2m</text>") &&
		      strstr(svg, "<text>spine-down, 2km</text>"),
		  "not a line per variant and cable");
	free(svg);
	ts_proc_free(&p);
}

Test(plot, a_sweep_without_summary_csv_exits_2_on_one_line)
{
	const char *out = grid_sweep();
	char path[600];
	struct ts_proc p;

	snprintf(path, sizeof(path), "%s/summary.csv", out);
	cr_assert_eq(unlink(path), 0);
	ts_exec(&p, (const char *const[]){"plot", out, NULL});
	cr_expect_eq(p.code, 2);
	cr_expect_eq(count_lines(p.err), 1, "stderr: %s", p.err);
	cr_expect(strstr(p.err, path), "stderr: %s", p.err);
	cr_expect_str_empty(p.out);
	assert_no_leftovers(out);
	ts_proc_free(&p);
}

Test(plot, a_sweep_without_gnuplot_exits_2_and_says_how_to_install_it)
{
	const char *out = grid_sweep();
	struct ts_proc p;

	cr_assert_eq(mkdir(ts_tmp("empty-path"), 0755), 0);
	ts_exec_env(&p, "PATH", ts_tmp("empty-path"), (const char *const[]){"plot", out, NULL});
	cr_expect_eq(p.code, 2);
	cr_expect_eq(count_lines(p.err), 1, "stderr: %s", p.err);
	cr_expect(strstr(p.err, "gnuplot is not installed"), "stderr: %s", p.err);
	cr_expect_str_empty(p.out);
	assert_no_leftovers(out);
	ts_proc_free(&p);
}

/* Pictures of an earlier plot go when their metric no longer changes. */
Test(plot, a_stale_sweep_picture_is_removed)
{
	const char *out = grid_sweep();
	char path[600];
	struct ts_proc p;

	snprintf(path, sizeof(path), "%s/sweep-max_queue_bytes.svg", out);
	write_file(path, "<svg/>\n");
	snprintf(path, sizeof(path), "%s/sweep-max_queue_bytes.png", out);
	write_file(path, "old\n");
	ts_exec(&p, (const char *const[]){"plot", out, NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	cr_expect(access(path, F_OK), "a stale %s was left", path);
	snprintf(path, sizeof(path), "%s/sweep-max_queue_bytes.svg", out);
	cr_expect(access(path, F_OK), "a stale %s was left", path);
	ts_proc_free(&p);
}

/* A sweep none of whose runs has results: nothing to draw, said on one line. */
Test(plot, a_sweep_without_results_says_nothing_was_drawn)
{
	const char *out = grid_sweep();
	char path[600];
	struct ts_proc p;

	snprintf(path, sizeof(path), "%s/summary.csv", out);
	write_file(path, "point,switch.ecn.kmin,topology.link.cable,runs,failed\n"
			 "p001,20KB,2m,0,2\n"
			 "p002,20KB,2km,0,2\n"
			 "p003,50KB,2m,0,2\n"
			 "p004,50KB,2km,0,2\n");
	ts_exec(&p, (const char *const[]){"plot", out, NULL});
	cr_expect_eq(p.code, 0, "plot exited %d: %s", p.code, p.err);
	cr_expect_str_empty(p.out);
	cr_expect_eq(count_lines(p.err), 1, "stderr: %s", p.err);
	cr_expect(strstr(p.err, "nothing to draw"), "stderr: %s", p.err);
	ts_proc_free(&p);
}

/* A what-if of variants and no axis: the variants are the x axis, in order. */
Test(plot, a_sweep_of_variants_alone_puts_them_on_the_x_axis)
{
	const char *out;
	char over[300], path[600], *svg;
	struct ts_proc p;

	snprintf(over, sizeof(over), "%s", ts_tmp("far.yaml"));
	write_file(over, "topology: {link: {cable: 2km}}\n");
	snprintf(path, sizeof(path), "far=%s", over);
	out = sweep_run("variants", (const char *const[]){"--variant", path, NULL});
	ts_exec(&p, (const char *const[]){"plot", out, "--svg", NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	snprintf(path, sizeof(path), "%s/sweep-fct_us.p99.svg", out);
	svg = ts_slurp(path);
	cr_assert(svg, "%s was not written", path);
	cr_expect(strstr(svg, "fct_us.p99 against variant"), "no title");
	cr_expect(tick_x(svg, "base") > 0 && tick_x(svg, "far") > tick_x(svg, "base"),
		  "the variants are not the x ticks, in order");
	free(svg);
	assert_no_leftovers(out);
	ts_proc_free(&p);
}

/* ---- tunes -------------------------------------------------------------- */

/* A 2:1 incast over 2 km: below some headroom a lossless packet is dropped. */
static const char far_yaml[] = "name: far\n"
			       "topology: {kind: star, hosts: 3, link: {cable: 2km}}\n"
			       "switch:\n"
			       "  pfc: {xoff: 100KB}\n"
			       "  ecn: {enabled: false}\n"
			       "workload: {kind: incast, senders: 2, size: 200KB}\n"
			       "output: {sample: 0}\n";

/* The same incast over 2 m with DCQCN (its CNPs spaced per QP, so that it
 * reacts to marks within the run): ECN thresholds trade FCT against the
 * queue. */
static const char near_yaml[] = "name: near\n"
				"topology: {kind: star, hosts: 3}\n"
				"switch:\n"
				"  pfc: {xoff: 100KB}\n"
				"nic: {cc: dcqcn, dcqcn: {cnp_scope: qp, byte_reset_unit: 64B}}\n"
				"workload: {kind: incast, senders: 2, size: 200KB}\n"
				"output: {sample: 0}\n";

/* `rocesim tune` of @yaml into ts_tmp(@name) with the arguments @args; its exit @code. */
static const char *tune_run(const char *name, const char *yaml, const char *const *args, int code)
{
	static char out[512];
	const char *argv[32];
	char scn[300];
	struct ts_proc p;
	size_t n = 0;

	snprintf(scn, sizeof(scn), "%s.yaml", ts_tmp(name));
	snprintf(out, sizeof(out), "%s", ts_tmp(name));
	write_file(scn, yaml);
	argv[n++] = "tune";
	argv[n++] = scn;
	for (; *args; args++)
		argv[n++] = *args;
	argv[n++] = "-o";
	argv[n++] = out;
	argv[n++] = "-j";
	argv[n++] = "2";
	argv[n++] = "--quiet";
	argv[n] = NULL;
	ts_exec(&p, argv);
	cr_assert_eq(p.code, code, "rocesim tune exited %d: %s", p.code, p.err);
	ts_proc_free(&p);
	return out;
}

/* The smallest headroom without a lossless drop: bisection over one key. */
static const char *headroom_tune(void)
{
	return tune_run("far", far_yaml,
			(const char *const[]){"--vary", "switch.pfc.headroom=1B..200KB",
					      "--minimize", "switch.pfc.headroom", "--subject-to",
					      "lossless_drops == 0", NULL},
			0);
}

/* Two ECN keys, two objectives; kmin above kmax is refused by the scenario. */
static const char *ecn_tune(void)
{
	return tune_run("near", near_yaml,
			(const char *const[]){"--vary", "switch.ecn.kmin=5KB..200KB", "--vary",
					      "switch.ecn.kmax=20KB..400KB", "--minimize",
					      "fct_us.max", "--minimize", "max_queue_bytes",
					      "--subject-to", "pfc_pause_frames == 0", "--budget",
					      "30", NULL},
			0);
}

/* How many points of @dir/tune.json are in @state, and of those how many feasible. */
static int count_points(const char *dir, const char *state, int *feasible)
{
	char path[600];
	json_t *j, *pt;
	size_t i;
	int n = 0;

	snprintf(path, sizeof(path), "%s/tune.json", dir);
	j = json_load_file(path, 0, NULL);
	cr_assert(j, "%s", path);
	*feasible = 0;
	json_array_foreach(json_object_get(j, "points"), i, pt) {
		if (strcmp(json_string_value(json_object_get(pt, "state")), state))
			continue;
		n++;
		*feasible += json_is_true(json_object_get(pt, "feasible"));
	}
	json_decref(j);
	return n;
}

/* How many points of gnuplot's SVG marker @pt (after its definitions) @svg draws. */
static int count_markers(const char *svg, int pt)
{
	char use[64];
	const char *body = strstr(svg, "</defs>");

	cr_assert(body, "no </defs> in the SVG");
	snprintf(use, sizeof(use), "xlink:href='#gpPt%d'", pt - 1);
	return count_str(body, use);
}

Test(plot, a_one_key_tune_gets_the_metric_against_the_key)
{
	const char *out = headroom_tune();
	char path[600], *svg;
	double t1, t2, t3;
	struct ts_proc p;

	/* a front left by an earlier plot goes: this tune has one objective */
	snprintf(path, sizeof(path), "%s/tune-front.png", out);
	write_file(path, "old\n");
	ts_exec(&p, (const char *const[]){"plot", out, NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	snprintf(path, sizeof(path), "%s/tune.png", out);
	ts_assert_png(path);
	cr_expect(strstr(p.out, path), "%s is not in the list: %s", path, p.out);
	cr_expect_eq(count_lines(p.out), 1, "stdout: %s", p.out);
	cr_expect_str_empty(p.err);
	snprintf(path, sizeof(path), "%s/tune-front.png", out);
	cr_expect(access(path, F_OK), "%s drawn for one objective", path);
	assert_no_leftovers(out);
	ts_proc_free(&p);

	ts_exec(&p, (const char *const[]){"plot", out, "--svg", NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	cr_expect_eq(count_lines(p.out), 2, "stdout: %s", p.out);
	snprintf(path, sizeof(path), "%s/tune.svg", out);
	svg = ts_slurp(path);
	cr_assert(svg, "%s was not written", path);
	cr_expect(
	    strstr(svg, "far.yaml: minimize switch.pfc.headroom subject to lossless_drops == 0"),
	    "no title");
	cr_expect(strstr(svg, "bisection, "), "the method is not said");
	cr_expect(strstr(svg, "best p0"), "the best point is not named");
	/* the objective is the key itself: the constraint's metric is drawn, with its limit */
	cr_expect(strstr(svg, "<text>lossless_drops</text>"), "no y axis of lossless_drops");
	cr_expect(strstr(svg, "<text>lossless_drops == 0</text>"), "the limit is not drawn");
	cr_expect(strstr(svg, "<text>switch.pfc.headroom</text>"), "no x axis of the key");
	cr_expect(strstr(svg, "<text>breaks a constraint</text>") &&
		      strstr(svg, "<text>meets every constraint</text>") &&
		      strstr(svg, "<text>best</text>"),
		  "the key does not name both styles and the best point");
	/* the last steps of the bisection, a byte apart, again on a panel of their own */
	cr_expect(strstr(svg, "<text>switch.pfc.headroom (B), near the best point</text>"),
		  "no panel near the best point");
	/* a log x axis: 1 B to 200 KB, decades equally spaced, each tick in its unit */
	t1 = tick_x(svg, "10 B");
	t2 = tick_x(svg, "100 B");
	t3 = tick_x(svg, "1 KB");
	cr_assert(t1 > 0 && t2 > t1 && t3 > t2, "ticks at %g, %g, %g", t1, t2, t3);
	cr_expect_float_eq(t2 - t1, t3 - t2, (t3 - t1) * 0.01, "ticks at %g, %g, %g", t1, t2, t3);
	free(svg);
	ts_proc_free(&p);
}

Test(plot, a_two_key_tune_gets_its_points_its_path_and_its_front)
{
	const char *out = ecn_tune();
	char path[600], want[64], *svg;
	int ran, feasible, refused, dummy;
	struct ts_proc p;

	ran = count_points(out, "ran", &feasible);
	refused = count_points(out, "refused", &dummy);
	cr_assert_gt(refused, 0, "the tune was refused no point");
	cr_assert(feasible > 0 && feasible < ran, "%d of %d points feasible", feasible, ran);
	ts_exec(&p, (const char *const[]){"plot", out, NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	cr_expect_eq(count_lines(p.out), 2, "stdout: %s", p.out);
	snprintf(path, sizeof(path), "%s/tune.png", out);
	ts_assert_png(path);
	cr_expect(strstr(p.out, path), "%s is not in the list: %s", path, p.out);
	snprintf(path, sizeof(path), "%s/tune-front.png", out);
	ts_assert_png(path);
	cr_expect(strstr(p.out, path), "%s is not in the list: %s", path, p.out);
	assert_no_leftovers(out);
	ts_proc_free(&p);

	ts_exec(&p, (const char *const[]){"plot", out, "--svg", NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	snprintf(path, sizeof(path), "%s/tune.svg", out);
	svg = ts_slurp(path);
	cr_assert(svg, "%s was not written", path);
	cr_expect(strstr(svg, "<text>switch.ecn.kmin</text>") &&
		      strstr(svg, "<text>switch.ecn.kmax</text>"),
		  "the keys are not the axes");
	/* 5 KB to 200 KB: ticks at 1, 2 and 5 of each decade */
	cr_expect(strstr(svg, "<text>5 KB</text>") && strstr(svg, "<text>20 KB</text>") &&
		      strstr(svg, "<text>200 KB</text>"),
		  "no ticks at 5, 20 and 200 KB");
	cr_expect(strstr(svg, "<text>search path</text>"), "no search path");
	snprintf(want, sizeof(want), "%d refused by the scenario, not drawn", refused);
	cr_expect(strstr(svg, want), "the refused points are not said");
	/* a dot per point that ran, in its style (and one in the key); none for the refused */
	cr_expect_eq(count_markers(svg, 7), feasible + 1, "feasible points drawn");
	cr_expect_eq(count_markers(svg, 2), ran - feasible + 1, "infeasible points drawn");
	free(svg);
	snprintf(path, sizeof(path), "%s/tune-front.svg", out);
	svg = ts_slurp(path);
	cr_assert(svg, "%s was not written", path);
	cr_expect(strstr(svg, "Pareto front of fct_us.max and max_queue_bytes"), "no title");
	cr_expect(strstr(svg, "<text>max_queue_bytes (KB)</text>") &&
		      strstr(svg, "<text>fct_us.max</text>"),
		  "objective 1 is not drawn against objective 2");
	cr_expect(strstr(svg, "<text>Pareto front</text>"), "no front in the key");
	free(svg);
	ts_proc_free(&p);
}

/* A tune that could not meet its constraint marks its closest point. */
Test(plot, a_tune_without_a_feasible_point_marks_the_closest)
{
	const char *out =
	    tune_run("none", far_yaml,
		     (const char *const[]){"--vary", "switch.pfc.headroom=1B..5KB", "--minimize",
					   "switch.pfc.headroom", "--subject-to",
					   "lossless_drops == 0", NULL},
		     1);
	char path[600], *svg;
	struct ts_proc p;

	ts_exec(&p, (const char *const[]){"plot", out, "--svg", NULL});
	cr_assert_eq(p.code, 0, "plot failed (%d): %s", p.code, p.err);
	snprintf(path, sizeof(path), "%s/tune.png", out);
	ts_assert_png(path);
	snprintf(path, sizeof(path), "%s/tune.svg", out);
	svg = ts_slurp(path);
	cr_assert(svg, "%s was not written", path);
	cr_expect(strstr(svg, "(no point meets every constraint)"), "the title claims a best");
	cr_expect(strstr(svg, "<text>closest</text>"), "the closest point is not in the key");
	cr_expect_null(strstr(svg, "<text>meets every constraint</text>"),
		       "a feasible style for no feasible point");
	free(svg);
	ts_proc_free(&p);
}

/* The bad tune.json files of tests/bad/tune/: exit 2, one line naming the file and the key. */
Test(plot, a_bad_tune_json_exits_2_on_one_line)
{
	DIR *d = opendir("tests/bad/tune");
	struct dirent *e;
	int n = 0;

	cr_assert(d, "no tests/bad/tune");
	while ((e = readdir(d))) {
		char src[400], dir[400], dst[450], want[700], *text;
		json_t *j;
		struct ts_proc p;

		if (!strstr(e->d_name, ".json"))
			continue;
		snprintf(src, sizeof(src), "tests/bad/tune/%s", e->d_name);
		snprintf(dir, sizeof(dir), "%s", ts_tmp(e->d_name));
		snprintf(dst, sizeof(dst), "%s/tune.json", dir);
		cr_assert_eq(mkdir(dir, 0755), 0);
		text = ts_slurp(src);
		cr_assert(text, "cannot read %s", src);
		write_file(dst, text);
		free(text);
		/* what the message names: "error" in the file, the line when not JSON */
		j = json_load_file(src, 0, NULL);
		if (j)
			snprintf(want, sizeof(want), "%s: %s", dst,
				 json_string_value(json_object_get(j, "error")));
		else
			snprintf(want, sizeof(want), "%s:", dst);
		json_decref(j);
		ts_exec(&p, (const char *const[]){"plot", dir, NULL});
		cr_expect_eq(p.code, 2, "%s: (%d) %s", src, p.code, p.err);
		cr_expect_eq(count_lines(p.err), 1, "%s: not one line:\n%s", src, p.err);
		cr_expect(strstr(p.err, want), "%s: want \"%s\" in: %s", src, want, p.err);
		cr_expect_str_empty(p.out, "%s", src);
		snprintf(dst, sizeof(dst), "%s/tune.png", dir);
		cr_expect(access(dst, F_OK), "%s: %s written", src, dst);
		assert_no_leftovers(dir);
		ts_proc_free(&p);
		n++;
	}
	closedir(d);
	cr_expect_geq(n, 5);
}

/* A tune that did not end (tune.csv, no tune.json): one line, exit 2. */
Test(plot, a_tune_folder_without_tune_json_exits_2_on_one_line)
{
	const char *out = headroom_tune();
	char path[600];
	struct ts_proc p;

	snprintf(path, sizeof(path), "%s/tune.json", out);
	cr_assert_eq(unlink(path), 0);
	ts_exec(&p, (const char *const[]){"plot", out, NULL});
	cr_expect_eq(p.code, 2);
	cr_expect_eq(count_lines(p.err), 1, "stderr: %s", p.err);
	cr_expect(strstr(p.err, path) && strstr(p.err, "no such file"), "stderr: %s", p.err);
	cr_expect_str_empty(p.out);
	assert_no_leftovers(out);
	ts_proc_free(&p);
}
