/*
 * Workloads: expand a traffic pattern into the flows it is made of. Plain
 * data in, plain data out (struct wl_flow); the run starts each flow at its
 * start time.
 */
#ifndef ROCESIM_WORKLOAD_H
#define ROCESIM_WORKLOAD_H

#include <stdint.h>

#include "sim/engine/simtime.h"

/* One flow, as the workload expands it: src and dst are host indices. */
struct wl_flow {
	uint32_t src, dst;
	uint64_t bytes;
	simtime_t start;
	uint8_t dscp, priority; /* nic.dscp / nic.priority unless the flow says */
};

/* The flows of a run, every flow workload's together. */
struct wl_params {
	struct wl_flow *flows;
	uint32_t n_flows;
	/* poisson workloads: the bytes their flows offer, and what their hosts'
	 * links carry at line rate over their durations (bytes) */
	uint64_t offered_bytes;
	double offered_capacity;
};

/* @senders hosts h0.. (skipping @receiver) each send @bytes to @receiver. */
int wl_incast(uint32_t n_hosts, uint32_t senders, uint32_t receiver, uint64_t bytes,
	      simtime_t start, struct wl_flow **flows, uint32_t *n_flows);
/* Every host sends @bytes to another, a random derangement drawn from @seed. */
int wl_permutation(uint32_t n_hosts, uint64_t bytes, simtime_t start, uint64_t seed,
		   struct wl_flow **flows, uint32_t *n_flows);

#endif
