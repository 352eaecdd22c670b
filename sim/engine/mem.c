/* Memory for large arrays, and an arena for small hot structs, on cache
 * lines and huge pages (see mem.h). */
#define _DEFAULT_SOURCE /* madvise */
#include "sim/engine/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define LINE ((size_t)64)

/* The bytes of @n (0 counts as 1) objects of @size in @bytes; 0 when
 * they do not fit a size_t with room to round up to MEM_HUGE. */
static int size_fits(size_t n, size_t size, size_t *bytes)
{
	if (__builtin_mul_overflow(n ? n : 1, size, bytes))
		return 0;
	return *bytes <= SIZE_MAX - MEM_HUGE;
}

void *mem_zalloc_lines(size_t n, size_t size)
{
	size_t align = LINE, bytes;
	void *p;

	if (!size_fits(n, size, &bytes))
		return NULL;
	if (bytes >= MEM_HUGE)
		align = MEM_HUGE;
	bytes = (bytes + align - 1) & ~(align - 1); /* aligned_alloc: a multiple of it */
	p = aligned_alloc(align, bytes);
	if (!p)
		return NULL;
#ifdef MADV_HUGEPAGE
	if (align == MEM_HUGE)
		(void)madvise(p, bytes, MADV_HUGEPAGE); /* advice: a refusal changes nothing */
#endif
	memset(p, 0, bytes);
	return p;
}

/* A block's first line: the link to the one before, and its size. */
struct mem_block {
	struct mem_block *next;
	size_t bytes;
};

/*
 * A block of @bytes (a multiple of LINE) mapped anew, on a huge page
 * boundary from MEM_HUGE bytes on, or NULL. The kernel gives it zeroed,
 * page by page as it is first touched (mmap(2)): a small fabric neither
 * clears nor faults in the part of a block it never uses.
 */
static struct mem_block *block_map(size_t bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), align, head, len;
	struct mem_block *b;
	char *m;

	bytes = (bytes + page - 1) / page * page; /* what munmap cuts is whole pages */
	align = bytes >= MEM_HUGE ? MEM_HUGE : 0;
	len = bytes + align;
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	head = align ? (align - (uintptr_t)m % align) % align : 0;
	if (head)
		munmap(m, head);
	if (len - head > bytes)
		munmap(m + head + bytes, len - head - bytes);
	b = (struct mem_block *)(m + head);
#ifdef MADV_HUGEPAGE
	if (align)
		(void)madvise(b, bytes, MADV_HUGEPAGE); /* advice: a refusal changes nothing */
#endif
	b->bytes = bytes;
	return b;
}

void *mem_arena_lines(struct mem_arena *a, size_t n, size_t size)
{
	size_t bytes;
	void *p;

	if (!size_fits(n, size, &bytes))
		return NULL;
	bytes = (bytes + LINE - 1) & ~(LINE - 1);
	if (bytes > a->left) {
		/* a new block (what the last one had left stays unused); the
		 * first one small, so that a small fabric stays small */
		size_t chunk = a->blocks ? MEM_HUGE : MEM_HUGE / 8;
		size_t block = bytes + LINE > chunk ? bytes + LINE : chunk;
		struct mem_block *b = block_map(block);

		if (!b)
			return NULL;
		b->next = a->blocks;
		a->blocks = b;
		a->next = (char *)b + LINE;
		a->left = block - LINE;
	}
	p = a->next;
	a->next += bytes;
	a->left -= bytes;
	return p;
}

void mem_arena_free(struct mem_arena *a)
{
	while (a->blocks) {
		struct mem_block *b = a->blocks;

		a->blocks = b->next;
		munmap(b, b->bytes);
	}
	a->next = NULL;
	a->left = 0;
}
