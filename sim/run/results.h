/*
 * Results: results.json (schema_version 1, described in the README) built with jansson,
 * written atomically; the short summary printed on stdout; and the
 * `expect:` gates checked against the summary.
 */
#ifndef ROCESIM_RESULTS_H
#define ROCESIM_RESULTS_H

#include <jansson.h>
#include <stdio.h>

#include "sim/run/sim.h"

/* A new reference to the results of a finished run, or NULL (no memory). */
json_t *res_build(const struct sim *sim);
/*
 * Write @j to @f (a temporary file that the caller renames into place when
 * it is complete, outdir.h). 0 or -errno.
 */
int res_write_json(const json_t *j, FILE *f);
void res_print_summary(const json_t *j, FILE *f);
/* Print each failed gate to @f; returns how many failed. */
int res_check_expects(const json_t *j, const struct scenario *s, FILE *f);
/* Look up a summary metric such as "fct_us.p99"; 0 if found. */
int res_metric(const json_t *j, const char *metric, double *out);

#endif
