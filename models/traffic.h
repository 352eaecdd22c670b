/*
 * Traffic from a flow-size distribution: Poisson arrivals per host at the
 * rate that offers a given load of its link, sizes drawn from an empirical
 * CDF (piecewise linear between its points, as HPCC's traffic_gen reads the
 * published WebSearch and Hadoop distributions), destinations uniform over
 * the other hosts. Plain data in, flows out (struct wl_flow).
 */
#ifndef ROCESIM_TRAFFIC_H
#define ROCESIM_TRAFFIC_H

#include <stdint.h>

#include "models/workload.h"
#include "sim/engine/simtime.h"

/*
 * A flow-size CDF: @n points, sizes in bytes non-decreasing, cumulative
 * probabilities non-decreasing from 0 to 1; linear between points.
 */
struct wl_cdf {
	double *size;
	double *prob;
	uint32_t n;
};

/* The mean size in bytes: the integral of the piecewise-linear CDF. */
double wl_cdf_mean(const struct wl_cdf *c);
/* The size at cumulative probability @u (0..1), linear between points. */
double wl_cdf_size_at(const struct wl_cdf *c, double u);
void wl_cdf_free(struct wl_cdf *c);

/* A Poisson workload: what wl_poisson expands. */
struct wl_poisson_spec {
	const struct wl_cdf *cdf;
	double load;		   /* share of each host's link, 0 < load <= 1 */
	simtime_t start, duration; /* flows start in [start, start + duration) */
	const uint32_t *hosts;	   /* host indices taking part (2 or more) */
	uint32_t n_hosts;
	const uint64_t *rate_bps; /* per entry of @hosts: its link's rate */
	uint64_t seed;		  /* the stream the arrivals, sizes and peers come from */
	/*
	 * As HPCC's traffic_gen.py (alibaba-edu/High-Precision-Congestion-
	 * Control, traffic_gen/traffic_gen.py) draws: a host's arrival is
	 * sent only when the host's next arrival falls in the window too, so
	 * each host's last arrival is dropped and a host offers about
	 * (rate x duration - 1) flows' worth instead of rate x duration.
	 */
	int drop_last;
};

/*
 * Expand @sp into flows, sorted by start time (then by source): per host,
 * exponential inter-arrival times of mean mean_size x 8 / (rate x load),
 * the first one after @start, a size from the CDF (1 byte at least) and a
 * destination uniform over the other hosts. Deterministic per seed.
 * *@offered gets the bytes of the flows. 0, -EINVAL (fewer than 2 hosts,
 * a load or a CDF mean that is not positive) or -ENOMEM.
 */
int wl_poisson(const struct wl_poisson_spec *sp, struct wl_flow **flows, uint32_t *n_flows,
	       uint64_t *offered);

#endif
