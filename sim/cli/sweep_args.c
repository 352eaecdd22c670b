/*
 * rocesim sweep's command line: its usage text and options, into a
 * struct sweep_args that sweep.c runs (a sweep, --task or --collect).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/cli/cli.h"
#include "sim/study/sweep_impl.h"
#include "sim/engine/units.h"

static const char usage[] =
    "usage: rocesim sweep SCENARIO.yaml [--vary KEY=V1,V2,...]... [--vary KEY=LO..HI:N | "
    "KEY=LO..HI:xF]\n"
    "                     [--zip] [--variant NAME=OVERLAY.yaml]...\n"
    "                     [--set KEY=VALUE]... [--with OVERLAY.yaml]...\n"
    "                     [--seeds N | --seed-list S1,S2,...] [-j N] [-o DIR]\n"
    "                     [--progress] [--quiet] [--slurm [--mem SIZE]]\n"
    "                     [--model packet|fluid]\n"
    "       rocesim sweep --task K DIR\n"
    "       rocesim sweep --collect DIR [--quiet]\n"
    "\n"
    "Runs SCENARIO.yaml once per point, variant and seed, each as `rocesim run`\n"
    "in a process of its own, and gathers the results in DIR (default:\n"
    "out/<scenario name>-sweep): sweep.json (the spec), points/<id>/ per run\n"
    "(id: p<point>-s<seed>, e.g. p003-s2; with variants p<point>-<variant>-s<seed>,\n"
    "e.g. p003-spines-3-s2), sweep.csv (one row per run), summary.csv (per point\n"
    "and variant over the seeds: mean, std, min, max, ci95) and a table of the\n"
    "main metrics on stdout.\n"
    "\n"
    "options:\n"
    "  --vary KEY=V1,V2,...  an axis: any key --set takes, values with units\n"
    "  --vary KEY=LO..HI:N   N values from LO to HI: log-spaced when HI >= 10 x LO > 0,\n"
    "                        else linear (e.g. topology.link.cable=2m..2km:8)\n"
    "  --vary KEY=LO..HI:xF  LO, LO x F, LO x F^2, ... up to HI (e.g. 50KB..800KB:x2)\n"
    "                        several --vary make a grid, the first axis outermost\n"
    "  --zip                 pair the axes instead (as many values each)\n"
    "  --variant NAME=FILE   also run every point with the overlay FILE merged onto\n"
    "                        the scenario (as run --with FILE); NAME: letters,\n"
    "                        digits, - and _; repeatable. A variant \"base\" (no\n"
    "                        overlay) is implied and comes first; base=FILE replaces it\n"
    "  --set KEY=VALUE       an override every run takes (as run --set), before\n"
    "                        the point's own; KEY may not be an axis; repeatable\n"
    "  --with FILE           an overlay every run takes (as run --with), before the\n"
    "                        variant's; repeatable\n"
    "  --seeds N             N seeds: the scenario's seed, seed+1, ... (default 1)\n"
    "  --seed-list S1,S2,... these seeds\n"
    "  -j N, -jN             runs at once (default: the number of online cores)\n"
    "  -o, --out DIR         the sweep folder\n"
    "  --progress            a line on stderr as each run ends\n"
    "  --quiet               print nothing on stdout\n"
    "  --model fluid         each point is `rocesim fluid` (the DCQCN fluid model, in\n"
    "                        milliseconds: summary.fluid.* in its results.json), a\n"
    "                        pre-screen before packet runs; the default is packet\n"
    "  --slurm               check the sweep, write DIR/sweep.json and DIR/sweep.sbatch\n"
    "                        (a Slurm job array, one task per run) and run nothing\n"
    "  --mem SIZE            with --slurm: each task's memory (#SBATCH --mem, e.g. 2GB)\n"
    "  --task K DIR          run K (from 0, in the order of sweep.csv) of the sweep in DIR\n"
    "  --collect DIR         the tables from the runs DIR holds; says which are missing\n"
    "\n"
    "The scenario may hold the sweep: `sweep: {vary: {KEY: \"V1,V2\"}, zip: false,\n"
    "seeds: 5, variants: {NAME: OVERLAY.yaml}}` (overlays relative to the scenario's\n"
    "folder); --vary, --zip, --seeds/--seed-list and --variant replace what it says.\n"
    "\n"
    "A point the scenario's checks refuse (e.g. kmax below kmin) is recorded as\n"
    "refused with its reason and the others run (exit 2 when all are refused).\n"
    "\n"
    "Run again into the same DIR, a sweep reuses a finished run only when what\n"
    "it read is unchanged (the version, overrides, seed, and the SHA-256 of\n"
    "every file read, as in results.json's provenance), and says why not.\n"
    "\n"
    "exit codes: 0 every run ended with exit 0 or 1 (an expect: gate failed:\n"
    "            status expect-failed; refused points too); 1 a run failed\n"
    "            (its status and first line of stderr are in sweep.csv, the\n"
    "            sweep went on); 2 bad input or usage, nothing run; 3 the\n"
    "            sweep's own files could not be written; 128 + the signal\n"
    "            when interrupted (finished runs kept). --collect: 1 also\n"
    "            when runs are missing.\n";

/* The options of `rocesim sweep` into @a: -1 to go on, or the exit code
 * having said why (0 after --help). */
