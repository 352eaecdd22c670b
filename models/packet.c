/* Packets: the pool behind pkt_alloc, grown in chunks, freed at the end. */
#include "models/packet.h"

/*
 * The pool grows by chunks that double, from 4,096 packets (256 KiB) to
 * what fits a 2 MiB block of its arena: a small run stays small, and a
 * large one's packets, touched at random, sit on huge pages.
 */
#define PKT_CHUNK_FIRST 4096
#define PKT_CHUNK_MAX ((MEM_HUGE - sizeof(struct pkt)) / sizeof(struct pkt))

struct pkt *pkt_alloc(struct pkt_pool *pool)
{
	struct pkt *p;

	if (!pool->free) {
		size_t n = pool->cap < PKT_CHUNK_FIRST ? PKT_CHUNK_FIRST : pool->cap;
		struct pkt *c;

		if (n > PKT_CHUNK_MAX)
			n = PKT_CHUNK_MAX;
		c = mem_arena_lines(&pool->mem, n, sizeof(*c));
		if (!c)
			return NULL;
		pool->cap += n;
		for (size_t i = 0; i < n; i++) {
			c[i].next = pool->free;
			pool->free = &c[i];
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
	mem_arena_free(&pool->mem);
	pool->free = NULL;
	pool->cap = 0;
}
