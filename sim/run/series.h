/*
 * The time-series sampler of a run: every output.sample it writes the
 * switch queues and PGs that changed (or, with output.timeseries: samples,
 * all non-empty ones) to timeseries.csv and the DCQCN rates of the active
 * QPs to qp_rates.csv (docs/results.md).
 */
#ifndef ROCESIM_SERIES_H
#define ROCESIM_SERIES_H

#include <stdint.h>

#include "sim/engine/simtime.h"

struct sim;

/* Set up the sampler of a built @sim. 0 or -ENOMEM. */
int series_init(struct sim *sim);
void series_fini(struct sim *sim);
/* The sampler's timer callback; @obj is the struct sim. */
void series_sample(void *obj, uint64_t arg);
/* The rows of the sample at @now into sim->series (and sim->qp_rates). */
void series_write(struct sim *sim, simtime_t now);
/*
 * A split run's part @me (@node_part per topology node): it samples only
 * its switches' ports (and the flows whose requester it runs); each row
 * starts with its port's (flow's) index in ten digits and a tab, and each
 * sample ends with a line "=", so that the parts' rows can be merged into
 * the order one process writes them (par.c).
 */
void series_restrict(struct sim *sim, const uint32_t *node_part, uint32_t me);

#endif
