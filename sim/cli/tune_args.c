/*
 * rocesim tune's command line: its usage text and options, into a struct
 * tune_args that tune.c runs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/cli.h"
#include "sim/study/tune_impl.h"

static const char usage[] =
    "usage: rocesim tune SCENARIO.yaml --vary KEY=LO..HI [--vary KEY=LO..HI]...\n"
    "                    (--minimize METRIC | --maximize METRIC)...\n"
    "                    [--subject-to 'METRIC OP VALUE']... [--set KEY=VALUE]...\n"
    "                    [--seeds N] [--budget N] [-j N] [-o DIR] [--progress | --quiet]\n"
    "                    [--model packet|fluid]\n"
    "\n"
    "Searches the values of the varied keys that minimise (or maximise) a metric\n"
    "while the constraints hold, running SCENARIO.yaml as a sweep does: each\n"
    "point once per seed, `rocesim run` in a process of its own, in\n"
    "DIR/points/<id>/ (default DIR: out/<scenario name>-tune). Writes DIR/tune.json\n"
    "(the scenario's own point, the recommendation, the best point, its metrics,\n"
    "the search path, every point, the Pareto front with two objectives) and\n"
    "DIR/tune.csv (one row per run), and prints the answer with the scenario\n"
    "fragment to paste (and the config file field to change when the key's value\n"
    "came from one).\n"
    "\n"
    "  METRIC  a summary metric an expect: gate names (lossless_drops,\n"
    "          pfc_pause_frames, fct_us.p99, collective.completion_time_us,\n"
    "          max_queue_bytes, ...) or a varied key itself\n"
    "  OP      ==, <=, >=, < or >; VALUE a number (with a unit for a varied key)\n"
    "\n"
    "Never worse than what you have: the scenario's own values (clamped into\n"
    "the ranges) run first; the answer meets every constraint and beats them on\n"
    "the objective, or tune says \"keep the current values\". Each key is moved\n"
    "alone from them: a key that moves nothing (seed by seed, beyond the spread)\n"
    "has no effect and is left out of the answer. The answer goes through\n"
    "`rocesim check` (its errors and warnings are printed), and a key at an end\n"
    "of its range is said. Without --seeds, the first point runs on 3 seeds: if\n"
    "a metric moved between them, every point runs on those 3 and is compared\n"
    "seed by seed (the gain with its 95% interval). A run whose flows did not\n"
    "all finish by `stop` measures no collective.* or fct_us.*: infeasible.\n"
    "\n"
    "One key whose own value is the objective: bisection at the key's grain\n"
    "from the scenario's own value, constraints checked for monotonicity.\n"
    "Otherwise: a coarse grid (log scale over a decade), then GSL's Nelder-Mead\n"
    "simplex from its best point, constraints as a penalty. With seeds, the\n"
    "objective is the mean and each constraint must hold for every seed.\n"
    "\n"
    "options:\n"
    "  --vary KEY=LO..HI        a key to search (at most 8), LO and HI with units\n"
    "  --minimize METRIC        the objective (twice, or with --maximize: two\n"
    "  --maximize METRIC        objectives, and the Pareto front of the points)\n"
    "  --subject-to 'M OP V'    a constraint (repeatable)\n"
    "  --set KEY=VALUE          a key fixed for every run, as run --set (repeatable)\n"
    "  --model fluid            run each point with the DCQCN fluid model (`rocesim\n"
    "                           fluid`, milliseconds a point): METRIC is then a varied\n"
    "                           key or fluid.M, M one of queue_bytes, queue_max_bytes,\n"
    "                           fixed_point_queue_bytes, marking_probability, rate_bps,\n"
    "                           oscillates, amplitude_bytes, period_us, converges,\n"
    "                           unsure\n"
    "  --seeds N                N seeds from the scenario's, for every point\n"
    "                           (default: 3 if the results depend on the seed, else 1)\n"
    "  --budget N               at most N runs, points x seeds (default 100)\n"
    "  -j N, -jN                runs at once (default: the number of online cores)\n"
    "  -o, --out DIR            the tune folder\n"
    "  --progress               a line on stderr as each run ends\n"
    "  --quiet                  print nothing on stdout\n"
    "\n"
    "Run again into the same DIR, a tune asks for the same points and skips the\n"
    "runs already finished: a killed tune resumes. Under mpirun, each batch of\n"
    "runs is shared among the ranks as a sweep's runs are.\n"
    "\n"
    "exit codes: 0 a point meets every constraint (the answer, or the current\n"
    "            values kept); 1 none does (the closest is printed);\n"
    "            2 bad input or usage, nothing run; 3 the tune's own\n"
    "            files could not be written; 128 + the signal when interrupted.\n";

/* The options of `rocesim tune` into @a: -1 to go on, or the exit code
 * having said why (0 after --help). */
