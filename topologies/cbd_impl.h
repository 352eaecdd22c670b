/*
 * What the two files of the cyclic buffer dependency analysis share: cbd.c
 * builds the graph of the fabric, cbd_cycles.c finds its cycles; the edge
 * set is both's.
 */
#ifndef ROCESIM_CBD_IMPL_H
#define ROCESIM_CBD_IMPL_H

#include "topologies/cbd.h"

#define CBD_NONE UINT32_MAX

/* A set of edges (from << 32 | to): open addressing, linear probing. */
struct cbd_set {
	uint64_t *keys;
	size_t cap; /* power of two */
	size_t n;
};

/* cbd_cycles.c */
int cbd_set_init(struct cbd_set *s, size_t cap);
int cbd_set_add(struct cbd_set *s, uint64_t key);
int cbd_push_cycle(struct cbd_result *out, uint8_t prio, const uint32_t *nodes, uint32_t n);
int cbd_keys_cycles(uint64_t *keys, size_t m, uint32_t n, uint8_t prio, uint32_t max_cycles,
		    struct cbd_result *out);
int cbd_set_cycles(struct cbd_set *set, uint32_t n, uint8_t prio, uint32_t max_cycles,
		   struct cbd_result *out);

#endif
