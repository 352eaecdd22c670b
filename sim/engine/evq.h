/*
 * evq: the event queue and clock of one simulation.
 *
 * Objects embed a `struct evq_timer` and re-arm it (one timer per link,
 * port, pacer, sampler), as libuv embeds its heap node in the timer; one-off
 * events come from a pool with a free list (evq_post). The queue is an
 * implicit d-ary min-heap ordered by (time, insertion sequence): equal-time
 * events run in the order they were scheduled, so a run is reproducible bit
 * for bit. A timer knows its heap slot, so cancel and re-arm are O(log n)
 * without scanning. Known weakness: a heap costs O(log n) per operation and
 * its cache misses grow with n; the models keep n at O(links + timers), not
 * O(packets), which is what keeps it fast (README, "Event core").
 */
#ifndef ROCESIM_EVQ_H
#define ROCESIM_EVQ_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine/simtime.h"

typedef void (*evq_fn)(void *obj, uint64_t arg);

struct evq_timer {
	simtime_t when;
	uint64_t seq;    /* insertion order, breaks ties between equal times */
	evq_fn fn;
	void *obj;
	uint64_t arg;
	struct evq_timer *next, *prev; /* its bucket's list, while in the calendar */
	uint32_t slot;   /* far heap position + 1; 0 when not in the heap */
	uint16_t wheel;  /* 1 while in the calendar */
	uint16_t pooled; /* 1 for evq_post events, returned to the pool */
};

struct evq;

struct evq *evq_new(void);
void evq_free(struct evq *q);

/* Prepare an embedded timer; it is not pending until armed. */
static inline void evq_timer_init(struct evq_timer *t, evq_fn fn, void *obj)
{
	t->when = 0;
	t->seq = 0;
	t->fn = fn;
	t->obj = obj;
	t->arg = 0;
	t->next = t->prev = NULL;
	t->slot = 0;
	t->wheel = 0;
	t->pooled = 0;
}

/* Whether @t will still fire (a timer whose callback is running will not,
 * unless the callback re-arms it). */
int evq_pending(const struct evq *q, const struct evq_timer *t);

/*
 * Schedule @t at @when (>= now); a pending timer is moved. 0, or -ENOMEM
 * when the heap cannot grow (the timer is then left as it was: not
 * pending). The result must be used: a timer that silently did not arm
 * is a run that silently stops.
 */
__attribute__((warn_unused_result)) int evq_arm(struct evq *q, struct evq_timer *t, simtime_t when);
/* Unschedule @t if pending; a pooled event goes back to the pool. */
void evq_cancel(struct evq *q, struct evq_timer *t);
/* A one-off event from the pool; returns it (cancellable), or NULL when
 * out of memory. */
__attribute__((warn_unused_result)) struct evq_timer *evq_post(struct evq *q, simtime_t when,
							       evq_fn fn, void *obj, uint64_t arg);

/* Time of the earliest pending event, or SIMTIME_NEVER. */
simtime_t evq_peek(struct evq *q);
/* Advance the clock to the earliest event and run it. 0 if none was left. */
int evq_step(struct evq *q);

simtime_t evq_now(const struct evq *q);
/* Events that will still fire (not counting one whose callback runs). */
size_t evq_size(const struct evq *q);
/* Most events ever pending at once. */
size_t evq_peak(const struct evq *q);
uint64_t evq_fired(const struct evq *q);

#endif
