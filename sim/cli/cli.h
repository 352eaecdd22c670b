/*
 * The verbs of the command line besides run (main.c): each takes the
 * arguments after its verb and returns the exit code (0 ok, 1 the check
 * found what it was asked to fail on, 2 bad input or usage), and the few
 * helpers all verbs share (cli.c).
 */
#ifndef ROCESIM_CLI_H
#define ROCESIM_CLI_H

#include <stddef.h>

#include "sim/engine/exit_codes.h"

/* rocesim's command line, argv[1] the verb, as main() takes it (main also
 * leaves room for rocesim-mpi); the exit code. */
int cli_main(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_plot(int argc, char **argv);
/* @run_main: what a run of the sweep (tune) runs in its child (cli_main) */
int cmd_sweep(int argc, char **argv, int (*run_main)(int argc, char **argv));
int cmd_fluid(int argc, char **argv);
int cmd_tune(int argc, char **argv, int (*run_main)(int argc, char **argv));
int cmd_import(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);

/*
 * Print "@prefix" + @fmt (one %s: @arg) then @usage on stderr and return
 * ROCESIM_EXIT_INPUT.
 */
int cli_usage_error(const char *prefix, const char *usage, const char *fmt, const char *arg);

/*
 * The last case of an option loop of a verb that takes one scenario file:
 * --help or -h (the usage on stdout; returns 0), an unknown option (returns
 * ROCESIM_EXIT_INPUT after saying so), else the scenario file into *@scenario
 * (ROCESIM_EXIT_INPUT if there already is one); -1 to go on.
 */
int cli_scenario_arg(const char *o, const char *prefix, const char *usage, const char **scenario);

/* A count of 1 to @max at @s, whole and unsigned, into *@v: 0, or 1 when
 * @s is not one. */
int cli_parse_count(const char *s, unsigned long long max, unsigned long long *v);

struct study_runs; /* sim/study/sweep_impl.h */

/*
 * One of the options sweep and tune share (--set, --model, -j N or -jN,
 * -o, --progress, --quiet) at argv[*@i] (its value argv[*@i + 1], *@i
 * then moved past it) into @r: -1 having taken it, 0 when argv[*@i] is none of
 * them, or the exit code when its value is wrong (said with @prefix and
 * @usage).
 */
int cli_runs_option(int argc, char **argv, int *i, struct study_runs *r, const char *prefix,
		    const char *usage);
#endif
