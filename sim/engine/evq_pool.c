/*
 * evq_pool: chunks of one-off events for the queue's free list, carved
 * from an arena (mem.h) as the packet pool's are.
 */
#include "sim/engine/evq_pool.h"

#include <errno.h>

#define POOL_CHUNK 1024

int evq_pool_grow(struct evq_pool *p)
{
	struct evq_timer *ev = mem_arena_lines(&p->mem, POOL_CHUNK, sizeof(*ev));

	if (!ev)
		return -ENOMEM;
	for (size_t i = 0; i < POOL_CHUNK; i++) {
		evq_timer_init(&ev[i], NULL, NULL, 0);
		ev[i].pooled = 1;
		evq_pool_put(p, &ev[i]);
	}
	return 0;
}

void evq_pool_release(struct evq_pool *p)
{
	mem_arena_free(&p->mem);
	p->free = NULL;
}
