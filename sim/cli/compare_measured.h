/*
 * rocesim compare --measured (compare_measured.c), for compare.c to hand
 * its arguments to when they hold --measured.
 */
#ifndef ROCESIM_CLI_COMPARE_MEASURED_H
#define ROCESIM_CLI_COMPARE_MEASURED_H

#include <jansson.h>

/* The usage lines of --measured, for compare's usage. */
extern const char cmp_measured_usage[];

/* rocesim compare with @argc arguments @argv holding --measured DIR; the
 * exit code. @usage: compare's whole usage, for usage errors. */
int cmp_measured(int argc, char **argv, const char *usage);

/* compare --measured's options beside DIR and RUN. */
struct cmc_opts {
	const char *junit, *markdown; /* report files, or NULL */
	double tol;		      /* --tolerance as a fraction, < 0 when not given */
};

/*
 * The NIC and switch counters of folder @dir beside run @run
 * (compare_counters.c): printed, or appended to @arr (--json); the reports
 * of @o written. The exit code: 0, 1 a counter beyond the tolerance, 2 bad
 * input, 3 a report that cannot be written.
 */
int cmc_counters(const char *dir, const char *run, const struct cmc_opts *o, json_t *arr);

#endif
