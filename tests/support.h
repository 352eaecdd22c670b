/*
 * Test support shared by the end-to-end suites: run a scenario given as
 * YAML text through the library, as `rocesim run` does, and check the
 * conservation invariant on every run. The models' rig is rig.h's.
 */
#ifndef ROCESIM_TEST_SUPPORT_H
#define ROCESIM_TEST_SUPPORT_H

#include <jansson.h>
#include <stddef.h>

#include "rig.h"
#include "sim/run/sim.h"

/* Load @yaml (with @n_sets overrides) and build @sim; asserts success. */
void ts_load(const char *yaml, const char *const *sets, size_t n_sets, struct sim *sim);
/*
 * Run a loaded @sim to its end, assert bytes sent = received + dropped +
 * in flight (from the counters, a scan of the fabric, and results.json),
 * and return its results (json_decref them; sim_fini the sim).
 */
json_t *ts_finish(struct sim *sim);
/* ts_load + ts_finish. */
json_t *ts_run(const char *yaml, struct sim *sim);
/* A summary metric of @j ("fct_us.p99"); asserts that it exists. */
double ts_metric(const json_t *j, const char *metric);

#endif
