/*
 * Disjoint sets over the indices 0..n-1 in a caller's array (up[i] = i to
 * start): which ports a fast-forward's groups join, which switches a
 * split fabric's parts keep together. The lower index of two joined sets
 * stays the root, so a set's root is its lowest index.
 */
#ifndef ROCESIM_UNIONFIND_H
#define ROCESIM_UNIONFIND_H

#include <stdint.h>

/* The root of @x's set (halving the path on the way). */
static inline uint32_t uf_find(uint32_t *up, uint32_t x)
{
	while (up[x] != x) {
		up[x] = up[up[x]];
		x = up[x];
	}
	return x;
}

/* Join the sets of @a and @b. */
static inline void uf_join(uint32_t *up, uint32_t a, uint32_t b)
{
	a = uf_find(up, a);
	b = uf_find(up, b);
	if (a != b)
		up[a > b ? a : b] = a < b ? a : b;
}

#endif
