/*
 * evq_pool: chunks of one-off events for the queue's free list.
 */
#include "sim/engine/evq_pool.h"

#include <errno.h>
#include <stdlib.h>

#define POOL_CHUNK 1024

struct evq_pool_chunk {
	struct evq_pool_chunk *next;
	struct evq_timer ev[POOL_CHUNK];
};

int evq_pool_grow(struct evq_pool *p)
{
	struct evq_pool_chunk *c = malloc(sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->next = p->chunks;
	p->chunks = c;
	for (size_t i = 0; i < POOL_CHUNK; i++) {
		evq_timer_init(&c->ev[i], NULL, NULL, 0);
		c->ev[i].pooled = 1;
		evq_pool_put(p, &c->ev[i]);
	}
	return 0;
}

void evq_pool_release(struct evq_pool *p)
{
	while (p->chunks) {
		struct evq_pool_chunk *c = p->chunks;

		p->chunks = c->next;
		free(c);
	}
	p->free = NULL;
}
