/*
 * rocesim fluid: the DCQCN fluid model (models/fluid.h) on each
 * bottleneck of a scenario's workload, in milliseconds: where DCQCN
 * settles (the fixed point, in closed form, and the integrated queue),
 * and whether it oscillates.
 *
 * The bottlenecks, their constants and their solution are
 * sim/study/fluid_necks.c's; this file is the verb: its options, the
 * table, --json, and the files of -o (fluid.json, a CSV per bottleneck,
 * results.json for sweep and tune).
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "models/fluid.h"
#include "sim/cli/cli.h"
#include "sim/config/scenario.h"
#include "sim/engine/units.h"
#include "sim/study/fluid_necks.h"
#include "topologies/topo.h"
#include "sim/readers/topo_read.h"

static const char usage[] =
    "usage: rocesim fluid SCENARIO.yaml [--json] [-o DIR] [--with OVERLAY.yaml]...\n"
    "                     [--set KEY=VALUE]... [--duration T] [--step T] [--quiet]\n"
    "\n"
    "Solves the DCQCN fluid model (Zhu et al., CoNEXT 2016) for each bottleneck\n"
    "of the scenario's flows: a switch port that N >= 2 flows cross (along the\n"
    "routes, the first next hop where ECMP offers several) and whose flows can\n"
    "bring more than its rate: a receiver's port, an oversubscribed uplink; a\n"
    "collective's flows are its QPs between servers, all at once.\n"
    "Prints the fixed point (queue, marking probability, rate per flow, alpha)\n"
    "and the integrated trajectory's settled queue, amplitude and period:\n"
    "whether DCQCN converges or oscillates there, or the model is unsure (it\n"
    "converges where the packet model may drain the queue or swing).\n"
    "\n"
    "options:\n"
    "  --json          print {\"bottlenecks\": [...]} instead of the table\n"
    "  -o, --out DIR   also write DIR/fluid.json, DIR/fluid-<port>.csv (the\n"
    "                  trajectory: t_us, queue_bytes, rc_gbps, rt_gbps, alpha) and\n"
    "                  DIR/results.json (summary.fluid: the bottleneck with the\n"
    "                  largest queue, what sweep and tune --model fluid read;\n"
    "                  a packet run's results.json in DIR is kept, so that\n"
    "                  `rocesim plot DIR` draws both models side by side)\n"
    "  --with FILE     merge a partial scenario onto SCENARIO, as run does\n"
    "  --set KEY=VALUE override a scenario key (repeatable)\n"
    "  --seed N        taken and ignored: the model has no randomness\n"
    "  --quiet         print nothing on stdout\n"
    "  --duration T    model time integrated (default 50ms)\n"
    "  --step T        the integration step, and the shortest feedback delay\n"
    "                  (default 1us)\n"
    "\n"
    "exit codes: 0 ok; 2 bad input (no shared port, ECN off, DCQCN off).\n";

struct fluid_args {
	const char *scenario, *outdir;
	const char **sets, **overlays;
	size_t n_sets, n_overlays;
	int json, quiet;
	simtime_t duration, step;
};

/* Does @path hold a packet run's results.json (one without "model": "fluid")? */
static int packet_run_in(const char *path)
{
	json_t *j = json_load_file(path, 0, NULL);
	const char *model = json_string_value(json_object_get(j, "model"));
	int run = json_is_object(j) && !(model && !strcmp(model, "fluid"));

	json_decref(j);
	return run;
}

/*
 * DIR/results.json for a sweep or a tune of the fluid model: its summary is
 * summary.fluid of the bottleneck with the largest settled queue, the
 * names the metrics of `tune --model fluid` take; but the verdict, and
 * oscillates, converges and unsure, are the worst of all the bottlenecks:
 * a point passes only when every one does.
 */
