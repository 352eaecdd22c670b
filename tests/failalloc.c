/* Allocation failure injection (failalloc.h). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "failalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_aligned_alloc(size_t align, size_t size);
void *__real_realloc(void *p, size_t size);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void *__real_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off);
void *__wrap_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_aligned_alloc(size_t align, size_t size);
void *__wrap_realloc(void *p, size_t size);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

static struct {
	int set; /* set, from failalloc_set or the environment */
	int persist;
	long nth; /* 0: fail none */
	long seen, failed;
} fa;

void failalloc_set(long nth, int persist)
{
	fa.set = 1;
	fa.nth = nth;
	fa.persist = persist;
	fa.seen = 0;
	fa.failed = 0;
}

long failalloc_seen(void)
{
	return fa.seen;
}

long failalloc_failed(void)
{
	return fa.failed;
}

/* Whether this allocation fails (and errno ENOMEM, as malloc sets it). */
static int fail_this(void)
{
	if (!fa.set) {
		const char *e = getenv("ROCESIM_FAIL_ALLOC");
		char *end = NULL;

		fa.set = 1;
		if (e && *e) {
			fa.nth = strtol(e, &end, 10);
			fa.persist = end && *end == '+';
		}
	}
	fa.seen++;
	if (!fa.nth || fa.seen < fa.nth || (fa.seen > fa.nth && !fa.persist))
		return 0;
	fa.failed++;
	errno = ENOMEM;
	return 1;
}

void *__wrap_malloc(size_t size)
{
	return fail_this() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return fail_this() ? NULL : __real_calloc(n, size);
}

void *__wrap_aligned_alloc(size_t align, size_t size)
{
	return fail_this() ? NULL : __real_aligned_alloc(align, size);
}

void *__wrap_realloc(void *p, size_t size)
{
	return fail_this() ? NULL : __real_realloc(p, size);
}

char *__wrap_strdup(const char *s)
{
	return fail_this() ? NULL : __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
	return fail_this() ? NULL : __real_strndup(s, n);
}

/* An anonymous mapping is an allocation (the arena's blocks, mem.c); the
 * build's 64-bit file offsets make mmap mmap64. */
void *__wrap_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if ((flags & MAP_ANONYMOUS) && fail_this()) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	return __real_mmap64(addr, len, prot, flags, fd, off);
}
