/*
 * evq_impl: the state of one event queue (the far heap, the calendar, the
 * ring of arms to file, the clock and the pool), for evq.c and
 * evq_hold.c alone: the queue is opaque to everything else (evq.h).
 */
#ifndef ROCESIM_EVQ_IMPL_H
#define ROCESIM_EVQ_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine/evq.h"
#include "sim/engine/evq_pool.h"

#define RING_STEP 4	     /* arms between the ring's stages (ring_push) */
#define RING (4 * RING_STEP) /* the ring's size, a power of 2 */

struct sort_entry;

struct evq_entry {
	simtime_t when;
	struct evq_timer *t; /* holds the tie-breaking key */
};

struct evq {
	/* the far heap */
	struct evq_entry *heap;
	size_t n_heap, cap;
	/* the calendar: bucket[i] is the earliest of a circular list sorted by
	 * (when, key) whose last is bucket[i]->prev; bit i of bits says it is
	 * non-empty, bit j of sum that bits[j] is not 0 */
	struct evq_timer **bucket;
	uint64_t *bits, *sum;
	uint64_t *unsorted;	    /* bit i: bucket i holds events of one time out of key order */
	size_t n_unsorted;	    /* bits set in unsorted (mostly 0: a pop checks this alone) */
	struct sort_entry *scratch; /* sort_bucket's */
	size_t n_scratch;
	size_t nb;	/* buckets, a power of 2; 0 without the calendar */
	unsigned shift; /* bucket width 2^shift ps */
	uint64_t cur;	/* bucket number of the clock: the window's start */
	size_t n_wheel;
	size_t n;    /* pending: n_heap + n_wheel */
	size_t room; /* the heap's and the scratch array's size, the smaller */
	/* an arm that adds a pending event beyond this many takes arm_slow:
	 * the least of peak, room and (while buckets may be added) 2 nb */
	size_t hi;
	uint64_t heap_from; /* bucket number of the far heap's first, or UINT64_MAX */
	/* the ring, while on (sized for more than EVQ_RING_FROM): arms in the
	 * window not yet filed, from ring_r to ring_w; ring_min is at most the
	 * earliest of them, SIMTIME_NEVER when there is none */
	simtime_t ring_min;
	int ring_on;   /* arms in the window go through the ring */
	size_t arm_nb; /* nb while the ring is off, else 0: an arm compares */

	simtime_t now;
	uint64_t key_now; /* of the event running, or that ran last */
	uint64_t fired;
	size_t peak;
	simtime_t adapt_from; /* the clock at the last width check */
	uint64_t armed, far;  /* since then: arms, and those beyond the calendar */
	unsigned window;      /* log2 of the span in ps the calendar aims to cover */
	struct evq_pool pool;
	struct evq_timer *ring[RING];
	uint64_t ring_r, ring_w;
};

/* File the ring's arms (evq.c); take a pending timer out of wherever it
 * is, its count left to the caller (evq.c). For evq.c and evq_hold.c. */
void evq__ring_drain(struct evq *q);
void evq__unqueue(struct evq *q, struct evq_timer *t);

#endif
