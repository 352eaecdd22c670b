/*
 * Workloads: expand a traffic pattern into the flows it is made of. Plain
 * data in, plain data out (struct scn_flow); the run starts each flow at its
 * start time.
 */
#ifndef ROCESIM_WORKLOAD_H
#define ROCESIM_WORKLOAD_H

#include <stdint.h>

#include "sim/config/scenario.h"

/* @senders hosts h0.. (skipping @receiver) each send @bytes to @receiver. */
int wl_incast(uint32_t n_hosts, uint32_t senders, uint32_t receiver, uint64_t bytes,
	      simtime_t start, struct scn_flow **flows, uint32_t *n_flows);
/* Every host sends @bytes to another, a random derangement drawn from @seed. */
int wl_permutation(uint32_t n_hosts, uint64_t bytes, simtime_t start, uint64_t seed,
		   struct scn_flow **flows, uint32_t *n_flows);

#endif
