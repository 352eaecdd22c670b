/*
 * Flow-size CDF files: one "size_bytes cumulative_percent" point a line,
 * as HPCC's traffic_gen reads the published distributions (WebSearch,
 * Hadoop), with '#' comment lines and blank lines allowed. Sizes and
 * percents never decrease; the first point is at 0 %, the last at 100 %.
 */
#ifndef ROCESIM_CDF_H
#define ROCESIM_CDF_H

#include "models/traffic.h"
#include "sim/engine/diag.h"

/*
 * Read @path (as every input file is read: sim/engine/textfile.h) into
 * @c (free it with wl_cdf_free). 0, -EINVAL with @d naming the file, the
 * line and @key (the scenario key that names the file), or -ENOMEM.
 */
int cdf_read(const char *path, const char *key, struct wl_cdf *c, struct diag *d);
/* Same, from @text of @len bytes, named @path in errors. */
int cdf_parse(const char *path, const char *text, size_t len, const char *key, struct wl_cdf *c,
	      struct diag *d);

#endif
