/*
 * rocesim calibrate SCENARIO --measured DIR --fit KEY=LO..HI...: its usage
 * and options, the fit (sim/study/calibrate.h) printed as a report or as
 * JSON, and calibrate.json written into --out whole or not at all.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/cli/ci_report.h"
#include "sim/cli/cli.h"
#include "sim/engine/textsafe.h"
#include "sim/study/calibrate.h"

#define P "rocesim: calibrate: "

static const char usage[] =
    "usage: rocesim calibrate SCENARIO.yaml --measured DIR --fit KEY=LO..HI\n"
    "                         [--fit KEY=LO..HI]... [--set KEY=VALUE]... [--seeds N]\n"
    "                         [--budget N] [--out DIR] [--json]\n"
    "\n"
    "Fits scenario keys a config does not give (a DCQCN reaction delay, the PFC\n"
    "response delay, a link delay, a per-hop latency, ...) so that a run's NIC\n"
    "and switch counters match what the lab measured: DIR is a folder of\n"
    "measured files, NODE.KIND[.before|.after] (ethtool -S, hw_counters,\n"
    "pfcstat, queuestat; docs/measured.md), NODE a host or switch of the\n"
    "scenario. The counters `rocesim compare --measured` pairs are summed by\n"
    "counter over the nodes and ports they were read on (every host's\n"
    "rx_prio3_pause, every port's PFC3 Tx: a port's own count turns on races\n"
    "no model replays event for event, the sum does not); each sum gives the\n"
    "residual ln((simulated + 10) / (measured + 10)), each weighing 1, and the\n"
    "fit minimises their mean square with tune's search: a coarse grid over the\n"
    "ranges (log scale over a decade), then GSL's Nelder-Mead simplex\n"
    "(nmsimplex2), until the budget of runs is spent or the simplex is finer\n"
    "than a hundredth of a range. Each point runs in this process on the\n"
    "scenario's seed (and the next ones with --seeds, the counters averaged):\n"
    "the same values give the same residuals.\n"
    "\n"
    "Prints the fitted values, the residual of each sum before (the scenario\n"
    "as it is) and after, the runs it took, a verdict, and the\n"
    "fragment to paste into the scenario. The verdict says when the fit is\n"
    "poor (root mean square residual above 0.10), when a value is at an end\n"
    "of its range (the best may lie beyond), when a key moved no counter (its\n"
    "value is not determined), and the values whose residual is within 25% of\n"
    "the best (how tightly the counters pin each key).\n"
    "\n"
    "options:\n"
    "  --measured DIR     the folder of measured files\n"
    "  --fit KEY=LO..HI   a key to fit (at most 8), LO and HI in the key's unit\n"
    "                     (2us..20us, 100KB..1MB)\n"
    "  --set KEY=VALUE    a key fixed for every run (repeatable)\n"
    "  --seeds N          runs a point, from the scenario's seed (default 1)\n"
    "  --budget N         at most N runs in all (default 60)\n"
    "  --out DIR          write DIR/calibrate.json\n"
    "  --json             print calibrate.json's document instead of the report\n"
    "\n"
    "exit codes: 0 fitted (read the verdict); 2 bad input or usage (an unknown\n"
    "            key, an empty range, a range in the wrong unit, a folder with no\n"
    "            counter to compare or whose nodes are not the scenario's):\n"
    "            nothing written; 3 calibrate.json could not be written\n";

static void cal_print_keys(const struct cal_result *r, FILE *f)
{
	fputs("fitted:\n", f);
	for (size_t i = 0; i < r->pb.n_params; i++) {
		struct cal_key_text t;

		cal_key_text(r, i, &t);
		fprintf(f,
			"  %-40s %-12s (range %s..%s; fitting within 25%% of the best: %s..%s)\n",
			r->pb.params[i].key, t.value, t.lo, t.hi, t.near_lo, t.near_hi);
	}
}

static void cal_print_counters(const struct cal_result *r, FILE *f)
{
	char a[400], b[400], c[400];
	size_t zero = 0;

	fprintf(f,
		"residuals of the counters summed over nodes and ports, ln((simulated + %g) / "
		"(measured + %g)):\n",
		CC_FLOOR, CC_FLOOR);
	fprintf(f, "  %-38s %-18s %12s %12s %8s %12s %8s\n", "counter", "summed over", "measured",
		"before", "res", "after", "res");
	for (size_t i = 0; i < r->n_counters; i++) {
		const struct cal_counter *q = &r->counters[i];

		if (q->measured == 0 && q->before == 0 && q->after == 0) {
			zero++;
			continue;
		}
		snprintf(a, sizeof(a), "%s%s", q->first, q->n > 1 ? " ..." : "");
		fprintf(f, "  %-38s %-18s %12.0f %12.0f %8.3f %12.0f %8.3f\n",
			txt_term(b, sizeof(b), q->name), txt_term(c, sizeof(c), a), q->measured,
			q->before, q->res_before, q->after, q->res_after);
	}
	fprintf(f, "  %-38s %-18s %12s %12s %8.3f %12s %8.3f\n", "root mean square", "", "", "",
		r->rms_before, "", r->rms_after);
	if (zero)
		fprintf(
		    f,
		    "  (%zu more, 0 measured and 0 simulated before and after: calibrate.json)\n",
		    zero);
	if (r->not_compared)
		fprintf(f,
			"  (%zu counters of the folder not compared: `rocesim compare "
			"--measured` lists them)\n",
			r->not_compared);
}

static void cal_print_verdict(const struct cal_result *r, FILE *f)
{
	fputs("verdict:\n", f);
	if (r->poor)
		fprintf(
		    f,
		    "  POOR FIT: the counters still disagree by %.0f%% (root mean square of the "
		    "log ratios, the worst %.0f%%): the fitted keys cannot explain them; the "
		    "values are the least bad, not the lab's\n",
		    100 * (exp(r->rms_after) - 1), 100 * (exp(r->worst_after) - 1));
	else
		fprintf(
		    f,
		    "  the counters agree within %.1f%% (root mean square of the log ratios; the "
		    "worst %.1f%%)\n",
		    100 * (exp(r->rms_after) - 1), 100 * (exp(r->worst_after) - 1));
	for (size_t i = 0; i < r->pb.n_params; i++) {
		const struct tune_param *p = &r->pb.params[i];
		const struct cal_key *k = &r->keys[i];
		double span = tune_to_unit(p, k->near_hi) - tune_to_unit(p, k->near_lo);

		if (k->effect == 0) {
			fprintf(f,
				"  %s moved no counter over the points run: its value is not "
				"determined by these counters (left out of the fragment)\n",
				p->key);
			continue;
		}
		if (k->at_bound)
			fprintf(f,
				"  %s is at the %s end of its range: the best value may lie beyond "
				"it; widen the range\n",
				p->key, k->at_bound < 0 ? "low" : "high");
		if (span > 0.2)
			fprintf(f,
				"  %s is loosely determined: points over %.0f%% of its range fit "
				"within 25%% of the best\n",
				p->key, 100 * span);
	}
}

static void cal_print(const struct cal_result *r, FILE *f)
{
	char a[SWEEP_PATH], b[SWEEP_PATH];

	fprintf(f,
		"calibrate %s to %s: %zu counters, %zu runs (%zu points, %zu seed%s each), "
		"%.1f s\n",
		txt_term(a, sizeof(a), r->scenario), txt_term(b, sizeof(b), r->measured),
		r->n_counters, r->runs, r->search.n, r->seeds, r->seeds == 1 ? "" : "s", r->wall_s);
	cal_print_keys(r, f);
	cal_print_counters(r, f);
	cal_print_verdict(r, f);
	if (strchr(strchr(r->fragment, '\n') + 1, ':'))
		fputs(r->fragment, f);
	else
		fputs("nothing to paste: no key was determined\n", f);
}

/* DIR/calibrate.json, whole or not at all. 0 or a negative errno. */
static int cal_write(const char *dir, const json_t *doc)
{
	char path[SWEEP_PATH + 32], *text;
	int err;

	if (mkdir(dir, 0777) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/calibrate.json", dir);
	if (!(text = json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(12))))
		return -ENOMEM;
	err = ci_write_file(path, text, strlen(text));
	free(text);
	return err;
}