static int tune_options(int argc, char **argv, struct tune_args *a)
{
	static const char pre[] = "rocesim tune: ";
	int rc = -1;

	for (int i = 0; i < argc && rc < 0; i++) {
		const char *o = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		int shared = cli_runs_option(argc, argv, &i, &a->runs, pre, usage);

		if (shared) {
			rc = shared > 0 ? shared : rc;
		} else if (!strcmp(o, "--vary")) {
			if (!v || !strchr(v, '='))
				rc = cli_usage_error(pre, usage, "%s needs KEY=LO..HI", o);
			else
				a->vary[a->n_vary++] = argv[++i];
		} else if (!strcmp(o, "--minimize") || !strcmp(o, "--maximize")) {
			if (!v || !*v)
				rc = cli_usage_error(pre, usage, "%s needs a metric", o);
			else if (a->n_obj == 2)
				rc = cli_usage_error(
				    pre, usage, "%s",
				    "at most two objectives (--minimize, --maximize)");
			else {
				a->obj[a->n_obj] = argv[++i];
				a->maximize[a->n_obj++] = o[2] == 'm' && o[3] == 'a';
			}
		} else if (!strcmp(o, "--subject-to")) {
			if (!v || !*v)
				rc = cli_usage_error(pre, usage, "%s needs 'METRIC OP VALUE'", o);
			else
				a->subject_to[a->n_subject_to++] = argv[++i];
		} else if (!strcmp(o, "--seeds")) {
			if (!v || cli_parse_count(v, 10000, &a->seeds))
				rc =
				    cli_usage_error(pre, usage, "%s needs a count (1 to 10000)", o);
			a->seeds_given = 1;
			i++;
		} else if (!strcmp(o, "--budget")) {
			if (!v || cli_parse_count(v, TUNE_MAX_BUDGET, &a->budget))
				rc = cli_usage_error(pre, usage,
						     "%s needs a count of runs (1 to 100000)", o);
			i++;
		} else {
			rc = cli_scenario_arg(o, pre, usage, &a->scenario);
		}
	}
	return rc;
}

/* The options of `rocesim tune`; runs what they ask; the exit code. */
static int tune_verb(int argc, char **argv, long local_ranks, sweep_main_fn run_main)
{
	static const char pre[] = "rocesim tune: ";
	struct tune_args a = {0};
	int rc;

	a.runs.jobs = sweep__default_jobs(local_ranks);
	a.runs.run_main = run_main;
	a.budget = 100;
	a.seeds = 1;
	a.vary = calloc((size_t)argc + 1, sizeof(*a.vary));
	a.subject_to = calloc((size_t)argc + 1, sizeof(*a.subject_to));
	a.runs.sets = calloc((size_t)argc + 1, sizeof(*a.runs.sets));
	if (!a.vary || !a.subject_to || !a.runs.sets) {
		free(a.vary);
		free(a.subject_to);
		free(a.runs.sets);
		fputs("rocesim: out of memory\n", stderr);
		return ROCESIM_EXIT_INPUT;
	}
	rc = tune_options(argc, argv, &a);
	if (rc < 0 && !a.scenario)
		rc = cli_usage_error(pre, usage, "%s", "tune needs a scenario file");
	if (rc < 0 && !a.n_vary)
		rc = cli_usage_error(pre, usage, "%s",
				     "tune needs a key to vary (--vary KEY=LO..HI)");
	if (rc < 0 && a.n_vary > TUNE_MAX_PARAMS)
		rc = cli_usage_error(pre, usage, "%s", "at most 8 keys to vary");
	if (rc < 0 && !a.n_obj)
		rc = cli_usage_error(pre, usage, "%s",
				     "tune needs an objective (--minimize or --maximize METRIC)");
	if (rc < 0 && a.n_subject_to > TUNE_MAX_CONSTRAINTS)
		rc = cli_usage_error(pre, usage, "%s", "at most 32 constraints (--subject-to)");
	if (rc < 0 && a.runs.n_sets > TUNE_MAX_SETS)
		rc = cli_usage_error(pre, usage, "%s", "at most 64 --set");
	if (rc < 0 && a.runs.progress && a.runs.quiet)
		rc = cli_usage_error(pre, usage, "%s", "--progress and --quiet exclude each other");
	if (rc < 0)
		rc = tune__main(&a);
	free(a.vary);
	free(a.subject_to);
	free(a.runs.sets);
	return rc;
}

int cmd_tune(int argc, char **argv, int (*run_main)(int argc, char **argv))
{
	return tune__launch(argc, argv, tune_verb, run_main);
}
