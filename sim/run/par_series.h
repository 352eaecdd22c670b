/*
 * A split run's time series, merged (see par_series.c).
 */
#ifndef ROCESIM_PAR_SERIES_H
#define ROCESIM_PAR_SERIES_H

#include <stdint.h>
#include <stdio.h>

#include "sim/run/par_buf.h"

/* All of @f (NULL: nothing) into @out (malloc'ed). 0, -EIO or -ENOMEM. */
int par_series_read(FILE *f, struct par_buf *out);
/*
 * The @n parts' tagged rows (a tag of @tag characters, then a tab), one
 * sample (ended by a line "=") after another, in the tags' order, into
 * @out untagged. 0, -EIO (a part's rows cut short, a write) or -ENOMEM.
 */
int par_series_merge(const struct par_buf *parts, uint32_t n, FILE *out, size_t tag);

#endif
