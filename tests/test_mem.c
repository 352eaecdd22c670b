/* Memory for large arrays: cache-line and huge-page alignment, zeroing,
 * sizes that do not fit; the arena for small structs; the packet pool's
 * chunks grown on it. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "sim/engine/mem.h"
#include "models/packet.h"

static int all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

Test(mem, small_arrays_start_a_cache_line_and_are_zeroed)
{
	unsigned char *p = mem_zalloc_lines(3, 40), *q = mem_zalloc_lines(0, 8);

	cr_assert_not_null(p);
	cr_assert_not_null(q);
	cr_assert_eq((uintptr_t)p % 64, 0);
	cr_assert_eq((uintptr_t)q % 64, 0);
	cr_assert(all_zero(p, 120));
	cr_assert(all_zero(q, 8)); /* n = 0 is one object */
	free(p);
	free(q);
}

Test(mem, arrays_from_two_mib_start_a_huge_page_and_are_zeroed)
{
	size_t n = MEM_HUGE / 64 + 1; /* one line beyond 2 MiB */
	unsigned char *p = mem_zalloc_lines(n, 64);

	cr_assert_not_null(p);
	cr_assert_eq((uintptr_t)p % MEM_HUGE, 0);
	cr_assert(all_zero(p, n * 64));
	p[n * 64 - 1] = 1; /* the whole size is there (ASan checks) */
	free(p);
}

Test(mem, sizes_beyond_a_size_t_are_refused)
{
	cr_assert_null(mem_zalloc_lines(SIZE_MAX / 2, 4));
	cr_assert_null(mem_zalloc_lines(1, SIZE_MAX - 100));
}

Test(mem, an_arena_hands_out_zeroed_lines_in_order)
{
	struct mem_arena a = {0};
	unsigned char *p = mem_arena_lines(&a, 3, 40), *q = mem_arena_lines(&a, 1, 64);
	unsigned char *r = mem_arena_lines(&a, 0, 1);

	cr_assert_not_null(p);
	cr_assert_eq((uintptr_t)p % 64, 0);
	cr_assert_eq(q, p + 128); /* 120 bytes take two lines */
	cr_assert_eq(r, q + 64);
	cr_assert(all_zero(p, 256));
	mem_arena_free(&a);
	cr_assert_null(a.blocks);
	cr_assert_eq(a.left, 0);
}

Test(mem, an_arena_starts_new_blocks_and_takes_what_exceeds_one)
{
	struct mem_arena a = {0};
	size_t big = 3 * MEM_HUGE;
	unsigned char *p = mem_arena_lines(&a, 1, 64), *q = mem_arena_lines(&a, big, 1), *r;

	cr_assert_not_null(p);
	cr_assert_not_null(q);
	cr_assert_eq((uintptr_t)q % 64, 0);
	cr_assert(all_zero(q, big));
	q[big - 1] = 1;		     /* the whole size is there (ASan checks) */
	for (int i = 0; i < 40; i++) /* 40 x 100 KB: more blocks of 2 MiB */
		cr_assert_not_null(r = mem_arena_lines(&a, 1000, 100));
	r[100000 - 1] = 1;
	/* the last block is a huge page's: its link on the boundary */
	cr_assert_eq((uintptr_t)a.blocks % MEM_HUGE, 0);
	cr_assert_eq((uintptr_t)r / MEM_HUGE, (uintptr_t)a.blocks / MEM_HUGE);
	cr_assert_null(mem_arena_lines(&a, SIZE_MAX / 2, 4));
	mem_arena_free(&a); /* LeakSanitizer sees every block freed */
}

Test(mem, the_packet_pool_grows_by_doubling_chunks_up_to_two_mib)
{
	struct pkt_pool pool = {0};
	static struct pkt *held[100000];
	uint64_t caps[8], n_caps = 0, last = 0;

	for (size_t i = 0; i < 100000; i++) {
		held[i] = pkt_alloc(&pool);
		cr_assert_not_null(held[i]);
		cr_assert_eq((uintptr_t)held[i] % 64, 0);
		if (pool.cap != last)
			caps[n_caps++] = last = pool.cap;
	}
	/* 4,096, then doubling, then chunks of (2 MiB - the link) / 64 */
	cr_assert_eq(n_caps, 7);
	cr_assert_eq(caps[0], 4096);
	cr_assert_eq(caps[1], 8192);
	cr_assert_eq(caps[2], 16384);
	cr_assert_eq(caps[3], 32768);
	cr_assert_eq(caps[4], 32768 + 32767);
	cr_assert_eq(caps[5], 32768 + 2 * 32767);
	cr_assert_eq(caps[6], 32768 + 3 * 32767);
	cr_assert_eq(pool.live, 100000);
	for (size_t i = 0; i < 100000; i++)
		pkt_free(&pool, held[i]);
	cr_assert_eq(pool.live, 0);
	cr_assert_eq(pool.peak, 100000);
	pkt_pool_destroy(&pool);
	cr_assert_eq(pool.cap, 0);
}