static int write_results(const char *dir, const struct scenario *s, const struct fluid_neck *k,
			 size_t n)
{
	const struct fluid_neck *w = &k[0];
	enum fluid_verdict v = fluid_neck_worst(k, n);
	char path[4200], tmp[4300];
	json_t *j, *f;
	int err = 0;

	for (size_t i = 1; i < n; i++)
		if (k[i].run.mean.q * k[i].frame > w->run.mean.q * w->frame)
			w = &k[i];
	f = json_object();
	json_object_set_new(f, "port", json_string(w->port));
	json_object_set_new(f, "queue_bytes", json_real(w->run.mean.q * w->frame));
	json_object_set_new(f, "queue_max_bytes", json_real(w->run.q_max * w->frame));
	json_object_set_new(f, "fixed_point_queue_bytes",
			    w->has_fixed ? json_real(w->fixed.q * w->frame) : json_null());
	json_object_set_new(f, "marking_probability",
			    w->has_fixed ? json_real(w->fixed.p) : json_null());
	json_object_set_new(f, "rate_bps", json_real(w->run.mean.rate / w->fp.c * w->rate_bps));
	json_object_set_new(f, "oscillates", json_boolean(v == FLUID_OSCILLATES));
	json_object_set_new(f, "verdict", json_string(fluid_verdict_name(v)));
	json_object_set_new(f, "converges", json_boolean(v == FLUID_CONVERGES));
	json_object_set_new(f, "unsure", json_boolean(v == FLUID_UNSURE));
	json_object_set_new(f, "amplitude_bytes", json_real(w->run.amplitude * w->frame));
	json_object_set_new(f, "period_us", json_real(w->run.period * 1e6));
	j = json_pack("{s:i,s:s,s:s,s:{s:o}}", "schema_version", 1, "scenario", s->name, "model",
		      "fluid", "summary", "fluid", f);
	snprintf(path, sizeof(path), "%s/results.json", dir);
	if (packet_run_in(path)) {
		/* the packet run's results stay; fluid.json sits beside them */
		json_decref(j);
		return 0;
	}
	snprintf(tmp, sizeof(tmp), "%s/.results.json.fluid", dir);
	/* whole or not at all: a sweep takes results.json for a finished run */
	if (!j || json_dump_file(j, tmp, JSON_INDENT(2)) || rename(tmp, path))
		err = -EIO;
	json_decref(j);
	return err;
}

