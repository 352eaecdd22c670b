/*
 * Memory for the large arrays a run walks at random: ports, queue pairs,
 * packets, the event calendar. A fabric of thousands of hosts touches
 * hundreds of megabytes of them at random, and with 4 KiB pages nearly
 * every access also misses the TLB; so an array of 2 MiB or more starts
 * on a 2 MiB boundary and is advised to the kernel as a candidate for
 * transparent huge pages (madvise(2) MADV_HUGEPAGE; Linux's
 * Documentation/admin-guide/mm/transhuge.rst). Where the kernel does not
 * take the advice, or has no such thing, the memory is the same, only
 * slower.
 */
#ifndef ROCESIM_MEM_H
#define ROCESIM_MEM_H

#include <stddef.h>

/* The size from which an array is put on huge pages. */
#define MEM_HUGE ((size_t)2 << 20)

/*
 * @n (0 counts as 1) zeroed objects of @size bytes, starting on a cache
 * line (on a huge page boundary from MEM_HUGE bytes on); freed with
 * free(). NULL when out of memory or when the size does not fit a size_t.
 */
void *mem_zalloc_lines(size_t n, size_t size);

/*
 * An arena of such memory for the many small hot structs of a fabric (a
 * switch's ports, a NIC): carved in order from zeroed blocks of 2 MiB on
 * huge pages (the first 256 KiB), so that thousands of them share a few
 * pages instead of a few thousand; all freed at once. The blocks are
 * mapped anew (zeroed by the kernel as their pages are first touched,
 * never cleared by hand). Zero-initialize the arena.
 */
struct mem_block;
struct mem_arena {
	struct mem_block *blocks;
	char *next;  /* the newest block's free space */
	size_t left; /* ... and its size */
};

/* @n (0 counts as 1) zeroed objects of @size bytes from @a, starting on a
 * cache line; NULL when out of memory. Not freed alone. */
void *mem_arena_lines(struct mem_arena *a, size_t n, size_t size);
/* Free all that @a handed out; @a is empty again. */
void mem_arena_free(struct mem_arena *a);

#endif
