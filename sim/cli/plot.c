/*
 * rocesim plot OUTDIR: pictures of a finished run. Reads OUTDIR/results.json
 * (jansson) and the CSVs the run wrote (plain stdio), writes the few points
 * each picture needs into small data files in a temporary folder
 * OUTDIR/.plot-XXXXXX, and runs gnuplot on the scripts in plots/ with
 * posix_spawnp (never a shell), passing the rest as -e variables. Each
 * picture is drawn in the temporary folder and renamed into OUTDIR when
 * gnuplot succeeded; the temporary folder is removed in every case.
 *
 *   queues.png  egress queue and ingress PG occupancy of the hottest ports
 *   pfc.png     when each port was paused (needs pfc_events.csv)
 *   rates.png   DCQCN Rc, Rt and alpha of up to 8 QPs (needs qp_rates.csv)
 *   flows.png   completion time of every flow, sorted
 *   slowdown.png  FCT slowdown against flow size, per size bucket (plot_slowdown.c)
 *   ranks.png   when each rank of a collective had all its data
 *   fluid.png   the DCQCN fluid model beside the packet model (plot_fluid.c)
 *
 * On a sweep's folder (it has sweep.json) it draws sweep-<metric>.png
 * instead, a main metric against the first axis (plot_sweep.c); on a
 * tune's (it has tune.json or tune.csv) tune.png, the points evaluated,
 * and with two objectives tune-front.png (plot_tune.c).
 *
 * Plot knows nothing of the scenario: what it draws comes from OUTDIR alone.
 * This file is the verb; plot_ports.c and plot_hosts.c draw the pictures
 * from what plot_data.c reads, and plot_gnuplot.c runs gnuplot.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/cli/cli.h"
#include "sim/plot/plot_impl.h"

#define EXIT_INPUT ROCESIM_EXIT_INPUT
#define TOP_DEFAULT 4
#define TOP_MAX 8 /* one colour each in queues.png */
static const char usage[] =
    "usage: rocesim plot OUTDIR|SWEEPDIR|TUNEDIR [--svg] [--top N]\n"
    "\n"
    "Draws the pictures of a run from the files `rocesim run -o OUTDIR` wrote,\n"
    "with gnuplot, into OUTDIR (PNG; with --svg also SVG):\n"
    "  queues.png  egress queue and ingress PG occupancy over time on the N\n"
    "              hottest switch ports (from timeseries.csv), with the ECN\n"
    "              kmin/kmax and the PFC XOFF thresholds when results.json\n"
    "              gives them (\"config\": {ecn_kmin, ecn_kmax, pfc_xoff})\n"
    "  pfc.png     PFC timeline: when each port was paused, storms and the\n"
    "              watchdog (only when OUTDIR has pfc_events.csv)\n"
    "  rates.png   DCQCN current rate Rc, target rate Rt and alpha of the\n"
    "              first 8 QPs (only when OUTDIR has qp_rates.csv)\n"
    "  flows.png   completion time of every flow, fastest first (only when the\n"
    "              run had flows)\n"
    "  slowdown.png  FCT slowdown (p50, p95, p99) per flow size bucket, on a\n"
    "              log size axis (only when flows finished)\n"
    "  ranks.png   collective progress per rank: when each rank had received all\n"
    "              its data in the last iteration, one bar per rank, with the time\n"
    "              the iteration took; one panel per collective, the first 4 when\n"
    "              the run had more (only when the run had a collective)\n"
    "  fluid.png   the DCQCN fluid model (`rocesim fluid -o OUTDIR`: fluid.json):\n"
    "              per bottleneck, the queue against time with the fixed point\n"
    "              dashed, and the rate of a flow (Rc); beside them the packet\n"
    "              model's queue of that port and the mean Rc of its QPs when a\n"
    "              run wrote into OUTDIR too (only when OUTDIR has fluid.json; on\n"
    "              the folder of `rocesim fluid` alone, only this picture)\n"
    "and prints the path of each file written.\n"
    "\n"
    "On the -o folder of `rocesim sweep` (it has sweep.json and summary.csv) it\n"
    "draws instead, for each main metric (pfc_pause_frames, pfc_paused_time_us,\n"
    "lossless_drops, ecn_marked_packets, max_queue_bytes, fct_us.p99,\n"
    "collective.completion_time_us, collective.busbw_GBps) that the runs have\n"
    "and that is not the same at every point:\n"
    "  sweep-<metric>.png  the mean over the seeds against the first axis (log\n"
    "              scale when its values span more than a factor 10), one line\n"
    "              per value of the other axes and per variant, the 95%\n"
    "              confidence interval as error bars when there are several seeds\n"
    "\n"
    "On the -o folder of `rocesim tune` (it has tune.json) it draws instead the\n"
    "points the search evaluated, those that meet every constraint and those\n"
    "that break one in two styles, the best point circled; points the scenario\n"
    "refused are not drawn:\n"
    "  tune.png    one varied key: the objective against the key or, when the\n"
    "              objective is the key itself, the first constraint's metric\n"
    "              (the worst seed's value) with the constraint's limit; the last\n"
    "              points again, near the best one, when they crowd together.\n"
    "              Two keys or more: the first two as x and y, a dot per point,\n"
    "              the search path through the best points so far. A key's axis\n"
    "              is on a log scale when tune searched it on one\n"
    "  tune-front.png  with two objectives: objective 1 against objective 2 for\n"
    "              every point that meets the constraints, the Pareto front as a\n"
    "              line\n"
    "\n"
    "options:\n"
    "  --svg       also write queues.svg, pfc.svg, rates.svg, flows.svg, ranks.svg,\n"
    "              fluid.svg, slowdown.svg\n"
    "              (sweep-<metric>.svg on a sweep, tune.svg and tune-front.svg on\n"
    "              a tune)\n"
    "  --top N     number of hottest ports in queues.png (default 4, at most 8)\n"
    "\n"
    "The gnuplot scripts (queues.gp, pfc.gp, rates.gp, flows.gp, slowdown.gp,\n"
    "ranks.gp, fluid.gp, sweep.gp, tune.gp) are looked for in this order: $ROCESIM_PLOTS; "
    "./plots;\n"
    "<folder of the rocesim executable>/../plots (a build folder inside the\n"
    "source tree); <that folder>/../share/rocesim/plots.\n"
    "\n"
    "exit codes: 0 ok; 2 bad usage, OUTDIR without results.json (a sweep's\n"
    "            folder without summary.csv, a tune's without tune.json),\n"
    "            unreadable input, gnuplot missing or failing\n";

