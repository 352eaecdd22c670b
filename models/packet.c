/* Packets: the pool behind pkt_alloc, grown in chunks, freed at the end. */
#include "models/packet.h"

#include <stdlib.h>

#include "sim/engine/mem.h"

/*
 * The pool grows by chunks that double, from 4,096 packets (256 KiB) to
 * the most that fit 2 MiB with the chunk's link: a small run stays small,
 * and a large one's packets, touched at random, sit on huge pages.
 */
#define PKT_CHUNK_FIRST 4096
#define PKT_CHUNK_MAX ((MEM_HUGE - sizeof(struct pkt)) / sizeof(struct pkt))

struct pkt_chunk {
	struct pkt_chunk *next;
	struct pkt p[];
};

struct pkt *pkt_alloc(struct pkt_pool *pool)
{
	struct pkt *p;

	if (!pool->free) {
		size_t n = pool->cap < PKT_CHUNK_FIRST ? PKT_CHUNK_FIRST : pool->cap;
		struct pkt_chunk *c;

		if (n > PKT_CHUNK_MAX)
			n = PKT_CHUNK_MAX;
		c = mem_zalloc_lines(n + 1, sizeof(struct pkt)); /* the link, then n */

		if (!c)
			return NULL;
		c->next = pool->chunks;
		pool->chunks = c;
		pool->cap += n;
		for (size_t i = 0; i < n; i++) {
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
	pool->cap = 0;
}
