/* Traffic from a flow-size distribution at a load (see traffic.h). */
#include "models/traffic.h"

#include <errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

double wl_cdf_mean(const struct wl_cdf *c)
{
	double mean = 0;

	/* a uniform share of each segment's probability, at its midpoint */
	for (uint32_t i = 1; i < c->n; i++)
		mean += (c->prob[i] - c->prob[i - 1]) * (c->size[i] + c->size[i - 1]) / 2;
	return mean;
}

double wl_cdf_size_at(const struct wl_cdf *c, double u)
{
	uint32_t i = 1;

	if (!c->n)
		return 0;
	while (i < c->n && c->prob[i] < u)
		i++;
	if (i >= c->n)
		return c->size[c->n - 1];
	if (c->prob[i] <= c->prob[i - 1])
		return c->size[i];
	return c->size[i - 1] +
	       (c->size[i] - c->size[i - 1]) * (u - c->prob[i - 1]) / (c->prob[i] - c->prob[i - 1]);
}

void wl_cdf_free(struct wl_cdf *c)
{
	free(c->size);
	free(c->prob);
	c->size = c->prob = NULL;
	c->n = 0;
}

/* Flows by start time, then source (a host's arrivals never tie), then the rest. */
static int by_start(const void *a, const void *b)
{
	const struct wl_flow *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

int wl_poisson(const struct wl_poisson_spec *sp, struct wl_flow **flows, uint32_t *n_flows,
	       uint64_t *offered)
{
	double mean = sp->cdf ? wl_cdf_mean(sp->cdf) : 0;
	struct wl_flow *f = NULL;
	size_t n = 0, cap = 0;
	uint64_t bytes = 0;
	gsl_rng *r;

	*flows = NULL;
	*n_flows = 0;
	*offered = 0;
	if (sp->n_hosts < 2 || !(sp->load > 0) || !(mean > 0))
		return -EINVAL;
	r = gsl_rng_alloc(gsl_rng_mt19937);
	if (!r)
		return -ENOMEM;
	/* its own stream, so that the traffic does not shift with model draws */
	gsl_rng_set(r, (unsigned long)(sp->seed ^ 0x504f4953ULL));
	for (uint32_t h = 0; h < sp->n_hosts; h++) {
		/* mean gap in ps: mean_size x 8 bits / (rate x load) */
		double gap = mean * 8.0 / ((double)sp->rate_bps[h] * sp->load) * 1e12;
		double t = 0;
		size_t first = n;

		for (;;) {
			uint32_t peer;
			double size;

			t += gsl_ran_exponential(r, gap);
			if (t >= (double)sp->duration)
				break;
			size = floor(wl_cdf_size_at(sp->cdf, gsl_rng_uniform(r)));
			peer = (uint32_t)gsl_rng_uniform_int(r, sp->n_hosts - 1);
			peer += peer >= h;
			if (n == cap) {
				struct wl_flow *g;

				cap = cap ? 2 * cap : 1024;
				if (cap > UINT32_MAX || !(g = realloc(f, cap * sizeof(*g)))) {
					free(f);
					gsl_rng_free(r);
					return -ENOMEM;
				}
				f = g;
			}
			f[n] = (struct wl_flow){.src = sp->hosts[h],
						.dst = sp->hosts[peer],
						.bytes = size >= 1 ? (uint64_t)size : 1,
						.start = sp->start + (simtime_t)llround(t)};
			bytes += f[n++].bytes;
		}
		/* the same draws either way: only the host's last flow goes */
		if (sp->drop_last && n > first)
			bytes -= f[--n].bytes;
	}
	gsl_rng_free(r);
	if (n)
		qsort(f, n, sizeof(*f), by_start);
	*flows = f;
	*n_flows = (uint32_t)n;
	*offered = bytes;
	return 0;
}