/* The option at @i that takes a value: into *@v, or the usage error. */
static int cal_value(int argc, char **argv, int *i, const char **v)
{
	if (*i + 1 >= argc || !argv[*i + 1][0])
		return cli_usage_error(P, usage, "%s needs a value", argv[*i]);
	*v = argv[++*i];
	return -1;
}

/* A whole number of --seeds or --budget. */
static int cal_count(const char *opt, const char *s, size_t max, size_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (end == s || *end || *s == '-' || v == 0 || v > max)
		return cli_usage_error(P, usage, "%s: not a whole number from 1 to a limit", opt);
	*out = (size_t)v;
	return -1;
}

static int cal_main(const struct cal_args *a, const char *out, int json)
{
	struct cal_result r;
	struct diag d = {0};
	json_t *doc = NULL;
	int err = cal_run(a, &r, &d), rc = 0;
	char msg[1200];

	if (err) {
		fprintf(stderr, P "%s\n",
			err == -ENOMEM ? "out of memory" : diag_str(&d, msg, sizeof(msg)));
		cal_free(&r);
		return ROCESIM_EXIT_INPUT;
	}
	if ((json || out) && !(doc = cal_json(&r))) {
		fputs(P "out of memory\n", stderr);
		cal_free(&r);
		return ROCESIM_EXIT_INPUT;
	}
	if (out && (err = cal_write(out, doc))) {
		fprintf(stderr, P "cannot write %s/calibrate.json: %s\n",
			txt_term(msg, sizeof(msg), out), strerror(-err));
		rc = ROCESIM_EXIT_IO;
	} else if (json) {
		if (json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(12)) ||
		    putchar('\n') == EOF || fflush(stdout))
			rc = ROCESIM_EXIT_IO;
	} else {
		cal_print(&r, stdout);
		if (out)
			printf("written: %s/calibrate.json\n", txt_term(msg, sizeof(msg), out));
	}
	json_decref(doc);
	cal_free(&r);
	return rc;
}

