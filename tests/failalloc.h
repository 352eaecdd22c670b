/*
 * Allocation failure injection for the out-of-memory tests. A binary
 * linked with failalloc.c and -Wl,--wrap=malloc,--wrap=calloc,--wrap=aligned_alloc,
 * --wrap=realloc,--wrap=strdup,--wrap=strndup,--wrap=mmap64 (anonymous
 * mappings: the arena's blocks) sends every such call of
 * its statically linked objects (rocesim's core library, the CLI, the
 * test) through a counter that can make one of them, or all from one on,
 * fail. Shared libraries (libc, jansson, libcyaml, GSL) allocate on their
 * own and never fail here.
 */
#ifndef ROCESIM_TEST_FAILALLOC_H
#define ROCESIM_TEST_FAILALLOC_H

/*
 * Fail the @nth allocation from now (1 = the next) and, with @persist,
 * every one after it; @nth 0 fails none. Counts start over. A binary that
 * never calls this takes the setting from ROCESIM_FAIL_ALLOC: "N" or "N+"
 * (persistent).
 */
void failalloc_set(long nth, int persist);
/* Allocations seen, and made to fail, since the last failalloc_set. */
long failalloc_seen(void);
long failalloc_failed(void);

#endif
