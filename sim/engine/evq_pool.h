/*
 * evq_pool: the free list of one queue's one-off events (evq_post), grown
 * a chunk of events at a time and freed with the queue; for evq.c alone.
 */
#ifndef ROCESIM_EVQ_POOL_H
#define ROCESIM_EVQ_POOL_H

#include "sim/engine/evq_timer.h"
#include "sim/engine/mem.h"

struct evq_pool {
	struct evq_timer *free; /* linked through obj */
	struct mem_arena mem;	/* the events' chunks */
};

/* A chunk more of free events: 0, or -ENOMEM. */
int evq_pool_grow(struct evq_pool *p);
/* Every chunk freed (the events in them may be anywhere: the queue goes). */
void evq_pool_release(struct evq_pool *p);

static inline void evq_pool_put(struct evq_pool *p, struct evq_timer *t)
{
	t->obj = p->free;
	p->free = t;
}

/* A free event, or NULL when out of memory. */
static inline struct evq_timer *evq_pool_get(struct evq_pool *p)
{
	struct evq_timer *t;

	if (!p->free && evq_pool_grow(p))
		return NULL;
	t = p->free;
	p->free = t->obj;
	return t;
}

#endif