static int sweep_options(int argc, char **argv, struct sweep_args *a)
{
	static const char pre[] = "rocesim sweep: ";
	int rc = -1;

	for (int i = 0; i < argc && rc < 0; i++) {
		const char *o = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		int shared = cli_runs_option(argc, argv, &i, &a->runs, pre, usage);

		if (shared) {
			rc = shared > 0 ? shared : rc;
		} else if (!strcmp(o, "--vary")) {
			if (!v || !strchr(v, '='))
				rc = cli_usage_error(pre, usage, "%s needs KEY=VALUES", o);
			else
				a->vary[a->n_vary++] = argv[++i];
		} else if (!strcmp(o, "--variant")) {
			if (!v || !strchr(v, '=') || !strchr(v, '=')[1])
				rc = cli_usage_error(pre, usage, "%s needs NAME=OVERLAY.yaml", o);
			else
				a->variants[a->n_variants++] = argv[++i];
		} else if (!strcmp(o, "--with")) {
			if (!v || !*v)
				rc = cli_usage_error(pre, usage, "%s needs an overlay file", o);
			else
				a->withs[a->n_withs++] = argv[++i];
		} else if (!strcmp(o, "--zip")) {
			a->zip = 1;
		} else if (!strcmp(o, "--seeds")) {
			if (!v || cli_parse_count(v, SWEEP_MAX_RUNS, &a->seeds))
				rc = cli_usage_error(pre, usage, "%s needs a count (1 or more)", o);
			i++;
		} else if (!strcmp(o, "--seed-list")) {
			if (!v)
				rc = cli_usage_error(pre, usage, "%s needs S1,S2,...", o);
			a->seed_list = argv[++i];
		} else if (!strcmp(o, "--slurm")) {
			a->slurm = 1;
		} else if (!strcmp(o, "--mem")) {
			if (!v || units_size(v, &a->mem) || a->mem < (1ULL << 20))
				rc = cli_usage_error(
				    pre, usage, "%s needs a size of at least 1MiB (e.g. 2GB)", o);
			i++;
		} else if (!strcmp(o, "--collect")) {
			a->collect = 1;
		} else if (!strcmp(o, "--task")) {
			if (!v || (strcmp(v, "0") && cli_parse_count(v, SWEEP_MAX_RUNS, &a->task)))
				rc = cli_usage_error(pre, usage, "%s needs a run number (from 0)",
						     o);
			a->has_task = 1;
			i++;
		} else {
			rc = cli_scenario_arg(o, pre, usage, &a->scenario);
		}
	}
	return rc;
}

/* The options of `rocesim sweep` (@local_ranks: this machine's ranks under
 * mpirun, which share its cores); runs what they ask; the exit code. */
static int sweep_verb(int argc, char **argv, long local_ranks, sweep_main_fn run_main)
{
	static const char pre[] = "rocesim sweep: ";
	struct sweep_args a = {0};
	int rc;

	a.runs.jobs = sweep__default_jobs(local_ranks);
	a.runs.run_main = run_main;
	a.vary = calloc((size_t)argc + 1, sizeof(*a.vary));
	a.variants = calloc((size_t)argc + 1, sizeof(*a.variants));
	a.runs.sets = calloc((size_t)argc + 1, sizeof(*a.runs.sets));
	a.withs = calloc((size_t)argc + 1, sizeof(*a.withs));
	if (!a.vary || !a.variants || !a.runs.sets || !a.withs) {
		free(a.vary);
		free(a.variants);
		free(a.runs.sets);
		free(a.withs);
		fputs("rocesim: out of memory\n", stderr);
		return ROCESIM_EXIT_INPUT;
	}
	rc = sweep_options(argc, argv, &a);
	if (rc < 0 && (a.has_task || a.collect)) {
		const char *o = a.has_task ? "--task" : "--collect";

		if (a.has_task && a.collect)
			rc = cli_usage_error(pre, usage, "%s",
					     "--task and --collect exclude each other");
		else if (a.n_vary || a.n_variants || a.zip || a.seeds || a.seed_list ||
			 a.runs.outdir || a.slurm || a.runs.progress || a.runs.n_sets ||
			 a.n_withs || a.mem)
			rc = cli_usage_error(pre, usage,
					     "%s takes only the sweep folder (and --quiet)", o);
		else if (!a.scenario)
			rc = cli_usage_error(pre, usage, "%s needs the sweep folder", o);
		else
			rc = a.has_task ? sweep__task(&a) : sweep__collect(&a);
	}
	if (rc < 0 && a.mem && !a.slurm)
		rc = cli_usage_error(pre, usage, "%s", "--mem goes with --slurm");
	if (rc < 0 && !a.scenario)
		rc = cli_usage_error(pre, usage, "%s", "sweep needs a scenario file");
	if (rc < 0 && a.seeds && a.seed_list)
		rc =
		    cli_usage_error(pre, usage, "%s", "--seeds and --seed-list exclude each other");
	if (rc < 0)
		rc = sweep__main(&a);
	free(a.vary);
	free(a.variants);
	free(a.runs.sets);
	free(a.withs);
	return rc;
}

int cmd_sweep(int argc, char **argv, int (*run_main)(int argc, char **argv))
{
	return sweep__launch(argc, argv, sweep_verb, run_main);
}
