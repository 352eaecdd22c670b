/*
 * fib: a node's forwarding table read off the fabric's routes (see fib.h).
 *
 * topo_next_hops answers every (node, host) with a run of the routes'
 * shared port array. The runs' contents a node meets are few (an edge
 * switch: one port per host below it and its uplinks for all others; a
 * core switch: one port per pod), though the routes may hold them as many
 * runs; the table keeps each distinct list of ports once, found by its
 * contents in a small open-addressing map while the table is built.
 */
#include "topologies/fib.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A list of ports met so far (a run of the routes' array): its set index. */
struct fib_seen {
	const uint16_t *hops; /* NULL: a free slot */
	uint32_t count;
	uint32_t set;
	uint64_t hash;
};

struct fib_map {
	struct fib_seen *slot;
	uint32_t mask, used;
};

static uint64_t fib_hash(const uint16_t *hops, uint32_t count)
{
	uint64_t x = count;

	for (uint32_t i = 0; i < count; i++)
		x = (x ^ hops[i]) * 0x9e3779b97f4a7c15ULL;
	return x ^ (x >> 29);
}

/* The slot holding the list @hops[0..@count-1] of hash @hash, or the free one where it goes. */
static uint32_t fib_slot_of(const struct fib_map *m, const uint16_t *hops, uint32_t count,
			    uint64_t hash)
{
	uint32_t i = (uint32_t)(hash >> 32) & m->mask;

	while (m->slot[i].hops && (m->slot[i].hash != hash || m->slot[i].count != count ||
				   memcmp(m->slot[i].hops, hops, count * sizeof(*hops))))
		i = (i + 1) & m->mask;
	return i;
}

/* Double @m's slots, keeping what it holds. */
static int fib_map_grow(struct fib_map *m)
{
	struct fib_map bigger = {.mask = m->mask * 2 + 1, .used = m->used};

	bigger.slot = calloc((size_t)bigger.mask + 1, sizeof(*bigger.slot));
	if (!bigger.slot)
		return -ENOMEM;
	for (uint32_t i = 0; i <= m->mask; i++)
		if (m->slot[i].hops)
			bigger.slot[fib_slot_of(&bigger, m->slot[i].hops, m->slot[i].count,
						m->slot[i].hash)] = m->slot[i];
	free(m->slot);
	*m = bigger;
	return 0;
}

/* Grow @f's sets and ports to hold one more set of @count ports. */
static int fib_reserve(struct topo_fib *f, uint32_t n_sets, uint32_t *set_cap, uint32_t n_hops,
		       uint32_t *hop_cap, uint32_t count)
{
	if (n_sets > UINT8_MAX || n_hops + count > UINT16_MAX)
		return -E2BIG;
	if (n_sets == *set_cap) {
		uint32_t cap = *set_cap * 2;
		struct topo_fib_set *s = realloc(f->set, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		f->set = s;
		*set_cap = cap;
	}
	if (n_hops + count > *hop_cap) {
		uint32_t cap = *hop_cap * 2 > n_hops + count ? *hop_cap * 2 : n_hops + count;
		uint16_t *h = realloc(f->hops, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		f->hops = h;
		*hop_cap = cap;
	}
	return 0;
}

int topo_fib_build(const struct topo_routes *r, uint32_t node, uint32_t n_hosts,
		   struct topo_fib *out)
{
	struct topo_fib f = {.n_hosts = n_hosts};
	struct fib_map m = {.mask = 63};
	struct fib_seen last = {0};
	uint32_t n_sets = 1, set_cap = 16, n_hops = 0, hop_cap = 64;
	int err = -ENOMEM;

	memset(out, 0, sizeof(*out));
	f.entry = calloc(n_hosts ? n_hosts : 1, sizeof(*f.entry));
	f.set = malloc(set_cap * sizeof(*f.set));
	f.hops = malloc(hop_cap * sizeof(*f.hops));
	m.slot = calloc((size_t)m.mask + 1, sizeof(*m.slot));
	if (!f.entry || !f.set || !f.hops || !m.slot)
		goto out_free;
	f.set[0] = (struct topo_fib_set){0, 0}; /* no route */
	for (uint32_t h = 0; h < n_hosts; h++) {
		uint32_t count, i;
		const uint16_t *hops = topo_next_hops(r, node, h, &count);
		uint64_t hash;

		if (!count)
			continue;
		if (hops == last.hops && count == last.count) { /* neighbours share runs */
			f.entry[h] = (uint8_t)last.set;
			continue;
		}
		hash = fib_hash(hops, count);
		i = fib_slot_of(&m, hops, count, hash);
		if (!m.slot[i].hops) {
			err = fib_reserve(&f, n_sets, &set_cap, n_hops, &hop_cap, count);
			if (err)
				goto out_free;
			memcpy(f.hops + n_hops, hops, count * sizeof(*hops));
			f.set[n_sets] = (struct topo_fib_set){(uint16_t)n_hops, (uint16_t)count};
			n_hops += count;
			m.slot[i] = (struct fib_seen){hops, count, n_sets++, hash};
			if (++m.used * 2 > m.mask && fib_map_grow(&m)) {
				err = -ENOMEM;
				goto out_free;
			}
			i = fib_slot_of(&m, hops, count, hash);
		}
		f.entry[h] = (uint8_t)m.slot[i].set;
		last = (struct fib_seen){hops, count, m.slot[i].set, hash};
	}
	free(m.slot);
	*out = f;
	return 0;

out_free:
	free(m.slot);
	topo_fib_free(&f);
	return err;
}

void topo_fib_free(struct topo_fib *f)
{
	free(f->entry);
	free(f->set);
	free(f->hops);
	memset(f, 0, sizeof(*f));
}
