/*
 * evq_timer: the timer that objects embed and the event queue (evq.h)
 * orders, and its preparation; apart from the queue so that the pool of
 * one-off events (evq_pool.h) and the bucket sort (evq_sort.h) know the
 * timer without knowing the queue.
 */
#ifndef ROCESIM_EVQ_TIMER_H
#define ROCESIM_EVQ_TIMER_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine/simtime.h"

typedef void (*evq_fn)(void *obj, uint64_t arg);

struct evq_timer {
	simtime_t when;
	uint64_t key; /* orders equal times (evq_key) */
	evq_fn fn;
	void *obj;
	/* passed to fn; when it holds an address, the queue prefetches it as
	 * the event before this one runs (see evq.c: take_first) */
	uint64_t arg;
	struct evq_timer *next, *prev; /* its bucket's list, while in the calendar */
	uint32_t slot;		       /* far heap (or ring) position + 1; 0 when in neither */
	uint16_t wheel;		       /* 1 while in the calendar, 2 in the ring of arms to file */
	uint16_t pooled;	       /* 1 for evq_post events, returned to the pool */
};

/* Prepare an embedded timer with its @key; it is not pending until armed. */
static inline void evq_timer_init(struct evq_timer *t, evq_fn fn, void *obj, uint64_t key)
{
	t->when = 0;
	t->key = key;
	t->fn = fn;
	t->obj = obj;
	t->arg = 0;
	t->next = t->prev = NULL;
	t->slot = 0;
	t->wheel = 0;
	t->pooled = 0;
}

#endif
