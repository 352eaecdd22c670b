/*
 * evq: the event queue and clock of one simulation.
 *
 * Objects embed a `struct evq_timer` (evq_timer.h) and re-arm it (one
 * timer per link, port, pacer, sampler), as libuv embeds its heap node in
 * the timer; one-off events come from a pool with a free list (evq_post).
 * The queue is ordered by (time, key): a timer's key is fixed when it is
 * made, from what owns it (evq_key: a class, the owner's id, which of its
 * timers), so that equal-time events run in an order that depends neither
 * on when they were scheduled nor on which other events a process holds: a
 * run is reproducible bit for bit, and a fabric split over several
 * processes runs its events in the same order as one process does. Two
 * timers pending at the same time must not share a key. A timer knows its
 * place, so cancel and re-arm never scan (the structure: evq.c).
 */
#ifndef ROCESIM_EVQ_H
#define ROCESIM_EVQ_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine/evq_timer.h"
#include "sim/engine/simtime.h"

struct evq;

struct evq *evq_new(void);
void evq_free(struct evq *q);

/*
 * A key: @cls (0-15) the kind of owner, @id (below 2^44) the owner among
 * them, @sub (below 2^16) which of its timers. Keys compare as integers:
 * by class, then timer, then owner, so that at one instant every owner's
 * timer of one kind runs before any of the next kind (every transmitter
 * that finishes a packet before any packet that arrives, say).
 */
static inline uint64_t evq_key(unsigned cls, uint64_t id, unsigned sub)
{
	return ((uint64_t)(cls & 15) << 60) | ((uint64_t)(sub & 0xffff) << 44) |
	       (id & ((1ULL << 44) - 1));
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
/* A one-off event from the pool, ordered among equal times by @key;
 * returns it (cancellable), or NULL when out of memory. */
__attribute__((warn_unused_result)) struct evq_timer *
evq_post(struct evq *q, simtime_t when, evq_fn fn, void *obj, uint64_t arg, uint64_t key);

/*
 * Take every pending timer whose key's class (evq_key) is in @classes (bit
 * c for class c) out of the queue, neither run nor freed (a pooled one
 * stays out of the pool), into *@out (malloc'd, the caller frees it; NULL
 * when there is none) and their count into *@n, in no particular order:
 * a model sets part of itself aside and re-arms its timers later, each at
 * its own time moved on (evq_arm). 0, or -ENOMEM (nothing taken).
 */
__attribute__((warn_unused_result)) int evq_hold(struct evq *q, unsigned classes,
						 struct evq_timer ***out, size_t *n);
/* The same for every pending timer whose key @held(@ctx, key) accepts. */
__attribute__((warn_unused_result)) int evq_hold_if(struct evq *q,
						    int (*held)(void *ctx, uint64_t key), void *ctx,
						    struct evq_timer ***out, size_t *n);

/* Time of the earliest pending event, or SIMTIME_NEVER. */
simtime_t evq_peek(struct evq *q);
/* Advance the clock to the earliest event and run it. 0 if none was left. */
int evq_step(struct evq *q);
/* The same if that event is due at or before @until; 0 (nothing run, the
 * clock where it was) if it is later or there is none. */
int evq_step_until(struct evq *q, simtime_t until);
/*
 * Run the events due at or before @until, in order, until one of them
 * leaves *@halt not 0 (looked at after each) or @max_fired have fired
 * (evq_fired); returns how many ran, 0 if none was due. A loop of
 * evq_step_until without a call and a return per event.
 */
uint64_t evq_run(struct evq *q, simtime_t until, uint64_t max_fired, const int *halt);

simtime_t evq_now(const struct evq *q);
/* The key of the event running (or that ran last): with the time, where an
 * event stands in the run's order. */
uint64_t evq_key_now(const struct evq *q);
/* Events that will still fire (not counting one whose callback runs). */
size_t evq_size(const struct evq *q);
/* Most events ever pending at once. */
size_t evq_peak(const struct evq *q);
uint64_t evq_fired(const struct evq *q);

#endif
