/*
 * The time-series sampler of a run: every output.sample it writes the
 * switch queues and PGs that changed (or, with output.timeseries: samples,
 * all non-empty ones) to timeseries.csv and the DCQCN rates of the active
 * QPs to qp_rates.csv (README, "Outputs").
 */
#ifndef ROCESIM_SERIES_H
#define ROCESIM_SERIES_H

#include <stdint.h>

/* The values of a (port, priority)'s last timeseries.csv row. */
struct series_last {
	uint64_t queue, pg, headroom;
};

/* What the sampler keeps between samples. */
struct series {
	uint32_t *ports; /* the switch ports, in port order */
	uint32_t n_ports;
	uint8_t *nonzero;	  /* per port: priorities non-empty at the last sample */
	uint32_t *version;	  /* per port: sw_port_version at the last sample (changes) */
	struct series_last *last; /* per port x priority (changes only) */
};

struct sim;

/* Set up the sampler of a built @sim. 0 or -ENOMEM. */
int series_init(struct sim *sim);
void series_fini(struct sim *sim);
/* The sampler's timer callback; @obj is the struct sim. */
void series_sample(void *obj, uint64_t arg);

#endif
