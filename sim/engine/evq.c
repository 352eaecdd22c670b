/*
 * evq: implicit d-ary min-heap of timers ordered by (when, seq), plus a
 * pool of one-off events. EVQ_ARITY picks the fan-out: 2 (a binary heap) by
 * default, chosen by measurement (README, "Event core");
 * experiments/bench/evq_bench builds this file with 2 and 4 to compare.
 */
#include "sim/engine/evq.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#ifndef EVQ_ARITY
#define EVQ_ARITY 2
#endif

#define POOL_CHUNK 1024

/* 16 bytes: four siblings of a 4-ary heap share one 64-byte cache line. */
struct evq_entry {
	simtime_t when;
	struct evq_timer *t; /* holds the tie-breaking sequence number */
};

struct pool_chunk {
	struct pool_chunk *next;
	struct evq_timer ev[POOL_CHUNK];
};

struct evq {
	struct evq_entry *heap;
	size_t n, cap;
	simtime_t now;
	uint64_t seq;
	uint64_t fired;
	size_t peak;
	struct evq_timer *running; /* at the top while its callback runs */
	struct evq_timer *free_ev; /* free list, linked through obj */
	struct pool_chunk *chunks;
};

static inline int before(const struct evq_entry *a, const struct evq_entry *b)
{
	return a->when < b->when || (a->when == b->when && a->t->seq < b->t->seq);
}

static inline void place(struct evq *q, size_t i, struct evq_entry e)
{
	q->heap[i] = e;
	e.t->slot = (uint32_t)(i + 1);
}

static void sift_up(struct evq *q, size_t i, struct evq_entry e)
{
	while (i > 0) {
		size_t parent = (i - 1) / EVQ_ARITY;

		if (!before(&e, &q->heap[parent]))
			break;
		place(q, i, q->heap[parent]);
		i = parent;
	}
	place(q, i, e);
}

static void sift_down(struct evq *q, size_t i, struct evq_entry e)
{
	for (;;) {
		size_t first = i * EVQ_ARITY + 1, best, last;

		if (first >= q->n)
			break;
		best = first;
		last = first + EVQ_ARITY < q->n ? first + EVQ_ARITY : q->n;
		for (size_t c = first + 1; c < last; c++)
			if (before(&q->heap[c], &q->heap[best]))
				best = c;
		if (!before(&q->heap[best], &e))
			break;
		place(q, i, q->heap[best]);
		i = best;
	}
	place(q, i, e);
}

/* Take entry @i out of the heap. */
static void remove_at(struct evq *q, size_t i)
{
	struct evq_entry last;

	q->heap[i].t->slot = 0;
	last = q->heap[--q->n];
	if (i == q->n)
		return;
	if (i > 0 && before(&last, &q->heap[(i - 1) / EVQ_ARITY]))
		sift_up(q, i, last);
	else
		sift_down(q, i, last);
}

struct evq *evq_new(void)
{
	struct evq *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->cap = 256;
	q->heap = malloc(q->cap * sizeof(*q->heap));
	if (!q->heap) {
		free(q);
		return NULL;
	}
	return q;
}

void evq_free(struct evq *q)
{
	if (!q)
		return;
	while (q->chunks) {
		struct pool_chunk *c = q->chunks;

		q->chunks = c->next;
		free(c);
	}
	free(q->heap);
	free(q);
}

int evq_arm(struct evq *q, struct evq_timer *t, simtime_t when)
{
	struct evq_entry e = {when, t};

	assert(when >= q->now && "an event may not be scheduled in the past");
	if (!t->slot && q->n == q->cap) {
		/* grow first, so that a failure leaves everything as it was */
		size_t cap = q->cap * 2;
		struct evq_entry *h = realloc(q->heap, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		q->heap = h;
		q->cap = cap;
	}
	if (t == q->running)
		q->running = NULL; /* re-armed from its own callback: moved in place */
	t->when = when;
	t->seq = q->seq++;
	if (t->slot) {
		size_t i = t->slot - 1;

		/* the new sequence number is the largest: ties move it down */
		if (i > 0 && before(&e, &q->heap[(i - 1) / EVQ_ARITY]))
			sift_up(q, i, e);
		else
			sift_down(q, i, e);
		return 0;
	}
	sift_up(q, q->n++, e);
	if (q->n > q->peak)
		q->peak = q->n;
	return 0;
}

static void pool_put(struct evq *q, struct evq_timer *t)
{
	t->obj = q->free_ev;
	q->free_ev = t;
}

void evq_cancel(struct evq *q, struct evq_timer *t)
{
	if (t == q->running)
		q->running = NULL;
	if (t->slot)
		remove_at(q, t->slot - 1);
	if (t->pooled)
		pool_put(q, t);
}

struct evq_timer *evq_post(struct evq *q, simtime_t when, evq_fn fn, void *obj,
			   uint64_t arg)
{
	struct evq_timer *t;

	if (!q->free_ev) {
		struct pool_chunk *c = malloc(sizeof(*c));

		if (!c)
			return NULL;
		c->next = q->chunks;
		q->chunks = c;
		for (size_t i = 0; i < POOL_CHUNK; i++) {
			c->ev[i].pooled = 1;
			c->ev[i].slot = 0;
			pool_put(q, &c->ev[i]);
		}
	}
	t = q->free_ev;
	q->free_ev = t->obj;
	t->fn = fn;
	t->obj = obj;
	t->arg = arg;
	if (evq_arm(q, t, when)) {
		pool_put(q, t);
		return NULL;
	}
	return t;
}

simtime_t evq_peek(const struct evq *q)
{
	return q->n ? q->heap[0].when : SIMTIME_NEVER;
}

int evq_step(struct evq *q)
{
	struct evq_timer *t;
	evq_fn fn;
	void *obj;
	uint64_t arg;

	assert(!q->running && "evq_step may not be called from an event");
	if (!q->n)
		return 0;
	t = q->heap[0].t;
	assert(q->heap[0].when >= q->now && "time went backwards");
	q->now = q->heap[0].when;
	q->fired++;
	if (t->pooled) {
		remove_at(q, 0);
		fn = t->fn;
		obj = t->obj;
		arg = t->arg;
		pool_put(q, t);
		fn(obj, arg);
		return 1;
	}
	/*
	 * An embedded timer stays at the top while its callback runs: most
	 * callbacks re-arm their own timer (a link's next arrival, a port's
	 * next packet), and moving it down in place costs one sift instead of
	 * a pop and a push. Nothing else can go before it meanwhile: other
	 * events are at or after now with a larger sequence number.
	 */
	q->running = t;
	t->fn(t->obj, t->arg);
	if (q->running == t) {
		q->running = NULL;
		remove_at(q, t->slot - 1);
	}
	return 1;
}

simtime_t evq_now(const struct evq *q)
{
	return q->now;
}

size_t evq_size(const struct evq *q)
{
	return q->n - (q->running ? 1 : 0);
}

uint64_t evq_fired(const struct evq *q)
{
	return q->fired;
}

size_t evq_peak(const struct evq *q)
{
	return q->peak;
}

int evq_pending(const struct evq *q, const struct evq_timer *t)
{
	return t->slot != 0 && t != q->running;
}
