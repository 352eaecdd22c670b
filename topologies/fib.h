/*
 * fib: one node's forwarding table, read off the fabric's routes
 * (topo_next_hops) once, so that forwarding a packet reads one entry of
 * the node's own and its small table of port sets, not the routes' shared
 * per-host and per-group tables (three or four dependent loads, each a
 * miss on a large fabric). The same ports in the same order as
 * topo_next_hops gives, so the ECMP choice is the same.
 */
#ifndef ROCESIM_TOPOLOGIES_FIB_H
#define ROCESIM_TOPOLOGIES_FIB_H

#include <stdint.h>

#include "topologies/topo.h"

/* A run of a table's ports: hops[off .. off + count - 1]. */
struct topo_fib_set {
	uint16_t off, count;
};

/* A node's table: set[entry[h]] holds the ports towards host h. */
struct topo_fib {
	uint32_t n_hosts;
	uint8_t *entry; /* [host] index into set; 0: no route */
	struct topo_fib_set *set;
	uint16_t *hops;
};

/*
 * The table of @node over @r, for hosts 0..@n_hosts-1, into @out; -ENOMEM,
 * or -E2BIG when the node has more than 255 port sets or 65,535 ports in them
 * (forwarding then asks topo_next_hops).
 */
int topo_fib_build(const struct topo_routes *r, uint32_t node, uint32_t n_hosts,
		   struct topo_fib *out);
void topo_fib_free(struct topo_fib *f);

/* Ports towards host @dst (below n_hosts), as topo_next_hops gives them. */
static inline const uint16_t *topo_fib_hops(const struct topo_fib *f, uint32_t dst, uint32_t *count)
{
	const struct topo_fib_set *s = &f->set[f->entry[dst]];

	*count = s->count;
	return f->hops + s->off;
}

#endif
