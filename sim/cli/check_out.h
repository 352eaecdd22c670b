/*
 * What `rocesim check` prints of a check's findings (sim/lint/lint.h):
 * check_json.c the --json document, check_report.c the --junit and
 * --sarif reports.
 */
#ifndef ROCESIM_CHECK_OUT_H
#define ROCESIM_CHECK_OUT_H

#include "sim/lint/lint.h"

/* check_json.c */
int chk_print_json(const struct chk *c, const struct scenario *s, const struct topo *t,
		   const struct chk_args *a);

/* check_report.c: --sarif and --junit; 0 or a negative errno. */
int chk_write_sarif(const struct chk *c, const struct scenario *s, const char *path);
int chk_write_junit(const struct chk *c, const struct scenario *s, const char *path, double secs);

#endif