static int write_csv(const char *dir, const struct fluid_neck *k)
{
	char path[4200], name[sizeof(k->port)];
	FILE *f;
	int err = 0;

	snprintf(name, sizeof(name), "%s", k->port);
	for (char *c = name; *c; c++)
		if (*c == ':' || *c == '/')
			*c = '-';
	snprintf(path, sizeof(path), "%s/fluid-%s.csv", dir, name);
	if (!(f = fopen(path, "w")))
		return -errno;
	fputs("t_us,queue_bytes,rc_gbps,rt_gbps,alpha\n", f);
	for (size_t i = 0; i < k->run.n; i++)
		fprintf(f, "%.3f,%.1f,%.4f,%.4f,%.5f\n", k->run.t[i] * 1e6, k->run.q[i] * k->frame,
			k->run.rc[i] / k->fp.c * k->rate_bps / 1e9,
			k->run.rt[i] / k->fp.c * k->rate_bps / 1e9, k->run.alpha[i]);
	if (ferror(f))
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

static void print_neck(const struct fluid_neck *k, const struct scenario *s)
{
	printf("bottleneck %s: %u flows at %.0f Gb/s, feedback delay %.2f us (%s variant)\n",
	       k->port, k->fp.n, k->rate_bps / 1e9, k->fp.delay * 1e6,
	       s->nic.dcqcn.variant == DCQCN_PAPER ? "paper" : "mlx5");
	if (k->has_fixed)
		printf("  fixed point  queue %.1f KB, marking %.4f%%, %.2f Gb/s per flow, alpha "
		       "%.4f\n",
		       k->fixed.q * k->frame / 1e3, k->fixed.p * 100, k->rate_bps / k->fp.n / 1e9,
		       k->fixed.alpha);
	else
		printf(
		    "  fixed point  none: the flows do not fill the port with a queue to mark\n");
	printf("  settled      queue %.1f KB (%.1f-%.1f KB over the last %s), %.2f Gb/s per "
	       "flow: %s",
	       k->run.mean.q * k->frame / 1e3, k->run.q_min * k->frame / 1e3,
	       k->run.q_max * k->frame / 1e3,
	       k->run.converged_early ? "tenth, converged early" : "40% of the run",
	       k->run.mean.rate / k->fp.c * k->rate_bps / 1e9,
	       k->verdict == FLUID_SETTLING ? "still settling at the end of the run"
					    : fluid_verdict_name(k->verdict));
	if (k->verdict == FLUID_UNSURE) {
		char why[160];

		fluid_neck_unsure_why(k, why, sizeof(why));
		printf(" (it converges, but %s: the packet model may drain the queue or swing; "
		       "confirm with rocesim run)",
		       why);
	}
	if (k->verdict == FLUID_SETTLING)
		printf(" (the flows fill %.0f%% of the port; try --duration)",
		       100 * k->fp.n * k->run.mean.rate / k->fp.c);
	if (k->run.oscillates)
		printf(", amplitude %.1f KB, period %.1f us", k->run.amplitude * k->frame / 1e3,
		       k->run.period * 1e6);
	printf("\n");
}

/* fluid.json, results.json and a CSV per bottleneck in @dir: 0, or
 * ROCESIM_EXIT_IO having said so. */
static int write_outputs(const char *dir, const struct scenario *s, json_t *all,
			 const struct fluid_neck *necks, size_t n)
{
	int rc = 0;
	json_t *j = json_pack("{s:O}", "bottlenecks", all);

	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "rocesim: cannot write in %s\n", dir);
		rc = ROCESIM_EXIT_IO;
	} else {
		char path[4200];

		snprintf(path, sizeof(path), "%s/fluid.json", dir);
		if (json_dump_file(j, path, JSON_INDENT(2)))
			rc = ROCESIM_EXIT_IO;
		if (!rc && write_results(dir, s, necks, n))
			rc = ROCESIM_EXIT_IO;
		for (size_t i = 0; i < n && !rc; i++)
			if (write_csv(dir, &necks[i]))
				rc = ROCESIM_EXIT_IO;
		if (rc)
			fprintf(stderr, "rocesim: cannot write in %s\n", dir);
	}
	json_decref(j);
	return rc;
}

