/*
 * Simulated time: an unsigned 64-bit count of picoseconds, and the integer
 * arithmetic that turns bytes and bit rates into durations. No floating
 * point decides when an event happens.
 */
#ifndef ROCESIM_SIMTIME_H
#define ROCESIM_SIMTIME_H

#include <stdint.h>

#include "sim/engine/checked.h"

typedef uint64_t simtime_t;

#define SIMTIME_PS ((simtime_t)1)
#define SIMTIME_NS ((simtime_t)1000)
#define SIMTIME_US ((simtime_t)1000000)
#define SIMTIME_MS ((simtime_t)1000000000)
#define SIMTIME_S ((simtime_t)1000000000000)
#define SIMTIME_NEVER UINT64_MAX

/* Propagation speed in copper and fibre, as the contract fixes it: 5 ns/m. */
#define SIMTIME_PS_PER_MM ((simtime_t)5)

/*
 * Time to serialize @bytes at @rate_bps (> 0), rounded up to the next
 * picosecond. Exact for any size: bytes x 8e12 is taken in 128 bits (in
 * 64 it would wrap above 2.3 MB). A time that does not fit in 64 bits
 * (2^40 B at 1 b/s) is SIMTIME_NEVER.
 */
static inline simtime_t simtime_tx(uint64_t bytes, uint64_t rate_bps)
{
	simtime_t t;

	return ck_muldiv_up(bytes, 8 * SIMTIME_S, rate_bps, &t) ? SIMTIME_NEVER : t;
}

static inline double simtime_to_us(simtime_t t)
{
	return (double)t / (double)SIMTIME_US;
}

static inline double simtime_to_s(simtime_t t)
{
	return (double)t / (double)SIMTIME_S;
}

#endif
