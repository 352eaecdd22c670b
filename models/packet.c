/* Packets: the pool behind pkt_alloc, grown in chunks, freed at the end. */
#include "models/packet.h"

#include <stdlib.h>

#define PKT_CHUNK 4096

struct pkt_chunk {
	struct pkt_chunk *next;
	struct pkt p[PKT_CHUNK];
};

struct pkt *pkt_alloc(struct pkt_pool *pool)
{
	struct pkt *p;

	if (!pool->free) {
		struct pkt_chunk *c = aligned_alloc(64, sizeof(*c));

		if (!c)
			return NULL;
		c->next = pool->chunks;
		pool->chunks = c;
		for (size_t i = 0; i < PKT_CHUNK; i++) {
			c->p[i].next = pool->free;
			pool->free = &c->p[i];
		}
	}
	p = pool->free;
	pool->free = p->next;
	if (++pool->live > pool->peak)
		pool->peak = pool->live;
	return p;
}

void pkt_pool_destroy(struct pkt_pool *pool)
{
	while (pool->chunks) {
		struct pkt_chunk *c = pool->chunks;

		pool->chunks = c->next;
		free(c);
	}
	pool->free = NULL;
}
