/* Workloads: incast and permutation traffic expanded into flows. */
#include "models/workload.h"

#include <errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>

int wl_incast(uint32_t n_hosts, uint32_t senders, uint32_t receiver, uint64_t bytes,
	      simtime_t start, struct wl_flow **flows, uint32_t *n_flows)
{
	struct wl_flow *f;
	uint32_t n = 0;

	if (senders >= n_hosts || receiver >= n_hosts)
		return -EINVAL;
	f = calloc(senders, sizeof(*f));
	if (!f)
		return -ENOMEM;
	for (uint32_t h = 0; n < senders; h++) {
		if (h == receiver)
			continue;
		f[n++] =
		    (struct wl_flow){.src = h, .dst = receiver, .bytes = bytes, .start = start};
	}
	*flows = f;
	*n_flows = n;
	return 0;
}

int wl_permutation(uint32_t n_hosts, uint64_t bytes, simtime_t start, uint64_t seed,
		   struct wl_flow **flows, uint32_t *n_flows)
{
	struct wl_flow *f;
	uint32_t *dst;
	gsl_rng *r;

	if (n_hosts < 2)
		return -EINVAL;
	f = calloc(n_hosts, sizeof(*f));
	dst = malloc(n_hosts * sizeof(*dst));
	r = gsl_rng_alloc(gsl_rng_mt19937);
	if (!f || !dst || !r) {
		free(f);
		free(dst);
		if (r)
			gsl_rng_free(r);
		return -ENOMEM;
	}
	/* its own stream, so that the traffic does not shift with model draws */
	gsl_rng_set(r, (unsigned long)(seed ^ 0x5045524dULL));
	for (uint32_t i = 0; i < n_hosts; i++)
		dst[i] = i;
	gsl_ran_shuffle(r, dst, n_hosts, sizeof(*dst));
	/* a host never sends to itself: swap fixed points with a neighbour */
	for (uint32_t i = 0; i < n_hosts; i++) {
		if (dst[i] == i) {
			uint32_t j = (i + 1) % n_hosts, tmp = dst[i];

			dst[i] = dst[j];
			dst[j] = tmp;
		}
	}
	for (uint32_t i = 0; i < n_hosts; i++)
		f[i] = (struct wl_flow){.src = i, .dst = dst[i], .bytes = bytes, .start = start};
	gsl_rng_free(r);
	free(dst);
	*flows = f;
	*n_flows = n_hosts;
	return 0;
}