/* ---- the verb ----------------------------------------------------------- */

static int has_scripts(const char *dir)
{
	char path[PLOT_PATH];

	if ((size_t)snprintf(path, sizeof(path), "%s/queues.gp", dir) >= sizeof(path))
		return 0;
	return !access(path, R_OK);
}

/* Find the gnuplot scripts (the order is in the usage text). */
static int find_scripts(struct plot *p)
{
	const char *env = getenv("ROCESIM_PLOTS");
	char exe[PLOT_PATH], *slash;
	ssize_t len;

	if (env && *env) {
		if (!has_scripts(env)) {
			fprintf(stderr, "rocesim: ROCESIM_PLOTS=%s: no queues.gp there\n", env);
			return -1;
		}
		snprintf(p->scripts, sizeof(p->scripts), "%s", env);
		return 0;
	}
	if (has_scripts("plots")) {
		snprintf(p->scripts, sizeof(p->scripts), "plots");
		return 0;
	}
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len > 0) {
		exe[len] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			if ((size_t)snprintf(p->scripts, sizeof(p->scripts), "%s/../plots", exe) <
				sizeof(p->scripts) &&
			    has_scripts(p->scripts))
				return 0;
			if ((size_t)snprintf(p->scripts, sizeof(p->scripts),
					     "%s/../share/rocesim/plots",
					     exe) < sizeof(p->scripts) &&
			    has_scripts(p->scripts))
				return 0;
		}
	}
	fprintf(stderr, "rocesim: cannot find the gnuplot scripts (plots/queues.gp); "
			"set ROCESIM_PLOTS to the plots/ folder of rocesim's source\n");
	return -1;
}

/*
 * Load OUTDIR/results.json into p->res; 1 when OUTDIR is a sweep's folder
 * (it has sweep.json), 2 a tune's (tune.json, or tune.csv without it), 3 the
 * fluid model's alone (results.json with "model": "fluid", or fluid.json
 * without results.json), -1 after saying what is wrong.
 */
