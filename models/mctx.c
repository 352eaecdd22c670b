/* The model context (see mctx.h): the names of the PFC events, and
 * memory on cache lines for the models' hot structs. */
#include "models/mctx.h"

#include <stdlib.h>
#include <string.h>

void *mctx_zalloc_lines(size_t n, size_t size)
{
	size_t bytes;
	void *p;

	if (!n)
		n = 1;
	if (__builtin_mul_overflow(n, size, &bytes) || bytes > SIZE_MAX - 63)
		return NULL;
	bytes = (bytes + 63) & ~(size_t)63; /* aligned_alloc: a multiple of the alignment */
	p = aligned_alloc(64, bytes);
	if (p)
		memset(p, 0, bytes);
	return p;
}

const char *pfc_event_str(enum pfc_event ev)
{
	static const char *const names[] = {
		[PFC_EV_XOFF] = "xoff",
		[PFC_EV_REFRESH] = "refresh",
		[PFC_EV_XON] = "xon",
		[PFC_EV_RX_PAUSE] = "rx_pause",
		[PFC_EV_RX_RESUME] = "rx_resume",
		[PFC_EV_PAUSED] = "paused",
		[PFC_EV_UNPAUSED] = "unpaused",
		[PFC_EV_STORM] = "storm",
		[PFC_EV_WD_TRIGGER] = "watchdog_trigger",
		[PFC_EV_WD_RESTORE] = "watchdog_restore",
	};

	return names[ev];
}
