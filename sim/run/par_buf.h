/*
 * A growing byte buffer: what the processes of a split run exchange and
 * gather (par.h), and the time-series rows they merge (par_series.h).
 */
#ifndef ROCESIM_PAR_BUF_H
#define ROCESIM_PAR_BUF_H

#include <stddef.h>

struct par_buf {
	char *data;
	size_t len, cap;
};

#endif