static int fluid_main(const struct fluid_args *a)
{
	struct scenario *s = NULL;
	struct topo *t = NULL;
	struct fluid_neck *necks = NULL;
	struct diag d = {0};
	struct wl_params wl = {0};
	size_t n = 0;
	int err, rc = ROCESIM_EXIT_INPUT;
	json_t *all = NULL;

	err = scn_load_with(a->scenario,
			    &(struct scn_load_opts){.overlays = a->overlays,
						    .n_overlays = a->n_overlays,
						    .sets = a->sets,
						    .n_sets = a->n_sets},
			    &s, &d);
	if (!err && (err = topo_build(&s->topo, &t, &d)))
		scn_locate(s, &d);
	else if (!err)
		err = scn_resolve(s, t, &d);
	if (err) {
		fputs("rocesim: ", stderr);
		if (err == -ENOMEM)
			fputs("out of memory\n", stderr);
		else
			diag_print(&d, stderr);
		goto out;
	}
	if (s->nic.cc != NIC_CC_DCQCN || !s->sw.ecn.enabled) {
		fprintf(stderr,
			"rocesim: %s: the fluid model needs DCQCN (nic.cc: dcqcn) and ECN "
			"marking (switch.ecn)\n",
			a->scenario);
		goto out;
	}
	if ((err = fluid_neck_flows(s, &wl)) ||
	    (err = fluid_neck_find(s, t, &wl, a->step, &necks, &n))) {
		fputs("rocesim: out of memory\n", stderr);
		goto out;
	}
	if (!n) {
		fprintf(
		    stderr,
		    "rocesim: %s: no bottleneck: no switch port is shared by more flows than it "
		    "carries (the fluid model takes the shared ports of flow workloads and of "
		    "collectives between servers)\n",
		    a->scenario);
		goto out;
	}
	all = json_array();
	for (size_t i = 0; i < n; i++) {
		if ((err = fluid_neck_solve(&necks[i], a->duration, a->step))) {
			fprintf(stderr, "rocesim: %s: %s\n", necks[i].port,
				err == -ENOMEM ? "out of memory"
					       : "the model cannot be integrated");
			goto out;
		}
		json_array_append_new(all, fluid_neck_json(&necks[i]));
		if (!a->json && !a->quiet)
			print_neck(&necks[i], s);
	}
	if (a->json && !a->quiet) {
		json_t *j = json_pack("{s:O}", "bottlenecks", all);

		json_dumpf(j, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(j);
	}
	rc = a->outdir ? write_outputs(a->outdir, s, all, necks, n) : 0;
out:
	fluid_neck_free(necks, n);
	free(wl.flows);
	json_decref(all);
	topo_free(t);
	scn_free(s);
	return rc;
}

static int parse_time(const char *pre, const char *o, const char *v, simtime_t *out)
{
	if (!v || units_time(v, out) || !*out)
		return cli_usage_error(pre, usage, "%s needs a time above 0 (e.g. 50ms)", o);
	return -1;
}

int cmd_fluid(int argc, char **argv)
{
	static const char pre[] = "rocesim fluid: ";
	struct fluid_args a = {.duration = 100 * SIMTIME_MS, .step = SIMTIME_US};
	int rc = -1;

	a.sets = calloc((size_t)argc + 1, sizeof(*a.sets));
	a.overlays = calloc((size_t)argc + 1, sizeof(*a.overlays));
	if (!a.sets || !a.overlays) {
		free(a.sets);
		free(a.overlays);
		fputs("rocesim: out of memory\n", stderr);
		return ROCESIM_EXIT_INPUT;
	}
	for (int i = 0; i < argc && rc < 0; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(o, "--json")) {
			a.json = 1;
		} else if (!strcmp(o, "-o") || !strcmp(o, "--out")) {
			if (!v)
				rc = cli_usage_error(pre, usage, "%s needs a folder", o);
			a.outdir = argv[++i];
		} else if (!strcmp(o, "--with")) {
			if (!v)
				rc = cli_usage_error(pre, usage, "%s needs an overlay file", o);
			else
				a.overlays[a.n_overlays++] = argv[++i];
		} else if (!strcmp(o, "--seed")) {
			/* the model has no randomness: taken, as a sweep passes it */
			if (!v)
				rc = cli_usage_error(pre, usage, "%s needs a number", o);
			i++;
		} else if (!strcmp(o, "--quiet") || !strcmp(o, "-q")) {
			a.quiet = 1;
		} else if (!strcmp(o, "--set")) {
			if (!v || !strchr(v, '='))
				rc = cli_usage_error(pre, usage, "%s needs KEY=VALUE", o);
			else
				a.sets[a.n_sets++] = argv[++i];
		} else if (!strcmp(o, "--duration")) {
			rc = parse_time(pre, o, v, &a.duration);
			i++;
		} else if (!strcmp(o, "--step")) {
			rc = parse_time(pre, o, v, &a.step);
			i++;
		} else {
			rc = cli_scenario_arg(o, pre, usage, &a.scenario);
		}
	}
	if (rc < 0 && !a.scenario)
		rc = cli_usage_error(pre, usage, "%s", "fluid needs a scenario file");
	if (rc < 0 && a.duration < 20 * a.step)
		rc = cli_usage_error(pre, usage, "%s", "--duration must be at least 20 steps");
	if (rc < 0 && (double)a.duration / (double)a.step > FLUID_MAX_STEPS)
		rc = cli_usage_error(
		    pre, usage, "%s",
		    "--duration is more than 10,000,000 steps of --step (16 bytes of "
		    "history each): give a longer --step or a shorter --duration");
	if (rc < 0)
		rc = fluid_main(&a);
	free(a.sets);
	free(a.overlays);
	return rc;
}
