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

/* A table names at most this many lists (set 0: no route), by a byte. */
#define FIB_SETS 256
/* Slots of the map of lists met: never more than half in use. */
#define FIB_SLOTS (2 * FIB_SETS)

/* A list of ports met so far (a run of the routes' array): its set index. */
struct fib_seen {
	const uint16_t *hops; /* NULL: a free slot */
	uint32_t count;
	uint32_t set;
	uint64_t hash;
};

static uint64_t fib_hash(const uint16_t *hops, uint32_t count)
{
	uint64_t x = count;

	for (uint32_t i = 0; i < count; i++)
		x = (x ^ hops[i]) * 0x9e3779b97f4a7c15ULL;
	return x ^ (x >> 29);
}

/* The slot of @map holding the list @hops[0..@count-1], or the free one where it goes. */
static struct fib_seen *fib_slot_of(struct fib_seen *map, const uint16_t *hops, uint32_t count,
				    uint64_t hash)
{
	uint32_t i = (uint32_t)(hash >> 32) % FIB_SLOTS;

	while (map[i].hops && (map[i].hash != hash || map[i].count != count ||
			       memcmp(map[i].hops, hops, count * sizeof(*hops))))
		i = (i + 1) % FIB_SLOTS;
	return &map[i];
}

/* @f's ports grown to hold @count more after the @n_hops it has. */
static int fib_reserve_hops(struct topo_fib *f, uint32_t n_hops, uint32_t *hop_cap, uint32_t count)
{
	uint32_t need = n_hops + count, cap = *hop_cap * 2 > need ? *hop_cap * 2 : need;
	uint16_t *h;

	if (need > UINT16_MAX)
		return -E2BIG;
	if (need <= *hop_cap)
		return 0;
	h = realloc(f->hops, cap * sizeof(*h));
	if (!h)
		return -ENOMEM;
	f->hops = h;
	*hop_cap = cap;
	return 0;
}

int topo_fib_build(const struct topo_routes *r, uint32_t node, uint32_t n_hosts,
		   struct topo_fib *out)
{
	struct topo_fib f = {.n_hosts = n_hosts};
	struct fib_seen *map, last = {0};
	uint32_t n_sets = 1, n_hops = 0, hop_cap = 64;
	int err = -ENOMEM;

	memset(out, 0, sizeof(*out));
	f.entry = calloc(n_hosts ? n_hosts : 1, sizeof(*f.entry));
	f.set = malloc(FIB_SETS * sizeof(*f.set));
	f.hops = malloc(hop_cap * sizeof(*f.hops));
	map = calloc(FIB_SLOTS, sizeof(*map));
	if (!f.entry || !f.set || !f.hops || !map)
		goto out_free;
	f.set[0] = (struct topo_fib_set){0, 0}; /* no route */
	for (uint32_t h = 0; h < n_hosts; h++) {
		uint32_t count;
		const uint16_t *hops = topo_next_hops(r, node, h, &count);
		struct fib_seen *seen;
		uint64_t hash;

		if (!count)
			continue;
		if (hops == last.hops && count == last.count) { /* neighbours share runs */
			f.entry[h] = (uint8_t)last.set;
			continue;
		}
		hash = fib_hash(hops, count);
		seen = fib_slot_of(map, hops, count, hash);
		if (!seen->hops) {
			err = n_sets == FIB_SETS ? -E2BIG
						 : fib_reserve_hops(&f, n_hops, &hop_cap, count);
			if (err)
				goto out_free;
			memcpy(f.hops + n_hops, hops, count * sizeof(*hops));
			f.set[n_sets] = (struct topo_fib_set){(uint16_t)n_hops, (uint16_t)count};
			n_hops += count;
			*seen = (struct fib_seen){hops, count, n_sets++, hash};
		}
		f.entry[h] = (uint8_t)seen->set;
		/* this run, which the next host's may be, not the first of its contents */
		last = (struct fib_seen){hops, count, seen->set, hash};
	}
	free(map);
	*out = f;
	return 0;

out_free:
	free(map);
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