static int load_results(struct plot *p)
{
	char path[PLOT_PATH];
	json_error_t je;
	struct stat st;
	int fluid;

	if (stat(p->outdir, &st)) {
		fprintf(stderr, "rocesim: plot: %s: %s\n", p->outdir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "rocesim: plot: %s is not a folder (give the -o folder of a run)\n",
			p->outdir);
		return -1;
	}
	if (plot__join(path, sizeof(path), p->outdir, "sweep.json"))
		return -1;
	if (!access(path, F_OK))
		return 1;
	for (int i = 0; i < 2; i++) {
		if (plot__join(path, sizeof(path), p->outdir, i ? "tune.csv" : "tune.json"))
			return -1;
		if (!access(path, F_OK))
			return 2;
	}
	if (plot__join(path, sizeof(path), p->outdir, "fluid.json"))
		return -1;
	fluid = !access(path, F_OK);
	if (plot__join(path, sizeof(path), p->outdir, "results.json"))
		return -1;
	if (access(path, F_OK) && fluid)
		return 3;
	if (access(path, F_OK)) {
		fprintf(stderr,
			"rocesim: plot: %s has no results.json (is it the -o folder of a run, "
			"a sweep or a tune?)\n",
			p->outdir);
		return -1;
	}
	p->res = json_load_file(path, 0, &je);
	if (!p->res) {
		fprintf(stderr, "rocesim: %s:%d: %s\n", path, je.line, je.text);
		return -1;
	}
	if (!json_is_object(p->res)) {
		fprintf(stderr, "rocesim: %s: not a JSON object\n", path);
		return -1;
	}
	p->name = json_string_value(json_object_get(p->res, "scenario"));
	if (!p->name)
		p->name = "run";
	p->end_us = plot__json_num(json_object_get(p->res, "summary"), "sim_time_us", 0);
	return json_is_string(json_object_get(p->res, "model")) &&
		       !strcmp(json_string_value(json_object_get(p->res, "model")), "fluid")
		   ? 3
		   : 0;
}

/* The options of `rocesim plot` into @p: -1 to go on, or the exit code
 * having said why (0 after --help). */
static int plot_options(int argc, char **argv, struct plot *p)
{
	for (int i = 0; i < argc; i++) {
		const char *o = argv[i];

		if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(o, "--svg")) {
			p->svg = 1;
		} else if (!strcmp(o, "--top")) {
			char *end;
			long n;

			if (i + 1 >= argc)
				return cli_usage_error("rocesim: plot: ", usage,
						       "%s needs a number", o);
			errno = 0;
			n = strtol(argv[++i], &end, 10);
			if (end == argv[i] || *end || errno || n < 1 || n > TOP_MAX)
				return cli_usage_error("rocesim: plot: ", usage,
						       "--top: \"%s\" is not a number from 1 to 8",
						       argv[i]);
			p->top = (int)n;
		} else if (o[0] == '-' && o[1]) {
			return cli_usage_error("rocesim: plot: ", usage, "unknown option \"%s\"",
					       o);
		} else if (p->outdir) {
			return cli_usage_error("rocesim: plot: ", usage,
					       "one OUTDIR at a time (also got \"%s\")", o);
		} else {
			p->outdir = o;
		}
	}
	return -1;
}

/* Draw what @kind of outputs @p holds (load_results) into its folder,
 * through its temporary folder; the exit code. */
static int plot_draw(struct plot *p, int kind)
{
	int err;

	if (kind == 1 || kind == 2) {
		err = kind == 1 ? plot_sweep(p) : plot_tune(p);
		tmp_remove(p);
		return err ? EXIT_INPUT : 0;
	}
	if (kind == 3) {
		if (!p->name)
			p->name = "fluid";
		err = plot_fluid(p, 1);
		tmp_remove(p);
		json_decref(p->res);
		return err ? EXIT_INPUT : 0;
	}
	err = plot_queues(p);
	if (!err)
		err = plot_pfc(p);
	if (!err)
		err = plot_rates(p);
	if (!err)
		err = plot_flows(p);
	if (!err)
		err = plot_slowdown(p);
	if (!err)
		err = plot_ranks(p);
	if (!err)
		err = plot_timeline(p);
	if (!err)
		err = plot_fluid(p, 0);
	tmp_remove(p);
	json_decref(p->res);
	return err ? EXIT_INPUT : 0;
}

int cmd_plot(int argc, char **argv)
{
	struct plot p = {0};
	char tmpl[PLOT_PATH];
	int rc, kind;

	p.top = TOP_DEFAULT;
	if ((rc = plot_options(argc, argv, &p)) >= 0)
		return rc;
	if (!p.outdir)
		return cli_usage_error("rocesim: plot: ", usage, "%s",
				       "OUTDIR is needed (the -o folder of a run)");
	kind = load_results(&p);
	if (kind < 0 || find_scripts(&p)) {
		json_decref(p.res);
		return EXIT_INPUT;
	}
	if (plot__join(tmpl, sizeof(tmpl), p.outdir, ".plot-XXXXXX")) {
		json_decref(p.res);
		return EXIT_INPUT;
	}
	if (!mkdtemp(tmpl)) {
		fprintf(stderr, "rocesim: cannot create a folder in %s: %s\n", p.outdir,
			strerror(errno));
		json_decref(p.res);
		return EXIT_INPUT;
	}
	snprintf(p.tmp, sizeof(p.tmp), "%s", tmpl);
	fflush(stdout);
	return plot_draw(&p, kind);
}
