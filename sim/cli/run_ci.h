/*
 * What `rocesim run` does for CI besides its expect: gates: --baseline DIR
 * compares the run with stored results as `rocesim compare` does (the
 * baseline's run of the same seed when it has one), and --junit FILE
 * writes the gates and the comparison as a JUnit report.
 */
#ifndef ROCESIM_RUN_CI_H
#define ROCESIM_RUN_CI_H

#include <jansson.h>
#include <stddef.h>

#include "sim/study/compare_impl.h"

struct scenario;

struct run_ci {
	const char *baseline; /* --baseline DIR, or NULL */
	const char *junit;    /* --junit FILE, or NULL */
	struct cmp_tol *tols; /* --tolerance, n_tols of them */
	size_t n_tols, cap_tols;
	struct cmp_side base; /* the baseline, loaded before the run */
};

/* The options of run's usage that this file takes, and their lines of help. */
#define RUN_CI_USAGE                                                                               \
	"  --baseline DIR     compare the run with the results in DIR (a run folder,\n"            \
	"                     a results.json, or a sweep folder without axes: then its\n"          \
	"                     run of the same seed, or all its seeds when none has it)\n"          \
	"                     as rocesim compare does; exit 1 on a regression\n"                   \
	"  --tolerance M=X    with --baseline: how much worse metric M may get, 10%\n"             \
	"                     (of the baseline) or an amount in M's unit (repeatable)\n"           \
	"  --junit FILE       write a JUnit XML report: each expect: gate and each\n"              \
	"                     metric compared with the baseline a testcase\n"

/*
 * Take the option at argv[*@i] if it is one of these (*@i then past its
 * value): 0; -1 when it is none of them; ROCESIM_EXIT_INPUT after saying why.
 */
int run_ci_arg(struct run_ci *c, int argc, char **argv, int *i, const char *usage);
/* Before the run: the options together, and the baseline read. 0, or
 * ROCESIM_EXIT_INPUT after saying why. */
int run_ci_prepare(struct run_ci *c);
/*
 * After the run whose results @res are in @dir: compare them with the
 * baseline (the table on stdout unless @quiet, each regression on stderr)
 * and write the JUnit report (@wall_s: the run's wall time). Returns the
 * exit code this adds: 0, 1 a regression, 2 a baseline of another
 * scenario or workload, 3 a report that cannot be written.
 */
int run_ci_finish(const struct run_ci *c, const json_t *res, const struct scenario *s,
		  const char *dir, int quiet, double wall_s);
void run_ci_free(struct run_ci *c);

#endif
