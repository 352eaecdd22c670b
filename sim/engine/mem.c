/* Memory for large arrays on cache lines and huge pages (see mem.h). */
#define _DEFAULT_SOURCE /* madvise */
#include "sim/engine/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void *mem_zalloc_lines(size_t n, size_t size)
{
	size_t align = 64, bytes;
	void *p;

	if (!n)
		n = 1;
	if (__builtin_mul_overflow(n, size, &bytes) || bytes > SIZE_MAX - MEM_HUGE)
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