int cmd_calibrate(int argc, char **argv)
{
	struct cal_args a = {0};
	const char *out = NULL;
	int json = 0, rc = -1;

	a.fits = calloc((size_t)argc + 1, sizeof(*a.fits));
	a.sets = calloc((size_t)argc + 1, sizeof(*a.sets));
	if (!a.fits || !a.sets) {
		free(a.fits);
		free(a.sets);
		fputs(P "out of memory\n", stderr);
		return ROCESIM_EXIT_INPUT;
	}
	for (int i = 0; i < argc && rc < 0; i++) {
		const char *o = argv[i], *v = NULL;

		if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
			fputs(usage, stdout);
			rc = 0;
		} else if (!strcmp(o, "--json")) {
			json = 1;
		} else if (!strcmp(o, "--measured")) {
			rc = cal_value(argc, argv, &i, &a.measured);
		} else if (!strcmp(o, "--fit") || !strcmp(o, "--set")) {
			if ((rc = cal_value(argc, argv, &i, &v)) < 0) {
				if (o[2] == 'f')
					a.fits[a.n_fits++] = (char *)v;
				else if (!strchr(v, '='))
					rc =
					    cli_usage_error(P, usage, "--set %s: not KEY=VALUE", v);
				else
					a.sets[a.n_sets++] = (char *)v;
			}
		} else if (!strcmp(o, "--seeds")) {
			if ((rc = cal_value(argc, argv, &i, &v)) < 0)
				rc = cal_count(o, v, CAL_MAX_SEEDS, &a.seeds);
		} else if (!strcmp(o, "--budget")) {
			if ((rc = cal_value(argc, argv, &i, &v)) < 0)
				rc = cal_count(o, v, TUNE_MAX_BUDGET, &a.budget);
		} else if (!strcmp(o, "--out") || !strcmp(o, "-o")) {
			rc = cal_value(argc, argv, &i, &out);
		} else if (o[0] == '-' && o[1]) {
			rc = cli_usage_error(P, usage, "unknown option \"%s\"", o);
		} else if (!a.scenario) {
			a.scenario = o;
		} else {
			rc = cli_usage_error(P, usage, "one SCENARIO (also got \"%s\")", o);
		}
	}
	if (rc < 0 && (!a.scenario || !a.measured || !a.n_fits))
		rc = cli_usage_error(
		    P, usage, "%s",
		    "calibrate needs SCENARIO, --measured DIR and --fit KEY=LO..HI");
	if (rc < 0)
		rc = cal_main(&a, out, json);
	free(a.fits);
	free(a.sets);
	return rc;
}
