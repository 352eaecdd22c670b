/*
 * A check of a scenario as a library (sim/lint): the scenario loaded
 * leniently, its topology built and routed with the links of --fail and
 * of faults at time 0 down, and every rule (rules.h) run on it into a list
 * of findings (findings.h). sim/cli/check.c is the verb that prints them.
 */
#ifndef ROCESIM_LINT_H
#define ROCESIM_LINT_H

#include <stddef.h>

#include "sim/engine/diag.h"
#include "sim/engine/exit_codes.h"
#include "sim/lint/findings.h"
#include "sim/lint/rules.h"

/*
 * Load @a's scenario leniently and run every check on it into @c (sorted:
 * errors, then warnings, then info, each in the order found), leaving the
 * scenario, topology and routes in *@sp, *@tp, *@rp for the caller to free
 * (and @c, with chk_free) whatever it returns. 0, or ROCESIM_EXIT_INPUT
 * when the scenario cannot be checked, *@why (when given) saying why: a
 * refused input at its file, line and key, or "out of memory". Prints
 * nothing.
 */
int chk_analyse(const struct chk_args *a, struct chk *c, struct scenario **sp, struct topo **tp,
		struct topo_routes **rp, struct diag *why);
/*
 * The errors `rocesim check` finds on @scenario with these overlays and
 * overrides: how many (-1 when it cannot check it), the first as "CODE
 * where: message" into @first ("" when none), in its terminal form
 * (sim/engine/textsafe.h: valid UTF-8, no control character). Prints
 * nothing.
 */
int chk_errors(const char *scenario, const char *const *withs, size_t n_withs,
	       const char *const *sets, size_t n_sets, char *first, size_t size);
#endif
