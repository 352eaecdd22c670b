/*
 * sim_full (sim.h): a scenario run packet by packet into its results, for
 * --verify-fast-forward. Apart from run.c: it builds results (results.c),
 * which read the run's.
 */
#include <errno.h>

#include "sim/run/results.h"
#include "sim/run/sim.h"

int sim_full(struct scenario *s, json_t **res, struct diag *d)
{
	struct sim sim;
	int err;

	*res = NULL;
	s->fast_forward.enabled = 0;
	s->out.sample = 0; /* nothing written: no samples taken */
	if ((err = sim_init(&sim, s, d))) {
		sim_fini(&sim);
		return err;
	}
	err = sim_run(&sim, NULL, NULL, NULL, 0);
	if (!err && !(*res = res_build(&sim)))
		err = -ENOMEM;
	sim_fini(&sim);
	return err;
}
